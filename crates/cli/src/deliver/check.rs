//! The workers' side of delivery: each batch of records checked as `records` checks them, the
//! delivered records' rows built in Arrow, and each record's fingerprint taken, so that the
//! calling thread ([`Driver`](super::cycle::Driver)) only writes and commits.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use schema2iceberg_mapper::records::{RecordChecker, Verdict};

use super::arrow::{RowsBuilder, RowsError};
use super::dlq;
use super::progress::fingerprint;
use crate::intake::input::Batch;

/// What became of one record.
pub(crate) enum Outcome {
    /// An earlier run delivered it (or sent it to the dead-letter queue).
    Done,
    /// Delivered: its row is the next row of the batch's [`CheckedBatch::rows`].
    Delivered,
    /// Its dead-letter line.
    DeadLetter(String),
}

/// One record after checking.
pub(crate) struct Checked {
    pub(crate) position: u64,
    pub(crate) sequence_number: Option<String>,
    pub(crate) arrival: Option<String>,
    pub(crate) fingerprint: u64,
    pub(crate) outcome: Outcome,
}

/// A batch after checking.
pub(crate) struct CheckedBatch {
    pub(crate) input: usize,
    pub(crate) records: Vec<Checked>,
    /// The delivered records' rows, in order; `None` when none was delivered.
    pub(crate) rows: Result<Option<RecordBatch>, RowsError>,
    /// The input bytes the batch covers, for progress.
    pub(crate) bytes: u64,
}

/// The workers' part: checks records and makes their rows.
pub(crate) struct BatchChecker<'a> {
    pub(crate) checker: &'a RecordChecker,
    /// The created table's Arrow schema.
    pub(crate) arrow_schema: SchemaRef,
    /// Each input's name as given, for the dead-letter lines.
    pub(crate) names: &'a [String],
    /// Per input, the records an earlier run did: they are not checked again.
    pub(crate) done: &'a [u64],
    /// Keep failed records' bytes in the dead-letter lines.
    pub(crate) payload: bool,
}

impl BatchChecker<'_> {
    pub(crate) fn check(&self, batch: Batch) -> CheckedBatch {
        let done = self.done.get(batch.input).copied().unwrap_or(0);
        let name = self.names.get(batch.input).map_or("-", String::as_str);
        // Rows are appended as records are checked, so each record's cells are freed at once;
        // the builder is made at the first delivered record.
        let mut rows: Result<Option<RowsBuilder>, RowsError> = Ok(None);
        let mut records = Vec::with_capacity(batch.records.len());
        let mut bytes = 0u64;
        for record in &batch.records {
            bytes += record.bytes.len() as u64 + u64::from(record.line.is_some());
            let outcome = if record.position <= done {
                Outcome::Done
            } else {
                match self.checker.check_for_table(&record.bytes) {
                    Verdict::Delivered(delivered) => {
                        rows = rows.and_then(|rows| {
                            let mut builder = match rows {
                                Some(builder) => builder,
                                None => RowsBuilder::new(&self.arrow_schema)?,
                            };
                            builder.push(&delivered.cells.unwrap_or_default())?;
                            Ok(Some(builder))
                        });
                        Outcome::Delivered
                    }
                    failed @ Verdict::Dlq(_) => {
                        Outcome::DeadLetter(dlq::line(name, record, &failed, self.payload))
                    }
                }
            };
            records.push(Checked {
                position: record.position,
                sequence_number: record.sequence_number.clone(),
                arrival: record.arrival.clone(),
                fingerprint: fingerprint(&record.bytes),
                outcome,
            });
        }
        let rows = rows.and_then(|rows| rows.map(RowsBuilder::finish).transpose());
        CheckedBatch {
            input: batch.input,
            records,
            rows,
            bytes,
        }
    }
}
