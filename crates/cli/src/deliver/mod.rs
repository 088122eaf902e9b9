//! `schema2iceberg deliver`: a local channel. It creates the table as the channel would, in an
//! embedded SQLite SQL catalog (`<warehouse>/catalog.db`, the layout of Iceberg's JDBC catalog
//! and pyiceberg's `SqlCatalog`), and writes the records the channel delivers into it, one
//! append commit per delivery cycle, with the failures in a local dead-letter folder. The
//! records are checked as `records` checks them, on the same pipeline.

mod arrow;
mod check;
mod cycle;
mod dlq;
mod encoding;
mod fault;
mod hours;
mod output;
mod partition;
mod progress;
mod recover;
mod table;
pub(crate) mod target;

use std::io::Write as _;
use std::num::NonZeroU64;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use iceberg::arrow::schema_to_arrow_schema;
use iceberg::table::Table;
use schema2iceberg_mapper::diff::Side;

pub use crate::project::channel::Compression;
pub use progress::PROGRESS_PROPERTY;
pub use table::{open_catalog, TableError, CATALOG_NAME, LOCK_FILE};

use crate::app::{usage_error, ColorArg, EXIT_OK, EXIT_SCHEMA_ERRORS};
use crate::intake::input::{InputKind, Source, Tail};
use crate::intake::order::{in_order, workers};
use crate::intake::{prepare, IntakeError, Prepared, RecordSourceArgs};
use crate::project::ProjectError;
use crate::render::diff::{existing_table_against_schema, DiffFormat};
use check::BatchChecker;
use cycle::{CyclePolicy, Driver, DriverSettings};
use output::{Bar, DeliverFormat, Summary};
use target::Target;

/// Records per cycle when neither `--cycle-records` nor arrival times decide.
const DEFAULT_CYCLE_RECORDS: u64 = 100_000;

/// The `after_help` of `deliver --help`.
pub(crate) const HELP: &str = "\
deliver does locally what the channel does in AWS. It creates the table as the channel would
(the compiled schema with its field ids, the hour partition, format version 2, Parquet with the
codec of CompressionType) in an embedded SQLite catalog, <warehouse>/catalog.db, with the data
under <warehouse>/<namespace>/<table>/. It then checks the records exactly as `records` does and
writes the delivered ones as Parquet files, one folder per hour, one commit per delivery cycle.
Failed records go to <warehouse>/dlq/<ErrorOutputPrefix, or kinesis-channel/errors/<channel>/local/>,
one NDJSON file per cycle, holding the record's place, reason, pointer and message (the payload
only with --dlq-payload), as AWS documents for the channel's dead-letter queue.

Cycles: --cycle-records records each (default 100000); for get-records input, as the channel
does, a cycle gathers the records that arrived within DataFreshnessInSeconds (default 300) of
its first (ApproximateArrivalTimestamp).

Exactly once: each commit records in its snapshot summary (schema2iceberg.progress) how many
records of each input (a file by its canonical path, standard input as -) are done. Running
again, or after a run was killed at any step, skips them, so nothing is delivered twice and
nothing is lost: the next run first removes what no commit lists (data, metadata and dead-letter
files of an unfinished cycle) and names it. A file that grew is delivered from where it stopped;
its last line is held back while it has no newline. An input that differs from the one
delivered under its name is refused; so is one under another name that starts with a delivered
input's first record (a copy or a renamed file), unless --allow-duplicate-content. A warehouse
whose table lies outside it (a copy of another warehouse) is refused.

A cycle writes one data file per hour, whatever order the records come in; the rows of a
backfill's many hours are held in bounded memory, spilled to <warehouse>/deliver-spill/.

The table cannot evolve: on an existing table that differs from the table the schema compiles
to, deliver prints the differences, as diff does, and exits 1 without writing. Two runs on one
warehouse: the second stops at once (the first holds <warehouse>/deliver.lock).

The namespace and table come from --namespace/--table or the channel configuration, and must
follow the channel's rules (lowercase letters, digits and _). At the end, deliver prints a
pyiceberg and a Spark command that read the table; docs/deliver.md has DuckDB too.

