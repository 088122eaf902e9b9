//! Delivery cycles, on the calling thread ([`Driver`]): the checked batches taken in input
//! order, their rows handed to the cycle's [`HourWriters`], and each cycle closed in fixed steps:
//! the data files written, the dead-letter file written, then one commit whose snapshot
//! summary and table property hold the [`Progress`] (and name the dead-letter file). A run
//! stopped between any two steps leaves nothing that a commit lists, and the next run removes
//! what it left ([`recover`](super::recover)). The resume checks are in [`resume`], the commit
//! and an abandoned cycle's clean-up in [`commit`].

mod commit;
mod resume;

use std::path::PathBuf;

use arrow_array::RecordBatch;
use iceberg::table::Table;
use iceberg::TableIdent;
use iceberg_catalog_sql::SqlCatalog;
use parquet::file::properties::WriterProperties;
use schema2iceberg_mapper::records::timestamptz_micros;
use serde::Serialize;

use super::arrow::RowsError;
use super::check::{Checked, CheckedBatch, Outcome};
use super::dlq::{self, DlqError};
use super::fault::{self, Step};
use super::hours::{HourWriters, HoursError};
use super::partition::{HourSplitter, PartitionError};
use super::progress::{chain, Progress, ProgressError, CHAIN_START};
use crate::intake::input::InputError;

