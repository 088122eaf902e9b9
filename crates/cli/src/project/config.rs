//! The repository config, `schema2iceberg.toml`: per-glob partition fields, channel
//! configurations, drafts, skips and severity overrides.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::GlobSet;
use schema2iceberg_parser::{absolute_path, Diagnostic, Draft, LineIndex, Location, Span};
use serde::Deserialize;
use toml::Spanned;

use super::discover;
use super::severity::{Level, Overrides};
use crate::codes;

/// The file name looked for in the current directory and its parents.
pub const FILE_NAME: &str = "schema2iceberg.toml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    #[serde(default)]
    skip: Vec<Spanned<String>>,
    #[serde(default)]
    severity: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    schemas: Vec<RawEntry>,
    #[serde(default)]
    channels: Vec<RawChannel>,
}

/// One `[[channels]]` entry: a channel configuration and the policy documents beside it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawChannel {
    config: Spanned<OneOrMany>,
    role_policy: Option<Spanned<OneOrMany>>,
    trust_policy: Option<Spanned<String>>,
    table_key_policy: Option<Spanned<String>>,
    table_bucket_policy: Option<Spanned<String>>,
    dlq_kms_key: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawEntry {
    files: Spanned<OneOrMany>,
    partition: Option<Spanned<String>>,
    channel_config: Option<Spanned<OneOrMany>>,
    draft: Option<Spanned<String>>,
    ref_root: Option<Spanned<String>>,
    #[serde(default)]
    skip: bool,
    #[serde(default)]
    severity: BTreeMap<Spanned<String>, Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn items(&self) -> Vec<&str> {
        match self {
            OneOrMany::One(one) => vec![one.as_str()],
            OneOrMany::Many(many) => many.iter().map(String::as_str).collect(),
        }
    }
}

/// One `[[schemas]]` entry, checked.
#[derive(Debug, Clone)]
pub struct Entry {
    files: GlobSet,
    partition: Option<String>,
    channel_configs: Vec<PathBuf>,
    draft: Option<Draft>,
    ref_root: Option<PathBuf>,
    skip: bool,
    overrides: Overrides,
}

/// A channel and the policy documents to check against it: a `[[channels]]` entry, or the
/// command line's `--channel-config` with `--role-policy` and the other policy flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChannelPolicies {
    /// The channel configuration files.
    pub configs: Vec<PathBuf>,
    /// The policies attached to the execution role.
    pub role: Vec<PathBuf>,
    /// The role's trust policy.
    pub trust: Option<PathBuf>,
    /// The table key's policy.
    pub table_key: Option<PathBuf>,
    /// The table bucket's policy.
    pub table_bucket: Option<PathBuf>,
    /// The dead-letter bucket's SSE-KMS key.
    pub dlq_kms_key: Option<String>,
}

impl ChannelPolicies {
    /// Every file of the entry: the configuration files, then the policy documents.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut files = self.configs.clone();
        files.extend(self.policy_files());
        files
    }

    /// The policy documents.
    pub fn policy_files(&self) -> Vec<PathBuf> {
        let mut files = self.role.clone();
        files.extend(self.trust.iter().cloned());
        files.extend(self.table_key.iter().cloned());
        files.extend(self.table_bucket.iter().cloned());
        files
    }
}

/// The repository config, checked; [`Config::default`] when there is none.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The config file, when there is one.
    pub path: Option<PathBuf>,
    /// The folder globs are relative to.
    pub dir: PathBuf,
    /// Files never checked.
    pub skip: GlobSet,
    /// The global `[severity]` table.
    pub overrides: Overrides,
    entries: Vec<Entry>,
    /// The `[[channels]]` entries.
    pub channels: Vec<ChannelPolicies>,
}

/// What applies to one file: the matching entries, later keys winning.
#[derive(Debug, Clone, Default)]
pub struct FileSettings {
    /// The partition field.
    pub partition: Option<String>,
    /// Channel configuration files, as paths to read.
    pub channel_configs: Vec<PathBuf>,
    /// The draft override.
    pub draft: Option<Draft>,
    /// The reference root.
    pub ref_root: Option<PathBuf>,
    /// Whether the file is skipped.
    pub skip: bool,
    /// The severity overrides of the config (global, then entries).
    pub overrides: Overrides,
}

