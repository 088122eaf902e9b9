//! `schema2iceberg compile`: one schema to the Iceberg schema and partition spec the channel
//! creates, rendered as text, JSON, or a format that hands the table on (`handoff`).

mod handoff;

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use schema2iceberg_mapper::{map, CompileOptions, Compiled};
use schema2iceberg_parser::SourceTexts;

pub use handoff::TableOptions;

use crate::app::{
    color_enabled, run_captured, stderr_color_enabled, ColorArg, ColorWhen, Command, Outcome,
    ReadArgs, EXIT_OK, EXIT_SCHEMA_ERRORS,
};
use crate::project::channel::Compression;
use crate::project::source::{self, SchemaSource, SourceOptions};
use crate::project::ProjectError;
use crate::render;

/// A `compile` command line that cannot run: a usage error (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The schema, `--ref-root` or a channel configuration.
    #[error(transparent)]
    Project(#[from] ProjectError),
    /// `--format arrow` to a terminal.
    #[error("--format arrow writes a binary Arrow IPC schema message, not text for a terminal: give -o FILE, or redirect standard output (`> schema.arrows`); --format arrow-json prints the schema as JSON")]
    BinaryToTerminal,
    /// A flag that the format does not use.
    #[error("{flag} is for {formats}; --format {format} does not use it")]
    UnusedFlag {
        flag: &'static str,
        formats: String,
        format: String,
    },
    /// Standard output could not be written.
    #[error("cannot write the output: {0}")]
    Write(std::io::Error),
}

/// The `after_help` of `compile --help`.
pub(crate) const HELP: &str = "\
The text format prints the table as a tree (field id, name, type, required or optional, doc),
then the partition spec, then each diagnostic with its file:line:col and the source line.
The json format prints one object:
  {\"format-version\": 2, \"schema\": …, \"partition-spec\": …, \"diagnostics\": [...]}
where schema and partition-spec are Iceberg table-metadata JSON (null when there are errors).
The formats that hand the table on print one document on standard output, and the
diagnostics, placeholders and warnings on standard error:
  table-metadata  the whole Iceberg v2 table metadata the channel would create (schema, hour
                  partition spec, unsorted sort order, Parquet properties with the codec);
                  location and table-uuid are placeholders unless flags give them. `diff`
                  takes it as OLD.
  avro            the Avro record schema of a row (the Iceberg spec's mapping, with field ids)
  arrow           the Arrow schema as the iceberg crate converts it, with field-id metadata,
                  as an Arrow IPC schema message (binary: give -o FILE, or redirect standard
                  output; pyarrow.ipc.read_schema reads it)
  arrow-json      the same Arrow schema in arrow-rs's serde JSON, for reading by eye
  ddl             CREATE TABLE for --dialect athena, spark or trino; a warning says where the
                  dialect cannot create the channel's table exactly, and an error where it
                  cannot create a column at all
--channel-config gives the partition, codec, namespace and table as the channel has them.
docs/outputs.md shows every format.

Examples:
  schema2iceberg compile testdata/examples/event.json --partition event_time
  schema2iceberg compile schema.json --format json | jq '.diagnostics[] | .code'
  schema2iceberg compile schema.json --partition event_time --format table-metadata \\
    --compression SNAPPY > metadata.json
  schema2iceberg compile schema.json --channel-config channel.json --format ddl --dialect spark
  schema2iceberg compile - --draft 04 < snowplow-event.json

Exit codes: 0 compiled (warnings allowed), 1 the schema has errors, 2 usage or I/O error.
The mapping rules are in docs/mapping.md.";

/// Output formats of `compile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A readable tree of the table, then rustc-style diagnostics.
    Text,
    /// One JSON object with Iceberg's own schema and partition-spec JSON.
    Json,
    /// The whole Iceberg v2 table metadata the channel would create (diagnostics go to
    /// standard error, as for every format below).
    TableMetadata,
    /// The Avro record schema of a row, by the Iceberg spec's Avro mapping, with field ids.
    Avro,
    /// The Arrow schema as the `iceberg` crate converts it, with field-id metadata, as an
    /// Arrow IPC schema message (binary; `pyarrow.ipc.read_schema` reads it).
    Arrow,
    /// The same Arrow schema in arrow-rs's serde JSON, which only arrow-rs reads back.
    ArrowJson,
    /// `CREATE TABLE` in the dialect of --dialect.
    Ddl,
}

#[derive(Debug, clap::Args)]
#[command(
    about = "Compile one JSON Schema into the Iceberg schema and partition spec the channel creates",
    after_help = HELP
)]
pub struct CompileArgs {
    /// The JSON Schema file, or - to read standard input.
    #[arg(value_name = "SCHEMA")]
    schema: PathBuf,
    /// Partition by hour (TIME_HOUR) on FIELD, a timestamptz column; a dotted path reaches into
    /// nested structs (not lists or maps). The channel takes exactly one.
    #[arg(long, value_name = "FIELD")]
    partition: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write the output to FILE instead of standard output (--format arrow writes binary, so
    /// it needs this or a standard output that is not a terminal)
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    color: ColorArg,
    // Last: its help heading applies to every flag after it.
    #[command(flatten)]
    table: TableArgs,
}

/// What the formats that hand the table on cannot know from the schema.
#[derive(Debug, clap::Args)]
#[command(
    next_help_heading = "Handing the table on (--format table-metadata, avro, arrow, arrow-json, ddl)"
)]
struct TableArgs {
    /// The SQL dialect of --format ddl
    #[arg(
        long,
        value_parser = handoff::dialect_parser(),
        value_name = "DIALECT",
        required_if_eq("format", "ddl")
    )]
    dialect: Option<schema2iceberg_mapper::formats::ddl::Dialect>,
    /// The namespace (database) of the table, for the DDL [default: the channel
    /// configuration's, else a placeholder]
    #[arg(long, value_name = "NS")]
    namespace: Option<String>,
    /// The table's name, for the DDL and the Avro record [default: the channel configuration's,
    /// else a placeholder (`table` for Avro)]
    #[arg(long, value_name = "NAME")]
    table: Option<String>,
    /// The table's location [default: a placeholder in table metadata, none in DDL; S3 Tables
    /// chooses the real one when the channel creates the table]
    #[arg(long, value_name = "URI")]
    location: Option<String>,
    /// The table's UUID [default: the nil UUID, a placeholder]
    #[arg(long, value_name = "UUID", value_parser = parse_uuid)]
    table_uuid: Option<uuid::Uuid>,
    /// The channel's CompressionType, which sets the Parquet codec [default: the channel
    /// configuration's, else ZSTD]
    #[arg(long, value_enum, value_name = "TYPE")]
    compression: Option<Compression>,
    /// A Kinesis or MSK channel configuration (repeatable for one split over files): its
    /// SourceName, CompressionType, namespace and table name stand in for the flags
    #[arg(long, value_name = "FILE")]
    channel_config: Vec<PathBuf>,
}

