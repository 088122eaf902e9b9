//! Planning a check: reads the config and the command line's overrides, expands the paths into
//! the schemas to compile, and reads and checks each channel configuration once. Every usage
//! error of `check` is found here, before anything is compiled.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use schema2iceberg_mapper::channel::check_channel_configs;
use schema2iceberg_parser::{Diagnostic, JsonFile, Location};

use super::{CheckRequest, UsageError};
use crate::codes;
use crate::project::config::{self, ChannelPolicies, Config};
use crate::project::discover;
use crate::project::display_of;
use crate::project::severity::{Level, Overrides};

/// A schema to compile.
pub(super) struct Checkable {
    pub(super) path: PathBuf,
    pub(super) display: String,
}

/// The channel configurations that a set of schemas shares, checked together once.
pub(super) struct ChannelGroup {
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) sources: Vec<(String, Location)>,
}

/// Everything a check runs on, read and validated.
pub(super) struct Plan {
    pub(super) config: Config,
    pub(super) cli_overrides: Overrides,
    /// The schemas to compile, in the order found.
    pub(super) schemas: Vec<Checkable>,
    /// For each schema, the paths of the channel configurations that apply to it (a key of
    /// `groups`, or empty).
    pub(super) schema_groups: Vec<Vec<PathBuf>>,
    pub(super) groups: BTreeMap<Vec<PathBuf>, ChannelGroup>,
    /// Each channel configuration read, with its parse diagnostics.
    pub(super) config_files: BTreeMap<PathBuf, (JsonFile, Vec<Diagnostic>)>,
    /// The text of each channel configuration, by its display name, for snippets.
    pub(super) channel_texts: BTreeMap<String, String>,
    /// The channels whose policy documents are checked: the command line's, and each
    /// `[[channels]]` entry with a file among the paths checked.
    pub(super) policy_checks: Vec<ChannelPolicies>,
}

/// What planning found: a check to run, or a config whose mistakes are the whole report.
pub(super) enum Planned {
    Ready(Box<Plan>),
    ConfigMistakes(ConfigFailure),
}

fn command_line_overrides(request: &CheckRequest) -> Result<Overrides, UsageError> {
    let mut overrides = Overrides::default();
    let mut seen = BTreeSet::new();
    for (codes_given, level) in [
        (&request.allow, Level::Allow),
        (&request.warn, Level::Warn),
        (&request.deny, Level::Deny),
    ] {
        for code in codes_given {
            if code != "warnings" && codes::find(code).is_none() {
                return Err(UsageError::UnknownCode(code.to_string()));
            }
            if !seen.insert(code.clone()) {
                return Err(UsageError::CodeTwice(code.to_string()));
            }
            overrides.set(code, level);
        }
    }
    Ok(overrides)
}

/// A config file with mistakes: reported like any file, and nothing else is checked.
pub(super) struct ConfigFailure {
    pub(super) display: String,
    pub(super) text: String,
    pub(super) diagnostics: Vec<Diagnostic>,
}

enum ConfigError {
    Usage(UsageError),
    Mistakes(ConfigFailure),
}

impl From<UsageError> for ConfigError {
    fn from(e: UsageError) -> Self {
        ConfigError::Usage(e)
    }
}

fn load_config(request: &CheckRequest) -> Result<Config, ConfigError> {
    let path = match &request.config {
        Some(path) => {
            let path = request.dir.join(path);
            if !path.is_file() {
                return Err(ConfigError::Usage(UsageError::NoConfig(display_of(
                    &path,
                    &request.dir,
                ))));
            }
            Some(path)
        }
        None => config::find(&request.dir),
    };
    let Some(path) = path else {
        return Ok(Config::none(&request.dir));
    };
    let display = display_of(&path, &request.dir);
    let text = std::fs::read_to_string(&path).map_err(|source| UsageError::Read {
        shown: display.clone(),
        source,
    })?;
    config::load(&path, &display, &text).map_err(|diagnostics| {
        ConfigError::Mistakes(ConfigFailure {
            display,
            text,
            diagnostics,
        })
    })
}

/// Plans the whole check; an `Err` is a usage error (exit code 2).
pub(super) fn plan(request: &CheckRequest) -> Result<Planned, UsageError> {
    let cli_overrides = command_line_overrides(request)?;
    let config = match load_config(request) {
        Ok(config) => config,
        Err(ConfigError::Usage(e)) => return Err(e),
        Err(ConfigError::Mistakes(failure)) => return Ok(Planned::ConfigMistakes(failure)),
    };
    let cli_policies = command_line_policies(request)?;
    let found = find_files(request, &config, &cli_policies)?;
    let channels = read_channels(request, &config, &found)?;
    let mut policy_checks: Vec<ChannelPolicies> = cli_policies.into_iter().collect();
    let real = |p: &Path| p.canonicalize().ok();
    policy_checks.extend(
        config
            .channels
            .iter()
            .filter(|entry| {
                entry
                    .files()
                    .iter()
                    .filter_map(|f| real(f))
                    .any(|f| found.touched.contains(&f))
            })
            .cloned(),
    );
    Ok(Planned::Ready(Box::new(Plan {
        config,
        cli_overrides,
        schemas: found.schemas,
        schema_groups: channels.schema_groups,
        groups: channels.groups,
        config_files: channels.config_files,
        channel_texts: channels.channel_texts,
        policy_checks,
    })))
}