impl Config {
    /// The reference root of the schema at `path`, for `check` and `diff` alike, so that both
    /// read the same files: `flag` (`--ref-root`, relative to `dir`, the folder the command
    /// runs in), else the config's `ref_root` for the schema, else rule 17's default with the
    /// config's folder (or `dir`, without a config) as the current directory. A schema outside
    /// that folder reads from its own folder.
    pub fn ref_root_for(
        &self,
        flag: Option<&Path>,
        dir: &Path,
        settings: &FileSettings,
        path: &Path,
    ) -> PathBuf {
        // With a config, its folder (docs/ci.md), so that running from a subfolder reads the
        // same files.
        flag.map(|r| dir.join(r))
            .or(settings.ref_root.clone())
            .unwrap_or_else(|| {
                let absolute = absolute_path(path);
                let base = if self.path.is_some() { &self.dir } else { dir };
                let base = absolute_path(base);
                if absolute.starts_with(&base) {
                    base
                } else {
                    absolute.parent().map(Path::to_path_buf).unwrap_or(base)
                }
            })
    }

    /// No config file: nothing skipped, no overrides, globs relative to `dir`.
    pub fn none(dir: &Path) -> Config {
        Config {
            dir: dir.to_path_buf(),
            ..Config::default()
        }
    }

    /// Every channel configuration the entries name (`[[schemas]]` and `[[channels]]`): these
    /// files are validated, not compiled.
    pub fn channel_config_paths(&self) -> Vec<PathBuf> {
        self.entries
            .iter()
            .flat_map(|e| e.channel_configs.iter().cloned())
            .chain(self.channels.iter().flat_map(|c| c.configs.iter().cloned()))
            .collect()
    }

    /// The settings for `path`.
    pub fn settings_for(&self, path: &Path) -> FileSettings {
        let mut settings = FileSettings {
            skip: discover::matches_any(path, &self.skip, &self.dir),
            overrides: self.overrides.clone(),
            ..FileSettings::default()
        };
        for entry in &self.entries {
            if !discover::matches_any(path, &entry.files, &self.dir) {
                continue;
            }
            if entry.partition.is_some() {
                settings.partition.clone_from(&entry.partition);
            }
            if !entry.channel_configs.is_empty() {
                settings.channel_configs.clone_from(&entry.channel_configs);
            }
            if entry.draft.is_some() {
                settings.draft = entry.draft;
            }
            if entry.ref_root.is_some() {
                settings.ref_root.clone_from(&entry.ref_root);
            }
            settings.skip |= entry.skip;
            settings.overrides = settings.overrides.layered(&entry.overrides);
        }
        settings
    }
}

/// Whether `value` has the shape of a KMS key ARN, `arn:PARTITION:kms:REGION:ACCOUNT:key/ID`
/// (an alias ARN names no key that a policy's `Resource` can grant).
pub fn is_kms_key_arn(value: &str) -> bool {
    let parts: Vec<&str> = value.splitn(6, ':').collect();
    matches!(parts.as_slice(), ["arn", _, "kms", region, account, resource]
        if !region.is_empty() && !account.is_empty() && resource.strip_prefix("key/").is_some_and(|id| !id.is_empty()))
}

/// Finds `schema2iceberg.toml` in `start` or one of its parents.
pub fn find(start: &Path) -> Option<PathBuf> {
    // `..` removed by its text: the ancestors of `sub/..` start at `sub` otherwise.
    absolute_path(start)
        .ancestors()
        .map(|dir| dir.join(FILE_NAME))
        .find(|candidate| candidate.is_file())
}

struct Reader<'t> {
    display: String,
    text: &'t str,
    lines: LineIndex,
    diagnostics: Vec<Diagnostic>,
}