/// A `--table-uuid` that is not a UUID (clap prints it after `invalid value`).
#[derive(Debug, thiserror::Error)]
#[error("`{text}` is not a UUID: {source}")]
pub(crate) struct NotAUuid {
    text: String,
    source: uuid::Error,
}

fn parse_uuid(text: &str) -> Result<uuid::Uuid, NotAUuid> {
    uuid::Uuid::parse_str(text).map_err(|source| NotAUuid {
        text: text.to_string(),
        source,
    })
}

/// `compile`, in the one shape of a command ([`Command`]).
#[derive(Debug)]
pub struct Compile;

/// Everything `compile` needs.
#[derive(Debug, Clone)]
pub struct CompileRequest {
    /// The display name of the schema (`<stdin>` for standard input).
    pub name: String,
    /// Where the schema is, for resolving relative references (`None` for standard input).
    pub path: Option<PathBuf>,
    /// The schema's bytes, or where to read them.
    pub schema: SchemaInput,
    /// How to read it; `color` is decided for the stream the diagnostics go to.
    pub source: SourceOptions,
    /// What the formats that hand the table on take from flags.
    pub table: TableOptions,
    /// The output format.
    pub format: Format,
    /// `--output`: the file the output goes to instead of standard output.
    pub output: Option<PathBuf>,
}

/// Where `compile` gets the schema's bytes.
#[derive(Debug, Clone)]
pub enum SchemaInput {
    /// These bytes (the tests and the generated docs hold the schema already; a run copies
    /// them).
    Bytes(Vec<u8>),
    /// The file, or standard input when `from_stdin`, read when the command runs: the bytes
    /// then go into the workspace as they are, without a copy kept in the request (a second
    /// copy of a 1.3 MB schema was 6% of the peak memory on the Mozilla file).
    Read {
        /// The file (`-` for standard input).
        path: PathBuf,
        /// Whether the schema is standard input.
        from_stdin: bool,
    },
}

