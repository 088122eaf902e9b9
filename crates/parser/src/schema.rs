//! The typed model of one schema node: the keywords the compiler reads, with where each is written.

use std::borrow::Cow;

use compact_str::CompactString;

use crate::json::JsonId;
use crate::number::Number;
use crate::span::Span;
use crate::Diagnostic;

/// Index of a document in a [`crate::Workspace`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct DocId(pub(crate) u32);

/// Index of a schema node in a [`crate::Workspace`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SchemaId(pub(crate) u32);

impl SchemaId {
    /// The index as a `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where a value is written, as two indexes: cheap to keep for every column, and turned into a
/// [`crate::Location`] (pointer, line and column) by [`crate::Workspace::locate`] only when a
/// diagnostic needs one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Site {
    /// The document.
    pub doc: DocId,
    /// The JSON value, for the pointer.
    pub at: JsonId,
    /// A narrower span to point at than the value's own (a property's name), if any.
    pub span: Option<Span>,
}

impl Site {
    /// The site of the value `at` in `doc`.
    pub fn new(doc: DocId, at: JsonId) -> Site {
        Site {
            doc,
            at,
            span: None,
        }
    }
}

/// A keyword's value and the JSON value it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyword<T> {
    /// The value.
    pub value: T,
    /// The JSON value, for its pointer and span.
    pub at: JsonId,
}

/// One schema node.
#[derive(Debug, Clone)]
pub struct Schema {
    /// The document it is written in.
    pub doc: DocId,
    /// Its JSON value.
    pub at: JsonId,
    /// Its shape.
    pub kind: SchemaKind,
    /// Problems with its keywords, reported by whoever uses the node: a broken keyword in a
    /// definition that nothing uses does not reach the table.
    pub problems: Vec<Diagnostic>,
}

/// The shape of a schema node.
#[derive(Debug, Clone)]
pub enum SchemaKind {
    /// `true` (anything) or `false` (nothing).
    Bool(bool),
    /// An object of keywords.
    Object(Box<Keywords>),
    /// Not an object or a boolean; the problem is in [`Schema::problems`].
    Invalid,
}

/// A JSON Schema type name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TypeName {
    /// `null`
    Null,
    /// `boolean`
    Boolean,
    /// `object`
    Object,
    /// `array`
    Array,
    /// `number`
    Number,
    /// `integer`
    Integer,
    /// `string`
    String,
}

impl TypeName {
    /// Reads a type name.
    pub fn parse(text: &str) -> Option<TypeName> {
        Some(match text {
            "null" => TypeName::Null,
            "boolean" => TypeName::Boolean,
            "object" => TypeName::Object,
            "array" => TypeName::Array,
            "number" => TypeName::Number,
            "integer" => TypeName::Integer,
            "string" => TypeName::String,
            _ => return None,
        })
    }

    /// The name as JSON Schema spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            TypeName::Null => "null",
            TypeName::Boolean => "boolean",
            TypeName::Object => "object",
            TypeName::Array => "array",
            TypeName::Number => "number",
            TypeName::Integer => "integer",
            TypeName::String => "string",
        }
    }
}

/// The names of a `type` keyword, in the order written, each once. Held inline: nearly every
/// schema node writes `type`, and a `Vec` cost each of them an allocation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TypeList {
    names: [TypeName; 7],
    len: u8,
}

impl TypeList {
    /// No names.
    pub fn new() -> TypeList {
        TypeList {
            names: [TypeName::Null; 7],
            len: 0,
        }
    }

    /// Adds `name` unless it is there already (so the list never outgrows the seven names).
    pub fn insert(&mut self, name: TypeName) {
        if !self.contains(&name) {
            if let Some(slot) = self.names.get_mut(usize::from(self.len)) {
                *slot = name;
                self.len += 1;
            }
        }
    }
}

impl Default for TypeList {
    fn default() -> TypeList {
        TypeList::new()
    }
}

impl std::ops::Deref for TypeList {
    type Target = [TypeName];

