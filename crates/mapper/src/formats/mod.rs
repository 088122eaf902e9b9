//! What a compiled table is written as: its Avro record schema, its Arrow schema, `CREATE
//! TABLE` DDL, the whole Iceberg table metadata, and the `compile --format json` report. Each
//! reads the `iceberg::spec` schema (the report reads the whole [`crate::Compiled`]).

pub mod arrow;
pub mod avro;
pub mod ddl;
mod error;
mod json_walk;
pub mod report;
pub mod table_metadata;

pub use error::{ErrorKind, FormatError};
