//! A JSON file that is not a schema (a channel configuration, say): its text, parsed values, and
//! the location of any value, for diagnostics.

use crate::codes;
use crate::diagnostic::{Diagnostic, Location};
use crate::json::{self, JsonDoc, JsonErrorKind, JsonId};
use crate::span::{LineIndex, Span};

/// One JSON file with positions.
#[derive(Debug, Clone)]
pub struct JsonFile {
    /// The name shown in diagnostics.
    pub display: String,
    /// The raw bytes.
    pub text: Vec<u8>,
    /// The parsed JSON, when the text is JSON.
    pub json: Option<JsonDoc>,
    lines: LineIndex,
    /// `display`, shared by the locations that point into this file.
    file_name: std::sync::Arc<str>,
}

impl JsonFile {
    /// Reads `bytes` as JSON. Syntax errors and duplicate keys come back as diagnostics.
    pub fn parse(display: impl Into<String>, bytes: Vec<u8>) -> (JsonFile, Vec<Diagnostic>) {
        let display: String = display.into();
        let mut file = JsonFile {
            file_name: std::sync::Arc::from(display.as_str()),
            display,
            lines: LineIndex::new(&bytes),
            text: bytes,
            json: None,
        };
        let mut diagnostics = Vec::new();
        match json::parse(&file.text) {
            Ok(parsed) => {
                for dup in &parsed.duplicates {
                    let location = file.locate(parsed.doc.pointer(dup.value), dup.span);
                    diagnostics.push(Diagnostic::new(
                        &codes::DUPLICATE_KEY,
                        location,
                        format!(
                            "key `{}` is written twice in one object; the later value is used",
                            dup.key
                        ),
                    ));
                }
                file.json = Some(parsed.doc);
            }
            Err(error) => {
                let (code, message) = match error.kind {
                    JsonErrorKind::InvalidUtf8 => (
                        &codes::INVALID_UTF8,
                        "the file is not valid UTF-8".to_string(),
                    ),
                    JsonErrorKind::TooDeep => (
                        &codes::JSON_TOO_DEEP,
                        format!(
                            "arrays and objects are nested more than {} levels deep",
                            json::MAX_JSON_DEPTH
                        ),
                    ),
                    JsonErrorKind::Syntax(text) => {
                        (&codes::INVALID_JSON, format!("invalid JSON: {text}"))
                    }
                };
                diagnostics.push(Diagnostic::new(
                    code,
                    file.locate(String::new(), error.span),
                    message,
                ));
            }
        }
        (file, diagnostics)
    }

    /// The text as UTF-8, where it is UTF-8.
    pub fn text_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.text).ok()
    }

    /// Where the value `at` is written (its span and pointer).
    pub fn location(&self, at: JsonId) -> Location {
        match &self.json {
            Some(json) => self.locate(json.pointer(at), json.span(at)),
            None => self.locate(String::new(), Span::default()),
        }
    }

    /// Where the key of the member whose value is `at` is written; the value's own span for
    /// array items and the root.
    pub fn key_location(&self, at: JsonId) -> Location {
        let Some(json) = &self.json else {
            return self.location(at);
        };
        let key_span = json
            .node(at)
            .and_then(|n| Some((n.parent?, n.slot as usize)))
            .and_then(|(parent, slot)| match json.value(parent) {
                json::JsonValue::Object(members) => members.get(slot).map(|m| m.key_span),
                _ => None,
            });
        match key_span {
            Some(span) => self.locate(json.pointer(at), span),
            None => self.location(at),
        }
    }

    /// A location from a pointer and a span in this file.
    pub fn locate(&self, pointer: String, span: Span) -> Location {
        let (line, column) = self.lines.line_col(&self.text, span.start());
        Location {
            file: std::sync::Arc::clone(&self.file_name),
            pointer,
            span,
            line,
            column,
        }
    }
}
