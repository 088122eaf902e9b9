//! Delivered rows ([`Cell`]s, one per top-level column) appended, row by row, to column
//! builders shaped like the created table's Arrow schema (`iceberg::arrow::schema_to_arrow_schema`),
//! then finished into a `RecordBatch` whose nested fields keep the field-id metadata the Parquet
//! writer needs. Appending each row as soon as it is converted lets its cells be freed at once,
//! while the allocator still has them at hand, instead of keeping a whole batch of cells.

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Date32Builder, Decimal128Builder, FixedSizeBinaryBuilder, Float64Builder,
    Int32Builder, Int64Builder, LargeBinaryBuilder, StringBuilder, Time64MicrosecondBuilder,
    TimestampMicrosecondBuilder,
};
use arrow_array::{new_null_array, ArrayRef, ListArray, MapArray, RecordBatch, StructArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer};
use arrow_schema::{DataType, FieldRef, Fields, SchemaRef, TimeUnit};
use schema2iceberg_mapper::records::Cell;

/// Why a batch's rows cannot be built: a column the table's Arrow schema gives in a shape no
/// conversion makes, or a value that does not fit its column (a bug).
#[derive(Debug, thiserror::Error)]
pub(crate) enum RowsError {
    /// A top-level column's problem.
    #[error("column `{name}`: {source}")]
    Column {
        name: String,
        source: Box<RowsError>,
    },
    /// A struct member's problem, when its column is made.
    #[error("`{name}`: {source}")]
    Member {
        name: String,
        source: Box<RowsError>,
    },
    #[error("map entries of type {0}")]
    MapEntries(DataType),
    #[error("map entries without key and value")]
    MapEntriesShape,
    #[error("map keys of type {0}")]
    MapKeys(DataType),
    #[error("a {cell:?} value in a {data_type} column (a bug: please report it)")]
    Mismatch { cell: Cell, data_type: DataType },
    /// A list or map offset past `i32`.
    #[error(transparent)]
    Offset(#[from] std::num::TryFromIntError),
    #[error(transparent)]
    Arrow(#[from] arrow_schema::ArrowError),
}

/// Rows of one batch, held column by column until [`RowsBuilder::finish`].
pub(crate) struct RowsBuilder {
    schema: SchemaRef,
    columns: Vec<Column>,
}

impl RowsBuilder {
    /// An empty batch of `schema`.
    pub(crate) fn new(schema: &SchemaRef) -> Result<Self, RowsError> {
        let columns = schema
            .fields()
            .iter()
            .map(|field| {
                Column::new(field.data_type()).map_err(|e| RowsError::Column {
                    name: field.name().clone(),
                    source: Box::new(e),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(RowsBuilder {
            schema: Arc::clone(schema),
            columns,
        })
    }

    /// Appends one row: `cells[i]` is the value of the schema's `i`-th field. After an error
    /// the builder holds part of the row, and the batch must be given up.
    pub(crate) fn push(&mut self, cells: &[Cell]) -> Result<(), RowsError> {
        for (index, column) in self.columns.iter_mut().enumerate() {
            column
                .push(cells.get(index).unwrap_or(&Cell::Null))
                .map_err(|e| {
                    let name = self.schema.fields().get(index).map_or("?", |f| f.name());
                    RowsError::Column {
                        name: name.to_string(),
                        source: Box::new(e),
                    }
                })?;
        }
        Ok(())
    }

    /// The rows appended, as one batch.
    pub(crate) fn finish(self) -> Result<RecordBatch, RowsError> {
        let columns = self
            .columns
            .into_iter()
            .map(Column::finish)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RecordBatch::try_new(self.schema, columns)?)
    }
}

/// One column (or nested child) being built.
enum Column {
    Bool(BooleanBuilder),
    Int(Int32Builder),
    Long(Int64Builder),
    Double(Float64Builder),
    String(StringBuilder),
    Date(Date32Builder),
    Time(Time64MicrosecondBuilder),
    Timestamp(TimestampMicrosecondBuilder, Option<Arc<str>>),
    Decimal(Decimal128Builder, u8, i8),
    Uuid(FixedSizeBinaryBuilder),
    Binary(LargeBinaryBuilder),
    Struct {
        fields: Fields,
        children: Vec<Column>,
        nulls: NullBufferBuilder,
    },
    List {
        element: FieldRef,
        offsets: Vec<i32>,
        values: Box<Column>,
        nulls: NullBufferBuilder,
    },
    Map {
        entries: FieldRef,
        entry_fields: Fields,
        ordered: bool,
        offsets: Vec<i32>,
        keys: StringBuilder,
        values: Box<Column>,
        nulls: NullBufferBuilder,
    },
    /// A type no conversion gives (only nulls can be written to it): how many.
    OnlyNulls(DataType, usize),
}

fn mismatch(column: &Column, cell: &Cell) -> RowsError {
    RowsError::Mismatch {
        cell: cell.clone(),
        data_type: column.data_type(),
    }
}

/// The next list or map offset after `len` items.
fn offset(len: usize) -> Result<i32, RowsError> {
    Ok(i32::try_from(len)?)
}

impl Column {
    // The recursion follows the table's nesting, which the mapper has capped at 16 levels.
    fn new(data_type: &DataType) -> Result<Column, RowsError> {
        Ok(match data_type {
            DataType::Boolean => Column::Bool(BooleanBuilder::new()),
            DataType::Int32 => Column::Int(Int32Builder::new()),
            DataType::Int64 => Column::Long(Int64Builder::new()),
            DataType::Float64 => Column::Double(Float64Builder::new()),
            DataType::Utf8 => Column::String(StringBuilder::new()),
            DataType::Date32 => Column::Date(Date32Builder::new()),
            DataType::Time64(TimeUnit::Microsecond) => {
                Column::Time(Time64MicrosecondBuilder::new())
            }
            DataType::Timestamp(TimeUnit::Microsecond, zone) => {
                Column::Timestamp(TimestampMicrosecondBuilder::new(), zone.clone())
            }
            DataType::Decimal128(precision, scale) => {
                Column::Decimal(Decimal128Builder::new(), *precision, *scale)
            }
            DataType::FixedSizeBinary(16) => Column::Uuid(FixedSizeBinaryBuilder::new(16)),
            DataType::LargeBinary => Column::Binary(LargeBinaryBuilder::new()),
            DataType::Struct(fields) => Column::Struct {
                fields: fields.clone(),
                children: fields
                    .iter()
                    .map(|f| {
                        Column::new(f.data_type()).map_err(|e| RowsError::Member {
                            name: f.name().clone(),
                            source: Box::new(e),
                        })
                    })
                    .collect::<Result<_, _>>()?,
                nulls: NullBufferBuilder::new(0),
            },
            DataType::List(element) => Column::List {
                element: Arc::clone(element),
                offsets: vec![0],
                values: Box::new(Column::new(element.data_type())?),
                nulls: NullBufferBuilder::new(0),
            },
            DataType::Map(entries, ordered) => {
                let DataType::Struct(entry_fields) = entries.data_type() else {
                    return Err(RowsError::MapEntries(entries.data_type().clone()));
                };
                let (Some(key_field), Some(value_field)) =
                    (entry_fields.first(), entry_fields.get(1))
                else {
                    return Err(RowsError::MapEntriesShape);
                };
                if key_field.data_type() != &DataType::Utf8 {
                    return Err(RowsError::MapKeys(key_field.data_type().clone()));
                }
                Column::Map {
                    entries: Arc::clone(entries),
                    entry_fields: entry_fields.clone(),
                    ordered: *ordered,
                    offsets: vec![0],
                    keys: StringBuilder::new(),
                    values: Box::new(Column::new(value_field.data_type())?),
                    nulls: NullBufferBuilder::new(0),
                }
            }
            other => Column::OnlyNulls(other.clone(), 0),
        })
    }

    fn data_type(&self) -> DataType {
        match self {
            Column::Bool(_) => DataType::Boolean,
            Column::Int(_) => DataType::Int32,
            Column::Long(_) => DataType::Int64,
            Column::Double(_) => DataType::Float64,
            Column::String(_) => DataType::Utf8,
            Column::Date(_) => DataType::Date32,
            Column::Time(_) => DataType::Time64(TimeUnit::Microsecond),
            Column::Timestamp(_, zone) => DataType::Timestamp(TimeUnit::Microsecond, zone.clone()),
            Column::Decimal(_, precision, scale) => DataType::Decimal128(*precision, *scale),
            Column::Uuid(_) => DataType::FixedSizeBinary(16),
            Column::Binary(_) => DataType::LargeBinary,
            Column::Struct { fields, .. } => DataType::Struct(fields.clone()),
            Column::List { element, .. } => DataType::List(Arc::clone(element)),
            Column::Map {
                entries, ordered, ..
            } => DataType::Map(Arc::clone(entries), *ordered),
            Column::OnlyNulls(data_type, _) => data_type.clone(),
        }
    }

    /// Appends a null; a null struct gives null children (hidden by the struct's own null).
    fn push_null(&mut self) {
        match self {
            Column::Bool(b) => b.append_null(),
            Column::Int(b) => b.append_null(),
            Column::Long(b) => b.append_null(),
            Column::Double(b) => b.append_null(),
            Column::String(b) => b.append_null(),
            Column::Date(b) => b.append_null(),
            Column::Time(b) => b.append_null(),
            Column::Timestamp(b, _) => b.append_null(),
            Column::Decimal(b, ..) => b.append_null(),
            Column::Uuid(b) => b.append_null(),
            Column::Binary(b) => b.append_null(),
            Column::Struct {
                children, nulls, ..
            } => {
                children.iter_mut().for_each(Column::push_null);
                nulls.append_null();
            }
            Column::List { offsets, nulls, .. } | Column::Map { offsets, nulls, .. } => {
                let last = offsets.last().copied().unwrap_or(0);
                offsets.push(last);
                nulls.append_null();
            }
            Column::OnlyNulls(_, count) => *count += 1,
        }
    }

    // The recursion follows the table's nesting, which the mapper has capped at 16 levels.
    fn push(&mut self, cell: &Cell) -> Result<(), RowsError> {
        match (&mut *self, cell) {
            (_, Cell::Null) => self.push_null(),
            (Column::Bool(b), Cell::Bool(v)) => b.append_value(*v),
            (Column::Int(b), Cell::Int(v)) => b.append_value(*v),
            (Column::Long(b), Cell::Long(v)) => b.append_value(*v),
            (Column::Double(b), Cell::Double(v)) => b.append_value(*v),
            (Column::String(b), Cell::String(v)) => b.append_value(v),
            (Column::Date(b), Cell::Date(v)) => b.append_value(*v),
            (Column::Time(b), Cell::Time(v)) => b.append_value(*v),
            (Column::Timestamp(b, _), Cell::Timestamptz(v)) => b.append_value(*v),
            (Column::Decimal(b, ..), Cell::Decimal { unscaled, .. }) => b.append_value(*unscaled),
            (Column::Uuid(b), Cell::Uuid(v)) => b.append_value(v)?,
            (Column::Binary(b), Cell::Binary(v)) => b.append_value(v),
            (
                Column::Struct {
                    children, nulls, ..
                },
                Cell::Struct(cells),
            ) => {
                for (index, child) in children.iter_mut().enumerate() {
                    child.push(cells.get(index).unwrap_or(&Cell::Null))?;
                }
                nulls.append_non_null();
            }
            (
                Column::List {
                    offsets,
                    values,
                    nulls,
                    ..
                },
                Cell::List(items),
            ) => {
                for item in items {
                    values.push(item)?;
                }
                let last = offsets.last().copied().unwrap_or(0);
                offsets.push(last + offset(items.len())?);
                nulls.append_non_null();
            }
            (
                Column::Map {
                    offsets,
                    keys,
                    values,
                    nulls,
                    ..
                },
                Cell::Map(members),
            ) => {
                for (key, value) in members {
                    keys.append_value(key);
                    values.push(value)?;
                }
                let last = offsets.last().copied().unwrap_or(0);
                offsets.push(last + offset(members.len())?);
                nulls.append_non_null();
            }
            (column, cell) => return Err(mismatch(column, cell)),
        }
        Ok(())
    }

    // The recursion follows the table's nesting, which the mapper has capped at 16 levels.
    fn finish(self) -> Result<ArrayRef, RowsError> {
        Ok(match self {
            Column::Bool(mut b) => Arc::new(b.finish()),
            Column::Int(mut b) => Arc::new(b.finish()),
            Column::Long(mut b) => Arc::new(b.finish()),
            Column::Double(mut b) => Arc::new(b.finish()),
            Column::String(mut b) => Arc::new(b.finish()),
            Column::Date(mut b) => Arc::new(b.finish()),
            Column::Time(mut b) => Arc::new(b.finish()),
            Column::Timestamp(mut b, zone) => Arc::new(b.finish().with_timezone_opt(zone)),
            Column::Decimal(mut b, precision, scale) => {
                Arc::new(b.finish().with_precision_and_scale(precision, scale)?)
            }
            Column::Uuid(mut b) => Arc::new(b.finish()),
            Column::Binary(mut b) => Arc::new(b.finish()),
            Column::Struct {
                fields,
                children,
                mut nulls,
            } => {
                let children = children
                    .into_iter()
                    .map(Column::finish)
                    .collect::<Result<Vec<_>, _>>()?;
                Arc::new(StructArray::try_new(fields, children, nulls.finish())?)
            }
            Column::List {
                element,
                offsets,
                values,
                mut nulls,
            } => Arc::new(ListArray::try_new(
                element,
                OffsetBuffer::new(offsets.into()),
                values.finish()?,
                nulls.finish(),
            )?),
            Column::Map {
                entries,
                entry_fields,
                ordered,
                offsets,
                mut keys,
                values,
                mut nulls,
            } => {
                let key_array: ArrayRef = Arc::new(keys.finish());
                let entries_array =
                    StructArray::try_new(entry_fields, vec![key_array, values.finish()?], None)?;
                Arc::new(MapArray::try_new(
                    entries,
                    OffsetBuffer::new(offsets.into()),
                    entries_array,
                    nulls.finish(),
                    ordered,
                )?)
            }
            Column::OnlyNulls(data_type, count) => new_null_array(&data_type, count),
        })
    }
}
