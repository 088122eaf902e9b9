//! The channel a schema is delivered through, as the user's project sets it up: the partition,
//! record format, compression, namespace and table, each from its flag, else the channel
//! configurations, else `schema2iceberg.toml`. A flag that contradicts a configuration is a
//! usage error, never silently overridden. `compile`, `diff`, `records` and `deliver` read it here.

use std::path::{Path, PathBuf};

use schema2iceberg_mapper::channel::{self, check_channel_configs, name_problem, Setting};
use schema2iceberg_mapper::records::RecordFormat;
use schema2iceberg_parser::{absolute_path, Diagnostic, JsonFile, Location, Severity};

use super::config::{self, FileSettings};
pub(crate) use super::error::at;
use super::error::ProjectError;

/// The record format flag: how the channel's records are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RecordFormatFlag {
    /// Plain JSON records (Kinesis `RecordFormatType` and MSK `ValueConverter` `JSON`).
    Json,
    /// Records framed by the Glue Schema Registry serializer (Kinesis `GSR_JSON`, MSK
    /// `JSON_SCHEMA_GSR`).
    GsrJson,
}

impl RecordFormatFlag {
    /// The mapper's record format.
    pub(crate) fn format(self) -> channel::RecordFormat {
        match self {
            RecordFormatFlag::Json => channel::RecordFormat::Json,
            RecordFormatFlag::GsrJson => channel::RecordFormat::GsrJson,
        }
    }
}

/// The Parquet codec, from `CompressionType` (or `compile --compression`, spelt as the API
/// spells it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Compression {
    /// `NONE` (Kinesis only).
    #[value(name = "NONE", alias = "none")]
    None,
    /// `ZSTD`, MSK's documented default.
    #[value(name = "ZSTD", alias = "zstd")]
    Zstd,
    /// `SNAPPY`.
    #[value(name = "SNAPPY", alias = "snappy")]
    Snappy,
}

impl Compression {
    fn from_api(value: &str) -> Option<Compression> {
        match value {
            "NONE" => Some(Compression::None),
            "ZSTD" => Some(Compression::Zstd),
            "SNAPPY" => Some(Compression::Snappy),
            _ => None,
        }
    }

    /// The value of the table property `write.parquet.compression-codec`, as Iceberg names it.
    pub fn property(self) -> &'static str {
        match self {
            Compression::None => "uncompressed",
            Compression::Zstd => "zstd",
            Compression::Snappy => "snappy",
        }
    }

    /// The codec the Parquet writer uses (it does not read the table property).
    pub(crate) fn parquet(self) -> parquet::basic::Compression {
        match self {
            Compression::None => parquet::basic::Compression::UNCOMPRESSED,
            Compression::Zstd => parquet::basic::Compression::ZSTD(Default::default()),
            Compression::Snappy => parquet::basic::Compression::SNAPPY,
        }
    }
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

/// The settings `schema2iceberg.toml` (found from the current directory up, as check and diff
/// find it) gives the schema; none for a schema read from standard input.
fn toml_settings(schema: Option<&Path>) -> Result<FileSettings, ProjectError> {
    let (Some(schema), Some(path)) = (schema, config::find(Path::new("."))) else {
        return Ok(FileSettings::default());
    };
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|source| ProjectError::Read {
        shown: shown.clone(),
        source,
    })?;
    let config =
        config::load(&path, &shown, &text).map_err(|diagnostics| ProjectError::TomlMistakes {
            shown: shown.clone(),
            text: text.clone(),
            diagnostics,
        })?;
    Ok(config.settings_for(&absolute_path(schema)))
}

/// One value that the channel configurations agree on, or a usage error naming where they
/// disagree.
pub(crate) fn agreed<'a, T: PartialEq + Clone>(
    found: &'a [(T, Location)],
    what: &str,
    show: impl Fn(&T) -> String,
) -> Result<Option<&'a (T, Location)>, ProjectError> {
    let Some(first) = found.first() else {
        return Ok(None);
    };
    match found.iter().find(|(value, _)| *value != first.0) {
        Some(other) => Err(ProjectError::Disagree {
            what: what.to_string(),
            first: show(&first.0),
            first_at: at(&first.1),
            other: show(&other.0),
            other_at: at(&other.1),
        }),
        None => Ok(Some(first)),
    }
}

/// What the command line says about the channel (`records` and `deliver`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChannelFlags<'a> {
    /// `--partition`.
    pub(crate) partition: Option<&'a String>,
    /// `--record-format`.
    pub(crate) record_format: Option<RecordFormatFlag>,
    /// `--channel-config`.
    pub(crate) channel_configs: &'a [PathBuf],
}

