//! `schema2iceberg records`: which sample records a channel would deliver to the table, and
//! which it would send to the dead-letter queue, and why. This module holds the arguments and
//! the setup (schema, partition, record format); `input` reads the records, `run` checks them on
//! every core and `output` prints them, in input order.

pub(crate) mod input;
pub(crate) mod output;
pub(crate) mod run;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use schema2iceberg_mapper::channel::{self, check_channel_configs, Setting};
use schema2iceberg_mapper::records::{
    parse_uuid, RecordChecker, RecordFormat, RecordOptions, SetupError,
};
use schema2iceberg_mapper::CompileOptions;
use schema2iceberg_parser::{absolute_path, JsonFile, Location, Severity, Workspace};

use crate::check::config::{self, FileSettings};
use crate::diff::RecordFormatFlag;
use crate::source::{self, SchemaSource};
use crate::{
    color_enabled, render, stderr_color_enabled, stdout_written, usage_error, ColorArg, ColorWhen,
    ReadArgs,
};
use input::{InputKind, Source};
use output::{RecordsFormat, Show, Style};

/// The `after_help` of `records --help`.
pub(crate) const HELP: &str = "\
The channel takes each record through fixed steps, and the first that fails sends the record to
the dead-letter queue (DLQ) with a reason: the framing (plain JSON, or a Glue Schema Registry
header, version 3, compression 0 or 5, naming the schema version), the JSON text, the partition
field (present and not null), JSON Schema validation (the jsonschema crate, draft-04/06/07, the
$refs that compile reads, no network), and conversion to the table's column types (a long beyond
64 bits, a decimal beyond 38 digits, a date-time that does not parse). Fields the table has no
column for are dropped, which is not a failure. records runs your producer's sample output
through the same steps locally and says, for each record, what happens and why.

The schema is read as compile reads it (same $ref and reference-root rules). The partition and
the record format come from the flags, else from --channel-config, else from the
schema2iceberg.toml entry for the schema (its partition and channel-config); a flag that
contradicts a channel configuration is a usage error.

Reason codes, in the order of the steps: gsr-not-framed, gsr-framed, gsr-header,
gsr-schema-version, malformed-json, missing-partition, missing-required, schema-violation,
out-of-range, invalid-value.

