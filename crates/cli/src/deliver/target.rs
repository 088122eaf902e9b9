//! Where and how a run delivers: the namespace and table, the Parquet codec, the dead-letter
//! prefix and the freshness, from the flags or else the channel configuration, with names
//! checked by the channel's rules.

use schema2iceberg_mapper::channel::Setting;
use schema2iceberg_parser::Location;

use super::dlq;
use crate::project::channel::{agreed, at, compression, table_name, values, Compression};
use crate::project::ProjectError;

/// Where to deliver cannot be decided: a usage error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TargetError {
    #[error(transparent)]
    Project(#[from] ProjectError),
    #[error("which table? give --namespace and --table (lowercase letters, digits and `_`, as the channel requires), or a --channel-config that names them")]
    WhichTable,
    #[error("DataFreshnessInSeconds is {value} ({at}); give a whole number of seconds (300–900)")]
    BadFreshness { value: String, at: String },
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

/// Resolves the target from the flags and the configurations' settings.
pub(crate) fn resolve(
    namespace_flag: Option<&str>,
    table_flag: Option<&str>,
    settings: &[(Setting, String, Location)],
) -> Result<Target, TargetError> {
    let namespace = table_name(
        namespace_flag,
        "--namespace",
        settings,
        Setting::Namespace,
        true,
    )?;
    let table = table_name(table_flag, "--table", settings, Setting::TableName, false)?;
    let (Some(namespace), Some(table)) = (namespace, table) else {
        return Err(TargetError::WhichTable);
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
                .ok_or_else(|| TargetError::BadFreshness {
                    value: value.clone(),
                    at: at(location),
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