Examples:
  schema2iceberg deliver schema.json samples.ndjson --partition event_time \\
    --namespace sales --table orders
  schema2iceberg deliver schema.json batch.json --input get-records --channel-config channel.json
  schema2iceberg deliver schema.json samples.ndjson --channel-config channel.json \\
    --warehouse /tmp/wh --cycle-records 1000 --format json

Exit codes: 0 every record is delivered (or was by an earlier run), 1 at least one of the
inputs' records is in the dead-letter folder (now or from an earlier run, so a rerun exits as
the first run did), or the existing table differs from the schema's, 2 usage or I/O error, an
input that is not of its kind or not the one the table was filled from, the same content as an
input delivered under another name, a copied warehouse, a schema that does not compile, or
another run holding the warehouse. On an error, the cycle under way is not
committed: the table keeps its last committed snapshot.";

#[derive(Debug, clap::Args)]
#[command(
    about = "Act as the channel, locally: create its table in a local Iceberg catalog and deliver records into it, cycle by cycle, with failures in a dead-letter folder",
    after_help = HELP
)]
pub(crate) struct DeliverArgs {
    #[command(flatten)]
    source: RecordSourceArgs,
    /// The folder of the catalog (catalog.db), the table's files and the dead-letter folder
    /// (dlq/); created when missing. Do not move it afterwards: the catalog holds absolute paths.
    #[arg(long, value_name = "DIR", default_value = "warehouse")]
    warehouse: PathBuf,
    /// The namespace (database) of the table, e.g. --namespace sales [default: the channel
    /// configuration's Namespace / DestinationDatabaseName]
    #[arg(long, value_name = "NS")]
    namespace: Option<String>,
    /// The table's name, e.g. --table orders [default: the channel configuration's TableName /
    /// DestinationTableName]
    #[arg(long, value_name = "NAME")]
    table: Option<String>,
    /// Records per delivery cycle, i.e. per commit [default: 100000; get-records input cycles by
    /// arrival time instead]
    #[arg(long, value_name = "N")]
    cycle_records: Option<NonZeroU64>,
    /// Put each failed record's bytes (base64) in its dead-letter line; the channel's
    /// dead-letter queue holds identifiers and error context only.
    #[arg(long)]
    dlq_payload: bool,
    /// Output format (e.g. --format json for one document at the end).
    #[arg(long, value_enum, default_value_t = DeliverFormat::Text)]
    format: DeliverFormat,
    /// Deliver an input even when it starts with the same record as an input delivered under
    /// another name (otherwise refused as the same content: a copy, a renamed file).
    #[arg(long)]
    allow_duplicate_content: bool,
    #[command(flatten)]
    color: ColorArg,
}

/// Runs `deliver`.
pub(crate) fn run(args: DeliverArgs) -> ExitCode {
    match deliver(&args) {
        Ok(exit) => exit,
        Err(e) => usage_error(e),
    }
}

