//! `$id` scoping (`id` in draft-04): the base URI in force at each node, the URIs that `$id`s
//! register, and the explanation added to a dangling `$ref` whose base came from an `$id`.

use std::sync::Arc;

use url::Url;

use super::load::display_path;
use super::resolve::RefFailure;
use super::Workspace;
use crate::draft::Draft;
use crate::json::{JsonId, JsonValue, Member};
use crate::schema::{DocId, SchemaId};

impl Workspace {
    /// The base URI in force at `at`: the document's, changed by each `$id` on the way down.
    pub(super) fn base_at(&self, doc: DocId, at: JsonId) -> Url {
        let Some(d) = self.document(doc) else {
            return self
                .docs
                .first()
                .map(|d| d.url.clone())
                .unwrap_or_else(fallback_url);
        };
        let mut chain = Vec::new();
        if let Some(json) = &d.json {
            let mut cursor = Some(at);
            while let Some(node) = cursor {
                chain.push(node);
                cursor = json.node(node).and_then(|n| n.parent);
            }
        }
        let mut base = d.url.clone();
        for node in chain.into_iter().rev() {
            let beside_ref = self
                .json(doc)
                .and_then(|j| j.member(node, "$ref"))
                .is_some();
            if let Some(JsonValue::String(id)) = self
                .json(doc)
                .filter(|_| !beside_ref)
                .and_then(|j| j.member(node, d.draft.id_keyword()))
                .map(|m| self.json_value(doc, m.value))
            {
                if let Ok(joined) = base.join(id) {
                    if !id.starts_with('#') {
                        base = joined;
                        base.set_fragment(None);
                    }
                }
            }
        }
        base
    }

    /// Applies an `$id` (`id` in draft-04): registers the node under its URI and returns the
    /// base URI for what is below it.
    pub(super) fn enter_resource(
        &mut self,
        id: SchemaId,
        doc: DocId,
        members: &[Member],
        draft: Draft,
        base: &Arc<Url>,
    ) -> Arc<Url> {
        // Drafts 04–07 ignore every keyword beside `$ref`, `$id` included.
        if members.iter().any(|m| m.key == "$ref") {
            return Arc::clone(base);
        }
        let Some(member) = members.iter().find(|m| m.key == draft.id_keyword()) else {
            return Arc::clone(base);
        };
        let JsonValue::String(text) = self.json_value(doc, member.value).clone() else {
            return Arc::clone(base);
        };
        let Ok(joined) = base.join(&text) else {
            return Arc::clone(base);
        };
        match joined.fragment() {
            Some(fragment) if !fragment.is_empty() && !fragment.starts_with('/') => {
                self.by_uri.entry(joined.to_string()).or_insert(id);
            }
            _ => {}
        }
        if text.starts_with('#') {
            return Arc::clone(base);
        }
        let mut resource = joined;
        resource.set_fragment(None);
        self.by_uri.entry(resource.to_string()).or_insert(id);
        Arc::new(resource)
    }

    /// When the base that `from`'s reference was resolved against comes from an `$id` rather
    /// than the file's own place, says which `$id`, and whether the reference names an existing
    /// file against the file's own place: a relative `$id` that repeats a folder is a common
    /// cause of dangling references.
    pub(super) fn explain_id_base(&self, from: SchemaId, text: &str, failure: &mut RefFailure) {
        let (Some(schema), Some(base)) = (self.schema(from), self.bases.get(from.index())) else {
            return;
        };
        let Some(doc) = self.document(schema.doc) else {
            return;
        };
        if **base == doc.url {
            return;
        }
        let Some(json) = doc.json.as_deref() else {
            return;
        };
        // The nearest `$id` above the reference (one beside `$ref` is ignored, as drafts 04–07
        // say), and the line it is written on.
        let keyword = doc.draft.id_keyword();
        let mut cursor = json.node(schema.at).and_then(|n| n.parent);
        let mut found = None;
        while let Some(node) = cursor {
            if json.member(node, "$ref").is_none() {
                if let Some(member) = json.member(node, keyword) {
                    if let JsonValue::String(id_text) = json.value(member.value) {
                        if !id_text.starts_with('#') {
                            found = Some((id_text.clone(), member.key_span));
                            break;
                        }
                    }
                }
            }
            cursor = json.node(node).and_then(|n| n.parent);
        }
        let Some((id_text, span)) = found else {
            return;
        };
        let line = doc.line_of(span);
        failure.message.push_str(&format!(
            "; it was resolved against `{keyword}` \"{id_text}\" (line {line}), not against this file's own place"
        ));
        let own = doc
            .url
            .join(text)
            .ok()
            .and_then(|u| u.to_file_path().ok())
            // Only inside the reference root: what exists outside it is not ours to report.
            .filter(|p| {
                self.ref_root.as_ref().is_some_and(|root| {
                    p.starts_with(&root.absolute) || p.starts_with(&root.canonical)
                }) && p.is_file()
            });
        failure.help = Some(match own {
            Some(path) => format!(
                "against this file's own place, `{text}` names `{}`, which exists: bundle the schemas into one document (the registry needs one anyway), or write the `{keyword}`s and `$ref`s against the files' real places",
                display_path(&path, self.docs.first())
            ),
            None => format!(
                "relative references resolve against the nearest `{keyword}`: bundle the schemas into one document (the registry needs one anyway), or write the `{keyword}`s and `$ref`s against the files' real places"
            ),
        });
    }
}

pub(super) fn without_fragment(url: &Url) -> String {
    let mut u = url.clone();
    u.set_fragment(None);
    u.to_string()
}

fn fallback_url() -> Url {
    // Reached only for a document id from another workspace; every workspace has a document.
    match Url::parse("file:///") {
        Ok(url) => url,
        Err(_) => Url::from_directory_path("/").unwrap_or_else(|()| fallback_url()),
    }
}
