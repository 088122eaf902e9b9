//! Maps a parsed JSON Schema to the Iceberg schema and partition spec that an Amazon Kinesis or
//! MSK streaming-tables channel creates from it, with a diagnostic for every problem.
//!
//! The rules are in `docs/mapping.md`. The crate does no I/O: give it a
//! [`schema2iceberg_parser::Workspace`].
//!
//! The crate has one folder per job, and the root re-exports the compiler's entry points:
//!
//! - [`compile`] (or [`compile_source`] for text in memory) with [`CompileOptions`] gives a
//!   [`Compiled`]: the Iceberg schema and partition spec, the diagnostics, and, on request, each
//!   column's [`ColumnSource`]. [`formats::report::to_json`] writes it as the
//!   `compile --format json` object. [`compile`] is [`map`] and then [`Mapped::build`]; call the
//!   two yourself to free the workspace between them, before the Iceberg library builds the
//!   schema.
//! - [`compiler`] holds the walk and its passes; [`compiler::codes`] and [`compiler::lints`]
//!   hold its tables of diagnostic codes (`ALL`), with the rule of docs/mapping.md that decides
//!   each, and [`compiler::keywords`] the table of JSON Schema keywords.
//! - [`formats`] writes a compiled table as Avro, Arrow, `CREATE TABLE` DDL, Iceberg table
//!   metadata or the `compile --format json` report.
//! - [`diff`] compares two compiled tables and says what each change does to the table, to a
//!   running channel and to Iceberg.
//! - [`channel`] checks Kinesis and MSK channel configurations and finds the partition source
//!   and record format they name; its table of diagnostic codes is [`channel::ALL`].
//! - [`records`] checks records against a compiled table as the channel would, and
//!   [`policies`] checks and writes the IAM policies a channel needs.
//! - [`generated`] splices generated text into hand-written documents.
//!
//! The walk, the column model, field ids and the partition builder are private to the crate.
//!
//! ```
//! use schema2iceberg_mapper::{compile_source, CompileOptions};
//!
//! let schema = r#"{
//!   "$schema": "http://json-schema.org/draft-07/schema#",
//!   "type": "object",
//!   "properties": {
//!     "id": {"type": "integer", "maximum": 1000},
//!     "event_time": {"type": "string", "format": "date-time"},
//!     "price": {"type": "number", "multipleOf": 0.01}
//!   },
//!   "required": ["id", "event_time"]
//! }"#;
//! let options = CompileOptions {
//!     partition: vec!["event_time".to_string()],
//!     ..CompileOptions::default()
//! };
//! let compiled = compile_source("event.json", schema, &options);
//! assert!(!compiled.has_errors());
//! let json = schema2iceberg_mapper::formats::report::to_json(&compiled);
//! println!("{}", serde_json::to_string_pretty(&json).unwrap());
//! assert_eq!(json["schema"]["fields"][0]["type"], "int");
//! assert_eq!(json["schema"]["fields"][2]["type"], "decimal(38, 2)");
//! assert_eq!(json["partition-spec"]["fields"][0]["name"], "event_time_hour");
//! ```

#![deny(missing_docs)]

pub mod channel;
pub mod compiler;
pub mod diff;
pub mod formats;
pub mod generated;
pub mod policies;
pub mod records;

pub use compiler::{compile, compile_source, map, ColumnSource, CompileOptions, Compiled, Mapped};
