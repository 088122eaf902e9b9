//! Delivery cycles, on the calling thread ([`Driver`]): the checked batches taken in input
//! order, their rows handed to the cycle's [`HourFiles`], and each cycle closed in fixed steps:
//! the data files written, the dead-letter file written, then one commit whose snapshot
//! summary and table property hold the [`Progress`] (and name the dead-letter file). A run
//! stopped between any two steps leaves nothing that a commit lists, and the next run removes
//! what it left ([`recover`](super::recover)).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use iceberg::spec::{DataFile, DataFileFormat};
use iceberg::table::Table;
use iceberg::transaction::{ApplyTransactionAction, Transaction};
use iceberg::writer::base_writer::data_file_writer::DataFileWriterBuilder;
use iceberg::writer::file_writer::location_generator::{
    DefaultFileNameGenerator, DefaultLocationGenerator,
};
use iceberg::writer::file_writer::rolling_writer::RollingFileWriterBuilder;
use iceberg::writer::file_writer::ParquetWriterBuilder;
use iceberg::Catalog;
use iceberg_catalog_sql::SqlCatalog;
use parquet::file::properties::WriterProperties;
use schema2iceberg_mapper::records::timestamptz_micros;
use serde::Serialize;

use super::check::{Checked, CheckedBatch, Outcome};
use super::dlq;
use super::fault::{self, Step};
use super::hours::HourFiles;
use super::partition::HourSplitter;
use super::progress::{
    chain, fingerprint_text, InputProgress, Progress, CHAIN_START, PROGRESS_PROPERTY,
};
use super::recover::{data_files, table_folder};

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
    /// The input's records sent to the dead-letter queue in the open cycle.
    dead_letters: u64,
}

/// Settings of the driver that do not change during a run.
pub(crate) struct DriverSettings<'a> {
    pub(crate) splitter: HourSplitter,
    pub(crate) policy: CyclePolicy,
    /// The Parquet writer's settings ([`writer_properties`](super::encoding::writer_properties)).
    pub(crate) properties: WriterProperties,
    pub(crate) warehouse: PathBuf,
    pub(crate) dlq_dir: PathBuf,
    /// Each input's key in the progress (`mod.rs`'s `input_keys`).
    pub(crate) keys: &'a [String],
    /// Deliver an input whose first record is that of an input delivered under another name.
    pub(crate) allow_duplicate_content: bool,
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

/// The cycle being filled.
struct OpenCycle {
    number: u64,
    files: HourFiles,
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
    settings: DriverSettings<'a>,
    progress: Progress,
    /// Called with each finished cycle.
    on_cycle: &'a mut dyn FnMut(&CycleReport),
    open: Option<OpenCycle>,
    /// Per input, the highest position seen.
    seen: Vec<u64>,
    /// Per input, the [`chain`] of the records seen.
    chains: Vec<u64>,
    /// Per input, the [`chain`] of its first record, once seen.
    firsts: Vec<Option<u64>>,
    /// Per input, how far the open cycle reached, folded into the progress when it closes
    /// (making a progress entry for every record would allocate on the hot path).
    reached: Vec<Option<Reached>>,
    cycles_this_run: u64,
    /// The problem that stopped the run.
    pub(crate) error: Option<String>,
}

impl<'a> Driver<'a> {
    pub(crate) fn new(
        runtime: &'a tokio::runtime::Runtime,
        catalog: &'a SqlCatalog,
        table: Table,
        settings: DriverSettings<'a>,
        progress: Progress,
        on_cycle: &'a mut dyn FnMut(&CycleReport),
    ) -> Self {
        let inputs = settings.keys.len();
        Driver {
            runtime,
            catalog,
            table,
            settings,
            progress,
            on_cycle,
            open: None,
            seen: vec![0; inputs],
            chains: vec![CHAIN_START; inputs],
            firsts: vec![None; inputs],
            reached: vec![None; inputs],
            cycles_this_run: 0,
            error: None,
        }
    }

