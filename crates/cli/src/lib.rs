//! The `schema2iceberg` command line: argument parsing, reading files, rendering and exit codes.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use schema2iceberg_mapper::diff::FailOn;
use schema2iceberg_mapper::{map, CompileOptions, Compiled};
use schema2iceberg_parser::{Draft, SourceTexts};

pub use handoff::TableOptions;
use source::SchemaSource;

pub mod bundle;
pub mod check;
pub mod codes;
pub mod corpus;
pub mod deliver;
pub mod diff;
pub mod docs;
mod handoff;
pub mod policies;
mod records;
mod render;
mod shell;
mod source;

/// Exit code: the schema compiled (warnings allowed).
pub(crate) const EXIT_OK: u8 = 0;
/// Exit code: the schema has errors (invalid JSON included).
pub(crate) const EXIT_SCHEMA_ERRORS: u8 = 1;
/// Exit code: usage errors, and files that cannot be read.
pub(crate) const EXIT_USAGE: u8 = 2;

const ABOUT: &str =
    "Preview the Iceberg table that an Amazon Kinesis or MSK streaming-tables channel \
creates from a JSON Schema, and every problem in the schema, before anything is registered.";

const EXAMPLES: &str = "\
Examples:
  schema2iceberg compile testdata/examples/event.json --partition event_time
  schema2iceberg compile schema.json --format json > table.json
  cat schema.json | schema2iceberg compile - --draft 04
  schema2iceberg bundle schema.json > schema.bundled.json   # the one document to register
  schema2iceberg records schema.json samples.ndjson --partition event_time   # which reach the table

Exit codes: 0 compiled (warnings allowed), 1 the schema has errors, 2 usage or I/O error.";

/// What `--version` prints after the name: the version, then the commit and the target triple the
/// binary was built from (build.rs; the commit is `unknown` outside a git checkout), so a bug
/// report names the exact build: `schema2iceberg 0.1.0 (e9674f7a1b2c x86_64-unknown-linux-musl)`.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("SCHEMA2ICEBERG_COMMIT"),
    " ",
    env!("SCHEMA2ICEBERG_TARGET"),
    ")"
);

#[derive(Debug, Parser)]
#[command(name = "schema2iceberg", version = VERSION, about = ABOUT, after_help = EXAMPLES, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Compile one JSON Schema into the Iceberg schema and partition spec the channel creates.
    #[command(after_help = COMPILE_HELP)]
    Compile(CompileArgs),
    /// Check every schema (and channel configuration) in a repository: the CI gate.
    #[command(after_help = CHECK_HELP)]
    Check(CheckArgs),
    /// Show what a schema change does to the table, to a running channel, and under Iceberg's
    /// evolution rules.
    #[command(after_help = DIFF_HELP)]
    Diff(DiffArgs),
    /// Print the one self-contained document to register: the schema with every file that its
    /// $refs reach inlined under `definitions`.
    #[command(after_help = BUNDLE_HELP)]
    Bundle(BundleArgs),
    /// Run sample records through the channel's steps: which reach the table, which go to the
    /// dead-letter queue, and why.
    #[command(after_help = records::HELP)]
    Records(records::RecordsArgs),
    /// Act as the channel, locally: create its table in a local Iceberg catalog and deliver
    /// records into it, cycle by cycle, with failures in a dead-letter folder.
    #[command(after_help = deliver::HELP)]
    Deliver(deliver::DeliverArgs),
    /// Print the role, trust, table-key and table-bucket policies that a channel needs, from
    /// its configuration.
    #[command(after_help = policies::HELP)]
    Policies(policies::PoliciesArgs),
    /// Print the shell completion script for bash, zsh, fish, powershell or elvish.
    #[command(after_help = shell::COMPLETIONS_HELP)]
    Completions(shell::CompletionsArgs),
    /// Print the man page, or write one page per command into a folder.
    #[command(after_help = shell::MAN_HELP)]
    Man(shell::ManArgs),
}

