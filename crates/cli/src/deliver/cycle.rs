//! Delivery cycles. Workers check each batch and build the Arrow rows of its delivered records
//! ([`BatchChecker`]); the calling thread takes the batches in input order and writes the rows
//! as partitioned Parquet, cycle by cycle, each cycle one append commit whose snapshot summary
//! holds the [`Progress`] ([`Driver`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use iceberg::spec::{DataFile, DataFileFormat, PartitionKey};
use iceberg::table::Table;
use iceberg::transaction::{ApplyTransactionAction, Transaction};
use iceberg::writer::base_writer::data_file_writer::DataFileWriterBuilder;
use iceberg::writer::file_writer::location_generator::{
    DefaultFileNameGenerator, DefaultLocationGenerator,
};
use iceberg::writer::file_writer::rolling_writer::RollingFileWriterBuilder;
use iceberg::writer::file_writer::ParquetWriterBuilder;
use iceberg::writer::{IcebergWriter, IcebergWriterBuilder};
use iceberg_catalog_sql::SqlCatalog;
use parquet::file::properties::WriterProperties;
use schema2iceberg_mapper::records::{timestamptz_micros, RecordChecker, Verdict};
use serde::Serialize;

use super::arrow::RowsBuilder;
use super::dlq;
use super::partition::HourSplitter;
use super::progress::{
    chain, fingerprint, fingerprint_text, InputProgress, Progress, CHAIN_START, PROGRESS_PROPERTY,
};
use crate::records::input::Batch;

/// When a delivery cycle ends.
#[derive(Debug, Clone, Copy)]
pub(crate) enum CyclePolicy {
    /// After this many records (delivered or not).
    Records(u64),
    /// Before the first record that arrived `freshness` microseconds or more after the cycle's
    /// first record (get-records' `ApproximateArrivalTimestamp`).
    Arrival { freshness_micros: i64 },
}

/// How far into one input the open cycle reached.
#[derive(Debug, Clone)]
struct Reached {
    records: u64,
    chain: u64,
    sequence_number: Option<String>,
}

/// What became of one record.
enum Outcome {
    /// An earlier run delivered it (or sent it to the dead-letter queue).
    Done,
    /// Delivered: its row is the next row of the batch's [`CheckedBatch::rows`].
    Delivered,
    /// Its dead-letter line.
    DeadLetter(String),
}

/// One record after checking.
struct Checked {
    position: u64,
    sequence_number: Option<String>,
    arrival: Option<String>,
    fingerprint: u64,
    outcome: Outcome,
}

/// A batch after checking.
pub(crate) struct CheckedBatch {
    input: usize,
    records: Vec<Checked>,
    /// The delivered records' rows, in order; `None` when none was delivered.
    rows: Result<Option<RecordBatch>, String>,
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
        let mut rows: Result<Option<RowsBuilder>, String> = Ok(None);
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

/// What one delivery cycle did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct CycleReport {
    /// The cycle's number in the table's life, from 1.
    pub(crate) cycle: u64,
    /// The snapshot it committed; none when every record went to the dead-letter queue.
    pub(crate) snapshot_id: Option<i64>,
    pub(crate) delivered: u64,
    pub(crate) dead_letters: u64,
    pub(crate) data_files: usize,
    /// Bytes of the data files written.
    pub(crate) bytes: u64,
    /// The dead-letter file written, when there were failures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) dead_letter_file: Option<String>,
}

type Builder =
    DataFileWriterBuilder<ParquetWriterBuilder, DefaultLocationGenerator, DefaultFileNameGenerator>;

type Writer = <Builder as IcebergWriterBuilder>::R;

/// The most data files a cycle keeps open, one per partition (hour). Rows are written as they
/// come, so checking and writing overlap; a record of another hour when this many are open
/// closes the one used longest ago (that hour's later rows go to a new file). So memory and open
/// files stay bounded however many hours a cycle's records span: a writer per hour for the
/// whole cycle, as a fanout writer keeps, needs about 640 KB and an open file each, and a
/// backfill over thousands of hours ran out of memory.
const OPEN_WRITERS: usize = 16;

/// The cycle being filled.
struct OpenCycle {
    number: u64,
    /// Makes each partition's writer; its file names share one counter.
    builder: Builder,
    /// The open writers: each partition's path, its writer, and when it was last written to.
    writers: Vec<(String, Writer, u64)>,
    /// Counts writes, for `writers`' last use.
    writes: u64,
    /// The writers being closed, in the order they were closed; each gives its data files.
    closing: Vec<Closing>,
    /// The files closed so far.
    data_files: Vec<DataFile>,
    /// Every data file of the cycle starts with it.
    file_prefix: String,
    records: u64,
    delivered: u64,
    dead_letters: Vec<String>,
    first_arrival: Option<i64>,
}