    fn deref(&self) -> &[TypeName] {
        self.names.get(..usize::from(self.len)).unwrap_or_default()
    }
}

impl std::fmt::Debug for TypeList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<const N: usize> PartialEq<[TypeName; N]> for TypeList {
    fn eq(&self, other: &[TypeName; N]) -> bool {
        **self == *other
    }
}

impl FromIterator<TypeName> for TypeList {
    fn from_iter<I: IntoIterator<Item = TypeName>>(names: I) -> TypeList {
        let mut list = TypeList::new();
        names.into_iter().for_each(|name| list.insert(name));
        list
    }
}

/// `exclusiveMaximum` / `exclusiveMinimum`: a boolean modifier in draft-04, a bound since draft-06.
#[derive(Debug, Clone, PartialEq)]
pub enum Exclusive {
    /// draft-04 style.
    Flag(bool),
    /// draft-06/07 style.
    Bound(Number),
}

/// A `$ref` and what it resolved to.
#[derive(Debug, Clone)]
pub struct Reference {
    /// The reference as written.
    pub text: CompactString,
    /// The target, or the reason there is none (reported when the reference is used).
    pub target: Result<SchemaId, Box<Diagnostic>>,
}

/// One entry of `properties`.
#[derive(Debug, Clone)]
pub struct Property {
    /// The property name, unescaped.
    pub name: CompactString,
    /// Where the name is written.
    pub name_span: Span,
    /// Its schema.
    pub schema: SchemaId,
}

/// `items`: one schema for all elements, or the tuple form.
#[derive(Debug, Clone)]
pub enum Items {
    /// `"items": {…}`
    Single(SchemaId),
    /// `"items": [{…}, …]`
    Tuple(Vec<SchemaId>),
}

