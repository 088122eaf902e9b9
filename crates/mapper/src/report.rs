//! The machine-readable result: `{"format-version", "schema", "partition-spec", "diagnostics"}`,
//! with the schema and spec in Iceberg's own table-metadata JSON.

use serde_json::{json, Map, Value};

use crate::Compiled;
use schema2iceberg_parser::Diagnostic;

/// The JSON object of one diagnostic.
pub(crate) fn diagnostic_json(d: &Diagnostic) -> Value {
    let mut object = Map::new();
    object.insert("severity".into(), json!(d.severity.as_str()));
    object.insert("code".into(), json!(d.code));
    object.insert("message".into(), json!(d.message));
    object.insert("file".into(), json!(&*d.location.file));
    object.insert("pointer".into(), json!(d.location.pointer));
    object.insert("line".into(), json!(d.location.line));
    object.insert("column".into(), json!(d.location.column));
    object.insert("field".into(), json!(d.field));
    object.insert("help".into(), json!(d.help));
    Value::Object(object)
}

/// The whole result as one JSON object. `schema` and `partition-spec` are `null` when the
/// schema has errors.
pub fn to_json(compiled: &Compiled) -> Value {
    let schema = compiled
        .schema
        .as_ref()
        .and_then(|s| serde_json::to_value(s).ok())
        .unwrap_or(Value::Null);
    let spec = compiled
        .partition_spec
        .as_ref()
        .and_then(|s| serde_json::to_value(s).ok())
        .unwrap_or(Value::Null);
    let mut object = Map::new();
    object.insert("format-version".into(), json!(2));
    object.insert("schema".into(), schema);
    object.insert("partition-spec".into(), spec);
    object.insert(
        "diagnostics".into(),
        Value::Array(compiled.diagnostics.iter().map(diagnostic_json).collect()),
    );
    Value::Object(object)
}
