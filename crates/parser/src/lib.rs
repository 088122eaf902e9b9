//! Reads JSON Schema documents (draft-04, -06 and -07) into a typed model that keeps key order,
//! the exact text of numbers and the source position of every keyword, and resolves `$ref`.
//!
//! It knows nothing of Iceberg: `schema2iceberg-mapper` turns the model into a table.
//!
//! What a schema-review tool needs, and all that is public:
//!
//! - [`Workspace`] reads a schema file ([`Workspace::open`], or [`Workspace::from_bytes`] for text
//!   in memory, with [`LoadOptions`]) and every file its `$ref`s reach, and holds one [`Schema`]
//!   node per schema value. Its [`Keywords`] keep the exact text of numbers ([`Number`]); each
//!   `$ref` is already resolved ([`Reference::target`]).
//! - [`JsonFile`] is one JSON file with positions; a workspace's [`Document`]s are `JsonFile`s
//!   with a base URI and a draft. [`json`] is the value model behind it (key order, duplicate
//!   keys, spans, parent links); its keys and strings, and the names and texts that the schema
//!   model copies from them, are [`CompactString`]s, which keep short strings inline.
//!   [`SourceTexts`] keeps only the files' texts, for drawing diagnostics once the workspace is
//!   done with ([`Workspace::into_source_texts`]).
//! - [`Diagnostic`]s have a stable [`Code`] (the parser's are in [`codes`]; [`code_table!`]
//!   declares more), a [`Severity`] and a [`Location`]; a [`Site`] is a location not yet
//!   computed ([`Workspace::locate`]).
//! - [`bundle()`] writes a workspace as one document; [`pointer`](mod@pointer) and [`suggest`] are the JSON
//!   Pointer and "did you mean" helpers that the mapper shares.
//!
//! ```
//! use schema2iceberg_parser::{json::JsonValue, LoadOptions, Workspace};
//!
//! let text = br##"{
//!   "$schema": "http://json-schema.org/draft-07/schema#",
//!   "type": "object",
//!   "properties": {"price": {"type": "number", "multipleOf": 0.010}},
//!   "definitions": {"unused": {"$ref": "#/definitions/missing"}}
//! }"##;
//! let base = url::Url::parse("file:///schemas/event.json").unwrap();
//! let ws = Workspace::from_bytes("event.json", text.to_vec(), base, LoadOptions::default());
//! assert!(ws.diagnostics().is_empty(), "the document is JSON and names a supported draft");
//!
//! // Keywords keep the exact text of numbers, and every node knows where it is written.
//! let root = ws.keywords(ws.root().unwrap()).unwrap();
//! let price = &root.properties.as_ref().unwrap().value[0];
//! let multiple_of = &ws.keywords(price.schema).unwrap().multiple_of().unwrap().value;
//! assert_eq!(multiple_of.as_str(), "0.010");
//! assert_eq!(multiple_of.scale(), 2);
//! let location = ws.schema_location(price.schema);
//! assert_eq!((location.pointer.as_str(), location.line), ("/properties/price", 4));
//!
//! // Every `$ref` is resolved when the workspace is built; one that names nothing carries the
//! // diagnostic to report where it is used.
//! let doc = ws.schema(ws.root().unwrap()).unwrap().doc;
//! let JsonValue::Object(definitions) = ws.json_value(doc, root.key("definitions").unwrap()) else {
//!     unreachable!()
//! };
//! let unused = ws.schema_at(doc, definitions[0].value).unwrap();
//! let reference = &ws.keywords(unused).unwrap().reference.as_ref().unwrap().value;
//! let dangling = reference.target.as_ref().unwrap_err();
//! assert_eq!(dangling.code, "ref-dangling");
//! assert_eq!(dangling.location.pointer, "/definitions/unused/$ref");
//! ```

#![deny(missing_docs)]

mod bundle;
pub mod codes;
mod diagnostic;
mod draft;
mod file;
pub mod json;
mod number;
pub mod pointer;
mod schema;
mod span;
pub mod suggest;
mod workspace;

pub use bundle::bundle;
pub use compact_str::CompactString;
pub use diagnostic::{Code, Diagnostic, Location, Severity};
pub use draft::Draft;
pub use file::{JsonFile, SourceTexts};
pub use number::Number;
pub use schema::{
    keyword_name, DocId, Exclusive, Items, Keyword, Keywords, Property, RareKeywords, Reference,
    Schema, SchemaId, SchemaKind, Site, TypeList, TypeName, KEYWORD_NAMES,
};
pub use span::{LineIndex, Span};
pub use url::Url;
pub use workspace::{
    absolute_path, default_ref_root, Document, LoadOptions, Workspace, MAX_DOCUMENTS,
};