/// Why `deliver` stopped: a usage or I/O error (exit 2). The cycle under way is not committed.
#[derive(Debug, thiserror::Error)]
enum DeliverError {
    /// The schema, the inputs, the toml or a channel configuration.
    #[error(transparent)]
    Intake(#[from] IntakeError),
    #[error(transparent)]
    Project(#[from] ProjectError),
    #[error(transparent)]
    Target(#[from] target::TargetError),
    #[error(transparent)]
    Table(#[from] table::TableError),
    #[error("which partition? the channel partitions its table by the hour of one date-time field: give --partition FIELD, a --channel-config with its SourceName, or a partition in schema2iceberg.toml")]
    NoPartition,
    #[error("INPUT `{0}` is given twice; each input is delivered once")]
    InputTwice(String),
    /// A path that cannot be made absolute.
    #[error("cannot resolve `{}`: {source}", .path.display())]
    Resolve {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("the table's Arrow schema: {0}")]
    ArrowSchema(Box<iceberg::Error>),
    #[error("--cycle-records does not apply to get-records input: its cycles follow ApproximateArrivalTimestamp and the channel's DataFreshnessInSeconds, as the channel's do")]
    CycleRecordsWithArrival,
    /// A step of the delivery (the warehouse, the catalog, the table, a cycle), in its words.
    #[error("{0}")]
    Step(String),
}

impl From<String> for DeliverError {
    fn from(message: String) -> Self {
        DeliverError::Step(message)
    }
}

/// Delivers: sets the channel and the table up, runs the cycles, prints the summary. Over 80
/// lines: its split into named steps is issue 39's point 3, done with `cycle.rs`'s split.
fn deliver(args: &DeliverArgs) -> Result<ExitCode, DeliverError> {
    let Prepared {
        checker,
        sources,
        setup,
    } = prepare(&args.source, args.color.color)?;
    if checker.partition_source().is_none() {
        return Err(DeliverError::NoPartition);
    }
    let target = target::resolve(
        args.namespace.as_deref(),
        args.table.as_deref(),
        &setup.settings,
    )?;
    let policy = cycle_policy(args, &target)?;
    let names: Vec<String> = sources.iter().map(Source::name).collect();
    let keys = input_keys(&sources)?;
    if let Some((index, _)) = keys
        .iter()
        .enumerate()
        .find(|(i, key)| keys.iter().skip(i + 1).any(|k| k == *key))
    {
        return Err(DeliverError::InputTwice(
            names.get(index).map_or("-", String::as_str).to_string(),
        ));
    }
    let dlq_dir_in = |warehouse: &std::path::Path| {
        dlq::folder(warehouse, &target.dlq_prefix, &target.dlq_prefix_origin)
    };
    // Checked before the warehouse is made, so that a bad prefix leaves nothing behind.
    dlq_dir_in(
        &std::path::absolute(&args.warehouse).map_err(|source| DeliverError::Resolve {
            path: args.warehouse.clone(),
            source,
        })?,
    )?;
    let warehouse = table::warehouse_folder(&args.warehouse)?;
    let dlq_dir = dlq_dir_in(&warehouse)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(DeliverError::Runtime)?;
    let _lock = table::lock_warehouse(&warehouse)?;
    let catalog = runtime.block_on(open_catalog(&warehouse))?;
    let (table, created) =
        match runtime.block_on(table::open_or_create(&catalog, &checker, &target))? {
            table::Opened::Table { table, created } => (table, created),
            table::Opened::Differs(table) => {
                return Ok(refuse_evolution(
                    args,
                    &checker,
                    &table,
                    &target,
                    setup.record_format,
                ))
            }
        };
    table::check_inside(&table, &warehouse)?;
    let progress = progress::Progress::of_table(&table)?;
    let recovered = runtime.block_on(recover::clean_up(&warehouse, &table, &progress, &dlq_dir))?;
    let done: Vec<u64> = keys
        .iter()
        .map(|key| progress.of_input(key).map_or(0, |p| p.records))
        .collect();
    let metadata = table.metadata();
    let arrow_schema = Arc::new(
        schema_to_arrow_schema(metadata.current_schema())
            .map_err(|e| DeliverError::ArrowSchema(Box::new(e)))?,
    );
    let splitter = partition::HourSplitter::new(
        metadata.default_partition_spec(),
        Arc::clone(metadata.current_schema()),
    )
    .map_err(|e| format!("the table's partitioning: {e}"))?;
    let batch_checker = BatchChecker {
        checker: &checker,
        arrow_schema: Arc::clone(&arrow_schema),
        names: &names,
        done: &done,
        payload: args.dlq_payload,
    };
    let bar = Bar::new(total_bytes(&sources, args.source.input));
    let mut reports = Vec::new();
    let text = args.format == DeliverFormat::Text;
    let mut on_cycle = |report: &cycle::CycleReport| {
        if text {
            bar.print(&output::cycle_line(report));
        }
        reports.push(report.clone());
    };
    let settings = DriverSettings {
        splitter,
        policy,
        properties: encoding::writer_properties(target.compression, &arrow_schema),
        warehouse: warehouse.clone(),
        dlq_dir: dlq_dir.clone(),
        keys: &keys,
        allow_duplicate_content: args.allow_duplicate_content,
    };
    let mut driver = Driver::new(&runtime, &catalog, table, settings, progress, &mut on_cycle);
    let read = in_order(
        &sources,
        args.source.input,
        Tail::HoldIncomplete,
        workers(),
        &|batch| batch_checker.check(batch),
        &mut |checked| {
            bar.advance(checked.bytes);
            driver.take(checked)
        },
    );
    let finished = driver.finish(read.error.map(|e| e.to_string()));
    let dead_letters = driver.dead_letters_of_inputs();
    let table_rows = table_rows(&driver.table);
    let time_columns = time_columns(driver.table.metadata().current_schema().as_struct(), "");
    drop(driver);
    bar.finish();
    finished?;
    let summary = Summary {
        table: &target.name(),
        warehouse: &warehouse,
        created,
        cycles: &reports,
        table_rows,
        dead_letter_folder: &dlq_dir,
        time_columns,
        held_back: read
            .held_back
            .iter()
            .map(|held| {
                let name = names.get(held.input).cloned().unwrap_or_default();
                (name, held.line, held.bytes)
            })
            .collect(),
        removed: &recovered.removed,
        not_removed: &recovered.left,
        earlier_dead_letters: dead_letters,
    };
    let rendered = match args.format {
        DeliverFormat::Text => summary.text(),
        DeliverFormat::Json => summary.json(),
    };
    // What the table and the dead-letter folder hold for these inputs, on every run: a rerun
    // that finds nothing new exits as the run that delivered them did.
    let dead_letters = dead_letters.max(reports.iter().map(|c| c.dead_letters).sum());
    let exit = if dead_letters > 0 {
        EXIT_SCHEMA_ERRORS
    } else {
        EXIT_OK
    };
    Ok(crate::app::print_stdout(&rendered, exit))
}

/// The name each input is known by in the table's progress: a file's canonical path (so that
/// `x.ndjson`, `./x.ndjson`, `sub/../x.ndjson` and a link to it are one input), `-` for
/// standard input. A file that cannot be resolved is named by its absolute path; reading it
/// then says why.
fn input_keys(sources: &[Source]) -> Result<Vec<String>, DeliverError> {
    sources
        .iter()
        .map(|source| match source {
            Source::Stdin => Ok("-".to_string()),
            Source::File(path) => std::fs::canonicalize(path)
                .or_else(|_| std::path::absolute(path))
                .map(|p| p.display().to_string())
                .map_err(|source| DeliverError::Resolve {
                    path: path.clone(),
                    source,
                }),
        })
        .collect()
}

/// The cycle policy: records per cycle, or arrival times for get-records.
fn cycle_policy(args: &DeliverArgs, target: &Target) -> Result<CyclePolicy, DeliverError> {
    match (args.source.input, args.cycle_records) {
        (InputKind::GetRecords, Some(_)) => Err(DeliverError::CycleRecordsWithArrival),
        (InputKind::GetRecords, None) => Ok(CyclePolicy::Arrival {
            freshness_micros: i64::try_from(target.freshness_seconds)
                .unwrap_or(i64::MAX / 1_000_000)
                .saturating_mul(1_000_000),
        }),
        (_, records) => Ok(CyclePolicy::Records(
            records.map_or(DEFAULT_CYCLE_RECORDS, NonZeroU64::get),
        )),
    }
}

/// The input's size for the progress bar: the files' sizes, unknown for standard input and for
/// get-records (whose records are base64 inside JSON).
fn total_bytes(sources: &[Source], kind: InputKind) -> Option<u64> {
    if kind == InputKind::GetRecords {
        return None;
    }
    sources
        .iter()
        .map(|source| match source {
            Source::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
            Source::Stdin => None,
        })
        .sum()
}

/// The dotted paths of the `time` columns under `fields` (lists and maps by their field names);
/// the compiled schema's nesting is bounded by the mapper's depth limit.
fn time_columns(fields: &iceberg::spec::StructType, prefix: &str) -> Vec<String> {
    use iceberg::spec::{PrimitiveType, Type};
    let mut found = Vec::new();
    for field in fields.fields() {
        let path = format!("{prefix}{}", field.name);
        let mut types = vec![(path, field.field_type.as_ref())];
        while let Some((path, ty)) = types.pop() {
            match ty {
                Type::Primitive(PrimitiveType::Time) => found.push(path),
                Type::Primitive(_) => {}
                Type::Struct(inner) => found.extend(time_columns(inner, &format!("{path}."))),
                Type::List(list) => types.push((
                    format!("{path}.element"),
                    list.element_field.field_type.as_ref(),
                )),
                Type::Map(map) => {
                    types.push((format!("{path}.value"), map.value_field.field_type.as_ref()))
                }
            }
        }
    }
    found
}

/// The rows the table holds: its current snapshot's `total-records`.
fn table_rows(table: &Table) -> u64 {
    table
        .metadata()
        .current_snapshot()
        .and_then(|s| {
            s.summary()
                .additional_properties
                .get("total-records")
                .and_then(|t| t.parse().ok())
        })
        .unwrap_or(0)
}

/// The existing table differs from the schema's: prints the differences as `diff` does and
/// exits 1 without writing.
fn refuse_evolution(
    args: &DeliverArgs,
    checker: &schema2iceberg_mapper::records::RecordChecker,
    table: &Table,
    target: &Target,
    record_format: schema2iceberg_mapper::records::RecordFormat,
) -> ExitCode {
    let compiled = checker.compiled();
    let metadata = table.metadata();
    let (Some(schema), Some(spec)) = (&compiled.schema, &compiled.partition_spec) else {
        return usage_error("the schema does not compile to a table");
    };
    let old = Side {
        schema: metadata.current_schema(),
        partition_spec: metadata.default_partition_spec(),
        columns: &[],
    };
    let new = Side {
        schema,
        partition_spec: spec,
        columns: &compiled.columns,
    };
    let format = match args.format {
        DeliverFormat::Text => DiffFormat::Text,
        DeliverFormat::Json => DiffFormat::Json,
    };
    let channel_format = record_format.into();
    let table_name = format!("table {} ({})", target.name(), metadata.location());
    let schema_name = args.source.schema.display().to_string();
    let (diffed, rendered) = existing_table_against_schema(
        &table_name,
        &schema_name,
        &old,
        &new,
        channel_format,
        format,
    );
    let mut why = Vec::new();
    for (key, value) in table::channel_properties(target) {
        let existing = metadata.properties().get(&key);
        if existing != Some(&value) {
            why.push(format!(
                "the table property `{key}` is {}, the channel configuration gives `{value}`",
                existing.map_or("not set".to_string(), |v| format!("`{v}`"))
            ));
        }
    }
    if diffed.changes.is_empty() && why.is_empty() {
        why.push("the columns are the same, but their field ids differ (the table was not created from this schema)".to_string());
    }
    // Only what works in this invocation: a --table that contradicts the channel
    // configuration's TableName is refused.
    let way_out = if !target.table_configured {
        "Deliver into another table (--table NAME), or into a new warehouse (--warehouse DIR)"
    } else {
        "Deliver into a new warehouse (--warehouse DIR), or give the channel configuration another TableName"
    };
    let message = format!(
        "the table `{}` exists and differs from the table `{schema_name}` compiles to{}; a channel's table cannot evolve, so nothing was delivered. {way_out}",
        target.name(),
        if why.is_empty() {
            " (the differences are above)".to_string()
        } else {
            format!(": {}", why.join("; "))
        }
    );
    let exit = crate::app::print_stdout(&rendered, EXIT_SCHEMA_ERRORS);
    let _ = writeln!(anstream::stderr(), "error: {message}");
    exit
}
