//! The record as the `jsonschema` crate reads it: the crate's JSON traits implemented for the
//! parser's [`JsonDoc`], so that validation reads the record in place instead of a
//! `serde_json::Value` built for it. Every answer is the one that `Value` gave: a number is the
//! `serde_json::Number` that serde_json reads from its text ([`number`]), an object holds each
//! key once in document order (as the reader keeps them, and as `Value`'s `preserve_order` map
//! does), and the instance an error shows is that same `Value` ([`value_of`]).

use std::borrow::Cow;

use jsonschema::json::{cmp, Array, Json, Node, NodeIdentity, Object};
use jsonschema::JsonType;
use schema2iceberg_parser::json::{JsonDoc, JsonId, JsonValue, Member};
use serde_json::Value;

/// The representation: a record read by `schema2iceberg_parser::json::read`. Validate only a
/// record that [`out_of_range`] passes: a number beyond f64's range has no `serde_json::Number`.
pub(crate) struct DocJson;

/// One value of a record: the document (to reach its children) and the value.
#[derive(Clone, Copy)]
pub(crate) struct DocNode<'a> {
    doc: &'a JsonDoc,
    value: &'a JsonValue,
}

impl<'a> DocNode<'a> {
    /// The value at `at` in `doc`.
    pub(crate) fn new(doc: &'a JsonDoc, at: JsonId) -> DocNode<'a> {
        DocNode {
            doc,
            value: doc.value(at),
        }
    }
}

/// Where `propertyNames` holds each name it validates.
pub(crate) struct NameBuffer {
    doc: JsonDoc,
    value: JsonValue,
}

impl Default for NameBuffer {
    fn default() -> Self {
        NameBuffer {
            doc: JsonDoc::default(),
            value: JsonValue::Null,
        }
    }
}

impl Json for DocJson {
    type Node<'a> = DocNode<'a>;
    type PreparedKey = String;
    type StringBuffer = NameBuffer;

    // As the crate's own `serde_json::Value` representation, so that `required` takes the same
    // paths (members pass or lookups) it took on the `Value`.
    const KEYS_PER_LOOKUP: usize = 2;
    // A read document is a tree.
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> String {
        key.to_owned()
    }

    fn with_string_node<T>(
        buffer: &mut NameBuffer,
        string: &str,
        f: impl FnOnce(DocNode<'_>) -> T,
    ) -> T {
        buffer.value = JsonValue::String(string.into());
        f(DocNode {
            doc: &buffer.doc,
            value: &buffer.value,
        })
    }
}

impl<'a> Node<'a, DocJson> for DocNode<'a> {
    type Object = DocObject<'a>;
    type Array = DocArray<'a>;
    type Number = serde_json::Number;

    fn as_object(&self) -> Option<DocObject<'a>> {
        match self.value {
            JsonValue::Object(members) => Some(DocObject {
                doc: self.doc,
                members,
            }),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<DocArray<'a>> {
        match self.value {
            JsonValue::Array(items) => Some(DocArray {
                doc: self.doc,
                items,
            }),
            _ => None,
        }
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        match self.value {
            JsonValue::String(s) => Some(Cow::Borrowed(s.as_str())),
            _ => None,
        }
    }

    fn as_number(&self) -> Option<serde_json::Number> {
        match self.value {
            JsonValue::Number(n) => number(n.as_str()),
            _ => None,
        }
    }

    fn as_boolean(&self) -> Option<bool> {
        match self.value {
            JsonValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        matches!(self.value, JsonValue::Null)
    }

    fn is_number(&self) -> bool {
        matches!(self.value, JsonValue::Number(_))
    }

    fn json_type(&self) -> JsonType {
        match self.value {
            JsonValue::Null => JsonType::Null,
            JsonValue::Bool(_) => JsonType::Boolean,
            JsonValue::Number(_) => JsonType::Number,
            JsonValue::String(_) => JsonType::String,
            JsonValue::Array(_) => JsonType::Array,
            JsonValue::Object(_) => JsonType::Object,
        }
    }

    fn string_length_within(&self, min: u64, max: u64) -> Option<bool> {
        let JsonValue::String(s) = self.value else {
            return None;
        };
        // A code point takes one to four bytes, so the count lies in `ceil(bytes / 4)..=bytes`.
        let bytes = s.len() as u64;
        let fewest = bytes.div_ceil(4);
        if bytes < min || fewest > max {
            return Some(false);
        }
        if min <= fewest && bytes <= max {
            return Some(true);
        }
        Some((min..=max).contains(&(s.chars().count() as u64)))
    }

    // `cmp::equal` on the `Value`, without building one for a scalar.
    fn equals_value(&self, expected: &Value) -> bool {
        match (self.value, expected) {
            (JsonValue::String(s), Value::String(e)) => s.as_str() == e.as_str(),
            (JsonValue::Bool(b), Value::Bool(e)) => b == e,
            (JsonValue::Null, Value::Null) => true,
            (JsonValue::Number(_), Value::Number(_)) => self
                .as_number()
                .is_some_and(|n| cmp::equal(&Value::Number(n), expected)),
            (JsonValue::Array(_) | JsonValue::Object(_), _) => {
                cmp::equal(&self.to_value(), expected)
            }
            _ => false,
        }
    }

    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(value_of(self.doc, self.value))
    }

    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::new(std::ptr::from_ref(self.value) as usize))
    }
}