impl Reader<'_> {
    /// The diagnostic for a file that is not valid TOML or does not fit the config's shape; a
    /// `[schemas.…]` table above the first `[[schemas]]` gets its own message.
    fn toml_error(&mut self, e: &toml::de::Error) {
        if let Some((header, span)) = entry_table_before_entries(self.text) {
            self.error("/schemas", span, format!("`{header}` comes before any `[[schemas]]` entry, but it belongs to the `[[schemas]]` entry above it"));
            if let Some(d) = self.diagnostics.last_mut() {
                d.help = Some("move it below the `[[schemas]]` entry whose files it is for; for every file, use the top-level `[severity]`".to_string());
            }
            return;
        }
        let span = e.span().unwrap_or(0..1);
        self.error("", span, format!("invalid config: {}", e.message().trim()));
    }

    /// One `[[schemas]]` entry, its paths resolved against the config's folder `dir`; `None`
    /// when its `files` globs do not parse.
    fn entry(&mut self, i: usize, entry: &RawEntry, dir: &Path) -> Option<Entry> {
        let pointer = format!("/schemas/{i}");
        let files = match discover::glob_set(entry.files.get_ref().items()) {
            Ok(set) => set,
            Err(message) => {
                let message = message.to_string();
                self.error(&format!("{pointer}/files"), entry.files.span(), message);
                return None;
            }
        };
        let draft = entry.draft.as_ref().and_then(|d| {
            let parsed = Draft::from_flag(d.get_ref());
            if parsed.is_none() {
                self.error(
                    &format!("{pointer}/draft"),
                    d.span(),
                    format!(
                        "`{}` is not a supported draft: use \"04\", \"06\" or \"07\"",
                        d.get_ref()
                    ),
                );
            }
            parsed
        });
        let mut channel_configs = Vec::new();
        if let Some(list) = &entry.channel_config {
            for item in list.get_ref().items() {
                let resolved = dir.join(item);
                if resolved.is_file() {
                    channel_configs.push(resolved);
                } else {
                    self.error(
                        &format!("{pointer}/channel-config"),
                        list.span(),
                        format!("channel configuration `{item}` does not exist (paths are relative to the config file)"),
                    );
                }
            }
        }
        let ref_root = entry.ref_root.as_ref().and_then(|r| {
            let resolved = dir.join(r.get_ref());
            if resolved.is_dir() {
                Some(resolved)
            } else {
                self.error(
                    &format!("{pointer}/ref-root"),
                    r.span(),
                    format!(
                        "ref-root `{}` is not a directory (paths are relative to the config file)",
                        r.get_ref()
                    ),
                );
                None
            }
        });
        let overrides = self.overrides(&format!("{pointer}/severity"), &entry.severity);
        Some(Entry {
            files,
            partition: entry.partition.as_ref().map(|p| p.get_ref().clone()),
            channel_configs,
            draft,
            ref_root,
            skip: entry.skip,
            overrides,
        })
    }

    /// A path of an entry, relative to the config's folder `dir`, that must be a file.
    fn file(
        &mut self,
        dir: &Path,
        pointer: &str,
        item: &str,
        span: std::ops::Range<usize>,
    ) -> Option<PathBuf> {
        let resolved = dir.join(item);
        if resolved.is_file() {
            Some(resolved)
        } else {
            self.error(
                pointer,
                span,
                format!("`{item}` does not exist (paths are relative to the config file)"),
            );
            None
        }
    }

    /// One `[[channels]]` entry, its paths resolved against the config's folder `dir`.
    fn channel(&mut self, i: usize, raw: &RawChannel, dir: &Path) -> ChannelPolicies {
        let pointer = format!("/channels/{i}");
        let mut many = |key: &str, value: &Spanned<OneOrMany>| -> Vec<PathBuf> {
            value
                .get_ref()
                .items()
                .into_iter()
                .filter_map(|item| self.file(dir, &format!("{pointer}/{key}"), item, value.span()))
                .collect()
        };
        let configs = many("config", &raw.config);
        let role = raw
            .role_policy
            .as_ref()
            .map(|r| many("role-policy", r))
            .unwrap_or_default();
        let mut one = |key: &str, value: &Option<Spanned<String>>| {
            value
                .as_ref()
                .and_then(|v| self.file(dir, &format!("{pointer}/{key}"), v.get_ref(), v.span()))
        };
        let trust = one("trust-policy", &raw.trust_policy);
        let table_key = one("table-key-policy", &raw.table_key_policy);
        let table_bucket = one("table-bucket-policy", &raw.table_bucket_policy);
        ChannelPolicies {
            configs,
            role,
            trust,
            table_key,
            table_bucket,
            dlq_kms_key: raw.dlq_kms_key.as_ref().and_then(|k| {
                if is_kms_key_arn(k.get_ref()) {
                    Some(k.get_ref().clone())
                } else {
                    self.error(
                        &format!("{pointer}/dlq-kms-key"),
                        k.span(),
                        format!(
                            "`{}` is not a KMS key ARN (arn:aws:kms:REGION:ACCOUNT:key/ID)",
                            k.get_ref()
                        ),
                    );
                    None
                }
            }),
        }
    }

    fn error(&mut self, pointer: &str, span: std::ops::Range<usize>, message: String) {
        let (line, column) = self.lines.line_col(self.text.as_bytes(), span.start);
        self.diagnostics.push(Diagnostic::new(
            &codes::CONFIG_INVALID,
            Location {
                file: self.display.as_str().into(),
                pointer: pointer.to_string(),
                span: Span::new(span.start, span.end),
                line,
                column,
            },
            message,
        ));
    }

    fn overrides(
        &mut self,
        pointer: &str,
        table: &BTreeMap<Spanned<String>, Spanned<String>>,
    ) -> Overrides {
        let mut overrides = Overrides::default();
        for (code, level) in table {
            let name = code.get_ref();
            if name != "warnings" && codes::find(name).is_none() {
                self.error(
                    &format!("{pointer}/{name}"),
                    code.span(),
                    format!("`{name}` is not a diagnostic code (docs/diagnostics.md lists them; `warnings` is the group of all warnings)"),
                );
                continue;
            }
            match Level::parse(level.get_ref()) {
                Some(l) => overrides.set(name, l),
                None => self.error(
                    &format!("{pointer}/{name}"),
                    level.span(),
                    format!(
                        "`{}` is not a severity: use \"allow\", \"warn\" or \"deny\"",
                        level.get_ref()
                    ),
                ),
            }
        }
        overrides
    }
}

