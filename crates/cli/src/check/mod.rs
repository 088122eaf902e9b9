//! `schema2iceberg check`: the CI gate over a repository of schemas and channel configurations.

pub mod classify;
pub mod config;
pub mod discover;
pub mod output;
pub mod severity;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use schema2iceberg_mapper::channel::check_channel_configs;
use schema2iceberg_mapper::{compile, CompileOptions};
use schema2iceberg_parser::{
    Diagnostic, Draft, JsonFile, LoadOptions, Location, Severity, Url, Workspace,
};

use crate::codes;
use crate::render;
use config::Config;
use output::{DiagnosticReport, FileKind, FileReport, Report, TableSummary};
use severity::{Level, Overrides};

/// Output formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    /// rustc-style diagnostics grouped by file, then a summary line.
    Text,
    /// One JSON report (its schema: docs/report.schema.json).
    Json,
    /// GitHub Actions workflow commands, shown as annotations on the pull request.
    Github,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
}

/// What to check, and how; the command line in a form tests can build.
#[derive(Debug, Clone)]
pub struct CheckRequest {
    /// The folder the check runs in: relative paths and the config search start here.
    pub dir: PathBuf,
    /// Files, directories and globs, relative to `dir`; empty means `dir` itself.
    pub paths: Vec<PathBuf>,
    /// An explicit config file; otherwise `schema2iceberg.toml` in `dir` or a parent.
    pub config: Option<PathBuf>,
    /// The partition field, for a single schema.
    pub partition: Option<String>,
    /// Channel configurations that apply to every schema checked.
    pub channel_configs: Vec<PathBuf>,
    /// The draft override for every schema.
    pub draft: Option<Draft>,
    /// The reference root for every schema.
    pub ref_root: Option<PathBuf>,
    /// `--allow`, `--warn`, `--deny` codes (or `warnings`), in that order of the vectors.
    pub allow: Vec<String>,
    /// See `allow`.
    pub warn: Vec<String>,
    /// See `allow`.
    pub deny: Vec<String>,
    /// Color text output.
    pub color: bool,
}

impl CheckRequest {
    /// A request to check everything in `dir`, with no options.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        CheckRequest {
            dir: dir.into(),
            paths: Vec::new(),
            config: None,
            partition: None,
            channel_configs: Vec::new(),
            draft: None,
            ref_root: None,
            allow: Vec::new(),
            warn: Vec::new(),
            deny: Vec::new(),
            color: false,
        }
    }
}

/// The rendered result of one check.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The report, format-independent.
    pub report: Report,
    /// What goes to standard output in the requested format.
    pub stdout: String,
    /// The exit code.
    pub exit: u8,
}

/// A mistake in the request itself: exit code 2.
#[derive(Debug, Clone)]
pub struct UsageError {
    /// The message for standard error, printed after `error: `.
    pub message: String,
}

struct Checkable {
    path: PathBuf,
    display: String,
}

struct SchemaOutcome {
    report: FileReport,
    text: String,
}

/// How `check` names every file it reports, in every format: relative to the folder it runs in,
/// with `../` for a file above it, so that GitHub attaches annotations to repository paths.
/// Schemas, the files their `$ref`s reach, channel configurations and the config follow this one
/// rule; only a file on another drive (Windows) keeps its absolute path.
fn display_of(path: &Path, dir: &Path) -> String {
    let path = lexical_absolute(path);
    let dir = lexical_absolute(dir);
    let common = path
        .components()
        .zip(dir.components())
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return path.display().to_string();
    }
    let mut relative = PathBuf::new();
    for _ in common..dir.components().count() {
        relative.push("..");
    }
    relative.extend(path.components().skip(common));
    if relative.as_os_str().is_empty() {
        ".".to_string()
    } else {
        relative.display().to_string()
    }
}

