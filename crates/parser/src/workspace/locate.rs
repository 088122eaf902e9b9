//! Places in a workspace ([`Site`]s and JSON values) turned into diagnostic [`Location`]s: the
//! pointer, line and column are computed only when a diagnostic needs them.

use super::Workspace;
use crate::diagnostic::Location;
use crate::json::JsonId;
use crate::schema::{DocId, Property, SchemaId, Site};
use crate::span::Span;

impl Workspace {
    /// Where the JSON value `at` of `doc` is written.
    pub fn location(&self, doc: DocId, at: JsonId) -> Location {
        self.locate(Site::new(doc, at))
    }

    /// Where a schema node is written.
    pub fn schema_location(&self, id: SchemaId) -> Location {
        self.locate(self.schema_site(id))
    }

    /// Where the keyword value `at` in the same document as `schema` is written.
    pub fn keyword_location(&self, schema: SchemaId, at: JsonId) -> Location {
        match self.schema(schema) {
            Some(s) => self.location(s.doc, at),
            None => Location::default(),
        }
    }

    /// The [`Site`] of a schema node.
    pub fn schema_site(&self, id: SchemaId) -> Site {
        match self.schema(id) {
            Some(s) => Site::new(s.doc, s.at),
            None => Site::default(),
        }
    }

    /// The [`Site`] of the keyword value `at` in the same document as `schema`.
    pub fn keyword_site(&self, schema: SchemaId, at: JsonId) -> Site {
        match self.schema(schema) {
            Some(s) => Site::new(s.doc, at),
            None => Site::default(),
        }
    }

    /// The [`Site`] of a property: its schema's pointer, with the span of its name when the
    /// name and the schema are in one document (they are not when the schema is a `$ref`'s
    /// target elsewhere).
    pub fn property_site(&self, parent: SchemaId, property: &Property) -> Site {
        let site = self.schema_site(property.schema);
        match self.schema(parent) {
            Some(s) if s.doc == site.doc => Site {
                span: Some(property.name_span),
                ..site
            },
            _ => site,
        }
    }

    /// Turns a [`Site`] into a [`Location`]: the pointer and the line and column are computed
    /// here, so a site that no diagnostic needs costs nothing.
    pub fn locate(&self, site: Site) -> Location {
        let Some(d) = self.document(site.doc) else {
            return Location::default();
        };
        match &d.json {
            Some(json) => {
                let span = site.span.unwrap_or_else(|| json.span(site.at));
                d.locate(json.pointer(site.at), span)
            }
            None => d.locate(String::new(), Span::default()),
        }
    }
}
