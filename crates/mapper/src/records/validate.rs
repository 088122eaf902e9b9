//! Step 3: JSON Schema validation with the `jsonschema` crate, against the documents that
//! `compile` read (no network: every `$ref` is served from the workspace), and what a
//! validation error means for the record: `missing-required` or `schema-violation`. The record
//! is validated as the reader read it ([`super::instance`]), with no `serde_json::Value` built.

use std::sync::Arc;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft as ValidatorDraft, Retrieve, Uri, Validator};
use rustc_hash::FxHashMap as HashMap;
use schema2iceberg_parser::json::{JsonDoc, JsonId, JsonValue};
use schema2iceberg_parser::{pointer, Draft, Url, Workspace};
use serde_json::Value;

use super::instance::{out_of_range, value_of, DocJson, DocNode};
use super::{Failure, Reason, SetupError};

/// The validator of one table's schema, shared by every thread.
#[derive(Debug)]
pub(crate) struct SchemaValidator {
    validator: Validator<DocJson>,
    /// The main document's URL, against which keyword locations in other files are written.
    main_url: Url,
}

/// Serves the workspace's documents to the validator by their URL; nothing else is fetched.
struct WorkspaceRetriever {
    documents: HashMap<String, Arc<Value>>,
}

impl Retrieve for WorkspaceRetriever {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let key = without_fragment(uri.as_str());
        match self.documents.get(key) {
            Some(value) => Ok(Value::clone(value)),
            None => Err(format!(
                "`{key}` is not among the documents that compile read (no network, and file references stay under the ref root)"
            )
            .into()),
        }
    }
}

fn without_fragment(uri: &str) -> &str {
    uri.split_once('#').map_or(uri, |(base, _)| base)
}

impl SchemaValidator {
    /// Builds the validator of the workspace's main schema, or says why the crate refuses it.
    pub(crate) fn new(ws: &Workspace) -> Result<SchemaValidator, SetupError> {
        let documents = ws.documents();
        let Some(main) = documents.first() else {
            return Err(SetupError::Validator(
                "there is no schema document".to_string(),
            ));
        };
        let Some(main_json) = main.json.as_deref() else {
            return Err(SetupError::Validator("the schema is not JSON".to_string()));
        };
        let retriever = WorkspaceRetriever {
            documents: documents
                .iter()
                .filter_map(|d| {
                    let json = d.json.as_deref()?;
                    let url = without_fragment(d.url.as_str()).to_string();
                    Some((url, Arc::new(to_value(json, json.root()).ok()?)))
                })
                .collect(),
        };
        let draft = match main.draft {
            Draft::Draft04 => ValidatorDraft::Draft4,
            Draft::Draft06 => ValidatorDraft::Draft6,
            Draft::Draft07 => ValidatorDraft::Draft7,
        };
        let validator = jsonschema::options_for::<DocJson>()
            .with_draft(draft)
            .with_base_uri(without_fragment(main.url.as_str()))
            .with_retriever(retriever)
            .should_validate_formats(true)
            // Draft-07 makes these annotations that implementations need not check, and Everit
            // (the registry's validator) does not; the conversion decodes base64 itself, padded
            // or not (docs/records.md).
            .without_content_encoding_support("base64")
            .without_content_media_type_support("application/json")
            .build(&to_value(main_json, main_json.root()).map_err(|at| {
                SetupError::Validator(format!(
                    "the number at {} is beyond f64's range",
                    main_json.pointer(at)
                ))
            })?)
            .map_err(|e| {
                SetupError::Validator(match e.instance_path().as_str() {
                    "" => e.to_string(),
                    at => format!("{e} (at {at})"),
                })
            })?;
        Ok(SchemaValidator {
            validator,
            main_url: main.url.clone(),
        })
    }

    /// `Ok` when the record `doc` is valid; otherwise the failure that decides the record: the
    /// first error in order of instance pointer, then schema path, so that the verdict does not
    /// depend on the order in which the crate happens to report. Only for a record that
    /// [`out_of_range`] passes.
    pub(crate) fn check(&self, doc: &JsonDoc) -> Result<(), Failure> {
        let record = DocNode::new(doc, doc.root());
        if self.validator.is_valid(record) {
            return Ok(());
        }
        let mut errors: Vec<_> = self
            .validator
            .iter_errors(record)
            .map(|e| {
                let instance = e.instance_path().as_str().to_string();
                let schema = e.schema_path().as_str().to_string();
                (instance, schema, e)
            })
            .collect();
        errors.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        let Some((instance, schema, error)) = errors.into_iter().next() else {
            return Ok(());
        };
        let schema = error
            .absolute_keyword_location()
            .and_then(|uri| self.relative_location(uri.as_str()))
            .unwrap_or(schema);
        let span = pointer_span(doc, &instance);
        let failure = match error.kind() {
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                Failure {
                    reason: Reason::MissingRequired,
                    pointer: format!("{instance}/{}", pointer::escape_token(name)),
                    message: format!("required property `{name}` is absent"),
                    keyword: Some("required".to_string()),
                    help: None,
                    span,
                }
            }
            kind => Failure {
                reason: Reason::SchemaViolation,
                message: format!("{} (`{}` at {schema})", error.masked(), kind.keyword()),
                keyword: Some(kind.keyword().to_string()),
                help: super::keyword::help(kind),
                pointer: instance,
                span,
            },
        };
        Err(failure)
    }
}

impl SchemaValidator {
    /// Where a keyword is written: its pointer (`/properties/id/type`) in the main document, or
    /// the other file, relative to the main one, and the pointer (`common/money.json#/…`).
    fn relative_location(&self, absolute: &str) -> Option<String> {
        let (document, fragment) = absolute.split_once('#').unwrap_or((absolute, ""));
        if document == without_fragment(self.main_url.as_str()) {
            return Some(fragment.to_string());
        }
        let other = Url::parse(document).ok()?;
        Some(format!(
            "{}#{fragment}",
            self.main_url.make_relative(&other)?
        ))
    }
}

/// The byte span of the value at `pointer`, for reports that show the record.
pub(crate) fn pointer_span(doc: &JsonDoc, pointer: &str) -> Option<(usize, usize)> {
    let mut at = doc.root();
    for token in pointer::decode(pointer)? {
        at = match doc.value(at) {
            JsonValue::Object(members) => members.iter().find(|m| m.key == token)?.value,
            JsonValue::Array(items) => *items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    let span = doc.span(at);
    Some((span.start(), span.end()))
}

/// `doc`'s value at `at` as a `serde_json::Value`, which is what the validator reads a schema
/// from. Numbers become `i64` or `u64` when their text is an integer that fits, `f64` otherwise
/// (as serde_json reads them). `Err` names the first number beyond f64's range, which no
/// validator can hold.
pub(crate) fn to_value(doc: &JsonDoc, at: JsonId) -> Result<Value, JsonId> {
    match out_of_range(doc, at) {
        Some(beyond) => Err(beyond),
        None => Ok(value_of(doc, doc.value(at))),
    }
}
