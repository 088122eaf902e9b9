//! `$ref` resolution: each reference, once every document is read, resolved by full URI to the
//! schema node it names, or to the diagnostic that says why it names none.

use std::sync::Arc;

use super::Workspace;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::json::{JsonId, JsonValue};
use crate::pointer;
use crate::schema::{DocId, Schema, SchemaId, SchemaKind};

use super::ids::without_fragment;

/// Why a failed reference failed; turned into a diagnostic at the `$ref`.
pub(super) struct RefFailure {
    pub(super) code: &'static crate::diagnostic::Code,
    pub(super) message: String,
    pub(super) help: Option<String>,
}

impl RefFailure {
    pub(super) fn new(code: &'static crate::diagnostic::Code, message: impl Into<String>) -> Self {
        RefFailure {
            code,
            message: message.into(),
            help: None,
        }
    }
}

impl Workspace {
    pub(super) fn resolve_pending(&mut self) {
        while let Some(id) = self.pending_refs.pop() {
            let Some(SchemaKind::Object(k)) = self.schema(id).map(|s| &s.kind) else {
                continue;
            };
            let Some(reference) = &k.reference else {
                continue;
            };
            let (text, at) = (reference.value.text.clone(), reference.at);
            let doc = self.schema(id).map(|s| s.doc).unwrap_or(DocId(0));
            let target = self.resolve(id, &text).map_err(|mut failure| {
                if failure.code.name == codes::REF_DANGLING.name {
                    self.explain_id_base(id, &text, &mut failure);
                }
                let mut d = Diagnostic::new(failure.code, self.location(doc, at), failure.message);
                if let Some(help) = failure.help {
                    d.help = Some(help);
                }
                Box::new(d)
            });
            if let Some(Schema {
                kind: SchemaKind::Object(k),
                ..
            }) = self.schemas.get_mut(id.index())
            {
                if let Some(reference) = &mut k.reference {
                    reference.value.target = target;
                }
            }
        }
    }

    fn resolve(&mut self, from: SchemaId, text: &str) -> Result<SchemaId, RefFailure> {
        let Some(base) = self.bases.get(from.index()).cloned() else {
            return Err(RefFailure::new(
                &codes::REF_DANGLING,
                format!("`{text}` points at nothing"),
            ));
        };
        let target = base.join(text).map_err(|e| {
            RefFailure::new(
                &codes::REF_INVALID,
                format!("`{text}` is not a valid URI reference: {e}"),
            )
        })?;
        let resource_uri = without_fragment(&target);
        let resource = match self.by_uri.get(&resource_uri) {
            Some(s) => *s,
            None => self.load_resource(&target, text)?,
        };
        let fragment = target.fragment().unwrap_or("");
        if fragment.is_empty() {
            return Ok(resource);
        }
        let decoded = pointer::percent_decode(fragment).ok_or_else(|| {
            RefFailure::new(
                &codes::REF_INVALID,
                format!("the fragment of `{text}` is not valid percent-encoding"),
            )
        })?;
        if !decoded.starts_with('/') {
            let anchor = target.to_string();
            return self.by_uri.get(&anchor).copied().ok_or_else(|| RefFailure {
                code: &codes::REF_DANGLING,
                message: format!("`{text}` names the anchor `#{decoded}`, but no `$id` defines it"),
                help: Some(
                    "a fragment that is a JSON Pointer starts with `/`, as in `#/definitions/name`"
                        .to_string(),
                ),
            });
        }
        let tokens = pointer::decode(&decoded).ok_or_else(|| {
            RefFailure::new(
                &codes::REF_INVALID,
                format!("`{decoded}` is not a valid JSON Pointer (`~` must be followed by 0 or 1)"),
            )
        })?;
        let (doc, start) = match self.schema(resource) {
            Some(s) => (s.doc, s.at),
            None => {
                return Err(RefFailure::new(
                    &codes::REF_DANGLING,
                    format!("`{text}` points at nothing"),
                ))
            }
        };
        let found = self
            .json(doc)
            .and_then(|json| json.walk(start, tokens.iter().map(String::as_str)));
        let Some(found) = found else {
            return Err(RefFailure {
                code: &codes::REF_DANGLING,
                message: format!("`{text}` points at nothing: there is no value at `{decoded}`"),
                help: self.closest_definition(doc, start, &tokens),
            });
        };
        if !matches!(
            self.json_value(doc, found),
            JsonValue::Object(_) | JsonValue::Bool(_)
        ) {
            return Err(RefFailure::new(
                &codes::REF_DANGLING,
                format!("`{text}` points at a value that is not a schema"),
            ));
        }
        if let Some(built) = self.by_json.get(&(doc, found)) {
            return Ok(*built);
        }
        let base = Arc::new(self.base_at(doc, found));
        // References inside newly built nodes queue themselves in `pending_refs`.
        Ok(self.build(doc, found, &base))
    }

    /// For a dangling `#/definitions/x`, names the definitions that do exist.
    fn closest_definition(&self, doc: DocId, start: JsonId, tokens: &[String]) -> Option<String> {
        let (last, parent_tokens) = tokens.split_last()?;
        let json = self.json(doc)?;
        let parent = json.walk(start, parent_tokens.iter().map(String::as_str))?;
        let JsonValue::Object(members) = json.value(parent) else {
            return None;
        };
        let lower = last.to_lowercase();
        let close: Vec<&str> = members
            .iter()
            .map(|m| m.key.as_str())
            .filter(|k| k.to_lowercase() == lower || k.contains(last.as_str()) || last.contains(*k))
            .take(3)
            .collect();
        if close.is_empty() {
            None
        } else {
            Some(format!(
                "did you mean {}?",
                close
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ))
        }
    }
}