Output: records are printed in input order. --format ndjson prints one object a record with
\"input\" (the file, or -), \"record\" (1-based in that input), \"line\" (ndjson) or
\"sequence-number\" (get-records), \"verdict\" (delivered or dlq), and for the DLQ \"reason\",
\"pointer\" (\"\" is the whole record), \"message\" and \"keyword\"; with --show all, a delivered
record has \"row\" (each value in Iceberg's single-value JSON) and \"dropped\" (the pointers of
fields without a column). --format json wraps the same objects in {\"records\": [...],
\"summary\": {...}}. Memory stays bounded whatever the input size.

Examples:
  schema2iceberg records schema.json samples.ndjson --partition event_time
  producer --dry-run | schema2iceberg records schema.json --partition event_time
  aws kinesis get-records --shard-iterator \"$IT\" > batch.json
  schema2iceberg records schema.json batch.json --input get-records --channel-config channel.json
  schema2iceberg records schema.json rec1.bin rec2.bin --input raw --record-format gsr-json \\
    --schema-version-id 6b9e0c1a-3f0e-4a57-9d5e-1c2b3a4d5e6f --partition event_time
  schema2iceberg records schema.json samples.ndjson --format ndjson --show all | jq .row

Exit codes: 0 every record is delivered, 1 at least one goes to the dead-letter queue, 2 usage
or I/O error, an input that is not of its --input kind, or a schema that does not compile (its
diagnostics are shown on standard error). docs/records.md describes each step and reason.";

/// What `records` and `deliver` share: the schema, the inputs and how the channel reads them.
#[derive(Debug, clap::Args)]
#[command(mut_arg("draft", |a| a.help("Read the schema as this draft, whatever its $schema says (as compile)")))]
pub(crate) struct RecordSourceArgs {
    /// The JSON Schema the channel validates against, or - for standard input.
    #[arg(value_name = "SCHEMA")]
    pub(crate) schema: PathBuf,
    /// Files of records, read in order; - or none reads standard input (e.g. samples.ndjson).
    #[arg(value_name = "INPUT")]
    pub(crate) inputs: Vec<PathBuf>,
    /// The hour-partition field, as for compile (e.g. --partition event_time); records without
    /// it, or with null, go to the DLQ [default: the channel configuration's SourceName, else
    /// schema2iceberg.toml's partition]
    #[arg(long, value_name = "FIELD")]
    pub(crate) partition: Option<String>,
    /// A Kinesis or MSK channel configuration (as for check; repeatable for one split over
    /// files): its SourceName is the partition and its RecordFormatType / ValueConverter the
    /// record format; deliver also takes the table's names, CompressionType, ErrorOutputPrefix
    /// and DataFreshnessInSeconds from it (e.g. --channel-config channel.json)
    #[arg(long, value_name = "FILE")]
    pub(crate) channel_config: Vec<PathBuf>,
    /// How the channel reads record bytes: json (RecordFormatType JSON) or gsr-json (GSR_JSON,
    /// MSK JSON_SCHEMA_GSR: an 18-byte Glue Schema Registry header first) [default: the channel
    /// configuration's, else json]
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub(crate) record_format: Option<RecordFormatFlag>,
    /// How INPUT holds records (e.g. --input get-records).
    #[arg(long, value_enum, default_value_t = InputKind::Ndjson, value_name = "KIND")]
    pub(crate) input: InputKind,
    /// For gsr-json: the schema version the channel resolves; a record whose header names
    /// another goes to the DLQ (e.g. --schema-version-id 6b9e0c1a-3f0e-4a57-9d5e-1c2b3a4d5e6f)
    /// [default: any]
    #[arg(long, value_name = "UUID", value_parser = parse_version_id)]
    pub(crate) schema_version_id: Option<[u8; 16]>,
    #[command(flatten)]
    pub(crate) read: ReadArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct RecordsArgs {
    #[command(flatten)]
    source: RecordSourceArgs,
    /// Which records to print (e.g. --show all to see each delivered record's row).
    #[arg(long, value_enum, default_value_t = Show::Failures, value_name = "WHICH")]
    show: Show,
    /// Output format (e.g. --format ndjson for one object a record).
    #[arg(long, value_enum, default_value_t = RecordsFormat::Text)]
    format: RecordsFormat,
    #[command(flatten)]
    color: ColorArg,
}

fn parse_version_id(text: &str) -> Result<[u8; 16], String> {
    parse_uuid(text).ok_or_else(|| {
        format!("`{text}` is not a UUID; write it as 8-4-4-4-12 hex digits, as the Glue Schema Registry shows SchemaVersionId")
    })
}

/// The partition and record format the channel is set up with, from the flags, the channel
/// configurations and `schema2iceberg.toml`, and the configurations' other settings.
#[derive(Debug)]
pub(crate) struct ChannelSetup {
    pub(crate) partition: Option<String>,
    pub(crate) record_format: RecordFormat,
    /// Names, compression, dead-letter prefix and freshness, as the configurations give them.
    pub(crate) settings: Vec<(Setting, String, Location)>,
}

/// A run's checker and inputs, set up as the channel is.
pub(crate) struct Prepared {
    pub(crate) checker: RecordChecker,
    pub(crate) sources: Vec<Source>,
    pub(crate) setup: ChannelSetup,
}

/// Runs `records`.
pub(crate) fn run_records(args: RecordsArgs) -> ExitCode {
    match records(&args) {
        Ok(exit) => exit,
        Err(message) => usage_error(&message),
    }
}

fn records(args: &RecordsArgs) -> Result<ExitCode, String> {
    let prepared = prepare(&args.source, args.color.color)?;
    let style = Style {
        format: args.format,
        show: args.show,
        input: args.source.input,
        record_format: prepared.setup.record_format,
        color: args.format == RecordsFormat::Text && color_enabled(args.color.color),
    };
    let pipeline = run::Pipeline {
        checker: &prepared.checker,
        sources: &prepared.sources,
        kind: args.source.input,
        style,
        workers: run::workers(),
    };
    let stdout = std::io::stdout().lock();
    let mut out = std::io::BufWriter::with_capacity(256 * 1024, stdout);
    let outcome = pipeline.run(&mut out);
    let exit = if outcome.tally.dead_letters() > 0 {
        crate::EXIT_SCHEMA_ERRORS
    } else {
        crate::EXIT_OK
    };
    match outcome.input_error {
        // The records before the bad input are printed; the error decides the exit code.
        Some(e) if outcome.write_result.is_ok() => Err(e.to_string()),
        _ => Ok(stdout_written(outcome.write_result, exit)),
    }
}

/// Reads the schema exactly as compile reads it (the same name, base path and reference root
/// rules), sets the channel up from the flags, configurations and `schema2iceberg.toml`, and
/// checks that every INPUT exists.
pub(crate) fn prepare(args: &RecordSourceArgs, color: ColorWhen) -> Result<Prepared, String> {
    source::ref_root_is_dir(args.read.ref_root.as_deref())?;
    let schema_from_stdin = args.schema.as_os_str() == "-";
    let sources = sources(&args.inputs, schema_from_stdin)?;
    let bytes = crate::source::read_schema(&args.schema, schema_from_stdin)?;
    let setup = channel_setup(args, (!schema_from_stdin).then_some(args.schema.as_path()))?;
    if args.schema_version_id.is_some() && setup.record_format != RecordFormat::GsrJson {
        return Err("--schema-version-id applies to GSR records only; give --record-format gsr-json (or a channel configuration that says GSR_JSON / JSON_SCHEMA_GSR)".to_string());
    }
    let display = if schema_from_stdin {
        "<stdin>".to_string()
    } else {
        args.schema.display().to_string()
    };
    let ws = source::workspace(
        &SchemaSource {
            display: &display,
            path: (!schema_from_stdin).then_some(args.schema.as_path()),
            ref_root: args.read.ref_root.clone(),
            draft: args.read.draft.draft,
        },
        bytes,
    );
    let compile_options = CompileOptions {
        partition: setup.partition.clone().into_iter().collect(),
        ..CompileOptions::default()
    };
    let options = RecordOptions {
        format: setup.record_format,
        schema_version_id: args.schema_version_id,
    };
    let checker = checker(&ws, &display, &compile_options, options, color)?;
    Ok(Prepared {
        checker,
        sources,
        setup,
    })
}

/// The checker of the schema; a schema that does not compile has its diagnostics rendered on
/// standard error as compile renders them, and is a usage error (exit 2).
fn checker(
    ws: &Workspace,
    display: &str,
    compile_options: &CompileOptions,
    options: RecordOptions,
    color: ColorWhen,
) -> Result<RecordChecker, String> {
    match RecordChecker::new(ws, compile_options, options) {
        Ok(checker) => Ok(checker),
        Err(SetupError::Schema(compiled)) => {
            let color = stderr_color_enabled(color);
            let _ = anstream::stderr().write_all(render::text(ws, &compiled, color).as_bytes());
            Err(format!(
                "`{display}` does not compile to a table ({}), so no record can be checked",
                render::plural(compiled.count(Severity::Error), "error")
            ))
        }
        Err(other) => Err(other.to_string()),
    }
}

/// The INPUTs: files as given, `-` (or none) for standard input, which can be read once and not
/// when it holds the schema. Every file must exist before anything is read.
fn sources(inputs: &[PathBuf], schema_from_stdin: bool) -> Result<Vec<Source>, String> {
    let sources: Vec<Source> = if inputs.is_empty() {
        vec![Source::Stdin]
    } else {
        inputs
            .iter()
            .map(|path| {
                if path.as_os_str() == "-" {
                    Source::Stdin
                } else {
                    Source::File(path.clone())
                }
            })
            .collect()
    };
    let stdin_count = sources.iter().filter(|s| **s == Source::Stdin).count();
    if stdin_count > 1 {
        return Err("standard input (-) can be an INPUT only once".to_string());
    }
    if stdin_count == 1 && schema_from_stdin {
        return Err(
            "the schema is read from standard input, so give the records as INPUT files"
                .to_string(),
        );
    }
    for source in &sources {
        if let Source::File(path) = source {
            match std::fs::metadata(path) {
                Ok(meta) if meta.is_file() => {}
                Ok(_) => return Err(format!("INPUT `{}` is not a file", path.display())),
                Err(e) => return Err(format!("cannot read `{}`: {e}", path.display())),
            }
        }
    }
    Ok(sources)
}

/// The settings `schema2iceberg.toml` (found from the current directory up, as check and diff
/// find it) gives the schema; none for a schema read from standard input.
fn toml_settings(schema: Option<&Path>) -> Result<FileSettings, String> {
    let (Some(schema), Some(path)) = (schema, config::find(Path::new("."))) else {
        return Ok(FileSettings::default());
    };
    let display = path.display().to_string();
    let text =
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read `{display}`: {e}"))?;
    let config = config::load(&path, &display, &text).map_err(|diagnostics| {
        let mut message = format!("`{display}` has mistakes, so no record was checked:\n");
        for d in &diagnostics {
            message.push_str(&render::diagnostic(Some(&text), d, false));
            message.push('\n');
        }
        message.trim_end().to_string()
    })?;
    Ok(config.settings_for(&absolute_path(schema)))
}

pub(crate) fn at(location: &Location) -> String {
    format!("{}:{}:{}", location.file, location.line, location.column)
}

/// One value that the channel configurations agree on, or a usage error naming where they
/// disagree.
pub(crate) fn agreed<'a, T: PartialEq + Clone>(
    found: &'a [(T, Location)],
    what: &str,
    show: impl Fn(&T) -> String,
) -> Result<Option<&'a (T, Location)>, String> {
    let Some(first) = found.first() else {
        return Ok(None);
    };
    match found.iter().find(|(value, _)| *value != first.0) {
        Some(other) => Err(format!(
            "the channel configurations name two {what}s: {} at {} and {} at {}",
            show(&first.0),
            at(&first.1),
            show(&other.0),
            at(&other.1)
        )),
        None => Ok(Some(first)),
    }
}