/// `path` made absolute against the current directory, with `.` and `..` removed by their text
/// (as a shell's `cd` does), so that `schemas/../channels/x.json` and `channels/x.json` agree.
fn lexical_absolute(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut cleaned = PathBuf::new();
    for component in absolute.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                cleaned.pop();
            }
            other => cleaned.push(other),
        }
    }
    cleaned
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
                return Err(UsageError {
                    message: format!("`{code}` is not a diagnostic code (docs/diagnostics.md lists them; `warnings` is the group of all warnings)"),
                });
            }
            if !seen.insert(code.clone()) {
                return Err(UsageError {
                    message: format!(
                        "`{code}` is given to more than one of --allow, --warn and --deny"
                    ),
                });
            }
            overrides.set(code, level);
        }
    }
    Ok(overrides)
}

/// A config file with mistakes: reported like any file, and nothing else is checked.
struct ConfigFailure {
    display: String,
    text: String,
    diagnostics: Vec<Diagnostic>,
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
                return Err(ConfigError::Usage(UsageError {
                    message: format!(
                        "config file `{}` does not exist",
                        display_of(&path, &request.dir)
                    ),
                }));
            }
            Some(path)
        }
        None => config::find(&request.dir),
    };
    let Some(path) = path else {
        return Ok(Config::none(&request.dir));
    };
    let display = display_of(&path, &request.dir);
    let text = std::fs::read_to_string(&path).map_err(|e| UsageError {
        message: format!("cannot read `{display}`: {e}"),
    })?;
    config::load(&path, &display, &text).map_err(|diagnostics| {
        ConfigError::Mistakes(ConfigFailure {
            display,
            text,
            diagnostics,
        })
    })
}