/// The command line's policy documents, as one channel's entry with its `--channel-config`;
/// `None` when no policy flag is given.
fn command_line_policies(request: &CheckRequest) -> Result<Option<ChannelPolicies>, UsageError> {
    let flags = &request.policies;
    if flags.policy_files().is_empty() && flags.dlq_kms_key.is_none() {
        return Ok(None);
    }
    if request.channel_configs.is_empty() {
        return Err(UsageError::PoliciesWithoutChannel);
    }
    if let Some(key) = flags
        .dlq_kms_key
        .as_deref()
        .filter(|k| !config::is_kms_key_arn(k))
    {
        return Err(UsageError::NotAKmsKey(key.to_string()));
    }
    let join = |p: &PathBuf| request.dir.join(p);
    let entry = ChannelPolicies {
        configs: request.channel_configs.iter().map(join).collect(),
        role: flags.role.iter().map(join).collect(),
        trust: flags.trust.as_ref().map(join),
        table_key: flags.table_key.as_ref().map(join),
        table_bucket: flags.table_bucket.as_ref().map(join),
        dlq_kms_key: flags.dlq_kms_key.clone(),
    };
    for path in entry.policy_files() {
        if !path.is_file() {
            return Err(UsageError::NoPolicyDocument(display_of(
                &path,
                &request.dir,
            )));
        }
    }
    Ok(Some(entry))
}

/// The files a check covers, sorted out.
struct Found {
    /// The schemas to compile.
    schemas: Vec<Checkable>,
    /// `--channel-config`, joined to the folder the check runs in.
    cli_channel: Vec<PathBuf>,
    /// The channel configurations among the files: validated, not compiled.
    given_channels: Vec<PathBuf>,
    /// The real path of every file the paths expand to, for choosing the `[[channels]]`
    /// entries to check.
    touched: BTreeSet<PathBuf>,
}

/// Expands the paths into files, and sorts them into schemas and channel configurations; a
/// channel configuration given alone brings the schemas that use it. Over 80 lines: one pass
/// that sorts each file into its kind, with the usage errors of each case where it arises.
fn find_files(
    request: &CheckRequest,
    config: &Config,
    cli_policies: &Option<ChannelPolicies>,
) -> Result<Found, UsageError> {
    let paths: Vec<(String, PathBuf)> = if request.paths.is_empty() {
        vec![(".".to_string(), request.dir.clone())]
    } else {
        request
            .paths
            .iter()
            .map(|p| (p.display().to_string(), request.dir.join(p)))
            .collect()
    };
    let mut files = discover::expand(&paths, &config.skip, &config.dir)?;
    if let Some(output) = request.output {
        files.retain(|path| discover::FileId::of_path(path) != Some(output));
    }
    let cli_channel: Vec<PathBuf> = request
        .channel_configs
        .iter()
        .map(|p| request.dir.join(p))
        .collect();
    for path in &cli_channel {
        if !path.is_file() {
            return Err(UsageError::NoChannelConfig(display_of(path, &request.dir)));
        }
    }
    // Each channel configuration, by its real path, as the config or the command line names it.
    let channel_paths: BTreeMap<PathBuf, PathBuf> = cli_channel
        .iter()
        .cloned()
        .chain(config.channel_config_paths())
        .filter_map(|p| Some((p.canonicalize().ok()?, p)))
        .collect();
    // Policy documents are checked with their channel, never compiled.
    let policy_files: BTreeSet<PathBuf> = config
        .channels
        .iter()
        .flat_map(|c| c.policy_files())
        .chain(cli_policies.iter().flat_map(|c| c.policy_files()))
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let touched: BTreeSet<PathBuf> = files.iter().filter_map(|p| p.canonicalize().ok()).collect();
    let mut schemas = Vec::new();
    // The channel configurations among the files: validated, not compiled.
    let mut given_channels: Vec<PathBuf> = Vec::new();
    for path in files {
        if path.canonicalize().is_ok_and(|c| policy_files.contains(&c)) {
            continue;
        }
        if let Some(named) = path.canonicalize().ok().and_then(|c| channel_paths.get(&c)) {
            given_channels.push(named.clone());
            continue;
        }
        let settings = config.settings_for(&path);
        if settings.skip {
            continue;
        }
        schemas.push(Checkable {
            display: display_of(&path, &request.dir),
            path,
        });
    }
    if !given_channels.is_empty() {
        add_schemas_using(config, &given_channels, &request.dir, &mut schemas)?;
    }
    if !request.source.partition.is_empty() && schemas.len() > 1 {
        return Err(UsageError::PartitionForMany(schemas.len()));
    }
    Ok(Found {
        schemas,
        cli_channel,
        given_channels,
        touched,
    })
}