const BUNDLE_HELP: &str = "\
The Glue Schema Registry stores one document per schema version and cannot read the files a
$ref names, so a channel created on such a schema fails (compile warns: file-ref). bundle writes
the schema you register:
  - each referenced file is inlined once, as an entry of the root's `definitions` (or `$defs`,
    when the root already uses it) named after the file: common.json becomes `common`, then
    `common_2`, … when the name is taken;
  - every $ref into another file, and every $ref inside an inlined file, becomes a pointer into
    the bundle (\"#/definitions/common/definitions/address\"); cycles between files stay cycles;
  - `$id`/`id` and `$schema` are dropped from inlined files, so their $refs resolve the same;
  - the main file's text is kept as written; numbers keep their exact text.
compile gives the bundle the same table and diagnostics as the files it came from.

Examples:
  schema2iceberg bundle schemas/order.json > order.bundled.json
  schema2iceberg bundle schemas/order.json --output build/order.json
  aws glue register-schema-version --schema-id RegistryName=events,SchemaName=order \\
    --schema-definition file://order.bundled.json

Exit codes: 0 bundled, 1 the schema has a reference that cannot be bundled (a missing file, a
file outside the reference root, a network URI) or is not JSON, 2 usage or I/O error.
Diagnostics go to standard error, and nothing is written when there is one.";

#[derive(Debug, clap::Args)]
#[command(
    mut_arg("ref_root", |a| a.help("The folder that file $refs may read from [default: as compile: the nearest folder at or above the schema's that holds a schema2iceberg.toml or a .git, otherwise the schema's]")),
    mut_arg("color", |a| a.help("Color the diagnostics")),
)]
struct BundleArgs {
    /// The JSON Schema file.
    #[arg(value_name = "SCHEMA")]
    schema: PathBuf,
    /// Write the bundle to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    color: ColorArg,
}

const DIFF_HELP: &str = "\
Both sides are compiled and their columns matched by full path. Each change gets three verdicts:
the table's (a channel keeps the table and the schema version it was created with, so a new
table needs a new channel), the channel's for the record format (GSR-framed records produced
with a new schema version go to the dead-letter queue; plain JSON records are validated against
the old schema, and the report says what each change does to them), and Iceberg's
schema-evolution rules, for teams that manage the table themselves. The record format comes from
the channel configuration that schema2iceberg.toml names, else from --record-format; with
neither, both verdicts are given. OLD may also be an existing table's Iceberg table-metadata
JSON or Iceberg schema JSON.

Examples:
  schema2iceberg diff old/event.json schemas/event.json --partition event_time
  schema2iceberg diff table-metadata.json schemas/event.json
  schema2iceberg diff --git origin/main schemas/ --format github

Exit codes: 0 nothing reaches --fail-on, 1 something does (or a side does not compile),
2 usage or I/O error. docs/diff.md explains why an innocent edit can change the table.";

#[derive(Debug, clap::Args)]
#[command(
    mut_arg("draft", |a| a.help("Read both sides as this draft, whatever their $schema says")),
    mut_arg("ref_root", |a| a.help("The folder that file $refs may read from, for both sides [default: as check: the config's ref-root for NEW, else the config's folder, else the current directory]")),
)]
struct DiffArgs {
    /// OLD and NEW, or with --git the PATHS to look under [default: .]
    #[arg(value_name = "FILES")]
    files: Vec<PathBuf>,
    /// Compare every changed *.json under PATHS with its version at REV (a commit, tag or branch).
    #[arg(long, value_name = "REV")]
    git: Option<String>,
    /// The partition field, for both sides [default: from schema2iceberg.toml, as check reads it:
    /// the channel configuration's SourceName wins]
    #[arg(long, value_name = "FIELD")]
    partition: Option<String>,
    #[command(flatten)]
    read: ReadArgs,
    /// How the channel's records are written, for schemas whose channel configuration
    /// schema2iceberg.toml does not name [default: verdicts for both]
    #[arg(long, value_enum, value_name = "FORMAT")]
    record_format: Option<diff::RecordFormatFlag>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = diff::DiffFormat::Text)]
    format: diff::DiffFormat,
    /// Exit 1 when a change reaches this level.
    #[arg(long, value_parser = diff::fail_on_parser(), default_value = "table-change", value_name = "LEVEL")]
    fail_on: FailOn,
    #[command(flatten)]
    color: ColorArg,
}

