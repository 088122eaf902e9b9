//! The front that `records` and `deliver` share: the schema, the inputs and how the channel reads
//! them (`RecordSourceArgs`), set up as the channel is ([`prepare`]); the inputs cut into batches
//! (`input`) and checked on every core in input order (`order`).

pub(crate) mod input;
pub(crate) mod order;

use std::io::Write;
use std::path::PathBuf;

use schema2iceberg_mapper::records::{
    parse_uuid, RecordChecker, RecordFormat, RecordOptions, SetupError,
};
use schema2iceberg_mapper::CompileOptions;
use schema2iceberg_parser::{Severity, Workspace};

use crate::app::{stderr_color_enabled, ColorWhen, ReadArgs};
use crate::project::channel::{channel_setup, ChannelFlags, ChannelSetup, RecordFormatFlag};
use crate::project::source::{self, SchemaSource, SourceOptions};
use crate::project::ProjectError;
use crate::render;
use input::{InputKind, Source};

/// Why records cannot be checked at all: a usage error (exit 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum IntakeError {
    /// The schema, `--ref-root`, the toml or a channel configuration.
    #[error(transparent)]
    Project(#[from] ProjectError),
    #[error("--schema-version-id applies to GSR records only; give --record-format gsr-json (or a channel configuration that says GSR_JSON / JSON_SCHEMA_GSR)")]
    VersionIdWithoutGsr,
    /// The schema has errors (drawn on standard error before).
    #[error("`{shown}` does not compile to a table ({}), so no record can be checked", render::plural(*errors, "error"))]
    SchemaErrors { shown: String, errors: usize },
    /// What else the mapper's record checker refuses.
    #[error("{0}")]
    Setup(SetupError),
    #[error("standard input (-) can be an INPUT only once")]
    StdinTwice,
    #[error("the schema is read from standard input, so give the records as INPUT files")]
    StdinHoldsSchema,
    #[error("INPUT `{}` is not a file", .0.display())]
    NotAFile(PathBuf),
}

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

impl RecordSourceArgs {
    /// How the schema is read, in the struct every schema-reading command's request holds;
    /// `color` is for the diagnostics of a schema that does not compile, on standard error.
    pub(crate) fn source_options(&self, color: ColorWhen) -> SourceOptions {
        SourceOptions {
            draft: self.read.draft.draft,
            ref_root: self.read.ref_root.clone(),
            partition: self.partition.iter().cloned().collect(),
            color: stderr_color_enabled(color),
        }
    }
}

fn parse_version_id(text: &str) -> Result<[u8; 16], String> {
    parse_uuid(text).ok_or_else(|| {
        format!("`{text}` is not a UUID; write it as 8-4-4-4-12 hex digits, as the Glue Schema Registry shows SchemaVersionId")
    })
}

/// A run's checker and inputs, set up as the channel is.
pub(crate) struct Prepared {
    pub(crate) checker: RecordChecker,
    pub(crate) sources: Vec<Source>,
    pub(crate) setup: ChannelSetup,
}

/// Reads the schema exactly as compile reads it (the same name, base path and reference root
/// rules), sets the channel up from the flags, configurations and `schema2iceberg.toml`, and
/// checks that every INPUT exists.
pub(crate) fn prepare(args: &RecordSourceArgs, color: ColorWhen) -> Result<Prepared, IntakeError> {
    let reading = args.source_options(color);
    source::ref_root_is_dir(reading.ref_root.as_deref())?;
    let schema_from_stdin = args.schema.as_os_str() == "-";
    let sources = sources(&args.inputs, schema_from_stdin)?;
    let bytes = source::read_schema(&args.schema, schema_from_stdin)?;
    let flags = ChannelFlags {
        partition: reading.partition.first(),
        record_format: args.record_format,
        channel_configs: &args.channel_config,
    };
    let setup = channel_setup(flags, (!schema_from_stdin).then_some(args.schema.as_path()))?;
    if args.schema_version_id.is_some() && setup.record_format != RecordFormat::GsrJson {
        return Err(IntakeError::VersionIdWithoutGsr);
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
            ref_root: reading.ref_root.clone(),
            draft: reading.draft,
        },
        bytes,
    );
    let compile_options = CompileOptions {
        partition: setup.partition.clone().into_iter().collect(),
        ..CompileOptions::default()
    };
    let record_options = RecordOptions {
        format: setup.record_format,
        schema_version_id: args.schema_version_id,
    };
    let checker = checker(
        &ws,
        &display,
        &compile_options,
        record_options,
        reading.color,
    )?;
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
    color: bool,
) -> Result<RecordChecker, IntakeError> {
    match RecordChecker::new(ws, compile_options, options) {
        Ok(checker) => Ok(checker),
        Err(SetupError::Schema(compiled)) => {
            let _ = anstream::stderr().write_all(render::text(ws, &compiled, color).as_bytes());
            Err(IntakeError::SchemaErrors {
                shown: display.to_string(),
                errors: compiled.count(Severity::Error),
            })
        }
        Err(other) => Err(IntakeError::Setup(other)),
    }
}

/// The INPUTs: files as given, `-` (or none) for standard input, which can be read once and not
/// when it holds the schema. Every file must exist before anything is read.
fn sources(inputs: &[PathBuf], schema_from_stdin: bool) -> Result<Vec<Source>, IntakeError> {
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
        return Err(IntakeError::StdinTwice);
    }
    if stdin_count == 1 && schema_from_stdin {
        return Err(IntakeError::StdinHoldsSchema);
    }
    for source in &sources {
        if let Source::File(path) = source {
            match std::fs::metadata(path) {
                Ok(meta) if meta.is_file() => {}
                Ok(_) => return Err(IntakeError::NotAFile(path.clone())),
                Err(source) => {
                    return Err(ProjectError::Read {
                        shown: path.display().to_string(),
                        source,
                    }
                    .into())
                }
            }
        }
    }
    Ok(sources)
}
