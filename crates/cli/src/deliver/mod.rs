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
mod steps;
mod table;
pub(crate) mod target;

use std::io::Write;
use std::num::NonZeroU64;
use std::path::PathBuf;

use iceberg::table::Table;
use schema2iceberg_mapper::diff::Side;

pub use crate::project::channel::Compression;
pub use progress::PROGRESS_PROPERTY;
pub use table::{open_catalog, TableError, CATALOG_NAME, LOCK_FILE};

use crate::app::{ColorArg, Command, EXIT_SCHEMA_ERRORS};
use crate::intake::input::{InputKind, Source};
use crate::intake::{IntakeError, RecordSourceArgs};
use crate::project::ProjectError;
use crate::render::diff::{existing_table_against_schema, DiffFormat};
use cycle::CyclePolicy;
use output::DeliverFormat;
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

/// `deliver`, in the one shape of a command ([`Command`]).
#[derive(Debug)]
pub(crate) struct Deliver;

/// Everything `deliver` needs: its arguments, and the plan read from them (the schema and its
/// checker, the inputs, the table's name and the cycle policy), before anything is written.
pub(crate) struct DeliverRequest {
    args: DeliverArgs,
    plan: steps::Plan,
}

/// How a run ended, besides the summary it printed.
#[derive(Debug)]
pub(crate) struct DeliverOutcome {
    /// Why nothing was delivered into a table that differs, for standard error.
    refused: Option<String>,
    exit: u8,
}

impl Command for Deliver {
    type Args = DeliverArgs;
    type Request = DeliverRequest;
    type Outcome = DeliverOutcome;
    type Error = DeliverError;

    fn request(args: DeliverArgs) -> Result<DeliverRequest, DeliverError> {
        let plan = steps::plan(&args)?;
        Ok(DeliverRequest { args, plan })
    }

    fn run(request: &DeliverRequest, out: &mut dyn Write) -> Result<DeliverOutcome, DeliverError> {
        deliver(&request.args, &request.plan, out)
    }

    fn finish(outcome: DeliverOutcome) -> u8 {
        if let Some(message) = outcome.refused {
            let _ = writeln!(anstream::stderr(), "error: {message}");
        }
        outcome.exit
    }
}

