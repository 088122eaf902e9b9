//! A JSON reader that keeps what `serde_json::Value` loses: key order, duplicate keys, the exact
//! text of numbers and the byte span of every value.

use compact_str::CompactString;

use crate::number::Number;
use crate::span::Span;

mod reader;
#[cfg(test)]
mod tests;

pub(crate) use reader::parse;

/// Deepest nesting of arrays and objects that the reader accepts. Deeper input is an error, not a
/// stack overflow.
pub const MAX_JSON_DEPTH: usize = 256;

/// Index of a value in a [`JsonDoc`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct JsonId(u32);

impl JsonId {
    /// The index as a `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonValue {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number, as written.
    Number(Number),
    /// A string, unescaped.
    String(CompactString),
    /// An array of values.
    Array(Vec<JsonId>),
    /// An object's members in document order. A duplicated key keeps its first position and its
    /// last value, as JavaScript's `JSON.parse` does.
    Object(Vec<Member>),
}

impl JsonValue {
    /// What kind of value it is, with its article, for messages: "a string", "null".
    pub fn kind(&self) -> &'static str {
        match self {
            JsonValue::Null => "null",
            JsonValue::Bool(_) => "a boolean",
            JsonValue::Number(_) => "a number",
            JsonValue::String(_) => "a string",
            JsonValue::Array(_) => "an array",
            JsonValue::Object(_) => "an object",
        }
    }
}

/// One `"key": value` pair of an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// The unescaped key.
    pub key: CompactString,
    /// Where the key (with its quotes) is written.
    pub key_span: Span,
    /// The value.
    pub value: JsonId,
}

/// A value and where it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonNode {
    /// The value.
    pub value: JsonValue,
    /// Its span in the source.
    pub span: Span,
    /// The array or object that holds it; `None` for the root.
    pub parent: Option<JsonId>,
    /// Its index among the parent's members or items.
    pub slot: u32,
}

/// A parsed document: all values in one table, the root first.
#[derive(Debug, Clone, Default)]
pub struct JsonDoc {
    nodes: Vec<JsonNode>,
}

/// Why a document could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonError {
    /// What went wrong.
    pub kind: JsonErrorKind,
    /// Where.
    pub span: Span,
}

/// The kinds of [`JsonError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum JsonErrorKind {
    /// The bytes are not UTF-8.
    InvalidUtf8,
    /// Nesting deeper than [`MAX_JSON_DEPTH`].
    TooDeep,
    /// Anything else that is not JSON; the text says what was expected.
    Syntax(String),
}

/// A key written twice in one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DuplicateKey {
    /// The key.
    pub key: CompactString,
    /// The value that wins (the later one), for its pointer.
    pub value: JsonId,
    /// The later occurrence.
    pub span: Span,
    /// The first occurrence.
    pub first: Span,
}

/// The result of reading a document.
#[derive(Debug, Clone)]
pub(crate) struct ParsedJson {
    /// The values.
    pub doc: JsonDoc,
    /// Keys written twice; the later value wins.
    pub duplicates: Vec<DuplicateKey>,
}

impl JsonDoc {
    /// The root value (written last, since values are stored children first).
    pub fn root(&self) -> JsonId {
        JsonId(u32::try_from(self.nodes.len().saturating_sub(1)).unwrap_or(0))
    }

    /// The RFC 6901 pointer of `id`, `""` for the root.
    pub fn pointer(&self, id: JsonId) -> String {
        // Walk up once to collect the steps and the length, then write them root first into a
        // string allocated once: growing it step by step was most of the cost of a diagnostic.
        enum Step<'a> {
            Key(&'a str),
            Index(usize),
        }
        let mut steps: Vec<Step<'_>> = Vec::with_capacity(16);
        let mut length = 0;
        let mut at = id;
        while let Some((parent, slot)) = self
            .node(at)
            .and_then(|n| Some((n.parent?, n.slot as usize)))
        {
            let step = match self.value(parent) {
                JsonValue::Object(members) => Step::Key(
                    members
                        .get(slot)
                        .filter(|m| m.value == at)
                        .map_or("", |m| m.key.as_str()),
                ),
                _ => Step::Index(slot),
            };
            // Exact unless a key needs escaping, which is rare and costs one more allocation.
            length += 1 + match step {
                Step::Key(key) => key.len(),
                Step::Index(slot) => slot.checked_ilog10().map_or(1, |d| d as usize + 1),
            };
            steps.push(step);
            at = parent;
        }
        let mut out = String::with_capacity(length);
        for step in steps.iter().rev() {
            out.push('/');
            match step {
                Step::Key(key) if memchr::memchr2(b'~', b'/', key.as_bytes()).is_some() => {
                    out.push_str(&crate::pointer::escape_token(key));
                }
                Step::Key(key) => out.push_str(key),
                Step::Index(slot) => {
                    use std::fmt::Write;
                    let _ = write!(out, "{slot}");
                }
            }
        }
        out
    }

