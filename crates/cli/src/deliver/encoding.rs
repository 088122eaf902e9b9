//! How the data files are encoded: the Parquet writer's settings for a table, its codec and
//! which columns get a dictionary.

use arrow_schema::Schema;
use parquet::arrow::ArrowSchemaConverter;
use parquet::basic::{LogicalType, Type as PhysicalType};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnDescriptor;

use crate::project::channel::Compression;

/// The writer's settings for the table whose Arrow schema is `schema`: the codec, and a
/// dictionary for every leaf column but those whose values seldom repeat.
///
/// A dictionary pays where values repeat (a status, a country, a count) and costs where they do
/// not: every value is hashed into it and the dictionary page is written beside the plain
/// values it could not shorten. On `deliver`'s benchmark, building dictionaries for columns of
/// unique values was a quarter of what writing adds to checking (docs/dev/performance.md).
pub(crate) fn writer_properties(compression: Compression, schema: &Schema) -> WriterProperties {
    let mut builder = WriterProperties::builder().set_compression(compression.parquet());
    // The Parquet writer converts the same Arrow schema the same way, so the paths match its
    // columns. A schema it cannot convert fails at the writer, which says why.
    if let Ok(parquet) = ArrowSchemaConverter::new().convert(schema) {
        for column in parquet.columns() {
            if !repeats(column) {
                builder = builder.set_column_dictionary_enabled(column.path().clone(), false);
            }
        }
    }
    builder.build()
}

/// Whether the column's values are expected to repeat: not for doubles (measurements),
/// timestamps and times (to the microsecond) and binary. Decimals, uuids and booleans get no
/// dictionary whatever this says: the writer's pages (Parquet format 1.0) have none for
/// fixed-length columns or booleans.
fn repeats(column: &ColumnDescriptor) -> bool {
    let logical = column.logical_type_ref();
    match column.physical_type() {
        PhysicalType::DOUBLE | PhysicalType::FLOAT => false,
        PhysicalType::INT64 => !matches!(
            logical,
            Some(LogicalType::Timestamp { .. } | LogicalType::Time { .. })
        ),
        PhysicalType::BYTE_ARRAY => logical.is_some(),
        PhysicalType::BOOLEAN
        | PhysicalType::INT32
        | PhysicalType::INT96
        | PhysicalType::FIXED_LEN_BYTE_ARRAY => true,
    }
}