/// The keywords of an object schema that the compiler reads. Anything else is kept only as a
/// name in [`Keywords::keys`]. The ones that most schemas write are fields; the others are in
/// [`RareKeywords`], read through the methods of the same names.
#[derive(Debug, Clone, Default)]
pub struct Keywords {
    /// Every key of the object, in order, with its value. A JSON-Schema keyword's name is
    /// borrowed from [`KEYWORD_NAMES`], so only other keys cost an allocation.
    pub keys: Vec<(Cow<'static, str>, JsonId)>,
    /// `$ref`
    pub reference: Option<Keyword<Reference>>,
    /// `type`, as a list even where a single name was written.
    pub types: Option<Keyword<TypeList>>,
    /// `format`
    pub format: Option<Keyword<CompactString>>,
    /// `properties`
    pub properties: Option<Keyword<Vec<Property>>>,
    /// `required`: each name with its JSON value.
    pub required: Option<Keyword<Vec<Keyword<CompactString>>>>,
    /// `items`
    pub items: Option<Keyword<Items>>,
    /// `description`
    pub description: Option<Keyword<CompactString>>,
    /// The other keywords, allocated only for a schema that writes one of them: a leaf such
    /// as `{"type": "integer", "description": "…"}` is the common node of a large schema, and
    /// keeping every keyword inline made each node 672 bytes.
    pub(crate) rare: Option<Box<RareKeywords>>,
}

/// [`RareKeywords`], and one reader method on [`Keywords`] for each of its fields, from one
/// list.
macro_rules! rare_keywords {
    ($($(#[$doc:meta])* $name:ident: $type:ty;)*) => {
        /// The keywords that a schema node keeps apart from [`Keywords`]' fields.
        #[derive(Debug, Clone, Default)]
        pub struct RareKeywords {
            $(
                $(#[$doc])*
                pub $name: Option<Keyword<$type>>,
            )*
        }

        impl Keywords {
            $(
                $(#[$doc])*
                pub fn $name(&self) -> Option<&Keyword<$type>> {
                    self.rare.as_deref()?.$name.as_ref()
                }
            )*
        }
    };
}

rare_keywords! {
    /// `contentEncoding`
    content_encoding: CompactString;
    /// `encoding` (the Kinesis page's wording for binary strings)
    encoding: CompactString;
    /// `enum`: its values.
    enum_values: Vec<JsonId>;
    /// `const`
    const_value: JsonId;
    /// `multipleOf`
    multiple_of: Number;
    /// `maximum`
    maximum: Number;
    /// `exclusiveMaximum`
    exclusive_maximum: Exclusive;
    /// `minimum`
    minimum: Number;
    /// `exclusiveMinimum`
    exclusive_minimum: Exclusive;
    /// `additionalProperties`
    additional_properties: SchemaId;
    /// `patternProperties`
    pattern_properties: Vec<SchemaId>;
    /// `allOf`
    all_of: Vec<SchemaId>;
    /// `anyOf`
    any_of: Vec<SchemaId>;
    /// `oneOf`
    one_of: Vec<SchemaId>;
}

/// The keywords of drafts 04, 06 and 07 (and `$defs`, `encoding`), sorted: the names that
/// [`Keywords::keys`] shares instead of copying. Schemas consist mostly of these names, and
/// copying them was the largest part of the keyword tables' memory on big schemas.
pub const KEYWORD_NAMES: &[&str] = &[
    "$comment",
    "$defs",
    "$id",
    "$ref",
    "$schema",
    "additionalItems",
    "additionalProperties",
    "allOf",
    "anyOf",
    "const",
    "contains",
    "contentEncoding",
    "contentMediaType",
    "default",
    "definitions",
    "dependencies",
    "description",
    "else",
    "encoding",
    "enum",
    "examples",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "format",
    "id",
    "if",
    "items",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "multipleOf",
    "not",
    "oneOf",
    "pattern",
    "patternProperties",
    "properties",
    "propertyNames",
    "readOnly",
    "required",
    "then",
    "title",
    "type",
    "uniqueItems",
    "writeOnly",
];

/// `key` as it is kept in [`Keywords::keys`]: borrowed when it is one of [`KEYWORD_NAMES`].
pub fn keyword_name(key: &str) -> Cow<'static, str> {
    match KEYWORD_NAMES.binary_search(&key) {
        Ok(index) => KEYWORD_NAMES
            .get(index)
            .map_or_else(|| Cow::Owned(key.to_string()), |name| Cow::Borrowed(*name)),
        Err(_) => Cow::Owned(key.to_string()),
    }
}

impl Keywords {
    /// The JSON value of the key `name`, if the object has it.
    pub fn key(&self, name: &str) -> Option<JsonId> {
        self.keys.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }

    /// The rarer keywords, for setting one: allocated on first use.
    pub fn rare_mut(&mut self) -> &mut RareKeywords {
        self.rare.get_or_insert_with(Box::default)
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::{keyword_name, KEYWORD_NAMES};

    #[test]
    fn keyword_names_are_sorted_and_shared() {
        assert!(KEYWORD_NAMES.windows(2).all(|w| w[0] < w[1]));
        for name in KEYWORD_NAMES {
            assert!(matches!(keyword_name(name), Cow::Borrowed(n) if n == *name));
        }
        assert!(matches!(keyword_name("x-vendor"), Cow::Owned(n) if n == "x-vendor"));
        assert!(matches!(keyword_name("Type"), Cow::Owned(_)));
    }

    #[test]
    fn type_list_keeps_the_written_order_once_each() {
        use super::{TypeList, TypeName as T};
        let list: TypeList = [T::String, T::Null, T::String, T::Integer, T::Null]
            .into_iter()
            .collect();
        assert_eq!(*list, [T::String, T::Null, T::Integer]);
        assert!(list == [T::String, T::Null, T::Integer]);
        assert!(list != [T::String, T::Null]);
        let every = [
            T::Null,
            T::Boolean,
            T::Object,
            T::Array,
            T::Number,
            T::Integer,
            T::String,
        ];
        let full: TypeList = every.iter().chain(every.iter().rev()).copied().collect();
        assert_eq!(*full, every);
        assert!(TypeList::new().is_empty());
        assert_eq!(format!("{list:?}"), "[String, Null, Integer]");
    }
}
