//! A JSON reader that keeps what `serde_json::Value` loses: key order, duplicate keys, the exact
//! text of numbers and the byte span of every value.

use std::borrow::Cow;

use compact_str::CompactString;

use crate::number::Number;
use crate::span::Span;

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

/// Reads one JSON document from raw bytes.
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

pub(crate) fn parse(bytes: &[u8]) -> Result<ParsedJson, JsonError> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let at = e.valid_up_to();
            return Err(JsonError {
                kind: JsonErrorKind::InvalidUtf8,
                span: Span::new(at, at + e.error_len().unwrap_or(1)),
            });
        }
    };
    let mut reader = Reader {
        bytes,
        text,
        pos: 0,
        nodes: Vec::new(),
        duplicates: Vec::new(),
    };
    reader.skip_whitespace();
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Err(reader.error_here("a JSON value, not a byte-order mark"));
    }
    reader.value(0)?;
    reader.skip_whitespace();
    if reader.pos < bytes.len() {
        return Err(reader.error_here("the end of the document"));
    }
    Ok(ParsedJson {
        doc: JsonDoc {
            nodes: reader.nodes,
        },
        duplicates: reader.duplicates,
    })
}

struct Reader<'a> {
    bytes: &'a [u8],
    /// The same bytes, checked once as UTF-8, so that strings and numbers are sliced out
    /// without checking them again.
    text: &'a str,
    pos: usize,
    nodes: Vec<JsonNode>,
    duplicates: Vec<DuplicateKey>,
}

impl<'a> Reader<'a> {
    /// The text between two byte offsets. Callers cut only before and after ASCII bytes (quotes,
    /// backslashes, control characters, digits), which are always character boundaries.
    fn slice(&self, start: usize, end: usize) -> &'a str {
        self.text.get(start..end).unwrap_or_default()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn error_here(&self, expected: &str) -> JsonError {
        let found = match self.peek() {
            None => "the end of the input".to_string(),
            Some(_) => {
                let rest = self.bytes.get(self.pos..).unwrap_or_default();
                let c = String::from_utf8_lossy(rest).chars().next().unwrap_or('?');
                format!("`{}`", c.escape_debug())
            }
        };
        JsonError {
            kind: JsonErrorKind::Syntax(format!("expected {expected}, found {found}")),
            span: Span::new(self.pos, (self.pos + 1).min(self.bytes.len().max(self.pos))),
        }
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn push(&mut self, value: JsonValue, start: usize) -> JsonId {
        let id = JsonId(u32::try_from(self.nodes.len()).unwrap_or(u32::MAX));
        let mut adopt = |slot: usize, child: JsonId| {
            if let Some(node) = self.nodes.get_mut(child.index()) {
                node.parent = Some(id);
                node.slot = u32::try_from(slot).unwrap_or(u32::MAX);
            }
        };
        match &value {
            JsonValue::Array(items) => items.iter().enumerate().for_each(|(s, c)| adopt(s, *c)),
            JsonValue::Object(members) => members
                .iter()
                .enumerate()
                .for_each(|(s, m)| adopt(s, m.value)),
            _ => {}
        }
        self.nodes.push(JsonNode {
            value,
            span: Span::new(start, self.pos),
            parent: None,
            slot: 0,
        });
        id
    }

    fn value(&mut self, depth: usize) -> Result<JsonId, JsonError> {
        let start = self.pos;
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => {
                let s = self.string()?;
                Ok(self.push(JsonValue::String(s), start))
            }
            Some(b'-' | b'0'..=b'9') => {
                let text = self.number()?;
                Ok(self.push(JsonValue::Number(Number::from_json_text(text)), start))
            }
            Some(b't') => self.literal("true", JsonValue::Bool(true)),
            Some(b'f') => self.literal("false", JsonValue::Bool(false)),
            Some(b'n') => self.literal("null", JsonValue::Null),
            _ => Err(self.error_here("a JSON value")),
        }
    }