/// Why `deliver` stopped: a usage or I/O error (exit 2). The cycle under way is not committed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DeliverError {
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
    Runtime(#[source] std::io::Error),
    #[error("the table's Arrow schema: {0}")]
    ArrowSchema(#[source] Box<iceberg::Error>),
    #[error("--cycle-records does not apply to get-records input: its cycles follow ApproximateArrivalTimestamp and the channel's DataFreshnessInSeconds, as the channel's do")]
    CycleRecordsWithArrival,
    /// The dead-letter prefix, or the dead-letter folder.
    #[error(transparent)]
    Dlq(#[from] dlq::DlqError),
    /// The table's progress, read to resume.
    #[error(transparent)]
    Progress(#[from] progress::ProgressError),
    /// What an earlier run left, found to be removed.
    #[error(transparent)]
    Recover(#[from] recover::RecoverError),
    #[error("the table's partitioning: {0}")]
    Partitioning(#[source] partition::PartitionError),
    /// A delivery cycle, or the input it was reading.
    #[error(transparent)]
    Cycle(#[from] cycle::CycleError),
    /// The table exists and differs, and the schema has no table to compare it with.
    #[error("the schema does not compile to a table")]
    NoTable,
    /// Standard output cannot be written.
    #[error("cannot write to standard output: {0}")]
    Write(#[source] std::io::Error),
}

/// Delivers, in named steps after the plan ([`steps::plan`], the request): the warehouse
/// opened and locked, the table opened or created (or the run refused, when it differs), what
/// an earlier run left cleaned up, the cycles run, and the summary printed into `out`.
fn deliver(
    args: &DeliverArgs,
    plan: &steps::Plan,
    out: &mut dyn Write,
) -> Result<DeliverOutcome, DeliverError> {
    let place = steps::open_warehouse(args, plan)?;
    let (table, created) = match place.open_table(plan)? {
        table::Opened::Table { table, created } => (table, created),
        table::Opened::Differs(table) => {
            return refuse_evolution(
                args,
                &plan.checker,
                &table,
                &plan.target,
                plan.record_format,
                out,
            )
        }
    };
    let resumed = place.resume(&table, plan)?;
    let delivered = steps::run_cycles(args, plan, &place, table, resumed.progress, &resumed.done)?;
    let (summary, exit) =
        steps::summary(args, plan, &place, created, &resumed.recovered, delivered);
    out.write_all(summary.as_bytes())
        .map_err(DeliverError::Write)?;
    Ok(DeliverOutcome {
        refused: None,
        exit,
    })
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

/// The dotted paths of the table's `time` columns (lists and maps by their field names); the
/// compiled schema's nesting is bounded by the mapper's depth limit.
fn time_columns(schema: &iceberg::spec::Schema) -> Vec<String> {
    let mut visitor = TimeColumns::default();
    // The visitor itself never fails; an error could only come from the walk.
    let _ = iceberg::spec::visit_schema(schema, &mut visitor);
    visitor.found
}

/// Finds the `time` columns, keeping the path from the root to the field being visited.
#[derive(Default)]
struct TimeColumns {
    path: Vec<String>,
    found: Vec<String>,
}

impl iceberg::spec::SchemaVisitor for TimeColumns {
    type T = ();

    fn before_struct_field(
        &mut self,
        field: &iceberg::spec::NestedFieldRef,
    ) -> iceberg::Result<()> {
        self.path.push(field.name.clone());
        Ok(())
    }
    fn after_struct_field(&mut self, _: &iceberg::spec::NestedFieldRef) -> iceberg::Result<()> {
        self.path.pop();
        Ok(())
    }
    fn before_list_element(
        &mut self,
        field: &iceberg::spec::NestedFieldRef,
    ) -> iceberg::Result<()> {
        self.before_struct_field(field)
    }
    fn after_list_element(&mut self, field: &iceberg::spec::NestedFieldRef) -> iceberg::Result<()> {
        self.after_struct_field(field)
    }
    fn before_map_key(&mut self, field: &iceberg::spec::NestedFieldRef) -> iceberg::Result<()> {
        self.before_struct_field(field)
    }
    fn after_map_key(&mut self, field: &iceberg::spec::NestedFieldRef) -> iceberg::Result<()> {
        self.after_struct_field(field)
    }
    fn before_map_value(&mut self, field: &iceberg::spec::NestedFieldRef) -> iceberg::Result<()> {
        self.before_struct_field(field)
    }
    fn after_map_value(&mut self, field: &iceberg::spec::NestedFieldRef) -> iceberg::Result<()> {
        self.after_struct_field(field)
    }
    fn schema(&mut self, _: &iceberg::spec::Schema, _: ()) -> iceberg::Result<()> {
        Ok(())
    }
    fn field(&mut self, _: &iceberg::spec::NestedFieldRef, _: ()) -> iceberg::Result<()> {
        Ok(())
    }
    fn r#struct(&mut self, _: &iceberg::spec::StructType, _: Vec<()>) -> iceberg::Result<()> {
        Ok(())
    }
    fn list(&mut self, _: &iceberg::spec::ListType, _: ()) -> iceberg::Result<()> {
        Ok(())
    }
    fn map(&mut self, _: &iceberg::spec::MapType, _: (), _: ()) -> iceberg::Result<()> {
        Ok(())
    }
    fn primitive(&mut self, primitive: &iceberg::spec::PrimitiveType) -> iceberg::Result<()> {
        if *primitive == iceberg::spec::PrimitiveType::Time {
            self.found.push(self.path.join("."));
        }
        Ok(())
    }
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
    out: &mut dyn Write,
) -> Result<DeliverOutcome, DeliverError> {
    let compiled = checker.compiled();
    let metadata = table.metadata();
    let (Some(schema), Some(spec)) = (&compiled.schema, &compiled.partition_spec) else {
        return Err(DeliverError::NoTable);
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
    out.write_all(rendered.as_bytes())
        .map_err(DeliverError::Write)?;
    Ok(DeliverOutcome {
        refused: Some(message),
        exit: EXIT_SCHEMA_ERRORS,
    })
}