/// What `compile` produced besides its standard output.
pub struct CompileOutcome {
    /// The diagnostics, when standard output carries a format other than text and JSON, and
    /// the hand-on formats' notes.
    pub stderr: String,
    /// The exit code.
    pub exit: u8,
    /// The compiled table, which the binary does not free (`finish`).
    compiled: CompiledRequest,
}

impl std::fmt::Debug for CompileOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompileOutcome")
            .field("stderr", &self.stderr)
            .field("exit", &self.exit)
            .finish_non_exhaustive()
    }
}

impl Command for Compile {
    type Args = CompileArgs;
    type Request = CompileRequest;
    type Outcome = CompileOutcome;
    type Error = CompileError;

    /// Reads the schema and resolves the flags and channel configurations.
    fn request(args: CompileArgs) -> Result<CompileRequest, CompileError> {
        handoff::binary_fits(args.format, args.output.as_deref())?;
        // The diagnostics of the hand-on formats go to standard error, and their standard
        // output is usually a file; the text and JSON of `-o FILE` are colored only when asked.
        let color = match (args.format, &args.output) {
            (Format::Text | Format::Json, None) => color_enabled(args.color.color),
            (Format::Text | Format::Json, Some(_)) => args.color.color == ColorWhen::Always,
            _ => stderr_color_enabled(args.color.color),
        };
        let mut request = compile_request_of(args)?;
        request.source.color = color;
        Ok(request)
    }

    fn run(request: &CompileRequest, out: &mut dyn Write) -> Result<CompileOutcome, CompileError> {
        let bytes = match &request.schema {
            SchemaInput::Bytes(bytes) => bytes.clone(),
            SchemaInput::Read { path, from_stdin } => source::read_schema(path, *from_stdin)?,
        };
        let compiled = compile_request(request, bytes);
        let mut exit = compile_exit(&compiled.compiled);
        // The JSON report and the text tree are written in many small pieces: a buffer of
        // their own keeps each piece a copy, not a call through `dyn Write` (on the Mozilla
        // file, 6.0× the floor without it and 5.4× with it, in two whole-process runs).
        let mut buffered = std::io::BufWriter::with_capacity(1 << 16, out);
        let written = write_compiled(&compiled, request, request.source.color, &mut buffered)
            .and_then(|written| buffered.flush().map(|()| written))
            .map_err(CompileError::Write)?;
        if written.failed {
            exit = EXIT_SCHEMA_ERRORS;
        }
        Ok(CompileOutcome {
            stderr: written.stderr,
            exit,
            compiled,
        })
    }

    fn output(request: &CompileRequest) -> Option<&Path> {
        request.output.as_deref()
    }

    fn finish(outcome: CompileOutcome) -> u8 {
        let _ = anstream::stderr().write_all(outcome.stderr.as_bytes());
        let exit = outcome.exit;
        // The process ends next, and the operating system takes its memory back at once:
        // freeing the workspace and the table one allocation at a time (hundreds of thousands
        // on a large schema) was a tenth of the run, spent on nothing the user sees.
        std::mem::forget(outcome.compiled);
        exit
    }
}

/// `compile` with relative paths read from `root` and the schema shown as written, without
/// color: the command line of generated documentation ([`crate::compile_command_line`]).
pub(crate) fn run_rooted(root: &Path, mut parsed: CompileArgs) -> Outcome {
    let shown = parsed.schema.display().to_string();
    parsed.schema = root.join(&parsed.schema);
    parsed.table.channel_config = parsed
        .table
        .channel_config
        .iter()
        .map(|path| root.join(path))
        .collect();
    parsed.read.ref_root = Some(match &parsed.read.ref_root {
        Some(ref_root) => root.join(ref_root),
        None => root.to_path_buf(),
    });
    let ran = compile_request_of(parsed).and_then(|mut request| {
        request.name = shown;
        run_captured::<Compile>(&request)
    });
    match ran {
        Ok((outcome, stdout)) => Outcome {
            stdout,
            stderr: outcome.stderr,
            exit: outcome.exit,
        },
        Err(e) => Outcome::usage(format!("error: {e}\n")),
    }
}