/// The calling thread's part: writes cycles and commits them.
pub(crate) struct Driver<'a> {
    pub(crate) runtime: &'a tokio::runtime::Runtime,
    pub(crate) catalog: &'a SqlCatalog,
    pub(crate) table: Table,
    pub(crate) splitter: HourSplitter,
    pub(crate) policy: CyclePolicy,
    /// The Parquet writer's settings ([`writer_properties`](super::encoding::writer_properties)).
    pub(crate) properties: WriterProperties,
    pub(crate) dlq_dir: PathBuf,
    /// Each input's key in the progress (`mod.rs`'s `input_keys`).
    pub(crate) keys: &'a [String],
    pub(crate) progress: Progress,
    /// Stop after this many cycles (the kill-and-resume test hook).
    pub(crate) stop_after: Option<u64>,
    /// Called with each finished cycle.
    pub(crate) on_cycle: &'a mut dyn FnMut(&CycleReport),
    open: Option<OpenCycle>,
    /// Per input, the highest position seen.
    seen: Vec<u64>,
    /// Per input, the [`chain`] of the records seen.
    chains: Vec<u64>,
    /// Per input, how far the open cycle reached, folded into the progress when it closes
    /// (making a progress entry for every record would allocate on the hot path).
    reached: Vec<Option<Reached>>,
    cycles_this_run: u64,
    /// The problem that stopped the run.
    pub(crate) error: Option<String>,
}

