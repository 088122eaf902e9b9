//! Where and how a run delivers: the namespace and table, the Parquet codec, the dead-letter
//! prefix and the freshness, from the flags or else the channel configuration, with names
//! checked by the channel's rules.

use schema2iceberg_mapper::channel::{name_problem, Setting};
use schema2iceberg_parser::Location;

use super::dlq;
use crate::records::{agreed, at};

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

/// The freshness when the configuration gives none: Kinesis's documented default.
pub(crate) const DEFAULT_FRESHNESS_SECONDS: u64 = 300;

/// Where and how a run delivers.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub(crate) namespace: String,
    pub(crate) table: String,
    pub(crate) compression: Compression,
    /// The dead-letter prefix: `ErrorOutputPrefix`, or [`dlq::default_prefix`].
    pub(crate) dlq_prefix: String,
    /// Where the prefix comes from, for messages about it.
    pub(crate) dlq_prefix_origin: String,
    /// `DataFreshnessInSeconds`: how long a get-records cycle gathers records.
    pub(crate) freshness_seconds: u64,
    /// A channel configuration names the table (so `--table` cannot name another).
    pub(crate) table_configured: bool,
}

impl Target {
    /// `namespace.table`.
    pub(crate) fn name(&self) -> String {
        format!("{}.{}", self.namespace, self.table)
    }
}

/// The values the configurations give for one setting, each with where it is.
fn values(settings: &[(Setting, String, Location)], which: Setting) -> Vec<(String, Location)> {
    settings
        .iter()
        .filter(|(setting, _, _)| *setting == which)
        .map(|(_, value, location)| (value.clone(), location.clone()))
        .collect()
}

/// A name from its flag or the configurations (a flag that contradicts a configuration is a
/// usage error), checked by the channel's rules.
pub(crate) fn name(
    flag: Option<&str>,
    flag_name: &str,
    settings: &[(Setting, String, Location)],
    which: Setting,
    namespace: bool,
) -> Result<Option<String>, String> {
    let key = if namespace { "Namespace" } else { "TableName" };
    let found = values(settings, which);
    let configured = agreed(&found, &key.to_ascii_lowercase(), |v| format!("`{v}`"))?;
    let (value, shown_key, place) = match (flag, configured) {
        (Some(flag), Some((value, location))) if flag != value => {
            return Err(format!(
                "{flag_name} `{flag}` contradicts the channel configuration, whose {key} is `{value}` ({}); drop one",
                at(location)
            ))
        }
        (Some(flag), _) => (flag.to_string(), flag_name, String::new()),
        (None, Some((value, location))) => (value.clone(), key, format!(" ({})", at(location))),
        (None, None) => return Ok(None),
    };
    match name_problem(&value, shown_key, namespace) {
        Some(problem) => Err(format!(
            "{}{place}: the channel would refuse it; {} (rule {})",
            problem.message, problem.help, problem.code.name
        )),
        None => Ok(Some(value)),
    }
}

/// The codec from its flag or the configurations' `CompressionType` (a flag that contradicts a
/// configuration is a usage error), else ZSTD.
pub(crate) fn compression(
    flag: Option<Compression>,
    settings: &[(Setting, String, Location)],
) -> Result<Compression, String> {
    let found_values = values(settings, Setting::Compression);
    let configured = match agreed(&found_values, "CompressionType", |v| format!("`{v}`"))? {
        None => None,
        Some((value, location)) => Some((
            Compression::from_api(value).ok_or_else(|| {
                format!(
                    "the CompressionType `{value}` ({}) is not NONE, ZSTD or SNAPPY",
                    at(location)
                )
            })?,
            value,
            location,
        )),
    };
    match (flag, configured) {
        (Some(flag), Some((found, value, location))) if flag != found => Err(format!(
            "--compression contradicts the channel configuration, whose CompressionType is `{value}` ({}); drop one",
            at(location)
        )),
        (Some(flag), _) => Ok(flag),
        (None, Some((found, _, _))) => Ok(found),
        (None, None) => Ok(Compression::Zstd),
    }
}

/// Resolves the target from the flags and the configurations' settings.
pub(crate) fn resolve(
    namespace_flag: Option<&str>,
    table_flag: Option<&str>,
    settings: &[(Setting, String, Location)],
) -> Result<Target, String> {
    let namespace = name(
        namespace_flag,
        "--namespace",
        settings,
        Setting::Namespace,
        true,
    )?;
    let table = name(table_flag, "--table", settings, Setting::TableName, false)?;
    let (Some(namespace), Some(table)) = (namespace, table) else {
        return Err("which table? give --namespace and --table (lowercase letters, digits and `_`, as the channel requires), or a --channel-config that names them".to_string());
    };
    let compression = compression(None, settings)?;
    let channel_names = values(settings, Setting::ChannelName);
    let channel_name = agreed(&channel_names, "ChannelName", |v| format!("`{v}`"))?
        .map(|(value, _)| value.as_str());
    let (dlq_prefix, dlq_prefix_origin) = match agreed(
        &values(settings, Setting::ErrorOutputPrefix),
        "ErrorOutputPrefix",
        |v| format!("`{v}`"),
    )? {
        Some((value, _)) => (value.clone(), format!("the ErrorOutputPrefix `{value}`")),
        None => {
            let prefix = dlq::default_prefix(channel_name, &namespace, &table);
            let origin = match channel_name {
                Some(name) => format!(
                    "the dead-letter prefix `{prefix}`, made from the ChannelName `{name}` as AWS's default is,"
                ),
                None => format!("the dead-letter prefix `{prefix}`"),
            };
            (prefix, origin)
        }
    };
    let freshness_seconds = match agreed(
        &values(settings, Setting::DataFreshness),
        "DataFreshnessInSeconds",
        |v| v.clone(),
    )? {
        None => DEFAULT_FRESHNESS_SECONDS,
        Some((value, location)) => {
            value
                .parse::<u64>()
                .ok()
                .filter(|s| *s > 0)
                .ok_or_else(|| {
                    format!(
                "DataFreshnessInSeconds is {value} ({}); give a whole number of seconds (300–900)",
                at(location)
            )
                })?
        }
    };
    Ok(Target {
        namespace,
        table,
        compression,
        dlq_prefix,
        dlq_prefix_origin,
        freshness_seconds,
        table_configured: !values(settings, Setting::TableName).is_empty(),
    })
}
