//! The open cycle's rows by hour: one data file per hour per cycle (more only past the target
//! file size), whatever order the records come in, in bounded memory.
//!
//! Shaped like the `iceberg` crate's partitioning writers (`PartitioningWriter`: `write` by
//! partition, then `close`), the hour standing for the partition key. The first
//! [`OPEN_WRITERS`] hours of a cycle each get a data-file writer that rows stream into as they
//! come (so checking and writing overlap for a stream, whose cycles span an hour or two). The
//! rows of any further hour are held in memory, within [`BUFFER_BYTES`]; past that, every held
//! row is spilled to an Arrow IPC file under the warehouse's `deliver-spill/` folder. When the
//! cycle closes, each held hour's rows (spilled first, in the order spilled, then those in
//! memory) are written into one data file, hour by hour. No writer is closed before the cycle
//! ends, so no hour gets a second file, and a backfill over thousands of hours in any order
//! needs memory for one hour's file at a time.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use std::sync::Arc;

use iceberg::spec::{DataFile, DataFileFormat, PartitionKey};
use iceberg::table::Table;
use iceberg::writer::base_writer::data_file_writer::DataFileWriterBuilder;
use iceberg::writer::file_writer::location_generator::{
    DefaultFileNameGenerator, DefaultLocationGenerator,
};
use iceberg::writer::file_writer::rolling_writer::RollingFileWriterBuilder;
use iceberg::writer::file_writer::ParquetWriterBuilder;
use iceberg::writer::{IcebergWriter, IcebergWriterBuilder};
use parquet::file::properties::WriterProperties;

/// Makes the cycle's data-file writers; their file names share one counter.
pub(crate) type Builder =
    DataFileWriterBuilder<ParquetWriterBuilder, DefaultLocationGenerator, DefaultFileNameGenerator>;

type Writer = <Builder as IcebergWriterBuilder>::R;

/// The hours of a cycle whose rows stream into an open writer. Each open writer holds its
/// current row group in memory (about 640 KB when small) and an open file.
pub(crate) const OPEN_WRITERS: usize = 16;

/// The most bytes of held rows kept in memory before they are spilled.
pub(crate) const BUFFER_BYTES: usize = 64 * 1024 * 1024;

/// Writers closing at once at the end of a cycle: closing encodes and writes the last pages,
/// so a few in parallel keep both cores busy without holding many files' pages at once.
const CLOSING_AT_ONCE: usize = 4;

/// The folder under the warehouse that holds spilled rows while a cycle is open.
pub(crate) const SPILL_FOLDER: &str = "deliver-spill";