impl<'a> Driver<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        runtime: &'a tokio::runtime::Runtime,
        catalog: &'a SqlCatalog,
        table: Table,
        splitter: HourSplitter,
        policy: CyclePolicy,
        properties: WriterProperties,
        dlq_dir: PathBuf,
        keys: &'a [String],
        progress: Progress,
        stop_after: Option<u64>,
        on_cycle: &'a mut dyn FnMut(&CycleReport),
    ) -> Self {
        Driver {
            runtime,
            catalog,
            table,
            splitter,
            policy,
            properties,
            dlq_dir,
            keys,
            progress,
            stop_after,
            on_cycle,
            open: None,
            seen: vec![0; keys.len()],
            chains: vec![CHAIN_START; keys.len()],
            reached: vec![None; keys.len()],
            cycles_this_run: 0,
            error: None,
        }
    }

    /// Takes the next batch, in input order; `false` stops the run (an error, or the test hook).
    pub(crate) fn take(&mut self, batch: CheckedBatch) -> bool {
        match self.take_batch(batch) {
            Ok(go_on) => go_on,
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }

    fn take_batch(&mut self, batch: CheckedBatch) -> Result<bool, String> {
        let rows = batch.rows?;
        let name = self.keys.get(batch.input).cloned().unwrap_or_default();
        // The delivered rows not yet written: rows[pending_from..next_row].
        let mut next_row = 0usize;
        let mut pending_from = 0usize;
        for record in batch.records {
            if let Some(seen) = self.seen.get_mut(batch.input) {
                *seen = (*seen).max(record.position);
            }
            let chained = match self.chains.get_mut(batch.input) {
                Some(so_far) => {
                    *so_far = chain(*so_far, record.fingerprint);
                    *so_far
                }
                None => CHAIN_START,
            };
            if let Outcome::Done = record.outcome {
                self.check_resumed(&name, &record, chained)?;
                continue;
            }
            let arrival = match self.policy {
                CyclePolicy::Arrival { .. } => Some(arrival_micros(&name, &record)?),
                CyclePolicy::Records(_) => None,
            };
            if self.cycle_is_full(arrival) {
                self.write_rows(rows.as_ref(), pending_from, next_row)?;
                pending_from = next_row;
                self.close_cycle()?;
                if self
                    .stop_after
                    .is_some_and(|stop| self.cycles_this_run >= stop)
                {
                    return Ok(false);
                }
            }
            let cycle = self.open_cycle()?;
            cycle.records += 1;
            if cycle.first_arrival.is_none() {
                cycle.first_arrival = arrival;
            }
            match record.outcome {
                Outcome::Delivered => {
                    cycle.delivered += 1;
                    next_row += 1;
                }
                Outcome::DeadLetter(line) => cycle.dead_letters.push(line),
                Outcome::Done => {}
            }
            if let Some(reached) = self.reached.get_mut(batch.input) {
                *reached = Some(Reached {
                    records: record.position,
                    chain: chained,
                    sequence_number: record.sequence_number,
                });
            }
        }
        self.write_rows(rows.as_ref(), pending_from, next_row)?;
        Ok(true)
    }

    /// A record an earlier run did: at the last of them, the records so far (`chained`) must be
    /// the ones that run did, or the input is not the one the table was filled from.
    fn check_resumed(&self, name: &str, record: &Checked, chained: u64) -> Result<(), String> {
        let Some(done) = self.progress.of_input(name) else {
            return Ok(());
        };
        if record.position != done.records {
            return Ok(());
        }
        let same_sequence =
            done.sequence_number.is_none() || done.sequence_number == record.sequence_number;
        if fingerprint_text(chained) == done.fingerprint && same_sequence {
            return Ok(());
        }
        Err(format!(
            "`{name}` is not the input the table `{}` was filled from: its first {} records differ from the ones delivered under that name, so it is not known which of its records the table holds. Give the input another name (a new file) to deliver it as new records",
            self.table.identifier(),
            record.position
        ))
    }

    fn cycle_is_full(&self, arrival: Option<i64>) -> bool {
        let Some(cycle) = &self.open else {
            return false;
        };
        match (self.policy, arrival, cycle.first_arrival) {
            (CyclePolicy::Records(limit), _, _) => cycle.records >= limit,
            (CyclePolicy::Arrival { freshness_micros }, Some(at), Some(first)) => {
                at.saturating_sub(first) >= freshness_micros
            }
            (CyclePolicy::Arrival { .. }, _, _) => false,
        }
    }

    fn open_cycle(&mut self) -> Result<&mut OpenCycle, String> {
        if self.open.is_none() {
            let metadata = self.table.metadata();
            let schema = Arc::clone(metadata.current_schema());
            let locations = DefaultLocationGenerator::new(metadata)
                .map_err(|e| format!("the table's data location: {e}"))?;
            // Unique per cycle: the generator numbers files from 00000, so a fixed prefix would
            // make a later cycle overwrite an earlier cycle's files.
            let file_prefix = format!("data-{}", uuid::Uuid::new_v4());
            let names =
                DefaultFileNameGenerator::new(file_prefix.clone(), None, DataFileFormat::Parquet);
            let properties = self.properties.clone();
            let rolling = RollingFileWriterBuilder::new_with_default_file_size(
                ParquetWriterBuilder::new(properties, schema),
                self.table.file_io().clone(),
                locations,
                names,
            );
            self.open = Some(OpenCycle {
                number: self.progress.cycles + 1,
                builder: DataFileWriterBuilder::new(rolling),
                writers: Vec::new(),
                closing: Vec::new(),
                writes: 0,
                data_files: Vec::new(),
                file_prefix,
                records: 0,
                delivered: 0,
                dead_letters: Vec::new(),
                first_arrival: None,
            });
        }
        self.open
            .as_mut()
            .ok_or_else(|| "no open cycle".to_string())
    }

    /// Writes `rows[from..to]` into the open cycle, each row to its hour's file.
    fn write_rows(
        &mut self,
        rows: Option<&RecordBatch>,
        from: usize,
        to: usize,
    ) -> Result<(), String> {
        let (Some(rows), Some(cycle)) = (rows, self.open.as_mut()) else {
            return Ok(());
        };
        if to <= from {
            return Ok(());
        }
        let parts = self
            .splitter
            .split(&rows.slice(from, to - from))
            .map_err(|e| format!("cannot compute the partitions: {e}"))?;
        self.runtime.block_on(async {
            for (key, part) in parts {
                write_part(cycle, key, part).await?;
            }
            Ok(())
        })
    }

    /// Ends the open cycle: its rows are written out, its dead-letter file written, and its
    /// files committed in one append whose summary holds the progress.
    fn close_cycle(&mut self) -> Result<(), String> {
        let Some(mut cycle) = self.open.take() else {
            return Ok(());
        };
        if let Err(e) = self.runtime.block_on(write_out(&mut cycle)) {
            return Err(self.abandoned(Some(cycle), e));
        }
        let data_files = std::mem::take(&mut cycle.data_files);
        for (key, reached) in self.keys.iter().zip(&mut self.reached) {
            if let Some(reached) = reached.take() {
                self.progress.advance(InputProgress {
                    input: key.clone(),
                    records: reached.records,
                    fingerprint: fingerprint_text(reached.chain),
                    sequence_number: reached.sequence_number,
                });
            }
        }
        let dead_letter_file = if cycle.dead_letters.is_empty() {
            None
        } else {
            let written = dlq::write_cycle(&self.dlq_dir, cycle.number, &cycle.dead_letters)
                .map_err(|e| self.abandoned_files_message(&cycle.file_prefix, e))?;
            Some(written.display().to_string())
        };
        self.progress.cycles = cycle.number;
        let report = CycleReport {
            cycle: cycle.number,
            snapshot_id: None,
            delivered: cycle.delivered,
            dead_letters: cycle.dead_letters.len() as u64,
            data_files: data_files.len(),
            bytes: data_files.iter().map(|f| f.file_size_in_bytes()).sum(),
            dead_letter_file,
        };
        // The progress goes into the table's properties with every commit, and into the
        // snapshot summary of a cycle with rows. fast_append refuses an empty append, so a cycle
        // whose records all went to the dead-letter queue commits the properties alone.
        let progress = self.progress.to_property()?;
        let transaction = Transaction::new(&self.table);
        let properties = transaction
            .update_table_properties()
            .set(PROGRESS_PROPERTY.to_string(), progress.clone());
        let mut transaction = properties
            .apply(transaction)
            .map_err(|e| format!("cannot prepare the commit: {e}"))?;
        let appends = !data_files.is_empty();
        if appends {
            let append = transaction
                .fast_append()
                .add_data_files(data_files)
                .set_snapshot_properties(HashMap::from([(
                    PROGRESS_PROPERTY.to_string(),
                    progress,
                )]));
            transaction = append
                .apply(transaction)
                .map_err(|e| format!("cannot prepare the commit: {e}"))?;
        }
        let committed = self
            .runtime
            .block_on(transaction.commit(self.catalog))
            .map_err(|e| {
                format!(
                    "the commit of cycle {} failed: {e}. The table keeps its last committed snapshot; the cycle's data files (`{}-*`) may be left in its data folder",
                    cycle.number, cycle.file_prefix
                )
            })?;
        self.table = committed;
        let snapshot_id = if appends {
            self.table.metadata().current_snapshot_id()
        } else {
            None
        };
        self.cycles_this_run += 1;
        (self.on_cycle)(&CycleReport {
            snapshot_id,
            ..report
        });
        Ok(())
    }

    /// Ends the run: the open cycle is committed when the input was read to its end; after an
    /// error, it is abandoned (its data files removed), so the table keeps its last commit.
    pub(crate) fn finish(&mut self, input_error: Option<String>) -> Result<(), String> {
        if let Some(error) = self.error.take().or(input_error) {
            let open = self.open.take();
            return Err(self.abandoned(open, error));
        }
        if self
            .stop_after
            .is_some_and(|stop| self.cycles_this_run >= stop)
        {
            return Ok(());
        }
        for (index, name) in self.keys.iter().enumerate() {
            let seen = self.seen.get(index).copied().unwrap_or(0);
            if let Some(done) = self.progress.of_input(name).filter(|d| d.records > seen) {
                let message = format!(
                    "`{name}` has {seen} records, but the table `{}` holds {} records of an input of that name: it is not the input the table was filled from",
                    self.table.identifier(),
                    done.records
                );
                let open = self.open.take();
                return Err(self.abandoned(open, message));
            }
        }
        self.close_cycle()
    }

    /// `error`, followed, when a cycle was open, by what became of its data files.
    fn abandoned(&self, open: Option<OpenCycle>, error: String) -> String {
        let Some(cycle) = open else {
            return error;
        };
        // A writer still closing could write its file after the files were removed.
        for closing in cycle.closing {
            let _ = self.runtime.block_on(closing);
        }
        self.abandoned_files_message(&cycle.file_prefix, error)
    }

    /// `error`, followed by what became of an abandoned cycle's data files: removed, or named
    /// when they could not be.
    fn abandoned_files_message(&self, file_prefix: &str, error: String) -> String {
        let mut found = Vec::new();
        files_with_prefix(&table_data_folder(&self.table), file_prefix, &mut found, 0);
        let mut left = Vec::new();
        for path in &found {
            if std::fs::remove_file(path).is_err() {
                left.push(path.display().to_string());
            }
        }
        let snapshot = match self.table.metadata().current_snapshot_id() {
            Some(id) => format!("its last commit, snapshot {id}"),
            None => "no snapshot, as before".to_string(),
        };
        let mut message =
            format!("{error}\nThe unfinished cycle was not committed: the table keeps {snapshot}");
        if !found.is_empty() && left.is_empty() {
            message.push_str(&format!(
                ", and the cycle's {} data file(s) were removed",
                found.len()
            ));
        }
        if !left.is_empty() {
            message.push_str(&format!(
                "; these data files of the cycle could not be removed and belong to no snapshot: {}",
                left.join(", ")
            ));
        }
        message
    }
}