/// The partition and the record format: a flag, else the channel configuration, else the
/// config's partition (and json). A flag or config value that contradicts the channel
/// configuration is a usage error, never silently overridden.
fn channel_setup(args: &RecordSourceArgs, schema: Option<&Path>) -> Result<ChannelSetup, String> {
    let settings = toml_settings(schema)?;
    let (paths, from) = if args.channel_config.is_empty() {
        (settings.channel_configs.clone(), "schema2iceberg.toml")
    } else {
        (args.channel_config.clone(), "--channel-config")
    };
    let checked = read_channel_configs(&paths, from)?;
    let source = agreed(&checked.partition_sources, "partition source", |s| {
        format!("`{s}`")
    })?;
    let format = agreed(&checked.record_formats, "record format", |f| {
        f.api_names().to_string()
    })?;
    let partition = match (source, &args.partition, &settings.partition) {
        (Some((name, location)), Some(flag), _) if flag != name => {
            return Err(format!(
                "--partition `{flag}` contradicts the channel configuration, whose SourceName is `{name}` ({}); drop one",
                at(location)
            ))
        }
        (Some((name, location)), None, Some(configured)) if configured != name => {
            return Err(format!(
                "schema2iceberg.toml gives the partition `{configured}` for this schema, but its channel configuration's SourceName is `{name}` ({})",
                at(location)
            ))
        }
        (Some((name, _)), _, _) => Some(name.clone()),
        (None, flag, configured) => flag.clone().or(configured.clone()),
    };
    let record_format = match (format, args.record_format) {
        (Some((found, location)), Some(flag)) if flag.format() != *found => {
            return Err(format!(
                "--record-format {} contradicts the channel configuration, which says {} ({}); drop one",
                flag.format().as_str(),
                found.api_names(),
                at(location)
            ))
        }
        (Some((found, _)), _) => *found,
        (None, Some(flag)) => flag.format(),
        (None, None) => channel::RecordFormat::Json,
    };
    Ok(ChannelSetup {
        partition,
        settings: checked.settings,
        record_format: record_format.into(),
    })
}

