//! The Arrow schema of the table as the `iceberg` crate converts it (each field with its
//! `PARQUET:field_id` metadata), and that schema as JSON by `arrow-schema`'s own serde form.

use iceberg::spec::Schema;
use serde_json::Value;

use super::FormatError;

/// The Arrow schema that the `iceberg` crate's readers and writers use for `schema`.
pub fn arrow_schema(schema: &Schema) -> Result<::arrow_schema::Schema, FormatError> {
    iceberg::arrow::schema_to_arrow_schema(schema).map_err(|e| {
        FormatError::library(format!(
            "the Iceberg library could not convert the table to Arrow: {}",
            e.message()
        ))
    })
}

/// The Arrow schema as JSON, as `arrow-schema` serializes it (`serde_json::from_value` reads
/// it back into an `arrow_schema::Schema`). Metadata is kept in a hash map by `arrow-schema`,
/// so every metadata object is sorted by key to be the same on every run.
pub fn arrow_schema_json(schema: &Schema) -> Result<Value, FormatError> {
    let arrow = arrow_schema(schema)?;
    let mut json = serde_json::to_value(&arrow).map_err(|e| {
        FormatError::library(format!("the Arrow library could not write the schema: {e}"))
    })?;
    crate::formats::json_walk::each_object(&mut json, |object| {
        if let Some(Value::Object(metadata)) = object.get_mut("metadata") {
            metadata.sort_keys();
        }
    });
    Ok(json)
}
