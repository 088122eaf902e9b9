//! Rows to partitions: a batch split by the hour of its partition source, in the order the
//! hours first appear, so that the hours given open writers, and so file names, do not change
//! between runs.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{RecordBatch, UInt32Array};
use iceberg::arrow::PartitionValueCalculator;
use iceberg::spec::{Literal, PartitionKey, PartitionSpec, SchemaRef, Struct};

/// Why rows cannot be split by hour: a table not partitioned as the channel's are, or the
/// partition values not computed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PartitionError {
    #[error("the table has {0} partition fields; the channel's tables have one")]
    Fields(usize),
    #[error(transparent)]
    Iceberg(Box<iceberg::Error>),
    #[error("partition values of type {0}")]
    ValuesType(arrow_schema::DataType),
    /// A row number past `u32`.
    #[error(transparent)]
    Row(#[from] std::num::TryFromIntError),
    #[error(transparent)]
    Arrow(#[from] arrow_schema::ArrowError),
}

impl From<iceberg::Error> for PartitionError {
    fn from(error: iceberg::Error) -> Self {
        PartitionError::Iceberg(Box::new(error))
    }
}

/// Splits batches of the table's rows by its one partition field (`hour` of the source).
///
/// `iceberg`'s own `RecordBatchPartitionSplitter` groups rows in a `HashMap`, whose order
/// changes from run to run, and makes a literal and a full-length filter per row and part; the
/// rows of a stream come mostly in hour order, so most parts here are slices of the batch,
/// which copy nothing.
pub(crate) struct HourSplitter {
    calculator: PartitionValueCalculator,
    spec: PartitionSpec,
    schema: SchemaRef,
}

impl HourSplitter {
    /// The splitter for a table partitioned by one field with an integer value (the hour).
    pub(crate) fn new(spec: &PartitionSpec, schema: SchemaRef) -> Result<Self, PartitionError> {
        if spec.fields().len() != 1 {
            return Err(PartitionError::Fields(spec.fields().len()));
        }
        let calculator = PartitionValueCalculator::try_new(spec, &schema)?;
        Ok(Self {
            calculator,
            spec: spec.clone(),
            schema,
        })
    }

    /// The batch's rows by partition, each part's rows in batch order, the parts in the order
    /// their first rows come.
    pub(crate) fn split(
        &self,
        batch: &RecordBatch,
    ) -> Result<Vec<(Option<i32>, RecordBatch)>, PartitionError> {
        let values = self.calculator.calculate(batch)?;
        let hours = values
            .as_struct_opt()
            .and_then(|s| s.columns().first())
            .and_then(|c| c.as_primitive_opt::<Int32Type>())
            .ok_or_else(|| PartitionError::ValuesType(values.data_type().clone()))?;
        let mut groups: Vec<(Option<i32>, Vec<u32>)> = Vec::new();
        let mut index_of: BTreeMap<Option<i32>, usize> = BTreeMap::new();
        for (row, hour) in hours.iter().enumerate() {
            let row = u32::try_from(row)?;
            // Consecutive rows mostly share their hour: try the last group before the index.
            let group = match groups.last() {
                Some((last, _)) if *last == hour => groups.len() - 1,
                _ => *index_of.entry(hour).or_insert_with(|| {
                    groups.push((hour, Vec::new()));
                    groups.len() - 1
                }),
            };
            if let Some((_, rows)) = groups.get_mut(group) {
                rows.push(row);
            }
        }
        groups
            .into_iter()
            .map(|(hour, rows)| Ok((hour, rows_of(batch, &rows)?)))
            .collect()
    }

    /// The partition key of an hour (hours since 1970; `None` for a null source).
    pub(crate) fn key(&self, hour: Option<i32>) -> PartitionKey {
        PartitionKey::new(
            self.spec.clone(),
            Arc::clone(&self.schema),
            Struct::from_iter([hour.map(Literal::int)]),
        )
    }
}

/// The batch's `rows` (ascending): a slice when they are consecutive, a copy otherwise.
fn rows_of(batch: &RecordBatch, rows: &[u32]) -> Result<RecordBatch, PartitionError> {
    let (Some(&first), Some(&last)) = (rows.first(), rows.last()) else {
        return Ok(batch.slice(0, 0));
    };
    if (last - first) as usize + 1 == rows.len() {
        return Ok(batch.slice(first as usize, rows.len()));
    }
    Ok(arrow_select::take::take_record_batch(
        batch,
        &UInt32Array::from(rows.to_vec()),
    )?)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{Array, Int32Array, RecordBatch, TimestampMicrosecondArray};
    use iceberg::arrow::schema_to_arrow_schema;
    use iceberg::spec::{NestedField, PrimitiveType, Schema, Transform, Type};

    use super::HourSplitter;

    const HOUR: i64 = 3_600_000_000;

    /// Parts come in the order their hours first appear, rows in batch order, and a run of
    /// consecutive rows is a slice.
    #[test]
    fn parts_follow_first_appearance() {
        let schema = Schema::builder()
            .with_fields(vec![
                NestedField::required(1, "at", Type::Primitive(PrimitiveType::Timestamptz)).into(),
                NestedField::required(2, "n", Type::Primitive(PrimitiveType::Int)).into(),
            ])
            .build()
            .unwrap();
        let spec = iceberg::spec::PartitionSpec::builder(schema.clone())
            .add_partition_field("at", "at_hour", Transform::Hour)
            .unwrap()
            .build()
            .unwrap();
        let arrow = Arc::new(schema_to_arrow_schema(&schema).unwrap());
        let hours = [5, 5, 3, 5, 7, 3, 3];
        let batch = RecordBatch::try_new(
            arrow,
            vec![
                Arc::new(
                    TimestampMicrosecondArray::from_iter_values(hours.map(|h| h * HOUR + 1))
                        .with_timezone("+00:00"),
                ),
                Arc::new(Int32Array::from_iter_values(0..7)),
            ],
        )
        .unwrap();
        let splitter = HourSplitter::new(&spec, Arc::new(schema)).unwrap();
        let parts: Vec<(String, Vec<i32>)> = splitter
            .split(&batch)
            .unwrap()
            .into_iter()
            .map(|(hour, part)| {
                let key = splitter.key(hour);
                let n = part
                    .column(1)
                    .as_any()
                    .downcast_ref::<Int32Array>()
                    .unwrap();
                (key.to_path(), n.values().to_vec())
            })
            .collect();
        let expected = [
            ("at_hour=5", vec![0, 1, 3]),
            ("at_hour=3", vec![2, 5, 6]),
            ("at_hour=7", vec![4]),
        ];
        assert_eq!(parts, expected.map(|(p, n)| (p.to_string(), n)).to_vec());
    }
}
