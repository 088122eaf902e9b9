//! `compile`'s formats that hand the table on to the tools around it: Iceberg table metadata,
//! the Avro and Arrow schemas of a row, and `CREATE TABLE` DDL. Standard output gets the
//! document alone; notes on placeholders and warnings go to standard error.

use iceberg::spec::{PartitionSpec, Schema};
use schema2iceberg_mapper::formats::ddl::{self, Dialect};
use schema2iceberg_mapper::formats::table_metadata as tm;

use super::{CompileError, Format};
use crate::project::channel::at;
use crate::project::channel::Compression;
use crate::project::ProjectError;

/// The namespace and table of the DDL when neither flags nor a channel configuration name
/// them; valid names that say what they are.
const PLACEHOLDER_NAMESPACE: &str = "placeholder_namespace";
/// See [`PLACEHOLDER_NAMESPACE`].
const PLACEHOLDER_TABLE: &str = "placeholder_table";
/// The Avro record's name when no table is named: what Iceberg's Java library calls a row.
const DEFAULT_AVRO_RECORD: &str = "table";

/// What the hand-on formats take from flags or a channel configuration; what is missing
/// becomes a placeholder that says so.
#[derive(Debug, Clone)]
pub struct TableOptions {
    /// `--location`.
    pub location: Option<String>,
    /// `--table-uuid`.
    pub uuid: Option<uuid::Uuid>,
    /// `--compression`, or the channel configuration's `CompressionType`.
    pub compression: Compression,
    /// `--namespace`, or the channel configuration's.
    pub namespace: Option<String>,
    /// `--table`, or the channel configuration's.
    pub table: Option<String>,
    /// `--dialect`, for `--format ddl`.
    pub dialect: Option<Dialect>,
}

impl Default for TableOptions {
    fn default() -> TableOptions {
        TableOptions {
            location: None,
            uuid: None,
            compression: Compression::Zstd,
            namespace: None,
            table: None,
            dialect: None,
        }
    }
}

/// `--dialect`: parses straight into the mapper's [`Dialect`], as `--fail-on` does.
pub(crate) fn dialect_parser() -> impl clap::builder::TypedValueParser<Value = Dialect> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};
    PossibleValuesParser::new(
        Dialect::ALL.map(|dialect| PossibleValue::new(dialect.name()).help(dialect.about())),
    )
    .try_map(|name: String| {
        Dialect::ALL
            .into_iter()
            .find(|dialect| dialect.name() == name)
            .ok_or("not a --dialect")
    })
}

/// Why a hand-on document could not be written (the schema compiled): exit 1, with the message
/// on standard error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HandOnError {
    #[error("cannot write JSON: {0}")]
    Json(serde_json::Error),
    #[error("the Arrow library could not write the schema: {0}")]
    Arrow(arrow_schema::ArrowError),
    #[error("--format ddl needs --dialect athena, spark or trino")]
    NoDialect,
    #[error("{0:?} is not a hand-on format")]
    NotHandOn(Format),
    /// What the mapper's writers (Avro, Arrow, DDL, table metadata) refuse, in their words.
    #[error(transparent)]
    Refused(#[from] schema2iceberg_mapper::formats::FormatError),
}

/// A hand-on document, and what standard error says about it.
pub(crate) struct HandedOn {
    /// Standard output: text ending in a newline, or the bytes of a binary format.
    pub(crate) document: Vec<u8>,
    /// `note:` and `warning:` lines.
    pub(crate) notes: String,
}

