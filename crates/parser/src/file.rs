//! One JSON file with positions: its name, its bytes, the parsed values, and the location of any
//! value, for diagnostics. Schema documents (in a [`Workspace`](crate::Workspace)) and files that
//! are not schemas (a channel configuration, say) are both read into it.

use std::sync::{Arc, OnceLock};

use crate::codes;
use crate::diagnostic::{Diagnostic, Location};
use crate::json::{self, DuplicateKey, JsonDoc, JsonError, JsonErrorKind, JsonId};
use crate::span::{LineIndex, Span};

/// One JSON file with positions.
#[derive(Debug, Clone)]
pub struct JsonFile {
    /// The name shown in diagnostics.
    pub display: String,
    /// The raw bytes, checked once for UTF-8: diagnostics are rendered against the text, one
    /// each, so a check per call would make rendering quadratic in the diagnostics.
    text: Text,
    /// The parsed JSON, when the text is JSON. Shared, so that a workspace can build its schema
    /// table while reading it without copying values.
    pub json: Option<Arc<JsonDoc>>,
    /// Built on first use: a file that no diagnostic points into never needs it.
    lines: OnceLock<LineIndex>,
    /// `display`, shared by the locations that point into this file.
    file_name: Arc<str>,
}

/// A file's bytes, kept as a `String` when they are UTF-8.
#[derive(Debug, Clone)]
enum Text {
    Utf8(String),
    Bytes(Vec<u8>),
}

impl Text {
    fn of(bytes: Vec<u8>) -> Text {
        match String::from_utf8(bytes) {
            Ok(text) => Text::Utf8(text),
            Err(error) => Text::Bytes(error.into_bytes()),
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Text::Utf8(text) => text.as_bytes(),
            Text::Bytes(bytes) => bytes,
        }
    }
}

impl JsonFile {
    /// Reads `bytes` as JSON. Syntax errors and duplicate keys come back as diagnostics.
    pub fn parse(display: impl Into<String>, bytes: Vec<u8>) -> (JsonFile, Vec<Diagnostic>) {
        let (file, read) = JsonFile::read(display.into(), bytes);
        let diagnostics = match read {
            Ok(duplicates) => duplicates,
            Err(error) => vec![error],
        };
        (file, diagnostics)
    }

    /// Reads `bytes` as JSON: `Ok` with one diagnostic per duplicate key when the text is JSON,
    /// `Err` with the diagnostic that says why it is not. The one place where what the JSON
    /// reader reports becomes diagnostics.
    pub(crate) fn read(
        display: String,
        bytes: Vec<u8>,
    ) -> (JsonFile, Result<Vec<Diagnostic>, Diagnostic>) {
        let mut file = JsonFile {
            file_name: Arc::from(display.as_str()),
            display,
            text: Text::of(bytes),
            json: None,
            lines: OnceLock::new(),
        };
        let read = match json::parse(file.text.bytes()) {
            Ok(parsed) => {
                let duplicates = parsed
                    .duplicates
                    .iter()
                    .map(|dup| file.duplicate_key(&parsed.doc, dup))
                    .collect();
                file.json = Some(Arc::new(parsed.doc));
                Ok(duplicates)
            }
            Err(error) => Err(file.read_error(error)),
        };
        (file, read)
    }

    fn duplicate_key(&self, doc: &JsonDoc, dup: &DuplicateKey) -> Diagnostic {
        let location = self.locate(doc.pointer(dup.value), dup.span);
        let first_line = self.line_of(dup.first);
        Diagnostic::new(
            &codes::DUPLICATE_KEY,
            location,
            format!(
                "key `{}` is written twice in one object (first on line {first_line}); the later value is used",
                dup.key
            ),
        )
        .with_help("JSON parsers disagree on which duplicate wins; delete one of them")
    }

    fn read_error(&self, error: JsonError) -> Diagnostic {
        let (code, message) = match error.kind {
            JsonErrorKind::InvalidUtf8 => (
                &codes::INVALID_UTF8,
                "the file is not valid UTF-8".to_string(),
            ),
            JsonErrorKind::TooDeep => (&codes::JSON_TOO_DEEP, error.kind.message()),
            JsonErrorKind::Syntax(_) => (&codes::INVALID_JSON, error.kind.message()),
        };
        Diagnostic::new(code, self.locate(String::new(), error.span), message)
    }

    /// The file's name and its text, where it is UTF-8, without the parsed JSON.
    pub(crate) fn into_source_text(self) -> (String, Option<String>) {
        let text = match self.text {
            Text::Utf8(text) => Some(text),
            Text::Bytes(_) => None,
        };
        (self.display, text)
    }

    /// The text as UTF-8, where it is UTF-8.
    pub fn text_str(&self) -> Option<&str> {
        match &self.text {
            Text::Utf8(text) => Some(text),
            Text::Bytes(_) => None,
        }
    }

    /// The raw bytes.
    pub fn bytes(&self) -> &[u8] {
        self.text.bytes()
    }

    /// The line (from 1) on which `span` starts.
    pub(crate) fn line_of(&self, span: Span) -> usize {
        self.lines().line_col(self.text.bytes(), span.start()).0
    }

    fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(self.text.bytes()))
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
        let (line, column) = self.lines().line_col(self.text.bytes(), span.start());
        Location {
            file: Arc::clone(&self.file_name),
            pointer,
            span,
            line,
            column,
        }
    }
}

/// The texts of a workspace's files, by the names that diagnostics show for them: what drawing
/// the diagnostics needs once the parsed documents and the schema table are freed
/// ([`crate::Workspace::into_source_texts`]).
#[derive(Debug, Clone, Default)]
pub struct SourceTexts {
    files: Vec<(String, Option<String>)>,
}

impl SourceTexts {
    /// The text of the file that diagnostics name `display`, when it is UTF-8.
    pub fn text(&self, display: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|(name, _)| name == display)
            .and_then(|(_, text)| text.as_deref())
    }
}

impl FromIterator<JsonFile> for SourceTexts {
    fn from_iter<I: IntoIterator<Item = JsonFile>>(files: I) -> Self {
        SourceTexts {
            files: files.into_iter().map(JsonFile::into_source_text).collect(),
        }
    }
}