    /// How many objects the document holds.
    pub(crate) fn object_count(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| matches!(n.value, JsonValue::Object(_)))
            .count()
    }

    /// The node behind `id`.
    pub fn node(&self, id: JsonId) -> Option<&JsonNode> {
        self.nodes.get(id.index())
    }

    /// The value behind `id`; `Null` for an id from another document.
    pub fn value(&self, id: JsonId) -> &JsonValue {
        self.node(id).map(|n| &n.value).unwrap_or(&JsonValue::Null)
    }

    /// Moves the string at `id` out of the document, leaving an empty string: for a reader that
    /// is done with that value and would otherwise copy it. `None` when `id` is not a string.
    pub fn take_string(&mut self, id: JsonId) -> Option<String> {
        match self.nodes.get_mut(id.index()).map(|n| &mut n.value) {
            Some(JsonValue::String(s)) => Some(std::mem::take(s).into_string()),
            _ => None,
        }
    }

    /// Moves the key of member `index` of the object at `id` out of the document, leaving an
    /// empty key: [`JsonDoc::pointer`] of the values below that member changes with it. `None`
    /// when `id` is not an object with that member.
    pub fn take_key(&mut self, id: JsonId, index: usize) -> Option<String> {
        match self.nodes.get_mut(id.index()).map(|n| &mut n.value) {
            Some(JsonValue::Object(members)) => members
                .get_mut(index)
                .map(|m| std::mem::take(&mut m.key).into_string()),
            _ => None,
        }
    }

    /// The span of `id`.
    pub fn span(&self, id: JsonId) -> Span {
        self.node(id).map(|n| n.span).unwrap_or_default()
    }

    /// The member `key` of the object `id`.
    pub fn member(&self, id: JsonId, key: &str) -> Option<&Member> {
        match self.value(id) {
            JsonValue::Object(members) => members.iter().find(|m| m.key == key),
            _ => None,
        }
    }

    /// Follows an already-decoded JSON Pointer (a list of reference tokens) from `from`.
    pub fn walk<'a>(
        &self,
        from: JsonId,
        tokens: impl IntoIterator<Item = &'a str>,
    ) -> Option<JsonId> {
        let mut at = from;
        for token in tokens {
            at = match self.value(at) {
                JsonValue::Object(members) => members.iter().find(|m| m.key == token)?.value,
                JsonValue::Array(items) => {
                    if token.len() > 1 && token.starts_with('0') {
                        return None;
                    }
                    *items.get(token.parse::<usize>().ok()?)?
                }
                _ => return None,
            };
        }
        Some(at)
    }

    /// The value `id` as compact JSON text (numbers as written, keys in document order), for
    /// comparing values across documents.
    pub fn compact(&self, id: JsonId) -> String {
        let mut out = String::new();
        self.write_compact(id, &mut out, 0);
        out
    }

    fn write_compact(&self, id: JsonId, out: &mut String, depth: usize) {
        // Parsed documents are at most MAX_JSON_DEPTH deep; this guards ids from elsewhere.
        if depth > MAX_JSON_DEPTH {
            return;
        }
        match self.value(id) {
            JsonValue::Null => out.push_str("null"),
            JsonValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            JsonValue::Number(n) => out.push_str(n.as_str()),
            JsonValue::String(s) => out.push_str(&format!("{s:?}")),
            JsonValue::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.write_compact(*item, out, depth + 1);
                }
                out.push(']');
            }
            JsonValue::Object(members) => {
                out.push('{');
                for (i, m) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&format!("{:?}:", m.key));
                    self.write_compact(m.value, out, depth + 1);
                }
                out.push('}');
            }
        }
    }

    /// Number of values in the document.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the document holds no value (never true for a parsed document).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// Why some bytes are not one JSON value, for callers that read values without a file around
/// them (a record, say): what went wrong, and the byte offset where reading stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonReadError {
    /// What went wrong, as a sentence fragment ("expected `,` or `}`, found `x`").
    pub message: String,
    /// The byte offset of the problem.
    pub offset: usize,
}

/// Reads one JSON value from `bytes`. A key written twice keeps its first position and its last
/// value, silently; a file reader reports that as a diagnostic, a value reader has no one to tell.
pub fn read(bytes: &[u8]) -> Result<JsonDoc, JsonReadError> {
    match parse(bytes) {
        Ok(parsed) => Ok(parsed.doc),
        Err(error) => Err(JsonReadError {
            message: error.kind.message(),
            offset: error.span.start(),
        }),
    }
}

impl JsonErrorKind {
    /// The message that says what went wrong.
    pub(crate) fn message(&self) -> String {
        match self {
            JsonErrorKind::InvalidUtf8 => "the text is not valid UTF-8".to_string(),
            JsonErrorKind::TooDeep => {
                format!("arrays and objects are nested more than {MAX_JSON_DEPTH} levels deep")
            }
            JsonErrorKind::Syntax(text) => format!("invalid JSON: {text}"),
        }
    }
}

/// How many of `bytes` a JSON string holds as they are: the bytes before the first `"`, `\\` or
/// control character (or all of them). The reader finds where a string's text ends with it,
/// and a writer what it must escape.
///
/// `memchr2` finds the quote or backslash many bytes at a time, and the control characters
/// before it are looked for without an early exit, which the compiler also turns into wide
/// compares: a byte at a time, this was a tenth of reading a large schema and of writing its
/// diagnostics.
pub fn literal_run(bytes: &[u8]) -> usize {
    let end = memchr::memchr2(b'"', b'\\', bytes).unwrap_or(bytes.len());
    let run = bytes.get(..end).unwrap_or_default();
    if run.iter().fold(false, |control, &b| control | (b < 0x20)) {
        run.iter().position(|&b| b < 0x20).unwrap_or(end)
    } else {
        end
    }
}