/// The document of a hand-on `format` for a compiled table; an error when the library that
/// writes it refuses the table, or the dialect cannot create it.
pub(crate) fn document(
    format: Format,
    schema: &Schema,
    spec: &PartitionSpec,
    options: &TableOptions,
) -> Result<HandedOn, HandOnError> {
    let json = |value: serde_json::Value| {
        serde_json::to_string_pretty(&value)
            .map(|text| (text + "\n").into_bytes())
            .map_err(HandOnError::Json)
    };
    match format {
        Format::TableMetadata => Ok(HandedOn {
            document: json(table_metadata_json(schema, spec, options)?)?,
            notes: table_metadata_placeholders(options),
        }),
        Format::Avro => {
            let name = options.table.as_deref().unwrap_or(DEFAULT_AVRO_RECORD);
            Ok(HandedOn {
                document: json(schema2iceberg_mapper::formats::avro::avro_schema_json(
                    schema, name,
                )?)?,
                notes: String::new(),
            })
        }
        Format::Arrow => Ok(HandedOn {
            document: arrow_ipc_schema(schema)?,
            notes: String::new(),
        }),
        Format::ArrowJson => Ok(HandedOn {
            document: json(schema2iceberg_mapper::formats::arrow::arrow_schema_json(
                schema,
            )?)?,
            notes: String::new(),
        }),
        Format::Ddl => {
            let Some(dialect) = options.dialect else {
                return Err(HandOnError::NoDialect);
            };
            let table = ddl::DdlTable {
                namespace: options
                    .namespace
                    .clone()
                    .unwrap_or_else(|| PLACEHOLDER_NAMESPACE.to_string()),
                table: options
                    .table
                    .clone()
                    .unwrap_or_else(|| PLACEHOLDER_TABLE.to_string()),
                location: options.location.clone(),
                codec: options.compression.property().to_string(),
            };
            let created = ddl::create_table(schema, spec, &table, dialect)?;
            let mut notes = String::new();
            for warning in &created.warnings {
                notes.push_str(&format!("warning: {warning}\n"));
            }
            if options.namespace.is_none() || options.table.is_none() {
                notes.push_str(&format!(
                    "note: placeholders in the DDL: `{}.{}` (give --namespace and --table, or a --channel-config that names them)\n",
                    table.namespace, table.table
                ));
            }
            Ok(HandedOn {
                document: created.sql.into_bytes(),
                notes,
            })
        }
        Format::Text | Format::Json => Err(HandOnError::NotHandOn(format)),
    }
}

/// The Arrow schema of the table as one encapsulated Arrow IPC message (the continuation
/// marker, the length, the `Schema` flatbuffer, padding to 8 bytes), which every Arrow
/// implementation reads (`pyarrow.ipc.read_schema`, arrow-rs's `try_schema_from_ipc_buffer`).
/// Metadata is written in key order, so the bytes are the same on every run.
fn arrow_ipc_schema(schema: &Schema) -> Result<Vec<u8>, HandOnError> {
    use arrow_ipc::writer::{write_message, DictionaryTracker, IpcDataGenerator, IpcWriteOptions};
    let arrow = schema2iceberg_mapper::formats::arrow::arrow_schema(schema)?;
    let options = IpcWriteOptions::default();
    let encoded = IpcDataGenerator {}.schema_to_bytes_with_dictionary_tracker(
        &arrow,
        &mut DictionaryTracker::new(false),
        &options,
    );
    let mut bytes = Vec::new();
    write_message(&mut bytes, encoded, &options).map_err(HandOnError::Arrow)?;
    Ok(bytes)
}

/// A usage error when `--format arrow`, which is binary, would be written to a terminal: it
/// needs `-o FILE` or a standard output that is a file or a pipe.
pub(crate) fn binary_fits(
    format: Format,
    output: Option<&std::path::Path>,
) -> Result<(), CompileError> {
    use std::io::IsTerminal;
    if format == Format::Arrow && output.is_none() && std::io::stdout().is_terminal() {
        return Err(CompileError::BinaryToTerminal);
    }
    Ok(())
}

/// The table metadata of a compiled table, as JSON that is the same on every run.
fn table_metadata_json(
    schema: &Schema,
    spec: &PartitionSpec,
    table: &TableOptions,
) -> Result<serde_json::Value, HandOnError> {
    let settings = tm::TableSettings {
        location: table
            .location
            .clone()
            .unwrap_or_else(|| tm::PLACEHOLDER_LOCATION.to_string()),
        uuid: table.uuid.unwrap_or_else(uuid::Uuid::nil),
        properties: tm::channel_properties(table.compression.property()),
    };
    let metadata = tm::table_metadata(schema, spec, &settings)?;
    Ok(tm::table_metadata_json(&metadata)?)
}

