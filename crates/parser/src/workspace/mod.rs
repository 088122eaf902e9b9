//! The set of documents behind one compile: the schema file, the files its `$ref`s reach, every
//! schema node in one table keyed by document and JSON value, and `$ref` resolution by full URI.
//!
//! The work is split by step: [`load`] reads files, [`keywords`] builds the schema table from
//! their JSON, [`ids`] scopes `$id`s, [`resolve`] follows `$ref`s and [`locate`] turns places in
//! the table into diagnostic locations.

mod ids;
mod keywords;
mod load;
mod locate;
mod resolve;

use rustc_hash::FxHashMap as HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use url::Url;

use crate::diagnostic::Diagnostic;
use crate::draft::Draft;
use crate::file::JsonFile;
use crate::json::{JsonDoc, JsonId, JsonValue};
use crate::schema::{DocId, Keywords, Schema, SchemaId, SchemaKind};

use load::RefRoot;
pub use load::{absolute_path, default_ref_root};

/// Most documents one compile may load through file references.
pub const MAX_DOCUMENTS: usize = 1_000;

/// How to read a schema and the files it refers to.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Overrides the draft named by `$schema` in the main document.
    pub draft: Option<Draft>,
    /// The folder that file references may read from. Without one, file references are errors.
    pub ref_root: Option<PathBuf>,
}

/// One schema document of a workspace: the [`JsonFile`] (name, bytes, parsed JSON, positions),
/// which it dereferences to, and what reading it as a schema adds, its base URI and draft.
#[derive(Debug, Clone)]
pub struct Document {
    file: JsonFile,
    /// Its base URI.
    pub url: Url,
    /// The draft it is read as.
    pub draft: Draft,
}

impl std::ops::Deref for Document {
    type Target = JsonFile;

    fn deref(&self) -> &JsonFile {
        &self.file
    }
}

/// All documents and schema nodes of one compile.
#[derive(Debug)]
pub struct Workspace {
    docs: Vec<Document>,
    schemas: Vec<Schema>,
    /// The base URI of each schema; shared, since nearly every node has its document's.
    bases: Vec<Arc<Url>>,
    by_json: HashMap<(DocId, JsonId), SchemaId>,
    by_uri: HashMap<String, SchemaId>,
    docs_by_url: HashMap<String, DocId>,
    diagnostics: Vec<Diagnostic>,
    /// Document-level diagnostics of referenced files, reported only when the file is used.
    doc_diagnostics: Vec<Vec<Diagnostic>>,
    pending_refs: Vec<SchemaId>,
    ref_root: Option<RefRoot>,
    main_draft: Draft,
}

impl Workspace {
    /// The main document's root schema, unless the main document is not JSON.
    pub fn root(&self) -> Option<SchemaId> {
        let doc = self.docs.first()?;
        let json = doc.json.as_ref()?;
        self.by_json.get(&(DocId(0), json.root())).copied()
    }

    /// The main document's draft.
    pub fn draft(&self) -> Draft {
        self.main_draft
    }

    /// The schema node `id`.
    pub fn schema(&self, id: SchemaId) -> Option<&Schema> {
        self.schemas.get(id.index())
    }

    /// How many schema nodes the workspace holds; every `SchemaId` is below it.
    pub fn schema_count(&self) -> usize {
        self.schemas.len()
    }

    /// The schema node built for the JSON value `at` of `doc`, if that value is a schema.
    pub fn schema_at(&self, doc: DocId, at: JsonId) -> Option<SchemaId> {
        self.by_json.get(&(doc, at)).copied()
    }

    /// The base URI in force at the schema node `id`.
    pub fn base(&self, id: SchemaId) -> Option<&Url> {
        self.bases.get(id.index()).map(|base| &**base)
    }

    /// The keywords of `id`, when it is an object schema.
    pub fn keywords(&self, id: SchemaId) -> Option<&Keywords> {
        match &self.schema(id)?.kind {
            SchemaKind::Object(k) => Some(k),
            _ => None,
        }
    }

    /// Every document, the main one first.
    pub fn documents(&self) -> &[Document] {
        &self.docs
    }

    /// The text of the document that diagnostics name `display`, when it is UTF-8.
    pub fn source_text(&self, display: &str) -> Option<&str> {
        self.docs
            .iter()
            .find(|doc| *doc.display == *display)
            .and_then(|doc| doc.text_str())
    }

    /// The texts of the documents, for drawing diagnostics; the parsed documents and the schema
    /// table are freed. A caller that has mapped the schema ([`Workspace::root`] onwards) and
    /// needs only to show diagnostics keeps this instead of the workspace, which on a large
    /// schema is several times the size of its text.
    pub fn into_source_texts(self) -> crate::SourceTexts {
        self.docs.into_iter().map(|doc| doc.file).collect()
    }

    /// The document `id`.
    pub fn document(&self, id: DocId) -> Option<&Document> {
        self.docs.get(id.0 as usize)
    }

    /// Document-level diagnostics: JSON syntax, duplicate keys and drafts. Problems of single
    /// schema nodes are in [`Schema::problems`].
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Document-level diagnostics of a referenced file (JSON syntax, duplicate keys, drafts),
    /// for the mapper to report once it uses the file. Empty for the main document, whose
    /// diagnostics are in [`Workspace::diagnostics`].
    pub fn document_diagnostics(&self, doc: DocId) -> &[Diagnostic] {
        self.doc_diagnostics
            .get(doc.0 as usize)
            .map_or(&[], Vec::as_slice)
    }

    /// The JSON value `at` of document `doc`.
    pub fn json_value(&self, doc: DocId, at: JsonId) -> &JsonValue {
        match self.document(doc).and_then(|d| d.json.as_ref()) {
            Some(json) => json.value(at),
            None => &JsonValue::Null,
        }
    }

    fn json(&self, doc: DocId) -> Option<&JsonDoc> {
        self.document(doc)?.json.as_deref()
    }
    /// The parsed JSON of `doc`, shared (an empty document when it is not JSON, which has no
    /// schema nodes to build).
    fn shared_json(&self, doc: DocId) -> Arc<JsonDoc> {
        self.document(doc)
            .and_then(|d| d.json.clone())
            .unwrap_or_default()
    }
}