/// Writes one partition's rows into its open writer, opening one (and closing the one used
/// longest ago when [`OPEN_WRITERS`] are open) when it has none.
async fn write_part(
    cycle: &mut OpenCycle,
    key: PartitionKey,
    part: RecordBatch,
) -> Result<(), String> {
    cycle.writes += 1;
    let path = key.to_path();
    let index = match cycle.writers.iter().position(|(p, _, _)| *p == path) {
        Some(index) => index,
        None => {
            if cycle.writers.len() >= OPEN_WRITERS {
                let oldest = cycle
                    .writers
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, (_, _, used))| *used)
                    .map_or(0, |(index, _)| index);
                let (_, writer, _) = cycle.writers.remove(oldest);
                cycle.closing.push(close_writer(writer));
            }
            let writer = cycle
                .builder
                .build(Some(key))
                .await
                .map_err(|e| format!("cannot open a data file: {e}"))?;
            cycle.writers.push((path, writer, 0));
            cycle.writers.len() - 1
        }
    };
    let writes = cycle.writes;
    let Some((_, writer, used)) = cycle.writers.get_mut(index) else {
        return Err("no writer for the partition".to_string());
    };
    *used = writes;
    writer
        .write(part)
        .await
        .map_err(|e| format!("cannot write the data files: {e}"))
}