const CHECK_HELP: &str = "\
Every schema is compiled and every diagnostic reported; one bad file never stops the others.
Files are checked in parallel and reported sorted by path, relative to the current directory.
Settings per glob (partition field, channel configuration, draft, skips, severities) come from
schema2iceberg.toml, found in the current directory or a parent; docs/ci.md lists its keys.
A channel configuration that the config names is validated with the schemas that use it, also
when it is the only path given. JSON files that are not schemas (package.json, sample records,
unnamed channel configurations, definitions only) are reported as such, not compiled.
The policy documents beside a channel (--role-policy, --trust-policy, --table-key-policy,
--table-bucket-policy, or `[[channels]]` in schema2iceberg.toml) are evaluated as IAM does against
what the channel needs; each permission missing is reported at the statement that comes closest,
with the failure it causes. A changed policy document brings its channel into the check.

Examples:
  schema2iceberg check schemas/
  schema2iceberg check schemas/event.json --partition event_time --channel-config channel.json
  schema2iceberg check --channel-config channel.json --role-policy iam/role.json
  schema2iceberg check --channel-config c.json --trust-policy t.json --table-key-policy k.json
  schema2iceberg check --format github --deny warnings
  schema2iceberg check --format sarif > schema2iceberg.sarif

Exit codes: 0 no errors, 1 errors remain after the severity overrides, 2 usage or I/O error.";

#[derive(Debug, clap::Args)]
#[command(
    mut_arg("draft", |a| a.help("Read every schema as this draft, whatever its $schema says")),
    mut_arg("ref_root", |a| a.help("The folder that file $refs may read from [default: the config's folder, else the current directory]")),
)]
struct CheckArgs {
    /// Files, directories (searched recursively for *.json) and globs [default: .]
    #[arg(value_name = "PATHS")]
    paths: Vec<PathBuf>,
    /// The repository config [default: schema2iceberg.toml in the current directory or a parent]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The hour-partition field, for a single schema given on the command line.
    #[arg(long, value_name = "FIELD")]
    partition: Option<String>,
    /// A channel configuration (Kinesis or MSK) to validate with the schemas; repeatable.
    #[arg(long, value_name = "FILE")]
    channel_config: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = check::CheckFormat::Text)]
    format: check::CheckFormat,
    /// Make CODE an error (`warnings`: every warning); repeatable.
    #[arg(long, value_name = "CODE|warnings")]
    deny: Vec<String>,
    /// Drop CODE's diagnostics; repeatable.
    #[arg(long, value_name = "CODE")]
    allow: Vec<String>,
    /// Make CODE a warning; repeatable.
    #[arg(long, value_name = "CODE")]
    warn: Vec<String>,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    color: ColorArg,
    // Last: its help heading applies to every flag after it.
    #[command(flatten)]
    policies: PolicyArgs,
}

/// The policy documents that `check` evaluates against `--channel-config`.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Permissions (checked against --channel-config; docs/policies.md)")]
struct PolicyArgs {
    /// A policy attached to the channel's execution role; repeatable, evaluated together
    #[arg(long, value_name = "FILE")]
    role_policy: Vec<PathBuf>,
    /// The execution role's trust policy
    #[arg(long, value_name = "FILE")]
    trust_policy: Option<PathBuf>,
    /// The key policy of the table's customer managed key
    #[arg(long, value_name = "FILE")]
    table_key_policy: Option<PathBuf>,
    /// The table bucket's policy (required when the bucket is in another account than the role)
    #[arg(long, value_name = "FILE")]
    table_bucket_policy: Option<PathBuf>,
    /// The KMS key ARN of the dead-letter bucket's SSE-KMS encryption, which the channel
    /// configuration does not say
    #[arg(long, value_name = "ARN")]
    dlq_kms_key: Option<String>,
}

const COMPILE_HELP: &str = "\
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

/// When to color text output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorWhen {
    /// When stdout is a terminal and NO_COLOR is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

#[derive(Debug, clap::Args)]
struct CompileArgs {
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
    compression: Option<deliver::Compression>,
    /// A Kinesis or MSK channel configuration (repeatable for one split over files): its
    /// SourceName, CompressionType, namespace and table name stand in for the flags
    #[arg(long, value_name = "FILE")]
    channel_config: Vec<PathBuf>,
}

fn parse_uuid(text: &str) -> Result<uuid::Uuid, String> {
    uuid::Uuid::parse_str(text).map_err(|e| format!("`{text}` is not a UUID: {e}"))
}

