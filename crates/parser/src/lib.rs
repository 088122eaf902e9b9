//! Reads JSON Schema documents (draft-04, -06 and -07) into a typed model that keeps key order,
//! the exact text of numbers and the source position of every keyword, and resolves `$ref`.
//!
//! It knows nothing of Iceberg: `schema2iceberg-mapper` turns the model into a table.
//!
//! ```
//! use schema2iceberg_parser::{LoadOptions, Workspace, SchemaKind};
//!
//! let text = br##"{
//!   "$schema": "http://json-schema.org/draft-07/schema#",
//!   "type": "object",
//!   "properties": {"price": {"type": "number", "multipleOf": 0.010}},
//!   "definitions": {"unused": {"$ref": "#/definitions/missing"}}
//! }"##;
//! let base = url::Url::parse("file:///schemas/event.json").unwrap();
//! let ws = Workspace::from_bytes("event.json", text.to_vec(), base, LoadOptions::default());
//! let root = ws.keywords(ws.root().unwrap()).unwrap();
//! let price = &root.properties.as_ref().unwrap().value[0];
//! let multiple_of = &ws.keywords(price.schema).unwrap().multiple_of.as_ref().unwrap().value;
//! assert_eq!(multiple_of.as_str(), "0.010");
//! assert_eq!(multiple_of.scale(), 2);
//! assert_eq!(ws.schema_location(price.schema).pointer, "/properties/price");
//!
//! // The mapper crate turns the same model into the Iceberg table.
//! let compiled = schema2iceberg_mapper::compile_source(
//!     "event.json",
//!     std::str::from_utf8(text).unwrap(),
//!     &Default::default(),
//! );
//! let table = schema2iceberg_mapper::report::to_json(&compiled);
//! println!("{}", serde_json::to_string_pretty(&table["schema"]).unwrap());
//! assert_eq!(table["schema"]["fields"][0]["type"], "decimal(38, 2)");
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
pub use diagnostic::{Code, Diagnostic, Location, Severity};
pub use draft::{DeclaredDraft, Draft};
pub use file::JsonFile;
pub use number::Number;
pub use schema::{
    DocId, Exclusive, Items, Keyword, Keywords, Property, Reference, Schema, SchemaId, SchemaKind,
    Site, TypeName,
};
pub use span::{LineIndex, Span};
pub use url::Url;
pub use workspace::{
    absolute_path, default_ref_root, Document, LoadOptions, Workspace, MAX_DOCUMENTS,
};