/// Runs the whole check.
pub fn check(request: &CheckRequest, format: CheckFormat) -> Result<Checked, UsageError> {
    let cli_overrides = command_line_overrides(request)?;
    let config = match load_config(request) {
        Ok(config) => config,
        Err(ConfigError::Usage(e)) => return Err(e),
        Err(ConfigError::Mistakes(failure)) => return Ok(config_failure(request, format, failure)),
    };
    let paths: Vec<(String, PathBuf)> = if request.paths.is_empty() {
        vec![(".".to_string(), request.dir.clone())]
    } else {
        request
            .paths
            .iter()
            .map(|p| (p.display().to_string(), request.dir.join(p)))
            .collect()
    };
    let files = discover::expand(&paths, &config.skip, &config.dir)
        .map_err(|message| UsageError { message })?;
    let cli_channel: Vec<PathBuf> = request
        .channel_configs
        .iter()
        .map(|p| request.dir.join(p))
        .collect();
    for path in &cli_channel {
        if !path.is_file() {
            return Err(UsageError {
                message: format!(
                    "channel configuration `{}` does not exist",
                    display_of(path, &request.dir)
                ),
            });
        }
    }
    // Each channel configuration, by its real path, as the config or the command line names it.
    let channel_paths: BTreeMap<PathBuf, PathBuf> = cli_channel
        .iter()
        .cloned()
        .chain(config.channel_config_paths())
        .filter_map(|p| Some((p.canonicalize().ok()?, p)))
        .collect();
    let mut schemas = Vec::new();
    // The channel configurations among the files: validated, not compiled.
    let mut given_channels: Vec<PathBuf> = Vec::new();
    for path in files {
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
        add_schemas_using(&config, &given_channels, &request.dir, &mut schemas)?;
    }
    if request.partition.is_some() && schemas.len() > 1 {
        return Err(UsageError {
            message: format!(
                "--partition is for a single schema, but {} schemas were found; set `partition` per glob in {}",
                schemas.len(),
                config::FILE_NAME
            ),
        });
    }

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
            let bytes = std::fs::read(path).map_err(|e| UsageError {
                message: format!("cannot read `{}`: {e}", display_of(path, &request.dir)),
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
    for path in &given_channels {
        if config_files.contains_key(path) {
            continue;
        }
        let bytes = std::fs::read(path).map_err(|e| UsageError {
            message: format!("cannot read `{}`: {e}", display_of(path, &request.dir)),
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
    let run = Run {
        request,
        format,
        config: &config,
        cli_overrides: &cli_overrides,
        groups: &groups,
        channel_texts: &channel_texts,
    };
    let outcomes = compile_all(&run, &schemas, &schema_groups);

    // Channel configuration files are reported as files of their own.
    let mut channel_diagnostics: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
    for (file, parse_diagnostics) in config_files.values() {
        channel_diagnostics
            .entry(file.display.clone())
            .or_default()
            .extend(parse_diagnostics.iter().cloned());
    }
    for group in groups.values() {
        for d in &group.diagnostics {
            channel_diagnostics
                .entry(d.location.file.to_string())
                .or_default()
                .push(d.clone());
        }
    }
    let mut reports: Vec<(FileReport, String)> =
        outcomes.into_iter().map(|o| (o.report, o.text)).collect();
    for (display, diagnostics) in channel_diagnostics {
        let overrides = config.overrides.layered(&cli_overrides);
        let mut kept: Vec<Diagnostic> = Vec::new();
        for d in diagnostics.into_iter().filter_map(|d| overrides.apply(d)) {
            if !kept
                .iter()
                .any(|k| k.code == d.code && k.location == d.location && k.message == d.message)
            {
                kept.push(d);
            }
        }
        kept.sort_by_key(|d| d.location.span.start);
        let source = config_files
            .values()
            .find(|(f, _)| f.display == display)
            .and_then(|(f, _)| f.text_str());
        let text = render_file_text(&display, &kept, |_| source, request.color);
        reports.push((
            FileReport {
                path: display,
                kind: FileKind::ChannelConfig,
                status: output::status(&kept),
                table: None,
                diagnostics: kept.iter().map(DiagnosticReport::from_diagnostic).collect(),
            },
            text,
        ));
    }
    reports.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    Ok(finish(reports, format, None))
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
    )
    .map_err(|message| UsageError { message })?;
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

/// The report of a run whose config has mistakes: the config's diagnostics, exit code 2.
fn config_failure(request: &CheckRequest, format: CheckFormat, failure: ConfigFailure) -> Checked {
    let text = render_file_text(
        &failure.display,
        &failure.diagnostics,
        |_| Some(failure.text.as_str()),
        request.color,
    );
    let report = FileReport {
        path: failure.display.clone(),
        kind: FileKind::Config,
        status: output::status(&failure.diagnostics),
        table: None,
        diagnostics: failure
            .diagnostics
            .iter()
            .map(DiagnosticReport::from_diagnostic)
            .collect(),
    };
    let mistakes = match failure.diagnostics.len() {
        1 => "a mistake".to_string(),
        n => format!("{n} mistakes"),
    };
    // Said once: a summary that counts the config as a checked file would contradict it.
    let closing = format!(
        "error: `{}` has {mistakes}, so nothing was checked",
        failure.display
    );
    let mut checked = finish(vec![(report, text)], format, Some(closing));
    checked.exit = crate::EXIT_USAGE;
    checked
}

/// Builds the report from every file's result and renders it in `format`. `closing` replaces
/// the summary line of the text and GitHub formats.
fn finish(
    reports: Vec<(FileReport, String)>,
    format: CheckFormat,
    closing: Option<String>,
) -> Checked {
    let files: Vec<FileReport> = reports.iter().map(|(r, _)| r.clone()).collect();
    let summary = output::summarize(&files);
    let closing = closing.unwrap_or_else(|| output::summary_line(&summary));
    let report = Report {
        report_version: 1,
        tool: "schema2iceberg".to_string(),
        files,
        summary,
    };
    let stdout = match format {
        CheckFormat::Text => {
            let mut out: String = reports.iter().map(|(_, text)| text.as_str()).collect();
            out.push_str(&closing);
            out.push('\n');
            out
        }
        CheckFormat::Json => {
            let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
            text.push('\n');
            text
        }
        CheckFormat::Github => output::github(&report, &closing),
        CheckFormat::Sarif => output::sarif(&report),
    };
    let exit = if report.summary.errors > 0 {
        crate::EXIT_SCHEMA_ERRORS
    } else {
        crate::EXIT_OK
    };
    Checked {
        report,
        stdout,
        exit,
    }
}

struct ChannelGroup {
    diagnostics: Vec<Diagnostic>,
    sources: Vec<(String, Location)>,
}

/// Compiles every schema on all cores; the results come back in input order.
/// What every schema of one run shares.
struct Run<'a> {
    request: &'a CheckRequest,
    format: CheckFormat,
    config: &'a Config,
    cli_overrides: &'a Overrides,
    groups: &'a BTreeMap<Vec<PathBuf>, ChannelGroup>,
    channel_texts: &'a BTreeMap<String, String>,
}

fn compile_all(
    run: &Run<'_>,
    schemas: &[Checkable],
    schema_groups: &[Vec<PathBuf>],
) -> Vec<SchemaOutcome> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<SchemaOutcome>>> =
        Mutex::new((0..schemas.len()).map(|_| None).collect());
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(schemas.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(schema) = schemas.get(i) else { break };
                let group = schema_groups.get(i).and_then(|g| run.groups.get(g));
                let outcome = check_schema(run, schema, group);
                if let Ok(mut slots) = results.lock() {
                    if let Some(slot) = slots.get_mut(i) {
                        *slot = Some(outcome);
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

fn check_schema(run: &Run<'_>, schema: &Checkable, group: Option<&ChannelGroup>) -> SchemaOutcome {
    let Run {
        request,
        format,
        config,
        cli_overrides,
        channel_texts,
        ..
    } = *run;
    let settings = config.settings_for(&schema.path);
    let overrides = settings.overrides.layered(cli_overrides);
    let mut extra = Vec::new();
    let mut partition = request.partition.clone().or(settings.partition.clone());
    let mut origin = None;
    if let Some((source, location)) = group.and_then(|g| g.sources.first()) {
        match &partition {
            Some(p) if p != source => extra.push(Diagnostic::new(
                &codes::PARTITION_MISMATCH,
                location.clone(),
                format!("the channel configuration partitions on `{source}`, but `{p}` was given for this schema; the channel's `SourceName` is used"),
            )),
            _ => {}
        }
        partition = Some(source.clone());
        origin = Some(location.clone());
    }
    let bytes = match std::fs::read(&schema.path) {
        Ok(bytes) => bytes,
        Err(e) => {
            let d = Diagnostic::new(
                &schema2iceberg_parser::codes::REF_UNREADABLE,
                Location {
                    file: schema.display.as_str().into(),
                    line: 1,
                    column: 1,
                    ..Location::default()
                },
                format!("cannot read `{}`: {e}", schema.display),
            );
            let report = FileReport {
                path: schema.display.clone(),
                kind: FileKind::Schema,
                status: output::status(std::slice::from_ref(&d)),
                table: None,
                diagnostics: vec![DiagnosticReport::from_diagnostic(&d)],
            };
            let text = render_file_text(&schema.display, &[d], |_| None, request.color);
            return SchemaOutcome { report, text };
        }
    };
    let absolute = std::path::absolute(&schema.path).unwrap_or_else(|_| schema.path.clone());
    let base = Url::from_file_path(&absolute).or_else(|()| Url::parse("file:///schema.json"));
    // Rule 17's default, with the folder `check` runs in as the current directory; with a
    // config, its folder (docs/ci.md), so that running from a subfolder reads the same files.
    let ref_root = request
        .ref_root
        .as_ref()
        .map(|r| request.dir.join(r))
        .or(settings.ref_root.clone())
        .unwrap_or_else(|| {
            let base = if config.path.is_some() {
                &config.dir
            } else {
                &request.dir
            };
            let dir = std::path::absolute(base).unwrap_or_else(|_| base.clone());
            if absolute.starts_with(&dir) {
                dir
            } else {
                absolute.parent().map(Path::to_path_buf).unwrap_or(dir)
            }
        });
    let options = LoadOptions {
        draft: request.draft.or(settings.draft),
        ref_root: Some(ref_root),
    };
    let ws = match base {
        Ok(base) => Workspace::from_bytes(&schema.display, bytes, base, options),
        Err(_) => Workspace::from_bytes(&schema.display, bytes, fallback_base(), options),
    };
    let main = ws.documents().first();
    let main_json = main.and_then(|d| d.json.as_deref());
    let main_text = main.map_or(&[][..], |d| d.text.as_slice());
    let content = classify::classify(main_json, &schema.display, main_text);
    if let Some(d) = classify::diagnostic(content, main_json, &schema.display, main_text) {
        let kept: Vec<Diagnostic> = overrides.apply(d).into_iter().collect();
        let text = render_file_text(
            &schema.display,
            &kept,
            |_| main.and_then(|d| d.text_str()),
            request.color,
        );
        let report = FileReport {
            path: schema.display.clone(),
            kind: match content {
                classify::Content::ChannelConfig => FileKind::ChannelConfig,
                classify::Content::DefinitionsOnly => FileKind::Definitions,
                _ => FileKind::Other,
            },
            status: output::status(&kept),
            table: None,
            diagnostics: kept.iter().map(DiagnosticReport::from_diagnostic).collect(),
        };
        return SchemaOutcome { report, text };
    }
    let compiled = compile(
        &ws,
        &CompileOptions {
            partition: partition.clone().into_iter().collect(),
            partition_origin: origin,
            lints: true,
            column_sources: false,
        },
    );
    // The parser names a referenced file beside the main file's name, or from the process's
    // current directory; `check` names it from its own folder, as every other file.
    let renames: Vec<(String, String)> = ws
        .documents()
        .iter()
        .skip(1)
        .filter_map(|doc| {
            let shown = display_of(&doc.url.to_file_path().ok()?, &request.dir);
            (shown != doc.display).then(|| (doc.display.clone(), shown))
        })
        .collect();
    let mut diagnostics: Vec<Diagnostic> = extra;
    diagnostics.extend(compiled.diagnostics.iter().cloned());
    let kept: Vec<Diagnostic> = diagnostics
        .into_iter()
        .filter_map(|d| overrides.apply(d))
        .map(|mut d| {
            if let Some((_, shown)) = renames.iter().find(|(old, _)| *old == *d.location.file) {
                d.location.file = shown.as_str().into();
            }
            d
        })
        .collect();
    let table = compiled.schema.as_ref().map(|s| TableSummary {
        columns: s.as_struct().fields().len(),
        fields: usize::try_from(s.highest_field_id()).unwrap_or(0),
        partition: compiled
            .partition_spec
            .as_ref()
            .filter(|spec| !spec.fields().is_empty())
            .and(partition.clone()),
    });
    // Snippets cost more than the compile; only the text format shows them.
    let text = if format != CheckFormat::Text {
        String::new()
    } else {
        render_file_text(
            &schema.display,
            &kept,
            |file| {
                let file = renames
                    .iter()
                    .find(|(_, shown)| shown == file)
                    .map_or(file, |(old, _)| old.as_str());
                ws.documents()
                    .iter()
                    .find(|d| d.display == file)
                    .and_then(|d| d.text_str())
                    .or_else(|| channel_texts.get(file).map(String::as_str))
            },
            request.color,
        )
    };
    let report = FileReport {
        path: schema.display.clone(),
        kind: FileKind::Schema,
        status: output::status(&kept),
        table,
        diagnostics: kept.iter().map(DiagnosticReport::from_diagnostic).collect(),
    };
    SchemaOutcome { report, text }
}

fn fallback_base() -> Url {
    match Url::parse("file:///schema.json") {
        Ok(url) => url,
        Err(_) => fallback_base(),
    }
}

/// The text block of one file: a header and its diagnostics; nothing for a clean file.
fn render_file_text<'s>(
    display: &str,
    diagnostics: &[Diagnostic],
    source: impl Fn(&str) -> Option<&'s str>,
    color: bool,
) -> String {
    if diagnostics.is_empty() {
        return String::new();
    }
    let count = |s: Severity, word: &str| {
        let n = diagnostics.iter().filter(|d| d.severity == s).count();
        if n == 1 {
            format!("1 {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    let mut out = format!(
        "{display}: {}, {}, {}\n",
        count(Severity::Error, "error"),
        count(Severity::Warning, "warning"),
        count(Severity::Note, "note")
    );
    for d in diagnostics {
        out.push_str(&render::diagnostic(source(&d.location.file), d, color));
        out.push_str("\n\n");
    }
    out
}