/// `--draft`: how a schema is read, whatever its `$schema` says.
#[derive(Debug, clap::Args)]
struct DraftArg {
    /// Read the schema as this draft, whatever its $schema says.
    #[arg(long, value_name = "04|06|07", value_parser = parse_draft)]
    draft: Option<Draft>,
}

/// `--draft` and `--ref-root`: how a schema and the files its `$ref`s reach are read. The help of
/// `--ref-root` is `compile`'s; `bundle` and `check` say their own default with `mut_arg`.
#[derive(Debug, clap::Args)]
struct ReadArgs {
    #[command(flatten)]
    draft: DraftArg,
    /// The folder that file $refs may read from [default: the nearest folder at or above the
    /// schema's that holds a schema2iceberg.toml or a .git, otherwise the schema's folder].
    #[arg(long, value_name = "DIR")]
    ref_root: Option<PathBuf>,
}

/// `--color`.
#[derive(Debug, clap::Args)]
struct ColorArg {
    /// Color the text output.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    color: ColorWhen,
}

fn parse_draft(text: &str) -> Result<Draft, String> {
    Draft::from_flag(text)
        .ok_or_else(|| format!("`{text}` is not a supported draft: use 04, 06 or 07"))
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

/// The result of one compile, rendered.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// What goes to standard output.
    pub stdout: String,
    /// What goes to standard error: the diagnostics, when standard output carries a machine
    /// format other than `json`.
    pub stderr: String,
    /// The process exit code.
    pub exit: u8,
}

/// Runs the command line and returns the exit code.
pub fn run(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    EXIT_OK
                }
                _ => EXIT_USAGE,
            });
        }
    };
    match cli.command {
        Command::Compile(args) => run_compile(args),
        Command::Check(args) => run_check(args),
        Command::Diff(args) => run_diff(args),
        Command::Bundle(args) => run_bundle(args),
        Command::Records(args) => records::run_records(args),
        Command::Deliver(args) => deliver::run_deliver(args),
        Command::Policies(args) => policies::run_policies(args),
        Command::Completions(args) => shell::run_completions(args, Cli::command()),
        Command::Man(args) => shell::run_man(args, Cli::command()),
    }
}

fn run_bundle(args: BundleArgs) -> ExitCode {
    let color = stderr_color_enabled(args.color.color);
    let outcome = bundle::bundle_file(&bundle::BundleRequest {
        schema: args.schema,
        draft: args.read.draft.draft,
        ref_root: args.read.ref_root,
        color,
    });
    let mut stderr = anstream::stderr();
    let _ = stderr.write_all(outcome.stderr.as_bytes());
    if outcome.exit != EXIT_OK {
        return ExitCode::from(outcome.exit);
    }
    match &args.output {
        Some(path) => match std::fs::write(path, &outcome.document) {
            Ok(()) => ExitCode::from(EXIT_OK),
            Err(e) => usage_error(&format!("cannot write `{}`: {e}", path.display())),
        },
        None => print_stdout(&outcome.document, EXIT_OK),
    }
}

fn run_diff(args: DiffArgs) -> ExitCode {
    if args.git.is_none() && args.files.len() != 2 {
        return usage_error("give OLD and NEW, or --git REV [PATHS]...");
    }
    if let Err(message) = source::ref_root_is_dir(args.read.ref_root.as_deref()) {
        return usage_error(&message);
    }
    let request = diff::DiffRequest {
        dir: PathBuf::from("."),
        files: args.files,
        git: args.git,
        partition: args.partition,
        draft: args.read.draft.draft,
        ref_root: args.read.ref_root,
        record_format: args.record_format.map(diff::RecordFormatFlag::format),
        fail_on: args.fail_on,
        color: args.format == diff::DiffFormat::Text && color_enabled(args.color.color),
    };
    match diff::run_diff(&request, args.format) {
        Ok(diffed) => print_stdout(&diffed.stdout, diffed.exit),
        Err(e) => usage_error(&e.message),
    }
}

fn color_enabled(when: ColorWhen) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
        }
    }
}

/// `--color` for what goes to standard error (`bundle`'s diagnostics, and those of a schema
/// that `records` cannot compile).
fn stderr_color_enabled(when: ColorWhen) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never
        }
    }
}