/// Reads and checks channel configurations (`from` says who named them, for errors): a file
/// that cannot be read, is not JSON or is not a channel configuration is a usage error.
pub(crate) fn read_channel_configs(
    paths: &[PathBuf],
    from: &str,
) -> Result<channel::ChannelCheck, String> {
    let mut files = Vec::new();
    for path in paths {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| {
            format!("cannot read the channel configuration `{shown}` ({from}): {e}")
        })?;
        let (file, diagnostics) = JsonFile::parse(shown.clone(), bytes);
        if let Some(d) = diagnostics.first() {
            return Err(format!(
                "the channel configuration `{shown}` is not JSON: {} at {}",
                d.message,
                at(&d.location)
            ));
        }
        files.push(file);
    }
    let checked = check_channel_configs(&files);
    if let Some(d) = checked
        .diagnostics
        .iter()
        .find(|d| d.code == channel::UNRECOGNISED.name)
    {
        return Err(format!("{} ({})", d.message, at(&d.location)));
    }
    refuse_errors(&checked.diagnostics)?;
    Ok(checked)
}

/// A channel configuration with an error is refused by every command that reads one, with the
/// diagnostics `check` reports for it (the same function finds them): the channel would not be
/// created from it, so no table, record verdict or delivery can be taken from it.
fn refuse_errors(diagnostics: &[schema2iceberg_parser::Diagnostic]) -> Result<(), String> {
    let errors: Vec<&schema2iceberg_parser::Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.severity == schema2iceberg_parser::Severity::Error)
        .collect();
    if errors.is_empty() {
        return Ok(());
    }
    let mut message = format!(
        "the channel configuration has {} error(s), so the channel would not be created from it (`schema2iceberg check` reports the same):",
        errors.len()
    );
    for d in errors {
        message.push_str(&format!(
            "\n  error[{}]: {} ({})",
            d.code,
            d.message,
            at(&d.location)
        ));
        if let Some(help) = &d.help {
            message.push_str(&format!("\n    help: {help}"));
        }
    }
    Err(message)
}

#[cfg(test)]
mod tests {
    use schema2iceberg_mapper::records::Reason;

    #[test]
    fn the_help_lists_every_reason_in_step_order() {
        let listed = HELP_REASONS.split(", ").collect::<Vec<_>>();
        let codes: Vec<&str> = Reason::ALL.iter().map(|r| r.code()).collect();
        assert_eq!(listed, codes);
        let flat = super::HELP.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(HELP_REASONS), "{flat}");
    }

    const HELP_REASONS: &str = "gsr-not-framed, gsr-framed, gsr-header, gsr-schema-version, malformed-json, missing-partition, missing-required, schema-violation, out-of-range, invalid-value";
}