/// The request of a `compile` command line: the schema read, and the flags and channel
/// configurations resolved; uncolored.
fn compile_request_of(args: CompileArgs) -> Result<CompileRequest, CompileError> {
    source::ref_root_is_dir(args.read.ref_root.as_deref())?;
    let flags = handoff::TableFlags {
        location: args.table.location,
        uuid: args.table.table_uuid,
        compression: args.table.compression,
        namespace: args.table.namespace,
        table: args.table.table,
        dialect: args.table.dialect,
        partition: args.partition,
        channel_configs: args.table.channel_config,
    };
    // A command line that cannot run is refused before standard input is read.
    handoff::flags_fit(args.format, &flags)?;
    let from_stdin = args.schema.as_os_str() == "-";
    let (table, partition) = handoff::resolve(flags)?;
    Ok(CompileRequest {
        name: if from_stdin {
            "<stdin>".to_string()
        } else {
            args.schema.display().to_string()
        },
        path: (!from_stdin).then(|| args.schema.clone()),
        schema: SchemaInput::Read {
            path: args.schema,
            from_stdin,
        },
        source: SourceOptions {
            draft: args.read.draft.draft,
            ref_root: args.read.ref_root,
            partition,
            color: false,
        },
        table,
        format: args.format,
        output: args.output,
    })
}

/// The texts of the schema's files, and the table compiled from them.
struct CompiledRequest {
    files: SourceTexts,
    compiled: Compiled,
}

fn compile_request(request: &CompileRequest, bytes: Vec<u8>) -> CompiledRequest {
    let ws = source::workspace(
        &SchemaSource {
            display: &request.name,
            path: request.path.as_deref(),
            ref_root: request.source.ref_root.clone(),
            draft: request.source.draft,
        },
        bytes,
    );
    let mapped = map(
        &ws,
        &CompileOptions {
            partition: request.source.partition.clone(),
            ..CompileOptions::default()
        },
    );
    // The parsed documents and the schema table are freed before the Iceberg library builds
    // the schema and its indexes, which then reuse their memory: on Mozilla's largest schema,
    // that is 7.5 MB off the peak. Only the texts are kept, to draw the diagnostics.
    let files = ws.into_source_texts();
    CompiledRequest {
        files,
        compiled: mapped.build(),
    }
}

/// What writing a result left besides standard output.
struct Written {
    /// What goes to standard error.
    stderr: String,
    /// The schema compiled, but the table could not be written in the format: exit 1.
    failed: bool,
}

/// Writes the result in `format` into `out`. The JSON report is serialized straight into
/// `out`, without a `serde_json::Value` or a `String` of it (6.7 MB for Mozilla's largest
/// schema) first.
fn write_compiled<W: Write>(
    compiled: &CompiledRequest,
    request: &CompileRequest,
    color: bool,
    out: &mut W,
) -> std::io::Result<Written> {
    let format = request.format;
    let CompiledRequest { files, compiled } = compiled;
    let nothing_else = Written {
        stderr: String::new(),
        failed: false,
    };
    match format {
        Format::Json => {
            render::write_report(compiled, &mut *out)?;
            out.write_all(b"\n")?;
            Ok(nothing_else)
        }
        Format::Text => {
            render::write_text(files, compiled, color, &mut *out)?;
            Ok(nothing_else)
        }
        Format::TableMetadata | Format::Avro | Format::Arrow | Format::ArrowJson | Format::Ddl => {
            let mut stderr = render::diagnostics_and_summary(files, compiled, color)
                .trim_start_matches('\n')
                .to_string();
            let mut failed = false;
            if let (Some(schema), Some(spec)) = (&compiled.schema, &compiled.partition_spec) {
                match handoff::document(format, schema, spec, &request.table) {
                    Ok(handed_on) => {
                        out.write_all(&handed_on.document)?;
                        stderr.push_str(&handed_on.notes);
                    }
                    Err(message) => {
                        stderr.push_str(&format!("error: {message}\n"));
                        failed = true;
                    }
                }
            }
            Ok(Written { stderr, failed })
        }
    }
}

fn compile_exit(compiled: &Compiled) -> u8 {
    if compiled.has_errors() {
        EXIT_SCHEMA_ERRORS
    } else {
        EXIT_OK
    }
}