/// An object of a record.
#[derive(Clone, Copy)]
pub(crate) struct DocObject<'a> {
    doc: &'a JsonDoc,
    members: &'a [Member],
}

impl<'a> Object<'a, DocJson> for DocObject<'a> {
    type Node = DocNode<'a>;
    type MemberName = &'a str;
    type MembersIter = Members<'a>;

    fn len(&self) -> usize {
        self.members.len()
    }

    fn get(&self, key: &String) -> Option<DocNode<'a>> {
        self.members
            .iter()
            .find(|m| m.key.as_str() == key.as_str())
            .map(|m| DocNode::new(self.doc, m.value))
    }

    fn members(&self) -> Members<'a> {
        Members {
            doc: self.doc,
            members: self.members.iter(),
        }
    }
}

/// An object's members in document order.
pub(crate) struct Members<'a> {
    doc: &'a JsonDoc,
    members: std::slice::Iter<'a, Member>,
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, DocNode<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let m = self.members.next()?;
        Some((m.key.as_str(), DocNode::new(self.doc, m.value)))
    }
}

/// An array of a record.
#[derive(Clone, Copy)]
pub(crate) struct DocArray<'a> {
    doc: &'a JsonDoc,
    items: &'a [JsonId],
}

impl<'a> Array<'a, DocJson> for DocArray<'a> {
    type Node = DocNode<'a>;
    type ElementsIter = Elements<'a>;

    fn len(&self) -> usize {
        self.items.len()
    }

    fn elements(&self) -> Elements<'a> {
        Elements {
            doc: self.doc,
            items: self.items.iter(),
        }
    }
}

/// An array's items in order.
pub(crate) struct Elements<'a> {
    doc: &'a JsonDoc,
    items: std::slice::Iter<'a, JsonId>,
}

impl<'a> Iterator for Elements<'a> {
    type Item = DocNode<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(DocNode::new(self.doc, *self.items.next()?))
    }
}

/// The first number of `doc` below `at` (in document order, `at` included) that is beyond
/// f64's range, which no validator can hold; only the values an object keeps count (of a key
/// written twice, the later). The recursion is bounded by the JSON reader's nesting limit.
pub(crate) fn out_of_range(doc: &JsonDoc, at: JsonId) -> Option<JsonId> {
    match doc.value(at) {
        JsonValue::Number(n) => (!in_range(n.as_str())).then_some(at),
        JsonValue::Array(items) => items.iter().find_map(|i| out_of_range(doc, *i)),
        JsonValue::Object(members) => members.iter().find_map(|m| out_of_range(doc, m.value)),
        _ => None,
    }
}

/// Whether [`number`] reads `text`. Without an exponent, up to 300 characters hold a number
/// below 1e300, well inside f64's range, and need no parsing.
fn in_range(text: &str) -> bool {
    (text.len() <= 300 && !text.contains(['e', 'E'])) || number(text).is_some()
}

/// `value` of `doc` as a `serde_json::Value`, which is what the validator's errors show. A
/// number beyond f64's range (which [`out_of_range`] finds first) becomes `null`. The recursion
/// is bounded by the JSON reader's nesting limit.
pub(crate) fn value_of(doc: &JsonDoc, value: &JsonValue) -> Value {
    match value {
        JsonValue::Null => Value::Null,
        JsonValue::Bool(b) => Value::Bool(*b),
        JsonValue::Number(n) => number(n.as_str()).map_or(Value::Null, Value::Number),
        JsonValue::String(s) => Value::String(s.to_string()),
        JsonValue::Array(items) => {
            Value::Array(items.iter().map(|i| value_of(doc, doc.value(*i))).collect())
        }
        JsonValue::Object(members) => Value::Object(
            members
                .iter()
                .map(|m| (m.key.to_string(), value_of(doc, doc.value(m.value))))
                .collect(),
        ),
    }
}

/// A number as serde_json reads it: `i64` or `u64` when its text is an integer that fits, `f64`
/// otherwise; `None` when it is beyond f64's range (serde_json refuses such a number too).
pub(crate) fn number(text: &str) -> Option<serde_json::Number> {
    let integer = !text.contains(['.', 'e', 'E']);
    if integer {
        if let Ok(i) = text.parse::<i64>() {
            return Some(i.into());
        }
        if let Ok(u) = text.parse::<u64>() {
            return Some(u.into());
        }
    }
    text.parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
}