    /// Takes the next batch, in input order; `false` stops the run (an error).
    pub(crate) fn take(&mut self, batch: CheckedBatch) -> bool {
        match self.take_batch(batch) {
            Ok(()) => true,
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }

    fn take_batch(&mut self, batch: CheckedBatch) -> Result<(), String> {
        let rows = batch.rows?;
        let name = self
            .settings
            .keys
            .get(batch.input)
            .cloned()
            .unwrap_or_default();
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
            if record.position == 1 {
                if let Some(first) = self.firsts.get_mut(batch.input) {
                    *first = Some(chained);
                }
            }
            if let Outcome::Done = record.outcome {
                self.check_resumed(&name, &record, chained)?;
                continue;
            }
            if record.position == 1 {
                self.check_not_delivered_elsewhere(batch.input, &name, chained)?;
            }
            let arrival = match self.settings.policy {
                CyclePolicy::Arrival { .. } => Some(arrival_micros(&name, &record)?),
                CyclePolicy::Records(_) => None,
            };
            if self.cycle_is_full(arrival) {
                self.write_rows(rows.as_ref(), pending_from, next_row)?;
                pending_from = next_row;
                self.close_cycle()?;
            }
            let cycle = self.open_cycle()?;
            cycle.records += 1;
            if cycle.first_arrival.is_none() {
                cycle.first_arrival = arrival;
            }
            let dead_letter = matches!(record.outcome, Outcome::DeadLetter(_));
            match record.outcome {
                Outcome::Delivered => {
                    cycle.delivered += 1;
                    next_row += 1;
                }
                Outcome::DeadLetter(line) => cycle.dead_letters.push(line),
                Outcome::Done => {}
            }
            if let Some(reached) = self.reached.get_mut(batch.input) {
                let dead_letters =
                    reached.as_ref().map_or(0, |r| r.dead_letters) + u64::from(dead_letter);
                *reached = Some(Reached {
                    records: record.position,
                    chain: chained,
                    sequence_number: record.sequence_number,
                    dead_letters,
                });
            }
        }
        self.write_rows(rows.as_ref(), pending_from, next_row)
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

    /// The first record of an input new to the table: an input delivered under another name
    /// (by an earlier run, or earlier in this one) must not start with the same record, or the
    /// same content would be delivered twice (a copy, a renamed file, a second spelling).
    fn check_not_delivered_elsewhere(
        &self,
        input: usize,
        name: &str,
        first: u64,
    ) -> Result<(), String> {
        if self.settings.allow_duplicate_content {
            return Ok(());
        }
        let first_text = fingerprint_text(first);
        let earlier = self
            .progress
            .inputs
            .iter()
            .find(|p| p.input != name && p.first.as_deref() == Some(first_text.as_str()))
            .map(|p| (p.input.as_str(), "was delivered"))
            .or_else(|| {
                self.firsts
                    .iter()
                    .zip(self.settings.keys)
                    .take(input)
                    .find(|(f, key)| **f == Some(first) && key.as_str() != name)
                    .map(|(_, key)| (key.as_str(), "is delivered in this run"))
            });
        match earlier {
            None => Ok(()),
            Some((other, when)) => Err(format!(
                "`{name}` starts with the same record as `{other}`, which {when} into the table `{}`: it is the same content under another name (a copy, a renamed file or another spelling of the path), and delivering it would write its records twice. Give --allow-duplicate-content if it is new data that happens to start the same way",
                self.table.identifier()
            )),
        }
    }

    fn cycle_is_full(&self, arrival: Option<i64>) -> bool {
        let Some(cycle) = &self.open else {
            return false;
        };
        match (self.settings.policy, arrival, cycle.first_arrival) {
            (CyclePolicy::Records(limit), _, _) => cycle.records >= limit,
            (CyclePolicy::Arrival { freshness_micros }, Some(at), Some(first)) => {
                at.saturating_sub(first) >= freshness_micros
            }
            (CyclePolicy::Arrival { .. }, _, _) => false,
        }
    }

    fn open_cycle(&mut self) -> Result<&mut OpenCycle, String> {
        if self.open.is_none() {
            let number = self.progress.cycles.checked_add(1).ok_or_else(|| {
                format!(
                    "the table `{}` records {} delivery cycles, the most there can be; it cannot take another",
                    self.table.identifier(),
                    self.progress.cycles
                )
            })?;
            let metadata = self.table.metadata();
            let schema = Arc::clone(metadata.current_schema());
            let arrow_schema = Arc::new(
                iceberg::arrow::schema_to_arrow_schema(&schema)
                    .map_err(|e| format!("the table's Arrow schema: {e}"))?,
            );
            let locations = DefaultLocationGenerator::new(metadata)
                .map_err(|e| format!("the table's data location: {e}"))?;
            // Unique per cycle: the generator numbers files from 00000, so a fixed prefix would
            // make a later cycle overwrite an earlier cycle's files.
            let file_prefix = format!("data-{}", uuid::Uuid::new_v4());
            let names =
                DefaultFileNameGenerator::new(file_prefix.clone(), None, DataFileFormat::Parquet);
            let rolling = RollingFileWriterBuilder::new_with_default_file_size(
                ParquetWriterBuilder::new(self.settings.properties.clone(), schema),
                self.table.file_io().clone(),
                locations,
                names,
            );
            self.open = Some(OpenCycle {
                number,
                files: HourFiles::new(
                    DataFileWriterBuilder::new(rolling),
                    arrow_schema,
                    &self.settings.warehouse,
                ),
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

    /// Hands `rows[from..to]` to the open cycle, each row to its hour.
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
        let splitter = &self.settings.splitter;
        let parts = splitter
            .split(&rows.slice(from, to - from))
            .map_err(|e| format!("cannot compute the partitions: {e}"))?;
        self.runtime.block_on(async {
            for (hour, part) in parts {
                cycle.files.push(hour, || splitter.key(hour), part).await?;
            }
            Ok(())
        })
    }

    /// Ends the open cycle, in steps: its data files written, its dead-letter file written,
    /// and one commit of both, whose summary holds the progress.
    fn close_cycle(&mut self) -> Result<(), String> {
        let Some(cycle) = self.open.take() else {
            return Ok(());
        };
        let this_run = self.cycles_this_run + 1;
        let OpenCycle {
            number,
            files,
            file_prefix,
            delivered,
            dead_letters,
            ..
        } = cycle;
        let splitter = &self.settings.splitter;
        let written = self
            .runtime
            .block_on(files.finish(&|hour| splitter.key(hour)));
        let data_files = match written {
            Ok(files) => files,
            Err(e) => return Err(self.abandoned_files_message(&file_prefix, None, e)),
        };
        fault::point(Step::DataFiles, this_run);
        let dead_letter_file = if dead_letters.is_empty() {
            None
        } else {
            let written = dlq::write_cycle(&self.settings.dlq_dir, number, &dead_letters)
                .map_err(|e| self.abandoned_files_message(&file_prefix, None, e))?;
            Some(written)
        };
        fault::point(Step::DeadLetters, this_run);
        let report = CycleReport {
            cycle: number,
            snapshot_id: None,
            delivered,
            dead_letters: dead_letters.len() as u64,
            data_files: data_files.len(),
            bytes: data_files.iter().map(|f| f.file_size_in_bytes()).sum(),
            dead_letter_file: dead_letter_file.as_ref().map(|p| p.display().to_string()),
        };
        let committed = self.commit(number, data_files, dead_letter_file.as_deref());
        let snapshot_id = match committed {
            Ok(snapshot_id) => snapshot_id,
            Err(e) => {
                return Err(self.abandoned_files_message(
                    &file_prefix,
                    dead_letter_file.as_deref(),
                    e,
                ))
            }
        };
        self.cycles_this_run = this_run;
        fault::point(Step::AfterCommit, this_run);
        (self.on_cycle)(&CycleReport {
            snapshot_id,
            ..report
        });
        Ok(())
    }

    /// Commits cycle `number`: its data files in one append, and the progress (which names the
    /// dead-letter file) in the table's properties and the snapshot's summary. Returns the
    /// snapshot made; none when every record went to the dead-letter queue.
    fn commit(
        &mut self,
        number: u64,
        data_files: Vec<DataFile>,
        dead_letter_file: Option<&Path>,
    ) -> Result<Option<i64>, String> {
        let mut progress = self.progress.clone();
        let inputs = self
            .settings
            .keys
            .iter()
            .zip(&self.reached)
            .zip(&self.firsts);
        for ((key, reached), first) in inputs {
            if let Some(reached) = reached {
                let earlier = progress.of_input(key).map_or(0, |p| p.dead_letters);
                progress.advance(InputProgress {
                    input: key.clone(),
                    records: reached.records,
                    fingerprint: fingerprint_text(reached.chain),
                    sequence_number: reached.sequence_number.clone(),
                    first: first.map(fingerprint_text),
                    dead_letters: earlier + reached.dead_letters,
                });
            }
        }
        progress.cycles = number;
        progress.dead_letter_file = dead_letter_file.map(|file| {
            file.strip_prefix(&self.settings.warehouse)
                .unwrap_or(file)
                .display()
                .to_string()
        });
        // The progress goes into the table's properties with every commit, and into the
        // snapshot summary of a cycle with rows. fast_append refuses an empty append, so a cycle
        // whose records all went to the dead-letter queue commits the properties alone.
        let text = progress.to_property()?;
        let transaction = Transaction::new(&self.table);
        let properties = transaction
            .update_table_properties()
            .set(PROGRESS_PROPERTY.to_string(), text.clone());
        let mut transaction = properties
            .apply(transaction)
            .map_err(|e| format!("cannot prepare the commit: {e}"))?;
        let appends = !data_files.is_empty();
        if appends {
            let append = transaction
                .fast_append()
                .add_data_files(data_files)
                .set_snapshot_properties(HashMap::from([(PROGRESS_PROPERTY.to_string(), text)]));
            transaction = append
                .apply(transaction)
                .map_err(|e| format!("cannot prepare the commit: {e}"))?;
        }
        fault::point(Step::BeforeCommit, self.cycles_this_run + 1);
        if fault::commit_fails(self.cycles_this_run + 1) {
            return Err(format!(
                "the commit of cycle {number} failed: the test hook failed it"
            ));
        }
        let committed = match self.runtime.block_on(transaction.commit(self.catalog)) {
            Ok(table) => table,
            Err(e) => self
                .committed_after_all(number)
                .ok_or_else(|| format!("the commit of cycle {number} failed: {e}"))?,
        };
        self.table = committed;
        self.progress = progress;
        for reached in &mut self.reached {
            *reached = None;
        }
        Ok(if appends {
            self.table.metadata().current_snapshot_id()
        } else {
            None
        })
    }

    /// After a commit reported an error: the table as the catalog has it, when it holds cycle
    /// `number` all the same (the error came after the catalog took the commit), so that its
    /// files are not removed from under it.
    fn committed_after_all(&self, number: u64) -> Option<Table> {
        let table = self
            .runtime
            .block_on(self.catalog.load_table(self.table.identifier()))
            .ok()?;
        let progress = Progress::of_table(&table).ok()?;
        (progress.cycles == number).then_some(table)
    }

    /// The records of this run's inputs that the table's dead-letter folder holds, over every
    /// run (as far as the table's progress counts them).
    pub(crate) fn dead_letters_of_inputs(&self) -> u64 {
        self.settings
            .keys
            .iter()
            .filter_map(|key| self.progress.of_input(key))
            .map(|p| p.dead_letters)
            .sum()
    }

    /// Ends the run: the open cycle is committed when the input was read to its end; after an
    /// error, it is abandoned (its data files removed), so the table keeps its last commit.
    pub(crate) fn finish(&mut self, input_error: Option<String>) -> Result<(), String> {
        if let Some(error) = self.error.take().or(input_error) {
            let open = self.open.take();
            return Err(self.abandoned(open, error));
        }
        for (index, name) in self.settings.keys.iter().enumerate() {
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
        self.runtime.block_on(cycle.files.abandon());
        self.abandoned_files_message(&cycle.file_prefix, None, error)
    }

    /// `error`, followed by what became of an abandoned cycle's files (its data files, and
    /// its dead-letter file when one was written): removed, or named when they could not be.
    fn abandoned_files_message(
        &self,
        file_prefix: &str,
        dead_letter_file: Option<&Path>,
        error: String,
    ) -> String {
        let mut found = Vec::new();
        data_files(
            &table_folder(&self.table).join("data"),
            file_prefix,
            &mut found,
            0,
        );
        found.extend(dead_letter_file.map(Path::to_path_buf));
        let mut left = Vec::new();
        for path in &found {
            if let Err(e) = std::fs::remove_file(path) {
                left.push(format!("{} ({e})", path.display()));
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
                ", and the cycle's {} file(s) were removed",
                found.len()
            ));
        }
        if !left.is_empty() {
            message.push_str(&format!(
                "; these files of the cycle could not be removed and belong to no commit (the next run removes them): {}",
                left.join(", ")
            ));
        }
        message
    }
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
