//! The whole table metadata a channel creates: the compiled schema and hour partition spec with
//! an unsorted sort order, format version 2 and the channel's table properties, built by the
//! `iceberg` crate's `TableMetadataBuilder`.

use std::collections::HashMap;

use iceberg::spec::{
    FormatVersion, PartitionSpec, Schema, SortOrder, TableMetadata, TableMetadataBuilder,
};

use super::FormatError;

/// The table property that names the Parquet codec.
pub const CODEC_PROPERTY: &str = "write.parquet.compression-codec";

/// The table location when none is given: an S3 Tables-shaped location that says it is a
/// placeholder, since the real one is chosen by S3 Tables when the channel creates the table.
pub const PLACEHOLDER_LOCATION: &str = "s3://placeholder-location-set-with-location-flag--table-s3";

/// The table properties the channel sets that we know of: Parquet data files, with the codec
/// of `CompressionType` (`uncompressed`, `zstd` or `snappy`, as Iceberg names them). AWS
/// documents that the channel sets properties, but not which; these are what readers need.
pub fn channel_properties(codec: &str) -> Vec<(String, String)> {
    vec![
        ("write.format.default".to_string(), "parquet".to_string()),
        (CODEC_PROPERTY.to_string(), codec.to_string()),
    ]
}

/// Where the table is and what it is called, for its metadata.
#[derive(Debug, Clone)]
pub struct TableSettings {
    /// The table location (`location`).
    pub location: String,
    /// The table UUID (`table-uuid`).
    pub uuid: uuid::Uuid,
    /// The table properties.
    pub properties: Vec<(String, String)>,
}

/// The metadata of the new table, as `TableMetadataBuilder` builds it. The builder assigns
/// fresh ids, as a catalog does on `create_table`; for a compiled schema they are the same ids.
pub fn table_metadata(
    schema: &Schema,
    spec: &PartitionSpec,
    settings: &TableSettings,
) -> Result<TableMetadata, FormatError> {
    let properties: HashMap<String, String> = settings.properties.iter().cloned().collect();
    TableMetadataBuilder::new(
        schema.clone(),
        spec.clone(),
        SortOrder::unsorted_order(),
        settings.location.clone(),
        FormatVersion::V2,
        properties,
    )
    .map(|builder| builder.assign_uuid(settings.uuid))
    .and_then(TableMetadataBuilder::build)
    .map(|built| built.metadata)
    .map_err(|e| {
        FormatError::library(format!(
            "the Iceberg library rejected the table metadata: {}",
            e.message()
        ))
    })
}

/// The metadata as JSON, the same on every run: the builder stamps `last-updated-ms` with the
/// time of the build, which becomes 0 here (the channel's table gets the time it is created),
/// and keeps the properties in a hash map, whose order changes from run to run, so they are
/// sorted by key.
pub fn table_metadata_json(metadata: &TableMetadata) -> Result<serde_json::Value, FormatError> {
    let mut json = serde_json::to_value(metadata).map_err(|e| {
        FormatError::library(format!(
            "the Iceberg library could not write the table metadata: {e}"
        ))
    })?;
    if let Some(object) = json.as_object_mut() {
        if let Some(stamp) = object.get_mut("last-updated-ms") {
            *stamp = serde_json::Value::from(0);
        }
        if let Some(serde_json::Value::Object(properties)) = object.get_mut("properties") {
            properties.sort_keys();
        }
    }
    Ok(json)
}