/// Why the cycles stopped; the cycle under way is not committed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CycleError {
    /// An input that cannot be read as its kind says.
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Rows(#[from] RowsError),
    #[error(transparent)]
    Hours(#[from] HoursError),
    #[error(transparent)]
    Dlq(#[from] DlqError),
    #[error(transparent)]
    Progress(#[from] ProgressError),
    #[error("cannot compute the partitions: {0}")]
    Partitions(#[source] PartitionError),
    #[error("`{name}` record {position} has no ApproximateArrivalTimestamp; get-records input is delivered in cycles by arrival time (give the output of `aws kinesis get-records` as it is)")]
    NoArrival { name: String, position: u64 },
    #[error("`{name}` record {position}: the ApproximateArrivalTimestamp `{text}` is neither seconds since the epoch nor an RFC 3339 date-time")]
    BadArrival {
        name: String,
        position: u64,
        text: String,
    },
    #[error("the table `{table}` records {cycles} delivery cycles, the most there can be; it cannot take another")]
    TooManyCycles { table: TableIdent, cycles: u64 },
    /// A bug: a cycle is opened before it is used.
    #[error("no open cycle")]
    NoOpenCycle,
    #[error("`{name}` is not the input the table `{table}` was filled from: its first {records} records differ from the ones delivered under that name, so it is not known which of its records the table holds. Give the input another name (a new file) to deliver it as new records")]
    NotTheInput {
        name: String,
        table: TableIdent,
        records: u64,
    },
    /// `when` says whether `other` was delivered by an earlier run or in this one.
    #[error("`{name}` starts with the same record as `{other}`, which {when} into the table `{table}`: it is the same content under another name (a copy, a renamed file or another spelling of the path), and delivering it would write its records twice. Give --allow-duplicate-content if it is new data that happens to start the same way")]
    SameContent {
        name: String,
        other: String,
        when: &'static str,
        table: TableIdent,
    },
    #[error("`{name}` has {seen} records, but the table `{table}` holds {held} records of an input of that name: it is not the input the table was filled from")]
    Shorter {
        name: String,
        seen: u64,
        table: TableIdent,
        held: u64,
    },
    #[error("cannot prepare the commit: {0}")]
    Prepare(#[source] Box<iceberg::Error>),
    #[error("the commit of cycle {cycle} failed: the test hook failed it")]
    CommitHook { cycle: u64 },
    #[error("the commit of cycle {cycle} failed: {source}")]
    Commit {
        cycle: u64,
        source: Box<iceberg::Error>,
    },
    /// `source` stopped an open cycle: what became of its files follows.
    #[error("{source}\nThe unfinished cycle was not committed: the table keeps {}{}", commit::kept(*.snapshot), commit::fate(*.found, .left))]
    Abandoned {
        source: Box<CycleError>,
        /// The table's current snapshot, which it keeps.
        snapshot: Option<i64>,
        /// How many files the cycle had written.
        found: usize,
        /// The files that could not be removed, each with why.
        left: Vec<(PathBuf, std::io::Error)>,
    },
}

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
    files: HourWriters,
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
    pub(crate) error: Option<CycleError>,
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

    fn take_batch(&mut self, batch: CheckedBatch) -> Result<(), CycleError> {
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

    fn open_cycle(&mut self) -> Result<&mut OpenCycle, CycleError> {
        if self.open.is_none() {
            let number =
                self.progress
                    .cycles
                    .checked_add(1)
                    .ok_or_else(|| CycleError::TooManyCycles {
                        table: self.table.identifier().clone(),
                        cycles: self.progress.cycles,
                    })?;
            let (files, file_prefix) = HourWriters::for_table(
                &self.table,
                self.settings.properties.clone(),
                &self.settings.warehouse,
            )?;
            self.open = Some(OpenCycle {
                number,
                files,
                file_prefix,
                records: 0,
                delivered: 0,
                dead_letters: Vec::new(),
                first_arrival: None,
            });
        }
        self.open.as_mut().ok_or(CycleError::NoOpenCycle)
    }

    /// Hands `rows[from..to]` to the open cycle, each row to its hour.
    fn write_rows(
        &mut self,
        rows: Option<&RecordBatch>,
        from: usize,
        to: usize,
    ) -> Result<(), CycleError> {
        let (Some(rows), Some(cycle)) = (rows, self.open.as_mut()) else {
            return Ok(());
        };
        if to <= from {
            return Ok(());
        }
        let splitter = &self.settings.splitter;
        let parts = splitter
            .split(&rows.slice(from, to - from))
            .map_err(CycleError::Partitions)?;
        self.runtime.block_on(async {
            for (hour, part) in parts {
                cycle.files.write(hour, || splitter.key(hour), part).await?;
            }
            Ok(())
        })
    }

    /// Ends the open cycle, in steps: its data files written, its dead-letter file written,
    /// and one commit of both, whose summary holds the progress.
    fn close_cycle(&mut self) -> Result<(), CycleError> {
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
            .block_on(files.close(&|hour| splitter.key(hour)));
        let data_files = match written {
            Ok(files) => files,
            Err(e) => return Err(self.abandoned_files(&file_prefix, None, e.into())),
        };
        fault::point(Step::DataFiles, this_run);
        let dead_letter_file = if dead_letters.is_empty() {
            None
        } else {
            let written = dlq::write_cycle(&self.settings.dlq_dir, number, &dead_letters)
                .map_err(|e| self.abandoned_files(&file_prefix, None, e.into()))?;
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
                return Err(self.abandoned_files(&file_prefix, dead_letter_file.as_deref(), e))
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
    pub(crate) fn finish(&mut self, input_error: Option<InputError>) -> Result<(), CycleError> {
        let stopped = match self.error.take().or(input_error.map(CycleError::Input)) {
            Some(error) => Err(error),
            None => self.check_read_to_end(),
        };
        if let Err(error) = stopped {
            let open = self.open.take();
            return Err(self.abandoned(open, error));
        }
        self.close_cycle()
    }
}

/// A record's arrival time, which get-records cycles need.
fn arrival_micros(name: &str, record: &Checked) -> Result<i64, CycleError> {
    let text = record
        .arrival
        .as_deref()
        .ok_or_else(|| CycleError::NoArrival {
            name: name.to_string(),
            position: record.position,
        })?;
    let micros = match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() => Some((seconds * 1_000_000.0).round() as i64),
        _ => timestamptz_micros(text),
    };
    micros.ok_or_else(|| CycleError::BadArrival {
        name: name.to_string(),
        position: record.position,
        text: text.to_string(),
    })
}