/// Why a cycle's data files cannot be written: the table, a data file, or the spill files.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HoursError {
    #[error("the table's Arrow schema: {0}")]
    ArrowSchema(#[source] Box<iceberg::Error>),
    #[error("the table's data location: {0}")]
    Location(#[source] Box<iceberg::Error>),
    #[error("cannot open a data file: {0}")]
    Open(#[source] Box<iceberg::Error>),
    #[error("cannot write the data files: {0}")]
    Write(#[source] Box<iceberg::Error>),
    #[error("cannot close the data files: {0}")]
    Close(#[source] Box<iceberg::Error>),
    /// The task closing a writer panicked or was cancelled.
    #[error("cannot close the data files: {0}")]
    CloseTask(#[source] tokio::task::JoinError),
    #[error("cannot hold the rows of an hour: {0}")]
    Hold(#[source] arrow_schema::ArrowError),
    #[error("cannot create the spill folder `{}`: {source}", .path.display())]
    SpillFolder {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot spill held rows to `{}`: {source}", .path.display())]
    SpillFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot spill held rows to `{}`: {source}", .path.display())]
    SpillRows {
        path: PathBuf,
        source: arrow_schema::ArrowError,
    },
    #[error("cannot read the spill file `{}`: {source}", .path.display())]
    ReadSpillFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read the spill file `{}`: {source}", .path.display())]
    ReadSpillRows {
        path: PathBuf,
        source: arrow_schema::ArrowError,
    },
    #[error("cannot read spilled rows back: {0}")]
    ReadBack(#[source] arrow_schema::ArrowError),
    #[error("cannot read spilled rows back: no such spill file")]
    NoSuchRun,
    #[error("cannot read spilled rows back: the spill file ended early")]
    RunEnded,
}

impl HoursError {
    /// `HoursError::Write`, for `map_err`.
    fn write(error: iceberg::Error) -> Self {
        HoursError::Write(Box::new(error))
    }

    /// `HoursError::Open`, for `map_err`.
    fn open(error: iceberg::Error) -> Self {
        HoursError::Open(Box::new(error))
    }
}

/// One hour without an open writer: its rows, spilled and in memory.
#[derive(Default)]
struct Held {
    /// Where its spilled rows are: (run, batch in that run's file), in the order spilled.
    spilled: Vec<(usize, usize)>,
    /// Its rows in memory, in the order they came.
    batches: Vec<RecordBatch>,
}

/// The open cycle's data files, by hour.
pub(crate) struct HourWriters {
    builder: Builder,
    schema: SchemaRef,
    /// The hours with an open writer, in the order opened.
    open: Vec<(Option<i32>, Writer)>,
    /// The other hours, in hour order.
    held: BTreeMap<Option<i32>, Held>,
    /// Bytes of `held` rows in memory.
    held_bytes: usize,
    spill_dir: PathBuf,
    /// The spill files written, in order.
    runs: Vec<PathBuf>,
    budget: usize,
}

impl HourWriters {
    /// A new cycle's writers for `table`'s current schema and location, and the prefix that
    /// every data file of the cycle starts with (unique per cycle: the name generator numbers
    /// files from 00000, so a fixed prefix would make a later cycle overwrite an earlier
    /// cycle's files).
    pub(crate) fn for_table(
        table: &Table,
        properties: WriterProperties,
        warehouse: &Path,
    ) -> Result<(Self, String), HoursError> {
        let metadata = table.metadata();
        let schema = Arc::clone(metadata.current_schema());
        let arrow_schema = Arc::new(
            iceberg::arrow::schema_to_arrow_schema(&schema)
                .map_err(|e| HoursError::ArrowSchema(Box::new(e)))?,
        );
        let locations = DefaultLocationGenerator::new(metadata)
            .map_err(|e| HoursError::Location(Box::new(e)))?;
        let file_prefix = format!("data-{}", uuid::Uuid::new_v4());
        let names =
            DefaultFileNameGenerator::new(file_prefix.clone(), None, DataFileFormat::Parquet);
        let rolling = RollingFileWriterBuilder::new_with_default_file_size(
            ParquetWriterBuilder::new(properties, schema),
            table.file_io().clone(),
            locations,
            names,
        );
        let files = HourWriters::new(DataFileWriterBuilder::new(rolling), arrow_schema, warehouse);
        Ok((files, file_prefix))
    }

    fn new(builder: Builder, schema: SchemaRef, warehouse: &Path) -> Self {
        HourWriters {
            builder,
            schema,
            open: Vec::new(),
            held: BTreeMap::new(),
            held_bytes: 0,
            spill_dir: warehouse.join(SPILL_FOLDER),
            runs: Vec::new(),
            budget: super::fault::spill_bytes(BUFFER_BYTES),
        }
    }

    /// Rows of one hour: streamed into its writer, or held.
    pub(crate) async fn write(
        &mut self,
        hour: Option<i32>,
        key: impl FnOnce() -> PartitionKey,
        rows: RecordBatch,
    ) -> Result<(), HoursError> {
        if let Some((_, writer)) = self.open.iter_mut().find(|(h, _)| *h == hour) {
            return writer.write(rows).await.map_err(HoursError::write);
        }
        if self.open.len() < OPEN_WRITERS && !self.held.contains_key(&hour) {
            let mut writer = self
                .builder
                .build(Some(key()))
                .await
                .map_err(HoursError::open)?;
            writer.write(rows).await.map_err(HoursError::write)?;
            self.open.push((hour, writer));
            return Ok(());
        }
        // A copy with buffers of its own: a slice would keep the whole batch it came from.
        let rows = arrow_select::concat::concat_batches(&self.schema, [&rows])
            .map_err(HoursError::Hold)?;
        self.held_bytes += rows.get_array_memory_size();
        self.held.entry(hour).or_default().batches.push(rows);
        if self.held_bytes > self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// Writes every held row in memory to a new spill file, an hour's rows as one batch.
    fn spill(&mut self) -> Result<(), HoursError> {
        std::fs::create_dir_all(&self.spill_dir).map_err(|source| HoursError::SpillFolder {
            path: self.spill_dir.clone(),
            source,
        })?;
        let run = self.runs.len();
        let path = self.spill_dir.join(format!("run-{:06}.arrow", run + 1));
        let file_error = |source| HoursError::SpillFile {
            path: path.clone(),
            source,
        };
        let rows_error = |source| HoursError::SpillRows {
            path: path.clone(),
            source,
        };
        let file = File::create(&path).map_err(file_error)?;
        self.runs.push(path.clone());
        let mut writer = arrow_ipc::writer::FileWriter::try_new(BufWriter::new(file), &self.schema)
            .map_err(rows_error)?;
        let mut index = 0;
        for held in self.held.values_mut() {
            if held.batches.is_empty() {
                continue;
            }
            let batches = std::mem::take(&mut held.batches);
            let rows =
                arrow_select::concat::concat_batches(&self.schema, &batches).map_err(rows_error)?;
            writer.write(&rows).map_err(rows_error)?;
            held.spilled.push((run, index));
            index += 1;
        }
        writer.finish().map_err(rows_error)?;
        writer
            .into_inner()
            .map_err(rows_error)?
            .into_inner()
            .map_err(|e| file_error(e.into_error()))?
            .sync_all()
            .map_err(file_error)?;
        self.held_bytes = 0;
        Ok(())
    }

    /// Closes the open writers, then writes each held hour into one data file, in hour order;
    /// returns every data file, in that order. Every writer started is closed or waited for,
    /// even after a failure, so that no file is still being written when an abandoned cycle's
    /// files are removed.
    pub(crate) async fn close(
        mut self,
        key: &dyn Fn(Option<i32>) -> PartitionKey,
    ) -> Result<Vec<DataFile>, HoursError> {
        let mut closing = Closing::default();
        for (_, writer) in std::mem::take(&mut self.open) {
            closing.push(writer).await;
        }
        let written = self.write_held(key, &mut closing).await;
        let files = closing.wait_all().await;
        self.remove_spill();
        written?;
        files
    }

    async fn write_held(
        &mut self,
        key: &dyn Fn(Option<i32>) -> PartitionKey,
        closing: &mut Closing,
    ) -> Result<(), HoursError> {
        let mut readers = Vec::with_capacity(self.runs.len());
        for path in &self.runs {
            let file = File::open(path).map_err(|source| HoursError::ReadSpillFile {
                path: path.clone(),
                source,
            })?;
            readers.push(
                arrow_ipc::reader::FileReader::try_new(BufReader::new(file), None).map_err(
                    |source| HoursError::ReadSpillRows {
                        path: path.clone(),
                        source,
                    },
                )?,
            );
        }
        for (hour, held) in std::mem::take(&mut self.held) {
            let mut writer = self
                .builder
                .build(Some(key(hour)))
                .await
                .map_err(HoursError::open)?;
            let mut failure = None;
            for (run, index) in held.spilled {
                match read_spilled(&mut readers, run, index, &self.schema) {
                    Ok(rows) => {
                        if let Err(e) = writer.write(rows).await {
                            failure = Some(HoursError::write(e));
                            break;
                        }
                    }
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
            }
            for rows in held.batches {
                if failure.is_some() {
                    break;
                }
                if let Err(e) = writer.write(rows).await {
                    failure = Some(HoursError::write(e));
                }
            }
            closing.push(writer).await;
            if let Some(e) = failure {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Gives the cycle up: every writer's file is finished or dropped, and the spill folder
    /// removed. The caller removes the cycle's data files.
    pub(crate) async fn abandon(mut self) {
        let mut closing = Closing::default();
        for (_, writer) in std::mem::take(&mut self.open) {
            closing.push(writer).await;
        }
        let _ = closing.wait_all().await;
        self.remove_spill();
    }

    fn remove_spill(&self) {
        if !self.runs.is_empty() {
            let _ = std::fs::remove_dir_all(&self.spill_dir);
        }
    }
}

/// Reads batch `index` of spill run `run`, with the table's schema (and so its field ids).
fn read_spilled(
    readers: &mut [arrow_ipc::reader::FileReader<BufReader<File>>],
    run: usize,
    index: usize,
    schema: &SchemaRef,
) -> Result<RecordBatch, HoursError> {
    let reader = readers.get_mut(run).ok_or(HoursError::NoSuchRun)?;
    reader.set_index(index).map_err(HoursError::ReadBack)?;
    let rows = reader
        .next()
        .ok_or(HoursError::RunEnded)?
        .map_err(HoursError::ReadBack)?;
    RecordBatch::try_new(std::sync::Arc::clone(schema), rows.columns().to_vec())
        .map_err(HoursError::ReadBack)
}

/// Writers being closed on the runtime's threads, at most [`CLOSING_AT_ONCE`] at a time; their
/// files are collected in the order the writers were closed.
#[derive(Default)]
struct Closing {
    under_way: VecDeque<tokio::task::JoinHandle<Result<Vec<DataFile>, HoursError>>>,
    files: Vec<DataFile>,
    failure: Option<HoursError>,
}

impl Closing {
    async fn push(&mut self, mut writer: Writer) {
        if self.under_way.len() >= CLOSING_AT_ONCE {
            self.wait_one().await;
        }
        self.under_way.push_back(tokio::spawn(async move {
            writer
                .close()
                .await
                .map_err(|e| HoursError::Close(Box::new(e)))
        }));
    }

    async fn wait_one(&mut self) {
        let Some(next) = self.under_way.pop_front() else {
            return;
        };
        match next.await {
            Ok(Ok(files)) => self.files.extend(files),
            Ok(Err(e)) => self.failure = self.failure.take().or(Some(e)),
            Err(e) => self.failure = self.failure.take().or(Some(HoursError::CloseTask(e))),
        }
    }

    async fn wait_all(mut self) -> Result<Vec<DataFile>, HoursError> {
        while !self.under_way.is_empty() {
            self.wait_one().await;
        }
        self.failure.map_or(Ok(self.files), Err)
    }
}