/// The channel configurations of a check, read and checked.
struct Channels {
    schema_groups: Vec<Vec<PathBuf>>,
    groups: BTreeMap<Vec<PathBuf>, ChannelGroup>,
    config_files: BTreeMap<PathBuf, (JsonFile, Vec<Diagnostic>)>,
    channel_texts: BTreeMap<String, String>,
}

/// Reads and checks each channel configuration once, whatever number of schemas use it: once
/// for each group of configurations that a schema shares with others, and on its own when a
/// configuration was given but no checked schema uses it. Over 80 lines: the three cases share
/// the texts and diagnostics they fill.
fn read_channels(
    request: &CheckRequest,
    config: &Config,
    found: &Found,
) -> Result<Channels, UsageError> {
    let Found {
        schemas,
        cli_channel,
        given_channels,
        ..
    } = found;
    // Channel configurations are read and checked once each, whatever number of schemas use them.
    let mut groups: BTreeMap<Vec<PathBuf>, ChannelGroup> = BTreeMap::new();
    let mut config_files: BTreeMap<PathBuf, (JsonFile, Vec<Diagnostic>)> = BTreeMap::new();
    let schema_groups: Vec<Vec<PathBuf>> = schemas
        .iter()
        .map(|s| {
            let mut group = cli_channel.clone();
            group.extend(config.settings_for(&s.path).channel_configs);
            group.sort();
            group.dedup();
            group
        })
        .collect();
    for group in &schema_groups {
        if group.is_empty() || groups.contains_key(group) {
            continue;
        }
        for path in group {
            if config_files.contains_key(path) {
                continue;
            }
            let bytes = std::fs::read(path).map_err(|source| UsageError::Read {
                shown: display_of(path, &request.dir),
                source,
            })?;
            config_files.insert(
                path.clone(),
                JsonFile::parse(display_of(path, &request.dir), bytes),
            );
        }
        let files: Vec<JsonFile> = group
            .iter()
            .filter_map(|p| config_files.get(p).map(|(f, _)| f.clone()))
            .collect();
        let checked = check_channel_configs(&files);
        groups.insert(
            group.clone(),
            ChannelGroup {
                diagnostics: checked.diagnostics,
                sources: checked.partition_sources,
            },
        );
    }

    // A channel configuration that no checked schema uses is still validated, on its own.
    for path in given_channels {
        if config_files.contains_key(path) {
            continue;
        }
        let bytes = std::fs::read(path).map_err(|source| UsageError::Read {
            shown: display_of(path, &request.dir),
            source,
        })?;
        let parsed = JsonFile::parse(display_of(path, &request.dir), bytes);
        let checked = check_channel_configs(std::slice::from_ref(&parsed.0));
        groups.insert(
            vec![path.clone()],
            ChannelGroup {
                diagnostics: checked.diagnostics,
                sources: checked.partition_sources,
            },
        );
        config_files.insert(path.clone(), parsed);
    }

    let channel_texts: BTreeMap<String, String> = config_files
        .values()
        .filter_map(|(f, _)| Some((f.display.clone(), f.text_str()?.to_string())))
        .collect();
    Ok(Channels {
        schema_groups,
        groups,
        config_files,
        channel_texts,
    })
}

/// Adds to `schemas` every schema under the config's folder that uses one of `channels`, so that
/// a change to a channel configuration alone is checked together with the schemas it applies to.
fn add_schemas_using(
    config: &Config,
    channels: &[PathBuf],
    dir: &Path,
    schemas: &mut Vec<Checkable>,
) -> Result<(), UsageError> {
    let real = |p: &Path| p.canonicalize().ok();
    let wanted: BTreeSet<PathBuf> = channels.iter().filter_map(|p| real(p)).collect();
    let mut present: BTreeSet<PathBuf> = schemas.iter().filter_map(|s| real(&s.path)).collect();
    let everything = discover::expand(
        &[(".".to_string(), config.dir.clone())],
        &config.skip,
        &config.dir,
    )?;
    for path in everything {
        let settings = config.settings_for(&path);
        let uses = settings
            .channel_configs
            .iter()
            .filter_map(|c| real(c))
            .any(|c| wanted.contains(&c));
        if settings.skip || !uses {
            continue;
        }
        if real(&path).is_some_and(|p| present.insert(p)) {
            schemas.push(Checkable {
                display: display_of(&path, dir),
                path,
            });
        }
    }
    Ok(())
}