/// A `[schemas.…]` (or `[schemas]`) table header written before the first `[[schemas]]`, with
/// its span: TOML then makes `schemas` a table, and its own error ("duplicate key", at the later
/// `[[schemas]]`) does not say why.
fn entry_table_before_entries(text: &str) -> Option<(String, std::ops::Range<usize>)> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset + (line.len() - line.trim_start().len());
        offset += line.len();
        let header = line.trim().split('#').next().unwrap_or("").trim();
        if header.starts_with("[[") {
            let name: String = header.chars().filter(|c| !c.is_whitespace()).collect();
            if name == "[[schemas]]" {
                return None;
            }
            continue;
        }
        let name: String = header.chars().filter(|c| !c.is_whitespace()).collect();
        if name == "[schemas]" || name.starts_with("[schemas.") {
            return Some((header.to_string(), start..start + header.len()));
        }
    }
    None
}

/// Reads and checks a config file. `Err` holds the diagnostics (with the text, for snippets).
pub fn load(path: &Path, display: &str, text: &str) -> Result<Config, Vec<Diagnostic>> {
    let mut reader = Reader {
        display: display.to_string(),
        text,
        lines: LineIndex::new(text.as_bytes()),
        diagnostics: Vec::new(),
    };
    let raw: RawConfig = match toml::from_str(text) {
        Ok(raw) => raw,
        Err(e) => {
            reader.toml_error(&e);
            return Err(reader.diagnostics);
        }
    };
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let skip_globs: Vec<&str> = raw.skip.iter().map(|s| s.get_ref().as_str()).collect();
    let skip = match discover::glob_set(skip_globs) {
        Ok(set) => set,
        Err(message) => {
            let span = raw.skip.first().map(Spanned::span).unwrap_or(0..1);
            reader.error("/skip", span, message.to_string());
            GlobSet::empty()
        }
    };
    let overrides = reader.overrides("/severity", &raw.severity);
    let entries = raw
        .schemas
        .iter()
        .enumerate()
        .filter_map(|(i, entry)| reader.entry(i, entry, &dir))
        .collect();
    let channels = raw
        .channels
        .iter()
        .enumerate()
        .map(|(i, raw)| reader.channel(i, raw, &dir))
        .collect();
    if !reader.diagnostics.is_empty() {
        reader.diagnostics.sort_by_key(|d| d.location.span.start);
        return Err(reader.diagnostics);
    }
    Ok(Config {
        path: Some(path.to_path_buf()),
        dir,
        skip,
        overrides,
        entries,
        channels,
    })
}
