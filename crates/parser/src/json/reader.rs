//! The reader itself: one pass over the bytes, checked once as UTF-8, that builds the nodes of
//! a [`JsonDoc`] and notes every key written twice.

use std::borrow::Cow;

use compact_str::CompactString;

use super::{
    literal_run, DuplicateKey, JsonDoc, JsonError, JsonErrorKind, JsonId, JsonNode, JsonValue,
    Member, ParsedJson, MAX_JSON_DEPTH,
};
use crate::number::Number;
use crate::span::Span;

/// Reads one JSON document from raw bytes.
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
