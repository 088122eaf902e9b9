//! `schema2iceberg compile`: one schema to the Iceberg schema and partition spec the channel
//! creates, rendered as text, JSON, or a format that hands the table on (`handoff`).

mod handoff;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use schema2iceberg_mapper::{map, CompileOptions, Compiled};
use schema2iceberg_parser::{Draft, SourceTexts};

pub use handoff::TableOptions;

use crate::app::{
    color_enabled, stderr_color_enabled, stdout_written, usage_error, ColorArg, ColorWhen, Outcome,
    ReadArgs, EXIT_OK, EXIT_SCHEMA_ERRORS,
};
use crate::project::channel::Compression;
use crate::project::source::{self, SchemaSource};
use crate::project::ProjectError;
use crate::render;

/// A `compile` command line that cannot run: a usage error (exit 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CompileError {
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
pub(crate) struct CompileArgs {
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

/// Everything `compile` needs besides the schema bytes.
#[derive(Debug, Clone)]
pub struct CompileRequest {
    /// The display name of the schema (`<stdin>` for standard input).
    pub name: String,
    /// Where the schema is, for resolving relative references (`None` for standard input).
    pub path: Option<PathBuf>,
    /// The partition fields.
    pub partition: Vec<String>,
    /// The draft override.
    pub draft: Option<Draft>,
    /// The reference root override.
    pub ref_root: Option<PathBuf>,
    /// What the formats that hand the table on take from flags.
    pub table: TableOptions,
}

/// Runs `compile`.
pub(crate) fn run(mut args: CompileArgs) -> ExitCode {
    let (format, color, output) = (args.format, args.color.color, args.output.take());
    if let Err(message) = handoff::binary_fits(format, output.as_deref()) {
        return usage_error(message);
    }
    let (request, bytes) = match compile_request_of(args) {
        Ok(prepared) => prepared,
        Err(message) => return usage_error(message),
    };
    if let Some(path) = output {
        return compile_to_file(&request, bytes, format, color, &path);
    }
    // The diagnostics of the hand-on formats go to standard error, and their standard output is
    // usually a file.
    let color = match format {
        Format::Text | Format::Json => color_enabled(color),
        Format::TableMetadata | Format::Avro | Format::Arrow | Format::ArrowJson | Format::Ddl => {
            stderr_color_enabled(color)
        }
    };
    let compiled = compile_request(&request, bytes);
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut exit_code = compile_exit(&compiled.compiled);
    let written =
        write_compiled(&compiled, &request, format, color, &mut stdout).and_then(|written| {
            stdout.flush()?;
            if written.failed {
                exit_code = EXIT_SCHEMA_ERRORS;
            }
            let mut err = anstream::stderr();
            err.write_all(written.stderr.as_bytes())
        });
    let exit = stdout_written(written, exit_code);
    // The process ends next, and the operating system takes its memory back at once: freeing
    // the workspace and the table one allocation at a time (hundreds of thousands on a large
    // schema) was a tenth of the run, spent on nothing the user sees.
    std::mem::forget(compiled);
    exit
}

/// `compile` with relative paths read from `root` and the schema shown as written: the command
/// line of generated documentation ([`crate::compile_command_line`]).
pub(crate) fn run_rooted(root: &Path, mut parsed: CompileArgs) -> Outcome {
    let (format, shown) = (parsed.format, parsed.schema.display().to_string());
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
    match compile_request_of(parsed) {
        Ok((mut request, bytes)) => {
            request.name = shown;
            compile_bytes(&request, bytes, format, false)
        }
        Err(message) => Outcome::usage(format!("error: {message}\n")),
    }
}

/// `compile -o FILE`: the output goes to the file, written whole once the table is compiled;
/// standard error is as without it.
fn compile_to_file(
    request: &CompileRequest,
    bytes: Vec<u8>,
    format: Format,
    color: ColorWhen,
    path: &Path,
) -> ExitCode {
    let color = match format {
        Format::Text | Format::Json => color == ColorWhen::Always,
        _ => stderr_color_enabled(color),
    };
    let compiled = compile_request(request, bytes);
    let mut out = Vec::new();
    let mut exit = compile_exit(&compiled.compiled);
    let written = match write_compiled(&compiled, request, format, color, &mut out) {
        Ok(written) => written,
        Err(e) => return usage_error(format!("cannot write the output: {e}")),
    };
    if written.failed {
        exit = EXIT_SCHEMA_ERRORS;
    }
    let _ = anstream::stderr().write_all(written.stderr.as_bytes());
    // A hand-on format has nothing to write when the schema has errors: no file is left.
    if out.is_empty() && exit != EXIT_OK {
        return ExitCode::from(exit);
    }
    if let Err(e) = std::fs::write(path, &out) {
        return usage_error(format!("cannot write {}: {e}", path.display()));
    }
    ExitCode::from(exit)
}

/// The request and the schema bytes of a `compile` command line: the schema read, and the
/// flags and channel configurations resolved. An error is a usage error.
fn compile_request_of(args: CompileArgs) -> Result<(CompileRequest, Vec<u8>), CompileError> {
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
    let bytes = source::read_schema(&args.schema, from_stdin)?;
    let (table, partition) = handoff::resolve(flags)?;
    let request = CompileRequest {
        name: if from_stdin {
            "<stdin>".to_string()
        } else {
            args.schema.display().to_string()
        },
        path: (!from_stdin).then(|| args.schema.clone()),
        partition,
        draft: args.read.draft.draft,
        ref_root: args.read.ref_root,
        table,
    };
    Ok((request, bytes))
}

/// Compiles schema bytes and renders the result; the whole `compile` command but for reading
/// the file and writing the output.
pub fn compile_bytes(
    request: &CompileRequest,
    bytes: Vec<u8>,
    format: Format,
    color: bool,
) -> Outcome {
    let compiled = compile_request(request, bytes);
    let mut out = Vec::new();
    let mut exit = compile_exit(&compiled.compiled);
    let (stdout, stderr) = match write_compiled(&compiled, request, format, color, &mut out) {
        Ok(written) => {
            if written.failed {
                exit = EXIT_SCHEMA_ERRORS;
            }
            (
                String::from_utf8(out)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
                written.stderr,
            )
        }
        Err(e) => (String::new(), format!("error: {e}\n")),
    };
    Outcome {
        stdout,
        stderr,
        exit,
    }
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
            ref_root: request.ref_root.clone(),
            draft: request.draft,
        },
        bytes,
    );
    let mapped = map(
        &ws,
        &CompileOptions {
            partition: request.partition.clone(),
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
    format: Format,
    color: bool,
    out: &mut W,
) -> std::io::Result<Written> {
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
