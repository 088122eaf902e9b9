//! Delivered rows ([`Cell`]s, one per top-level column) as an Arrow `RecordBatch` of the created
//! table's Arrow schema (`iceberg::arrow::schema_to_arrow_schema`), built column by column so
//! that every nested field keeps the field-id metadata the Parquet writer needs.

use std::sync::Arc;

use arrow_array::{
    new_null_array, ArrayRef, BooleanArray, Date32Array, Decimal128Array, FixedSizeBinaryArray,
    Float64Array, Int32Array, Int64Array, LargeBinaryArray, ListArray, MapArray, RecordBatch,
    StringArray, StructArray, Time64MicrosecondArray, TimestampMicrosecondArray,
};
use arrow_schema::{DataType, Fields, SchemaRef, TimeUnit};
use schema2iceberg_mapper::records::Cell;

/// The rows as one batch of `schema`: `rows[i]` holds one cell per top-level field.
pub(crate) fn record_batch(schema: &SchemaRef, rows: &[Vec<Cell>]) -> Result<RecordBatch, String> {
    let mut columns = Vec::with_capacity(schema.fields().len());
    for (index, field) in schema.fields().iter().enumerate() {
        let cells: Vec<&Cell> = rows
            .iter()
            .map(|row| row.get(index).unwrap_or(&Cell::Null))
            .collect();
        columns.push(
            array(field.data_type(), &cells)
                .map_err(|e| format!("column `{}`: {e}", field.name()))?,
        );
    }
    RecordBatch::try_new(Arc::clone(schema), columns).map_err(|e| e.to_string())
}

fn nulls(cells: &[&Cell]) -> Option<arrow_buffer::NullBuffer> {
    if cells.iter().any(|c| matches!(c, Cell::Null)) {
        Some(arrow_buffer::NullBuffer::from(
            cells
                .iter()
                .map(|c| !matches!(c, Cell::Null))
                .collect::<Vec<bool>>(),
        ))
    } else {
        None
    }
}

fn mismatch(data_type: &DataType, cell: &Cell) -> String {
    format!("a {cell:?} value in a {data_type} column (a bug: please report it)")
}