    fn literal(&mut self, word: &str, value: JsonValue) -> Result<JsonId, JsonError> {
        let start = self.pos;
        if self.bytes.get(self.pos..self.pos + word.len()) == Some(word.as_bytes()) {
            self.pos += word.len();
            Ok(self.push(value, start))
        } else {
            Err(self.error_here("a JSON value"))
        }
    }

    /// An object key for the duplicate index: the text between its quotes when that is the key
    /// (each escape is longer than what it stands for, so equal lengths mean none), else a copy.
    fn index_key(&self, key: &str, key_span: Span) -> Cow<'a, str> {
        let written = self.slice(
            key_span.start as usize + 1,
            (key_span.end as usize).saturating_sub(1),
        );
        if written.len() == key.len() {
            Cow::Borrowed(written)
        } else {
            Cow::Owned(key.to_owned())
        }
    }

    fn enter(&self, depth: usize) -> Result<usize, JsonError> {
        if depth >= MAX_JSON_DEPTH {
            return Err(JsonError {
                kind: JsonErrorKind::TooDeep,
                span: Span::new(self.pos, self.pos + 1),
            });
        }
        Ok(depth + 1)
    }

    fn object(&mut self, depth: usize) -> Result<JsonId, JsonError> {
        let depth = self.enter(depth)?;
        let start = self.pos;
        self.pos += 1;
        let mut members: Vec<Member> = Vec::new();
        // Large objects look keys up by hash, so that duplicate detection stays linear. A key
        // written without escapes is borrowed from the text rather than copied.
        let mut index: rustc_hash::FxHashMap<Cow<'a, str>, usize> =
            rustc_hash::FxHashMap::default();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(self.push(JsonValue::Object(members), start));
        }
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'"') {
                return Err(self.error_here("a string key"));
            }
            let key_start = self.pos;
            let key = self.string()?;
            let key_span = Span::new(key_start, self.pos);
            self.skip_whitespace();
            if self.peek() != Some(b':') {
                return Err(self.error_here("`:`"));
            }
            self.pos += 1;
            self.skip_whitespace();
            let value = self.value(depth)?;
            let existing = if members.len() < 16 {
                members.iter().position(|m| m.key == key)
            } else {
                if index.is_empty() {
                    index.extend(
                        members
                            .iter()
                            .enumerate()
                            .map(|(i, m)| (self.index_key(&m.key, m.key_span), i)),
                    );
                }
                index.get(key.as_str()).copied()
            };
            match existing.and_then(|i| members.get_mut(i)) {
                Some(existing) => {
                    self.duplicates.push(DuplicateKey {
                        key,
                        value,
                        span: key_span,
                        first: existing.key_span,
                    });
                    existing.value = value;
                }
                None => {
                    if !index.is_empty() {
                        index.insert(self.index_key(&key, key_span), members.len());
                    }
                    members.push(Member {
                        key,
                        key_span,
                        value,
                    });
                }
            }
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(self.push(JsonValue::Object(members), start));
                }
                _ => return Err(self.error_here("`,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<JsonId, JsonError> {
        let depth = self.enter(depth)?;
        let start = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(self.push(JsonValue::Array(items), start));
        }
        loop {
            self.skip_whitespace();
            items.push(self.value(depth)?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(self.push(JsonValue::Array(items), start));
                }
                _ => return Err(self.error_here("`,` or `]`")),
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<CompactString, JsonError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error_here("a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error_here("a digit after the decimal point"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error_here("a digit in the exponent"));
            }
        }
        Ok(CompactString::from(self.slice(start, self.pos)))
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut code = 0u32;
        for _ in 0..4 {
            let digit = self
                .peek()
                .and_then(|b| char::from(b).to_digit(16))
                .ok_or_else(|| self.error_here("four hex digits after `\\u`"))?;
            code = code * 16 + digit;
            self.pos += 1;
        }
        Ok(code)
    }

    fn string(&mut self) -> Result<CompactString, JsonError> {
        self.pos += 1;
        let first_run = self.literal_run_here();
        // Most strings have no escape, and most keys and values of a schema are short enough
        // to be kept inline, without an allocation.
        if self.peek() == Some(b'"') {
            self.pos += 1;
            return Ok(CompactString::from(first_run));
        }
        let mut out = CompactString::from(first_run);
        loop {
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let escape = self.peek();
                    self.pos += 1;
                    match escape {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => out.push(self.unicode_escape()?),
                        _ => {
                            self.pos -= 1;
                            return Err(self.error_here("a valid escape after `\\`"));
                        }
                    }
                    out.push_str(self.literal_run_here());
                }
                None => return Err(self.error_here("`\"` to close the string")),
                Some(_) => return Err(self.error_here("no control character inside a string")),
            }
        }
    }

    /// The characters from here that a string holds as they are written, stepped over.
    fn literal_run_here(&mut self) -> &'a str {
        let start = self.pos;
        self.pos += literal_run(self.bytes.get(start..).unwrap_or_default());
        self.slice(start, self.pos)
    }

    fn unicode_escape(&mut self) -> Result<char, JsonError> {
        let high = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&high) {
            if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                return Err(self.error_here("a low surrogate `\\uDC00`–`\\uDFFF` after a high one"));
            }
            self.pos += 2;
            let low = self.hex4()?;
            if !(0xDC00..0xE000).contains(&low) {
                return Err(self.error_here("a low surrogate after a high one"));
            }
            0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
        } else {
            high
        };
        char::from_u32(code)
            .ok_or_else(|| self.error_here("a Unicode scalar value, not a lone surrogate"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time scan stops where a byte-at-a-time one does: every byte value at
    /// every place of a run of ordinary bytes, with high (UTF-8) bytes and a second special
    /// byte about it, at every length around the eight-byte words.
    #[test]
    fn literal_run_stops_at_the_first_byte_a_string_cannot_hold() {
        let naive = |bytes: &[u8]| {
            bytes
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .unwrap_or(bytes.len())
        };
        for filler in [b'a', 0x80, 0xC3, 0xFF, 0x7F, b' ', 0x21] {
            for length in 0..26 {
                let plain = vec![filler; length];
                assert_eq!(literal_run(&plain), naive(&plain));
                for at in 0..length {
                    for byte in 0..=255u8 {
                        let mut bytes = plain.clone();
                        bytes[at] = byte;
                        assert_eq!(literal_run(&bytes), naive(&bytes), "{bytes:?}");
                        if at + 1 < length {
                            bytes[at + 1] = b'"';
                            assert_eq!(literal_run(&bytes), naive(&bytes), "{bytes:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn keeps_order_number_text_and_duplicates() {
        let parsed = parse(br#"{"b": 1.50, "a": [true, null], "b": "x\u00e9\ud83d\ude00"}"#);
        let Ok(parsed) = parsed else {
            unreachable!("valid JSON")
        };
        let doc = &parsed.doc;
        let JsonValue::Object(members) = doc.value(doc.root()) else {
            unreachable!("object")
        };
        let keys: Vec<_> = members.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["b", "a"]);
        assert_eq!(
            doc.value(members[0].value),
            &JsonValue::String("xé😀".into())
        );
        assert_eq!(parsed.duplicates.len(), 1);
        assert_eq!(doc.pointer(members[1].value), "/a");
        let JsonValue::Array(items) = doc.value(members[1].value) else {
            unreachable!("array")
        };
        assert_eq!(doc.pointer(items[1]), "/a/1");
        assert_eq!(doc.pointer(doc.root()), "");
        let one = parse(b"[1.50e+3]").map(|p| p.doc.value(JsonId(0)).clone());
        assert_eq!(
            one,
            Ok(JsonValue::Number(Number::from_json_text("1.50e+3")))
        );
    }

    /// Past 16 members keys are found by hash, borrowed from the text where written without
    /// escapes: a key must match its duplicate however either is written.
    #[test]
    fn large_objects_find_duplicates_written_with_or_without_escapes() {
        let mut members: Vec<String> = (0..30).map(|i| format!(r#""k{i}": {i}"#)).collect();
        members[5] = r#""k\u0035": 5"#.to_string();
        members.push(r#""x\ty": "first""#.to_string());
        members.push(r#""k\u0031": "one""#.to_string());
        members.push(r#""\u006b2": "two""#.to_string());
        members.push(r#""k3": "three""#.to_string());
        members.push(r#""x\u0009y": "last""#.to_string());
        members.push(r#""k5": "five""#.to_string());
        members.push(r#""k30": 30"#.to_string());
        let text = format!("{{{}}}", members.join(", "));
        let Ok(parsed) = parse(text.as_bytes()) else {
            unreachable!("valid JSON")
        };
        let doc = &parsed.doc;
        let JsonValue::Object(members) = doc.value(doc.root()) else {
            unreachable!("object")
        };
        let keys: Vec<&str> = members.iter().map(|m| m.key.as_str()).collect();
        let mut expected: Vec<String> = (0..30).map(|i| format!("k{i}")).collect();
        expected.push("x\ty".to_string());
        expected.push("k30".to_string());
        assert_eq!(keys, expected);
        let duplicates: Vec<&str> = parsed.duplicates.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(duplicates, ["k1", "k2", "k3", "x\ty", "k5"]);
        let value_of = |key: &str| doc.member(doc.root(), key).map(|m| doc.value(m.value));
        assert_eq!(value_of("k1"), Some(&JsonValue::String("one".into())));
        assert_eq!(value_of("k3"), Some(&JsonValue::String("three".into())));
        assert_eq!(value_of("k5"), Some(&JsonValue::String("five".into())));
        assert_eq!(value_of("x\ty"), Some(&JsonValue::String("last".into())));
    }

    #[test]
    fn pointers_escape_keys_and_count_indexes() {
        let text = format!(r#"{{"a/b~c": [{}"x"], "": {{"é": 1}}}}"#, "0, ".repeat(12));
        let Ok(parsed) = parse(text.as_bytes()) else {
            unreachable!("valid JSON")
        };
        let doc = &parsed.doc;
        let mut pointers: Vec<String> = (0..doc.nodes.len())
            .map(|i| doc.pointer(JsonId(i as u32)))
            .collect();
        pointers.sort();
        assert_eq!(pointers.first().map(String::as_str), Some(""));
        assert!(pointers.contains(&"/a~1b~0c/12".to_string()));
        assert!(pointers.contains(&"/a~1b~0c/9".to_string()));
        assert!(pointers.contains(&"//é".to_string()));
    }

    #[test]
    fn taking_text_leaves_the_rest_in_place() {
        let Ok(parsed) = parse(br#"{"k": "v", "n": 1}"#) else {
            unreachable!("valid JSON")
        };
        let mut doc = parsed.doc;
        let root = doc.root();
        let value = doc.member(root, "k").map(|m| m.value);
        let Some(value) = value else {
            unreachable!("a member k")
        };
        assert_eq!(doc.take_string(value), Some("v".to_string()));
        assert_eq!(
            doc.value(value),
            &JsonValue::String(CompactString::default())
        );
        assert_eq!(doc.take_string(root), None);
        assert_eq!(doc.take_key(root, 1), Some("n".to_string()));
        assert_eq!(doc.take_key(root, 2), None);
        assert_eq!(doc.take_key(value, 0), None);
        assert_eq!(doc.compact(root), r#"{"k":"","":1}"#);
    }

    #[test]
    fn errors_have_positions() {
        let err = parse(b"{\"a\": 01}").err();
        assert_eq!(err.map(|e| e.span.start), Some(7));
        let err = parse(b"{\"a\": \xff}").err();
        assert_eq!(
            err.map(|e| (e.kind, e.span.start)),
            Some((JsonErrorKind::InvalidUtf8, 6))
        );
        let deep = "[".repeat(100_000);
        assert_eq!(
            parse(deep.as_bytes()).err().map(|e| e.kind),
            Some(JsonErrorKind::TooDeep)
        );
    }
}