fn run_check(args: CheckArgs) -> ExitCode {
    let request = check::CheckRequest {
        dir: PathBuf::from("."),
        paths: args.paths,
        config: args.config,
        partition: args.partition,
        channel_configs: args.channel_config,
        policies: check::ChannelPolicies {
            configs: Vec::new(),
            role: args.policies.role_policy,
            trust: args.policies.trust_policy,
            table_key: args.policies.table_key_policy,
            table_bucket: args.policies.table_bucket_policy,
            dlq_kms_key: args.policies.dlq_kms_key,
        },
        draft: args.read.draft.draft,
        ref_root: args.read.ref_root,
        allow: args.allow,
        warn: args.warn,
        deny: args.deny,
        color: args.format == check::CheckFormat::Text && color_enabled(args.color.color),
        output: check::FileId::of_stdout(),
    };
    match check::check(&request, args.format) {
        Ok(checked) => {
            let exit = print_stdout(&checked.stdout, checked.exit);
            // As for `compile`: the process exits next, so the report is not freed piece by
            // piece.
            std::mem::forget(checked);
            exit
        }
        Err(e) => usage_error(&e.message),
    }
}

/// Every usage and I/O error of every command ends here: one `error: ` line on standard error
/// (a rendered config mistake follows it), and exit code 2.
fn usage_error(message: &str) -> ExitCode {
    let mut stderr = anstream::stderr();
    let _ = writeln!(stderr, "error: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// Writes a command's standard output (every command's goes through here) and exits with
/// `exit`. A failure to write exits 2: quietly for a reader that went away (`| head`), with an
/// I/O error otherwise.
fn print_stdout(text: &str, exit: u8) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
    stdout_written(written, exit)
}

/// How writing a command's standard output ended, as an exit code: `print_stdout`'s rule, for
/// `records`, which streams its output rather than writing one string.
fn stdout_written(written: std::io::Result<()>, exit: u8) -> ExitCode {
    match written {
        Ok(()) => ExitCode::from(exit),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_USAGE),
        Err(e) => usage_error(&format!("cannot write to standard output: {e}")),
    }
}

fn run_compile(mut args: CompileArgs) -> ExitCode {
    let (format, color, output) = (args.format, args.color.color, args.output.take());
    if let Err(message) = handoff::binary_fits(format, output.as_deref()) {
        return usage_error(&message);
    }
    let (request, bytes) = match compile_request_of(args) {
        Ok(prepared) => prepared,
        Err(message) => return usage_error(&message),
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

/// `compile -o FILE`: the output goes to the file, written whole once the table is compiled;
/// standard error is as without it.
fn compile_to_file(
    request: &CompileRequest,
    bytes: Vec<u8>,
    format: Format,
    color: ColorWhen,
    path: &std::path::Path,
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
        Err(e) => return usage_error(&format!("cannot write the output: {e}")),
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
        return usage_error(&format!("cannot write {}: {e}", path.display()));
    }
    ExitCode::from(exit)
}

/// The request and the schema bytes of a `compile` command line: the schema read, and the
/// flags and channel configurations resolved. An error is a usage error.
fn compile_request_of(args: CompileArgs) -> Result<(CompileRequest, Vec<u8>), String> {
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

/// `schema2iceberg compile <args>` as the binary runs it, without color, with its output kept:
/// for generated documentation, which shows the commands it ran. Relative paths in `args` are
/// read from `root`, and shown as written.
pub fn compile_command_line(root: &std::path::Path, args: &[&str]) -> Outcome {
    let argv = ["schema2iceberg", "compile"]
        .into_iter()
        .chain(args.iter().copied());
    let mut parsed = match Cli::try_parse_from(argv) {
        Ok(Cli {
            command: Command::Compile(parsed),
        }) => parsed,
        Ok(_) => return usage_outcome("error: not a compile command line\n".to_string()),
        Err(e) => return usage_outcome(e.to_string()),
    };
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
        Err(message) => usage_outcome(format!("error: {message}\n")),
    }
}

fn usage_outcome(stderr: String) -> Outcome {
    Outcome {
        stdout: String::new(),
        stderr,
        exit: EXIT_USAGE,
    }
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