/// The partition and the record format: a flag, else the channel configuration, else the
/// config's partition (and json). A flag or config value that contradicts the channel
/// configuration is a usage error, never silently overridden.
pub(crate) fn channel_setup(
    flags: ChannelFlags<'_>,
    schema: Option<&Path>,
) -> Result<ChannelSetup, ProjectError> {
    let settings = toml_settings(schema)?;
    let (paths, from) = if flags.channel_configs.is_empty() {
        (settings.channel_configs.clone(), "schema2iceberg.toml")
    } else {
        (flags.channel_configs.to_vec(), "--channel-config")
    };
    let checked = read_channel_configs(&paths, from)?;
    let source = agreed(&checked.partition_sources, "partition source", |s| {
        format!("`{s}`")
    })?;
    let format = agreed(&checked.record_formats, "record format", |f| {
        f.api_names().to_string()
    })?;
    let partition = match (source, flags.partition, &settings.partition) {
        (Some((name, location)), Some(flag), _) if flag != name => {
            return Err(ProjectError::Contradicts {
                flag: "--partition",
                value: flag.clone(),
                key: "SourceName",
                configured: name.clone(),
                at: at(location),
            })
        }
        (Some((name, location)), None, Some(configured)) if configured != name => {
            return Err(ProjectError::TomlPartitionContradicts {
                configured: configured.clone(),
                source_name: name.clone(),
                at: at(location),
            })
        }
        (Some((name, _)), _, _) => Some(name.clone()),
        (None, flag, configured) => flag.cloned().or(configured.clone()),
    };
    let record_format = match (format, flags.record_format) {
        (Some((found, location)), Some(flag)) if flag.format() != *found => {
            return Err(ProjectError::RecordFormatContradicts {
                flag: flag.format().as_str(),
                configured: found.api_names(),
                at: at(location),
            })
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
) -> Result<channel::ChannelCheck, ProjectError> {
    let mut files = Vec::new();
    for path in paths {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| ProjectError::ReadChannelConfig {
            shown: shown.clone(),
            from: from.to_string(),
            source,
        })?;
        let (file, diagnostics) = JsonFile::parse(shown.clone(), bytes);
        if let Some(d) = diagnostics.into_iter().next() {
            return Err(ProjectError::ChannelConfigNotJson {
                shown,
                message: d.message,
                at: at(&d.location),
            });
        }
        files.push(file);
    }
    let checked = check_channel_configs(&files);
    if let Some(d) = checked
        .diagnostics
        .iter()
        .find(|d| d.code == channel::UNRECOGNISED.name)
    {
        return Err(ProjectError::NotAChannelConfig {
            message: d.message.clone(),
            at: at(&d.location),
        });
    }
    // A channel configuration with an error is refused by every command that reads one, with
    // the diagnostics `check` reports for it (the same function finds them): the channel would
    // not be created from it, so no table, record verdict or delivery can be taken from it.
    let errors: Vec<Diagnostic> = checked
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .cloned()
        .collect();
    if !errors.is_empty() {
        return Err(ProjectError::ChannelConfigErrors(errors));
    }
    Ok(checked)
}

/// The values the configurations give for one setting, each with where it is.
pub(crate) fn values(
    settings: &[(Setting, String, Location)],
    which: Setting,
) -> Vec<(String, Location)> {
    settings
        .iter()
        .filter(|(setting, _, _)| *setting == which)
        .map(|(_, value, location)| (value.clone(), location.clone()))
        .collect()
}

/// A name from its flag or the configurations (a flag that contradicts a configuration is a
/// usage error), checked by the channel's rules.
pub(crate) fn table_name(
    flag: Option<&str>,
    flag_name: &'static str,
    settings: &[(Setting, String, Location)],
    which: Setting,
    namespace: bool,
) -> Result<Option<String>, ProjectError> {
    let key = if namespace { "Namespace" } else { "TableName" };
    let found = values(settings, which);
    let configured = agreed(&found, &key.to_ascii_lowercase(), |v| format!("`{v}`"))?;
    let (value, shown_key, place) = match (flag, configured) {
        (Some(flag), Some((value, location))) if flag != value => {
            return Err(ProjectError::Contradicts {
                flag: flag_name,
                value: flag.to_string(),
                key,
                configured: value.clone(),
                at: at(location),
            })
        }
        (Some(flag), _) => (flag.to_string(), flag_name, String::new()),
        (None, Some((value, location))) => (value.clone(), key, format!(" ({})", at(location))),
        (None, None) => return Ok(None),
    };
    match name_problem(&value, shown_key, namespace) {
        Some(problem) => Err(ProjectError::NameRefused {
            message: problem.message,
            place,
            help: problem.help,
            rule: problem.code.name,
        }),
        None => Ok(Some(value)),
    }
}

/// The codec from its flag or the configurations' `CompressionType` (a flag that contradicts a
/// configuration is a usage error), else ZSTD.
pub(crate) fn compression(
    flag: Option<Compression>,
    settings: &[(Setting, String, Location)],
) -> Result<Compression, ProjectError> {
    let found_values = values(settings, Setting::Compression);
    let configured = match agreed(&found_values, "CompressionType", |v| format!("`{v}`"))? {
        None => None,
        Some((value, location)) => Some((
            Compression::from_api(value).ok_or_else(|| ProjectError::BadCompression {
                value: value.clone(),
                at: at(location),
            })?,
            value,
            location,
        )),
    };
    match (flag, configured) {
        (Some(flag), Some((found, value, location))) if flag != found => {
            Err(ProjectError::CompressionContradicts {
                configured: value.clone(),
                at: at(location),
            })
        }
        (Some(flag), _) => Ok(flag),
        (None, Some((found, _, _))) => Ok(found),
        (None, None) => Ok(Compression::Zstd),
    }
}