/// Says which values of the table metadata are placeholders, so that nobody takes them for
/// the real table's.
fn table_metadata_placeholders(table: &TableOptions) -> String {
    let mut placeholders = Vec::new();
    if table.location.is_none() {
        placeholders.push("`location` (give --location)");
    }
    if table.uuid.is_none() {
        placeholders.push("`table-uuid` (give --table-uuid)");
    }
    placeholders.push("`last-updated-ms` (0; the channel's table gets the time it is created)");
    format!(
        "note: placeholders in the table metadata: {}\n",
        placeholders.join(", ")
    )
}

/// What `compile` takes from its flags and the channel configurations it is given.
#[derive(Debug, Default)]
pub(crate) struct TableFlags {
    pub(crate) location: Option<String>,
    pub(crate) uuid: Option<uuid::Uuid>,
    pub(crate) compression: Option<Compression>,
    pub(crate) namespace: Option<String>,
    pub(crate) table: Option<String>,
    pub(crate) dialect: Option<Dialect>,
    pub(crate) partition: Vec<String>,
    pub(crate) channel_configs: Vec<std::path::PathBuf>,
}

/// A usage error when a flag is given that `format` does not use: a flag that changes nothing
/// would let the user believe it did.
pub(crate) fn flags_fit(format: Format, flags: &TableFlags) -> Result<(), CompileError> {
    use Format::{Avro, Ddl, TableMetadata};
    let given: [(&str, bool, &[Format]); 6] = [
        ("--dialect", flags.dialect.is_some(), &[Ddl]),
        ("--namespace", flags.namespace.is_some(), &[Ddl]),
        ("--table", flags.table.is_some(), &[Ddl, Avro]),
        (
            "--location",
            flags.location.is_some(),
            &[TableMetadata, Ddl],
        ),
        ("--table-uuid", flags.uuid.is_some(), &[TableMetadata]),
        (
            "--compression",
            flags.compression.is_some(),
            &[TableMetadata, Ddl],
        ),
    ];
    for (flag, is_given, formats) in given {
        if is_given && !formats.contains(&format) {
            let names = formats
                .iter()
                .map(|f| format!("--format {}", format_name(*f)))
                .collect::<Vec<_>>()
                .join(" or ");
            return Err(CompileError::UnusedFlag {
                flag,
                formats: names,
                format: format_name(format),
            });
        }
    }
    Ok(())
}

/// `format` as `--format` takes it.
fn format_name(format: Format) -> String {
    use clap::ValueEnum;
    format
        .to_possible_value()
        .map_or_else(String::new, |value| value.get_name().to_string())
}

/// The hand-on options and the partition fields: each from its flag, else from the channel
/// configurations (`SourceName`, `CompressionType`, the namespace and table names). A flag that
/// contradicts a configuration is a usage error, and names are checked by the channel's rules.
pub(crate) fn resolve(flags: TableFlags) -> Result<(TableOptions, Vec<String>), ProjectError> {
    use crate::project::channel;
    use schema2iceberg_mapper::channel::Setting;

    let (settings, partition) = if flags.channel_configs.is_empty() {
        (Vec::new(), flags.partition)
    } else {
        let checked = crate::project::channel::read_channel_configs(
            &flags.channel_configs,
            "--channel-config",
        )?;
        let source =
            crate::project::channel::agreed(&checked.partition_sources, "partition source", |s| {
                format!("`{s}`")
            })?;
        let partition = match (source, flags.partition.as_slice()) {
            (Some((name, location)), [flag]) if flag != name => {
                return Err(ProjectError::Contradicts {
                    flag: "--partition",
                    value: flag.clone(),
                    key: "SourceName",
                    configured: name.clone(),
                    at: at(location),
                })
            }
            (Some((name, _)), []) => vec![name.clone()],
            (_, given) => given.to_vec(),
        };
        (checked.settings, partition)
    };
    let namespace = channel::table_name(
        flags.namespace.as_deref(),
        "--namespace",
        &settings,
        Setting::Namespace,
        true,
    )?;
    let table = channel::table_name(
        flags.table.as_deref(),
        "--table",
        &settings,
        Setting::TableName,
        false,
    )?;
    let options = TableOptions {
        location: flags.location,
        uuid: flags.uuid,
        compression: channel::compression(flags.compression, &settings)?,
        namespace,
        table,
        dialect: flags.dialect,
    };
    Ok((options, partition))
}