/// A writer being closed on the runtime's threads, so that closing (the last pages encoded and
/// compressed, the file written) overlaps the writing of other partitions and files close in
/// parallel.
type Closing = tokio::task::JoinHandle<Result<Vec<DataFile>, String>>;

fn close_writer(mut writer: Writer) -> Closing {
    tokio::spawn(async move {
        writer
            .close()
            .await
            .map_err(|e| format!("cannot close the data files: {e}"))
    })
}

/// Closes every open writer of the cycle, in the order they were opened, and collects the data
/// files of all the writers it closed, in the order they were closed.
async fn write_out(cycle: &mut OpenCycle) -> Result<(), String> {
    for (_, writer, _) in std::mem::take(&mut cycle.writers) {
        cycle.closing.push(close_writer(writer));
    }
    let mut failure = None;
    for closing in std::mem::take(&mut cycle.closing) {
        // Every close is waited for, even after one failed, so that no file is still being
        // written when an abandoned cycle's files are removed.
        match closing.await {
            Ok(Ok(files)) => cycle.data_files.extend(files),
            Ok(Err(e)) => failure = failure.or(Some(e)),
            Err(e) => failure = failure.or(Some(format!("cannot close the data files: {e}"))),
        }
    }
    failure.map_or(Ok(()), Err)
}

/// A record's arrival time, which get-records cycles need.
fn arrival_micros(name: &str, record: &Checked) -> Result<i64, String> {
    let text = record.arrival.as_deref().ok_or_else(|| {
        format!(
            "`{name}` record {} has no ApproximateArrivalTimestamp; get-records input is delivered in cycles by arrival time (give the output of `aws kinesis get-records` as it is)",
            record.position
        )
    })?;
    let micros = match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() => Some((seconds * 1_000_000.0).round() as i64),
        _ => timestamptz_micros(text),
    };
    micros.ok_or_else(|| {
        format!(
            "`{name}` record {}: the ApproximateArrivalTimestamp `{text}` is neither seconds since the epoch nor an RFC 3339 date-time",
            record.position
        )
    })
}

/// The table's data folder on this machine.
fn table_data_folder(table: &Table) -> PathBuf {
    let location = table.metadata().location();
    let path = location.strip_prefix("file://").unwrap_or(location);
    Path::new(path).join("data")
}

/// The files under `dir` (partition folders included) whose names start with `prefix`.
fn files_with_prefix(dir: &Path, prefix: &str, found: &mut Vec<PathBuf>, depth: usize) {
    // Data folders are one partition level deep; the bound only guards against odd trees.
    if depth > 8 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            files_with_prefix(&path, prefix, found, depth + 1);
        } else if entry.file_name().to_string_lossy().starts_with(prefix) {
            found.push(path);
        }
    }
}
