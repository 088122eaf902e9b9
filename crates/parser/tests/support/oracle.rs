//! The parser's JSON reader held against serde_json: both read the same bytes into one plain
//! tree ([`Tree`]), and [`compare`] says whether they agree on acceptance and on the value.
//!
//! Shared by `tests/json_test_suite.rs`, `tests/json_differential.rs` and the `json_differential`
//! fuzz target (which includes this file by path), so that all three hold the reader to one rule.
//!
//! Numbers are compared as their exact source text. serde_json's `arbitrary_precision` would
//! keep that text too, but it is a crate-wide switch: cargo unifies features, so turning it on
//! for a test changes how the mapper and the cli read and print numbers in the same build. Its
//! `raw_value` feature only adds [`RawValue`], which hands back the exact text of any value; the
//! serde_json side reads each level as raw values and recurses into them.

#![allow(
    dead_code,
    reason = "each test file and the fuzz target use a part of the oracle"
)]

use schema2iceberg_parser::json::{JsonDoc, JsonId, JsonValue};
use schema2iceberg_parser::JsonFile;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// A JSON value as both readers must agree on it.
#[derive(Debug, Clone, PartialEq)]
pub enum Tree {
    Null,
    Bool(bool),
    /// The number's exact text.
    Number(String),
    String(String),
    Array(Vec<Tree>),
    /// Members in order. A duplicated key keeps its first position and its last value, as the
    /// parser documents and as serde_json's `preserve_order` map does on insert.
    Object(Vec<(String, Tree)>),
}

/// What the two readers made of one input.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Both read it, to the same value.
    BothAccept,
    /// Both refused it; the parser with at least one diagnostic.
    BothReject,
    /// The parser stopped at its nesting cap (`json::MAX_JSON_DEPTH`, 256 levels), a limit
    /// serde_json's raw reading does not have; not a disagreement on what is JSON.
    ParserTooDeep { serde_accepts: bool },
    /// Both read it, to different values.
    ValuesDiffer { parser: Tree, serde: Tree },
    /// Only the parser read it.
    OnlyParser { serde_error: String },
    /// Only serde_json read it.
    OnlySerde { parser_error: String },
    /// The parser refused the input without saying why.
    RejectedSilently,
}

impl Verdict {
    /// Whether the readers agree (a [`Verdict::ParserTooDeep`] input is not a disagreement).
    pub fn agrees(&self) -> bool {
        matches!(
            self,
            Verdict::BothAccept | Verdict::BothReject | Verdict::ParserTooDeep { .. }
        )
    }

    /// Whether the parser accepted the input.
    pub fn parser_accepts(&self) -> bool {
        matches!(
            self,
            Verdict::BothAccept | Verdict::ValuesDiffer { .. } | Verdict::OnlyParser { .. }
        )
    }
}

/// Reads `bytes` with both readers and compares.
pub fn compare(bytes: &[u8]) -> Verdict {
    match read_with_parser(bytes) {
        Err(None) => Verdict::RejectedSilently,
        Err(Some(error)) if error.starts_with("json-too-deep") => Verdict::ParserTooDeep {
            serde_accepts: read_with_serde(bytes).is_ok(),
        },
        Err(Some(parser_error)) => match read_with_serde(bytes) {
            Ok(_) => Verdict::OnlySerde { parser_error },
            Err(_) => Verdict::BothReject,
        },
        Ok(parser) => match read_with_serde(bytes) {
            Ok(serde) if serde == parser => Verdict::BothAccept,
            Ok(serde) => Verdict::ValuesDiffer { parser, serde },
            Err(serde_error) => Verdict::OnlyParser { serde_error },
        },
    }
}

/// The parser's reading: the tree, or the first diagnostic's message (`None` when it rejected
/// the input with no diagnostic, which is itself a bug).
pub fn read_with_parser(bytes: &[u8]) -> Result<Tree, Option<String>> {
    let (file, diagnostics) = JsonFile::parse("input.json", bytes.to_vec());
    match file.json.as_deref() {
        Some(doc) => Ok(tree_of(doc, doc.root(), 0)),
        None => Err(diagnostics
            .first()
            .map(|d| format!("{}: {}", d.code, d.message))),
    }
}

fn tree_of(doc: &JsonDoc, at: JsonId, depth: usize) -> Tree {
    // The reader caps nesting, so this recursion is bounded by the input it accepted.
    assert!(depth <= 1024, "nesting beyond the reader's cap");
    match doc.value(at) {
        JsonValue::Null => Tree::Null,
        JsonValue::Bool(b) => Tree::Bool(*b),
        JsonValue::Number(n) => Tree::Number(n.as_str().to_string()),
        JsonValue::String(s) => Tree::String(s.to_string()),
        JsonValue::Array(items) => Tree::Array(
            items
                .iter()
                .map(|item| tree_of(doc, *item, depth + 1))
                .collect(),
        ),
        JsonValue::Object(members) => Tree::Object(
            members
                .iter()
                .map(|m| (m.key.to_string(), tree_of(doc, m.value, depth + 1)))
                .collect(),
        ),
    }
}

/// serde_json's reading, or its error message. Reading raw values checks the syntax without
/// serde_json's recursion limit (128 levels) or its number range, which are limits of
/// `serde_json::Value`, not of JSON; the tree is then built one level at a time.
pub fn read_with_serde(bytes: &[u8]) -> Result<Tree, String> {
    let raw: Box<RawValue> = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    tree_of_raw(&raw, 0)
}

/// Deeper than this the tree is not built (the parser refuses such input at 256 levels anyway),
/// so that this recursion stays bounded.
const MAX_TREE_DEPTH: usize = 512;

fn tree_of_raw(raw: &RawValue, depth: usize) -> Result<Tree, String> {
    if depth > MAX_TREE_DEPTH {
        return Err(format!("nested more than {MAX_TREE_DEPTH} levels"));
    }
    let text = raw.get();
    let error = |e: serde_json::Error| e.to_string();
    Ok(match text.as_bytes().first() {
        Some(b'{') => {
            let Members(pairs) = serde_json::from_str(text).map_err(error)?;
            let mut members: Vec<(String, Tree)> = Vec::with_capacity(pairs.len());
            for (key, value) in pairs {
                let value = tree_of_raw(&value, depth + 1)?;
                match members.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => slot.1 = value,
                    None => members.push((key, value)),
                }
            }
            Tree::Object(members)
        }
        Some(b'[') => {
            let items: Vec<Box<RawValue>> = serde_json::from_str(text).map_err(error)?;
            Tree::Array(
                items
                    .iter()
                    .map(|item| tree_of_raw(item, depth + 1))
                    .collect::<Result<_, _>>()?,
            )
        }
        Some(b'"') => Tree::String(serde_json::from_str(text).map_err(error)?),
        Some(b't' | b'f') => Tree::Bool(serde_json::from_str(text).map_err(error)?),
        Some(b'n') => Tree::Null,
        _ => Tree::Number(text.to_string()),
    })
}

/// An object's members in order, duplicates included (a map type would merge them).
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut pairs = Vec::new();
                while let Some(pair) = map.next_entry::<String, Box<RawValue>>()? {
                    pairs.push(pair);
                }
                Ok(Members(pairs))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}
