//! The machine-readable result: `{"format-version", "schema", "partition-spec", "diagnostics"}`,
//! with the schema and spec in Iceberg's own table-metadata JSON.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::compiler::Compiled;
use schema2iceberg_parser::Diagnostic;

/// The whole result as one JSON object. `schema` and `partition-spec` are `null` when the
/// schema has errors.
pub fn to_json(compiled: &Compiled) -> Value {
    serde_json::to_value(Report(compiled)).unwrap_or(Value::Null)
}

/// The whole result, serialized as [`to_json`]'s object is, key for key, but straight from the
/// compiled table: a writer gets the text without a `Value` tree of the report built (and
/// freed) first, which was most of the time of `compile --format json` on schemas with
/// thousands of diagnostics.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a>(pub &'a Compiled);

impl Serialize for Report<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let compiled = self.0;
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("format-version", &2)?;
        map.serialize_entry("schema", &compiled.schema)?;
        map.serialize_entry("partition-spec", &compiled.partition_spec)?;
        map.serialize_entry("diagnostics", &Diagnostics(&compiled.diagnostics))?;
        map.end()
    }
}

struct Diagnostics<'a>(&'a [Diagnostic]);

impl Serialize for Diagnostics<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(DiagnosticJson))
    }
}

struct DiagnosticJson<'a>(&'a Diagnostic);

impl Serialize for DiagnosticJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let d = self.0;
        let mut map = serializer.serialize_map(Some(9))?;
        map.serialize_entry("severity", d.severity.as_str())?;
        map.serialize_entry("code", d.code)?;
        map.serialize_entry("message", &d.message)?;
        map.serialize_entry("file", &*d.location.file)?;
        map.serialize_entry("pointer", &d.location.pointer)?;
        map.serialize_entry("line", &d.location.line)?;
        map.serialize_entry("column", &d.location.column)?;
        map.serialize_entry("field", &d.field)?;
        map.serialize_entry("help", &d.help)?;
        map.end()
    }
}