/// One column (or nested child) of `data_type` from its cells, nulls where [`Cell::Null`].
// The recursion follows the table's nesting, which the mapper has capped at 16 levels.
fn array(data_type: &DataType, cells: &[&Cell]) -> Result<ArrayRef, String> {
    macro_rules! primitive {
        ($array:ty, $pattern:pat => $value:expr) => {{
            let mut values = Vec::with_capacity(cells.len());
            for cell in cells {
                values.push(match cell {
                    Cell::Null => None,
                    $pattern => Some($value),
                    other => return Err(mismatch(data_type, other)),
                });
            }
            Arc::new(<$array>::from(values)) as ArrayRef
        }};
    }
    Ok(match data_type {
        DataType::Boolean => primitive!(BooleanArray, Cell::Bool(b) => *b),
        DataType::Int32 => primitive!(Int32Array, Cell::Int(i) => *i),
        DataType::Int64 => primitive!(Int64Array, Cell::Long(l) => *l),
        DataType::Float64 => primitive!(Float64Array, Cell::Double(d) => *d),
        DataType::Utf8 => primitive!(StringArray, Cell::String(s) => s.as_str()),
        DataType::Date32 => primitive!(Date32Array, Cell::Date(d) => *d),
        DataType::Time64(TimeUnit::Microsecond) => {
            primitive!(Time64MicrosecondArray, Cell::Time(t) => *t)
        }
        DataType::Timestamp(TimeUnit::Microsecond, zone) => {
            let array = primitive!(TimestampMicrosecondArray, Cell::Timestamptz(t) => *t);
            let array = array
                .as_any()
                .downcast_ref::<TimestampMicrosecondArray>()
                .cloned()
                .ok_or("timestamp array")?;
            Arc::new(array.with_timezone_opt(zone.clone()))
        }
        DataType::Decimal128(precision, scale) => {
            let array = primitive!(Decimal128Array, Cell::Decimal { unscaled, .. } => *unscaled);
            let array = array
                .as_any()
                .downcast_ref::<Decimal128Array>()
                .cloned()
                .ok_or("decimal array")?;
            Arc::new(
                array
                    .with_precision_and_scale(*precision, *scale)
                    .map_err(|e| e.to_string())?,
            )
        }
        DataType::FixedSizeBinary(16) => {
            let mut values = Vec::with_capacity(cells.len());
            for cell in cells {
                values.push(match cell {
                    Cell::Null => None,
                    Cell::Uuid(u) => Some(*u),
                    other => return Err(mismatch(data_type, other)),
                });
            }
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(values.into_iter(), 16)
                    .map_err(|e| e.to_string())?,
            )
        }
        DataType::LargeBinary => {
            primitive!(LargeBinaryArray, Cell::Binary(b) => b.as_slice())
        }
        DataType::Struct(fields) => Arc::new(struct_array(fields, cells)?),
        DataType::List(element) => {
            let mut offsets = vec![0i32];
            let mut children: Vec<&Cell> = Vec::new();
            for cell in cells {
                match cell {
                    Cell::Null => {}
                    Cell::List(items) => children.extend(items.iter()),
                    other => return Err(mismatch(data_type, other)),
                }
                offsets.push(i32::try_from(children.len()).map_err(|e| e.to_string())?);
            }
            let values = array(element.data_type(), &children)?;
            Arc::new(
                ListArray::try_new(
                    Arc::clone(element),
                    arrow_buffer::OffsetBuffer::new(offsets.into()),
                    values,
                    nulls(cells),
                )
                .map_err(|e| e.to_string())?,
            )
        }
        DataType::Map(entries, ordered) => {
            let DataType::Struct(kv) = entries.data_type() else {
                return Err(format!("map entries of type {}", entries.data_type()));
            };
            let mut offsets = vec![0i32];
            let mut keys: Vec<&str> = Vec::new();
            let mut values: Vec<&Cell> = Vec::new();
            for cell in cells {
                match cell {
                    Cell::Null => {}
                    Cell::Map(members) => {
                        for (key, value) in members {
                            keys.push(key);
                            values.push(value);
                        }
                    }
                    other => return Err(mismatch(data_type, other)),
                }
                offsets.push(i32::try_from(keys.len()).map_err(|e| e.to_string())?);
            }
            let (Some(key_field), Some(value_field)) = (kv.first(), kv.get(1)) else {
                return Err("map entries without key and value".to_string());
            };
            if key_field.data_type() != &DataType::Utf8 {
                return Err(format!("map keys of type {}", key_field.data_type()));
            }
            let key_array: ArrayRef = Arc::new(StringArray::from(keys));
            let value_array = array(value_field.data_type(), &values)?;
            let entries_array =
                StructArray::try_new(kv.clone(), vec![key_array, value_array], None)
                    .map_err(|e| e.to_string())?;
            Arc::new(
                MapArray::try_new(
                    Arc::clone(entries),
                    arrow_buffer::OffsetBuffer::new(offsets.into()),
                    entries_array,
                    nulls(cells),
                    *ordered,
                )
                .map_err(|e| e.to_string())?,
            )
        }
        other if cells.iter().all(|c| matches!(c, Cell::Null)) => {
            new_null_array(other, cells.len())
        }
        other => return Err(format!("no conversion to Arrow {other}")),
    })
}

/// A struct column: each field from the same position of every struct cell; a null struct
/// gives null children (hidden by the struct's own null).
fn struct_array(fields: &Fields, cells: &[&Cell]) -> Result<StructArray, String> {
    let mut children = Vec::with_capacity(fields.len());
    for (index, field) in fields.iter().enumerate() {
        let mut column = Vec::with_capacity(cells.len());
        for cell in cells {
            column.push(match cell {
                Cell::Null => &Cell::Null,
                Cell::Struct(values) => values.get(index).unwrap_or(&Cell::Null),
                other => return Err(mismatch(&DataType::Struct(fields.clone()), other)),
            });
        }
        children.push(
            array(field.data_type(), &column).map_err(|e| format!("`{}`: {e}", field.name()))?,
        );
    }
    StructArray::try_new(fields.clone(), children, nulls(cells)).map_err(|e| e.to_string())
}
