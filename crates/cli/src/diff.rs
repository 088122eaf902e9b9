//! `schema2iceberg diff`: what a schema change does to the table, to a running channel, and
//! under Iceberg's evolution rules.

use std::path::{Path, PathBuf};
use std::process::Command;

use iceberg::spec::{PartitionSpec, Schema, TableMetadata};
use schema2iceberg_mapper::channel::{check_channel_configs, RecordFormat};
use schema2iceberg_mapper::diff::{
    diff, fails, Change, ChangeKind, ChannelVerdict, FailOn, IcebergVerdict, Records, Side,
    TableVerdict,
};
use schema2iceberg_mapper::{compile, ColumnSource, CompileOptions, Compiled};
use schema2iceberg_parser::{Draft, JsonFile, LoadOptions, Severity, Url, Workspace};
use serde::Serialize;

use crate::check::config::{self, Config};
use crate::check::output::{escape_data, escape_property};
use crate::render;

/// Output formats of `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// One block a change, with both verdicts, then a summary.
    Text,
    /// One JSON object.
    Json,
    /// GitHub workflow commands on NEW's lines.
    Github,
}

/// The level at which `diff` exits with 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailLevel {
    /// Any change to the table, which only a new channel creates (doc-only and table-neutral
    /// changes do not fail).
    TableChange,
    /// Any change that can send records produced under NEW to the dead-letter queue, for the
    /// record format (for either, when it is not known).
    DeadLetter,
    /// Only changes that Iceberg's schema evolution forbids.
    IcebergIncompatible,
    /// Report, and exit 0.
    Never,
}

impl DiffRequest {
    /// A request in `dir` with no options: compare `files`, fail on table changes.
    pub fn new(dir: impl Into<PathBuf>, files: Vec<PathBuf>) -> Self {
        DiffRequest {
            dir: dir.into(),
            files,
            git: None,
            partition: None,
            draft: None,
            record_format: None,
            fail_on: FailLevel::TableChange,
            color: false,
        }
    }
}

/// The record format flag: how the channel's records are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RecordFormatFlag {
    /// Plain JSON records (Kinesis `RecordFormatType` and MSK `ValueConverter` `JSON`).
    Json,
    /// Records framed by the Glue Schema Registry serializer (Kinesis `GSR_JSON`, MSK
    /// `JSON_SCHEMA_GSR`).
    GsrJson,
}

impl RecordFormatFlag {
    /// The mapper's record format.
    pub fn format(self) -> RecordFormat {
        match self {
            RecordFormatFlag::Json => RecordFormat::Json,
            RecordFormatFlag::GsrJson => RecordFormat::GsrJson,
        }
    }
}

impl FailLevel {
    /// The flag's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FailLevel::TableChange => "table-change",
            FailLevel::DeadLetter => "dead-letter",
            FailLevel::IcebergIncompatible => "iceberg-incompatible",
            FailLevel::Never => "never",
        }
    }

    fn fail_on(self) -> FailOn {
        match self {
            FailLevel::TableChange => FailOn::TableChange,
            FailLevel::DeadLetter => FailOn::DeadLetter,
            FailLevel::IcebergIncompatible => FailOn::IcebergIncompatible,
            FailLevel::Never => FailOn::Never,
        }
    }
}

/// What to compare.
#[derive(Debug, Clone)]
pub struct DiffRequest {
    /// The folder the command runs in (paths, git and the config search start here).
    pub dir: PathBuf,
    /// `diff OLD NEW`: the two files. Empty with `git`.
    pub files: Vec<PathBuf>,
    /// `--git REV`: compare every changed schema under `files` (or all) with its version at REV.
    pub git: Option<String>,
    /// The partition field, for both sides.
    pub partition: Option<String>,
    /// The draft override, for both sides.
    pub draft: Option<Draft>,
    /// `--record-format`: for a schema whose channel configuration `schema2iceberg.toml` does
    /// not name (the configuration wins where it does).
    pub record_format: Option<RecordFormat>,
    /// When to exit 1.
    pub fail_on: FailLevel,
    /// Color text output.
    pub color: bool,
}

/// A usage or I/O problem: exit code 2.
#[derive(Debug, Clone)]
pub struct DiffError {
    /// For standard error.
    pub message: String,
}

fn error(message: impl Into<String>) -> DiffError {
    DiffError {
        message: message.into(),
    }
}

/// One side of a comparison, loaded.
struct Loaded {
    display: String,
    kind: &'static str,
    schema: Schema,
    spec: PartitionSpec,
    columns: Vec<ColumnSource>,
}

/// What a side failed with: its diagnostics, rendered, and one line for each.
struct NotCompiled {
    display: String,
    rendered: String,
    lines: Vec<String>,
}

/// The comparison of one pair of files.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct FileDiff {
    /// OLD's name (`path@REV` in git mode), absent for an added file.
    pub old: Option<String>,
    /// NEW's name, absent for a removed file.
    pub new: Option<String>,
    /// `changed`, `added`, `removed`, or `not-compiled`.
    pub status: String,
    /// The channel's record format, when known; each change then has the channel verdict for
    /// it, and otherwise one for each format.
    pub record_format: Option<RecordFormat>,
    /// Where the record format comes from: a channel configuration's path, or
    /// `--record-format`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_format_from: Option<String>,
    /// What OLD is: `json-schema`, `iceberg-table-metadata` or `iceberg-schema`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_kind: Option<String>,
    /// The changes, in NEW's column order.
    pub changes: Vec<ChangeReport>,
    /// Why a side could not be compared, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// The errors of a side that does not compile, one line each (`file:line:col: error[code]:
    /// message`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// What was not compared, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One change, with where it is.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct ChangeReport {
    /// The change and its verdicts.
    #[serde(flatten)]
    pub change: Change,
    /// The file the location is in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// RFC 6901 pointer in that file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// 1-based line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

/// The rendered result.
#[derive(Debug, Clone)]
pub struct Diffed {
    /// Every pair compared.
    pub files: Vec<FileDiff>,
    /// Standard output.
    pub stdout: String,
    /// The exit code.
    pub exit: u8,
}

fn is_table_metadata(value: &serde_json::Value) -> bool {
    value.get("format-version").is_some()
        && (value.get("schemas").is_some() || value.get("schema").is_some())
}

fn is_iceberg_schema(value: &serde_json::Value) -> bool {
    value.get("type").and_then(|t| t.as_str()) == Some("struct")
        && value.get("fields").is_some_and(|f| f.is_array())
}

/// Loads one side from bytes: an Iceberg table's metadata or schema, or a JSON Schema to compile.
fn load(
    display: &str,
    path_for_refs: &Path,
    bytes: Vec<u8>,
    partition: Option<&str>,
    draft: Option<Draft>,
    ref_root: &Path,
    color: bool,
) -> Result<Loaded, NotCompiled> {
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(&bytes) {
        if is_table_metadata(&value) {
            return match serde_json::from_value::<TableMetadata>(value) {
                Ok(metadata) => Ok(Loaded {
                    display: display.to_string(),
                    kind: "iceberg-table-metadata",
                    schema: metadata.current_schema().as_ref().clone(),
                    spec: metadata.default_partition_spec().as_ref().clone(),
                    columns: Vec::new(),
                }),
                Err(e) => Err(NotCompiled::one(
                    display,
                    format!(
                        "`{display}` looks like Iceberg table metadata, but it is not valid: {e}"
                    ),
                )),
            };
        }
        if is_iceberg_schema(&value) {
            return match serde_json::from_value::<Schema>(value) {
                Ok(schema) => Ok(Loaded {
                    display: display.to_string(),
                    kind: "iceberg-schema",
                    spec: PartitionSpec::unpartition_spec(),
                    schema,
                    columns: Vec::new(),
                }),
                Err(e) => Err(NotCompiled::one(
                    display,
                    format!("`{display}` looks like an Iceberg schema, but it is not valid: {e}"),
                )),
            };
        }
    }
    let absolute =
        std::path::absolute(path_for_refs).unwrap_or_else(|_| path_for_refs.to_path_buf());
    let base = Url::from_file_path(&absolute)
        .or_else(|()| Url::parse("file:///schema.json"))
        .map_err(|e| {
            NotCompiled::one(
                display,
                format!("cannot make a base URI for `{display}`: {e}"),
            )
        })?;
    let ws = Workspace::from_bytes(
        display,
        bytes,
        base,
        LoadOptions {
            draft,
            ref_root: Some(ref_root.to_path_buf()),
        },
    );
    let compiled: Compiled = compile(
        &ws,
        &CompileOptions {
            partition: partition.map(str::to_string).into_iter().collect(),
            column_sources: true,
            ..CompileOptions::default()
        },
    );
    match (compiled.schema, compiled.partition_spec) {
        (Some(schema), Some(spec)) => Ok(Loaded {
            display: display.to_string(),
            kind: "json-schema",
            schema,
            spec,
            columns: compiled.columns,
        }),
        _ => {
            let mut rendered = String::new();
            let mut lines = Vec::new();
            for d in compiled
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
            {
                let source = ws
                    .documents()
                    .iter()
                    .find(|doc| *doc.display == *d.location.file)
                    .and_then(|doc| doc.text_str());
                rendered.push_str(&render::diagnostic(source, d, color));
                rendered.push('\n');
                lines.push(format!(
                    "{}:{}:{}: error[{}]: {}",
                    d.location.file, d.location.line, d.location.column, d.code, d.message
                ));
            }
            Err(NotCompiled {
                display: display.to_string(),
                rendered,
                lines,
            })
        }
    }
}

impl NotCompiled {
    /// A side that failed for one reason, not with diagnostics.
    fn one(display: &str, message: String) -> NotCompiled {
        NotCompiled {
            display: display.to_string(),
            rendered: format!("error: {message}\n"),
            lines: vec![message],
        }
    }
}

fn report_changes(changes: Vec<Change>) -> Vec<ChangeReport> {
    changes
        .into_iter()
        .map(|change| {
            let location = change.location.clone();
            ChangeReport {
                file: location.as_ref().map(|l| l.file.to_string()),
                pointer: location.as_ref().map(|l| l.pointer.clone()),
                line: location.as_ref().map(|l| l.line),
                column: location.as_ref().map(|l| l.column),
                change,
            }
        })
        .collect()
}

fn compare(old: &Loaded, new: &Loaded, formats: &[RecordFormat]) -> Vec<ChangeReport> {
    let old_side = Side {
        schema: &old.schema,
        partition_spec: &old.spec,
        columns: &old.columns,
    };
    let new_side = Side {
        schema: &new.schema,
        partition_spec: &new.spec,
        columns: &new.columns,
    };
    report_changes(diff(&old_side, &new_side, formats))
}

/// The record format of one schema's channel, and where it comes from.
struct FormatChoice {
    format: Option<RecordFormat>,
    from: Option<String>,
    notes: Vec<String>,
}

impl FormatChoice {
    /// The formats to give verdicts for: the known one, or both.
    fn formats(&self) -> Vec<RecordFormat> {
        match self.format {
            Some(format) => vec![format],
            None => vec![RecordFormat::Json, RecordFormat::GsrJson],
        }
    }
}

fn shown_path(path: &Path, dir: &Path) -> String {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    path.strip_prefix(&dir)
        .unwrap_or(&path)
        .display()
        .to_string()
}

/// The record format from the channel configurations that `schema2iceberg.toml` names for the
/// schema (`RecordFormatType`, `ValueConverter`), else from `--record-format`. Neither: `None`,
/// and every change gets a verdict for each format rather than a guess.
fn record_format(request: &DiffRequest, channel_configs: &[PathBuf]) -> FormatChoice {
    let mut notes = Vec::new();
    let mut files = Vec::new();
    for path in channel_configs {
        let shown = shown_path(path, &request.dir);
        match std::fs::read(path) {
            Ok(bytes) => files.push(JsonFile::parse(shown, bytes).0),
            Err(e) => notes.push(format!(
                "the channel configuration `{shown}` cannot be read ({e}), so its record format is not known"
            )),
        }
    }
    let found = check_channel_configs(&files).record_formats;
    let mut formats: Vec<RecordFormat> = found.iter().map(|(f, _)| *f).collect();
    formats.sort();
    formats.dedup();
    let from_config: Vec<String> = found
        .iter()
        .map(|(_, at)| format!("{}:{}:{}", at.file, at.line, at.column))
        .collect();
    match formats.as_slice() {
        [format] => {
            if let Some(flag) = request.record_format.filter(|f| f != format) {
                notes.push(format!(
                    "`--record-format {}` is not used for this schema: its channel configuration says {}",
                    flag.as_str(),
                    format.api_names()
                ));
            }
            FormatChoice {
                format: Some(*format),
                from: from_config.first().cloned(),
                notes,
            }
        }
        [] => FormatChoice {
            format: request.record_format,
            from: request.record_format.map(|_| "--record-format".to_string()),
            notes,
        },
        _ => {
            notes.push(format!(
                "the channel configurations name more than one record format ({}), so the verdicts are given for each",
                from_config.join(", ")
            ));
            FormatChoice {
                format: None,
                from: None,
                notes,
            }
        }
    }
}

/// The configuration's mistakes, rendered under one `error:` line.
fn config_error(
    display: &str,
    text: &str,
    diagnostics: &[schema2iceberg_parser::Diagnostic],
    color: bool,
) -> DiffError {
    let mut message = format!("`{display}` has mistakes, so nothing was compared:\n");
    for d in diagnostics {
        message.push_str(&render::diagnostic(Some(text), d, color));
        message.push('\n');
    }
    error(message.trim_end().to_string())
}

/// Runs `diff`.
pub fn run_diff(request: &DiffRequest, format: DiffFormat) -> Result<Diffed, DiffError> {
    let config = match config::find(&request.dir) {
        Some(path) => {
            let display = shown_path(&path, &request.dir);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| error(format!("cannot read `{display}`: {e}")))?;
            config::load(&path, &display, &text)
                .map_err(|diagnostics| config_error(&display, &text, &diagnostics, request.color))?
        }
        None => Config::none(&request.dir),
    };
    let mut files = Vec::new();
    let mut not_compiled = String::new();
    match &request.git {
        None => {
            let [old_path, new_path] = request.files.as_slice() else {
                return Err(error("give OLD and NEW, or --git REV [PATHS]..."));
            };
            let old_full = request.dir.join(old_path);
            let new_full = request.dir.join(new_path);
            let old_bytes = std::fs::read(&old_full)
                .map_err(|e| error(format!("cannot read `{}`: {e}", old_path.display())))?;
            let new_bytes = std::fs::read(&new_full)
                .map_err(|e| error(format!("cannot read `{}`: {e}", new_path.display())))?;
            let settings = config.settings_for(&new_full);
            let partition = request.partition.clone().or(settings.partition.clone());
            let root = settings
                .ref_root
                .clone()
                .unwrap_or_else(|| request.dir.clone());
            let old = load(
                &old_path.display().to_string(),
                &old_full,
                old_bytes,
                partition.as_deref(),
                request.draft.or(settings.draft),
                &root,
                request.color,
            );
            let new = load(
                &new_path.display().to_string(),
                &new_full,
                new_bytes,
                partition.as_deref(),
                request.draft.or(settings.draft),
                &root,
                request.color,
            );
            let choice = record_format(request, &settings.channel_configs);
            files.push(pair(old, new, choice, &mut not_compiled));
        }
        Some(rev) => {
            for entry in git_changes(&request.dir, rev, &request.files, &config)? {
                files.push(git_pair(request, &config, rev, entry, &mut not_compiled)?);
            }
        }
    }
    let fail_on = request.fail_on.fail_on();
    let failing = files.iter().any(|f| {
        f.status == "not-compiled" && request.fail_on != FailLevel::Never
            || fails(
                &f.changes
                    .iter()
                    .map(|c| c.change.clone())
                    .collect::<Vec<_>>(),
                fail_on,
            )
    });
    let stdout = match format {
        DiffFormat::Text => text(&files, &not_compiled, request.fail_on),
        DiffFormat::Json => {
            let value = serde_json::json!({
                "fail-on": request.fail_on.as_str(),
                "fails": failing,
                "files": files,
            });
            let mut out = serde_json::to_string_pretty(&value).unwrap_or_default();
            out.push('\n');
            out
        }
        DiffFormat::Github => github(&files, fail_on, request.fail_on),
    };
    Ok(Diffed {
        files,
        stdout,
        exit: if failing {
            crate::EXIT_SCHEMA_ERRORS
        } else {
            crate::EXIT_OK
        },
    })
}

fn pair(
    old: Result<Loaded, NotCompiled>,
    new: Result<Loaded, NotCompiled>,
    choice: FormatChoice,
    not_compiled: &mut String,
) -> FileDiff {
    let mut notes = choice.notes.clone();
    match (old, new) {
        (Ok(old), Ok(new)) => {
            let formats = choice.formats();
            let mut changes = compare(&old, &new, &formats);
            if old.kind == "iceberg-schema" {
                // An Iceberg schema JSON carries no partition spec, so there is nothing to compare.
                changes.retain(|c| c.change.kind != ChangeKind::PartitionChanged);
                notes.push(format!(
                    "the partition spec is not compared: `{}` is an Iceberg schema, which carries none (give the table metadata to compare it)",
                    old.display
                ));
            }
            if old.kind != "json-schema"
                && formats.contains(&RecordFormat::Json)
                && !changes.is_empty()
            {
                // The channel validates against the JSON Schema it was created with, which a
                // table does not hold.
                notes.push(format!(
                    "`{}` is an Iceberg table, not the schema the channel validates against: the verdicts for JSON records are judged from the column types alone",
                    old.display
                ));
            }
            FileDiff {
                old: Some(old.display.clone()),
                new: Some(new.display.clone()),
                status: "changed".to_string(),
                record_format: choice.format,
                record_format_from: choice.from,
                old_kind: Some(old.kind.to_string()),
                changes,
                problem: None,
                errors: Vec::new(),
                notes,
            }
        }
        (old, new) => {
            let mut problem = Vec::new();
            let mut errors = Vec::new();
            let old_name = match &old {
                Ok(l) => l.display.clone(),
                Err(e) => e.display.clone(),
            };
            let new_name = match &new {
                Ok(l) => l.display.clone(),
                Err(e) => e.display.clone(),
            };
            for side in [old.err(), new.err()].into_iter().flatten() {
                problem.push(format!("`{}` does not compile", side.display));
                not_compiled.push_str(&side.rendered);
                errors.extend(side.lines);
            }
            FileDiff {
                old: Some(old_name),
                new: Some(new_name),
                status: "not-compiled".to_string(),
                record_format: choice.format,
                record_format_from: choice.from,
                old_kind: None,
                changes: Vec::new(),
                problem: Some(problem.join("; ")),
                errors,
                notes,
            }
        }
    }
}

/// A file that changed between REV and the working tree: (status letter, path).
struct GitEntry {
    status: char,
    path: PathBuf,
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, DiffError> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| error(format!("cannot run git: {e}")))?;
    if !output.status.success() {
        // git's first line says what went wrong; what follows is usage text.
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("no message");
        return Err(error(format!("git {} failed: {first}", args.join(" "))));
    }
    Ok(output.stdout)
}

/// `--git` needs a repository: say so in one line, before git prints its usage.
fn inside_repository(dir: &Path) -> Result<(), DiffError> {
    let inside = Command::new("git")
        .args(["rev-parse", "--is-inside-work-tree"])
        .current_dir(dir)
        .output()
        .map_err(|e| error(format!("cannot run git: {e}")))?;
    if inside.status.success() && String::from_utf8_lossy(&inside.stdout).trim() == "true" {
        Ok(())
    } else {
        let shown = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        Err(error(format!(
            "--git compares with a revision, but `{}` is not inside a git repository",
            shown.display()
        )))
    }
}

/// Every `*.json` file under `paths` that differs between REV and the working tree, untracked
/// new files included; channel configurations and skipped files are left out.
fn git_changes(
    dir: &Path,
    rev: &str,
    paths: &[PathBuf],
    config: &Config,
) -> Result<Vec<GitEntry>, DiffError> {
    inside_repository(dir)?;
    let mut spec: Vec<String> = vec!["--".to_string()];
    spec.extend(paths.iter().map(|p| p.display().to_string()));
    let mut args: Vec<&str> = vec!["diff", "--name-status", "--no-renames", rev];
    args.extend(spec.iter().map(String::as_str));
    let changed = String::from_utf8_lossy(&git(dir, &args)?).into_owned();
    let mut args: Vec<&str> = vec!["ls-files", "--others", "--exclude-standard"];
    args.extend(spec.iter().map(String::as_str));
    let untracked = String::from_utf8_lossy(&git(dir, &args)?).into_owned();
    let prefix = String::from_utf8_lossy(&git(dir, &["rev-parse", "--show-prefix"])?)
        .trim()
        .to_string();
    let mut entries: Vec<GitEntry> = changed
        .lines()
        .filter_map(|line| {
            let (status, path) = line.split_once('\t')?;
            let relative = path.strip_prefix(prefix.as_str()).unwrap_or(path);
            Some(GitEntry {
                status: status.chars().next()?,
                path: PathBuf::from(relative),
            })
        })
        .chain(untracked.lines().map(|path| GitEntry {
            status: 'A',
            path: PathBuf::from(path),
        }))
        .filter(|e| e.path.extension().is_some_and(|x| x == "json"))
        .collect();
    let channel_configs: Vec<PathBuf> = config
        .channel_config_paths()
        .into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    entries.retain(|e| {
        let full = dir.join(&e.path);
        !config.settings_for(&full).skip
            && !full
                .canonicalize()
                .is_ok_and(|c| channel_configs.contains(&c))
    });
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    entries.dedup_by(|a, b| a.path == b.path);
    Ok(entries)
}

fn git_pair(
    request: &DiffRequest,
    config: &Config,
    rev: &str,
    entry: GitEntry,
    not_compiled: &mut String,
) -> Result<FileDiff, DiffError> {
    let display = entry.path.display().to_string();
    let full = request.dir.join(&entry.path);
    let settings = config.settings_for(&full);
    let partition = request.partition.clone().or(settings.partition.clone());
    let root = settings
        .ref_root
        .clone()
        .unwrap_or_else(|| request.dir.clone());
    let old_display = format!("{display}@{rev}");
    let choice = record_format(request, &settings.channel_configs);
    let unpaired = |old: Option<String>, new: Option<String>, status: &str| FileDiff {
        old,
        new,
        status: status.to_string(),
        record_format: None,
        record_format_from: None,
        old_kind: None,
        changes: Vec::new(),
        problem: None,
        errors: Vec::new(),
        notes: Vec::new(),
    };
    match entry.status {
        'A' => Ok(unpaired(None, Some(display), "added")),
        'D' => Ok(unpaired(Some(old_display), None, "removed")),
        _ => {
            let spec = format!("{rev}:./{display}");
            let old_bytes = git(&request.dir, &["show", &spec])?;
            let new_bytes =
                std::fs::read(&full).map_err(|e| error(format!("cannot read `{display}`: {e}")))?;
            let old = load(
                &old_display,
                &full,
                old_bytes,
                partition.as_deref(),
                request.draft.or(settings.draft),
                &root,
                request.color,
            );
            let new = load(
                &display,
                &full,
                new_bytes,
                partition.as_deref(),
                request.draft.or(settings.draft),
                &root,
                request.color,
            );
            Ok(pair(old, new, choice, not_compiled))
        }
    }
}

fn records_text(records: Records) -> &'static str {
    match records {
        Records::Unaffected => "unaffected",
        Records::Delivered => "delivered",
        Records::PropertyDropped => "delivered without the new property",
        Records::SomeToDeadLetter => "some to the dead-letter queue",
        Records::AllToDeadLetter => "all to the dead-letter queue",
    }
}

fn format_label(format: RecordFormat) -> String {
    format!("{} records", format.api_names())
}

fn table_text(change: &Change) -> &'static str {
    match change.table {
        TableVerdict::Unchanged => "unchanged",
        TableVerdict::Changed => "changed (only a new channel creates the new table)",
    }
}

fn verdict_text(verdict: &ChannelVerdict) -> String {
    format!("{}: {}", records_text(verdict.records), verdict.reason)
}

fn iceberg_text(change: &Change) -> &'static str {
    match change.iceberg {
        IcebergVerdict::Allowed => "allowed",
        IcebergVerdict::Incompatible => "incompatible",
    }
}

fn kind_name(change: &Change) -> String {
    serde_json::to_value(change.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Where the record format comes from, for the text and GitHub formats.
fn format_line(file: &FileDiff) -> String {
    match (file.record_format, &file.record_format_from) {
        (Some(format), Some(from)) => format!("record format: {} (from {from})", format.api_names()),
        (Some(format), None) => format!("record format: {}", format.api_names()),
        (None, _) => "record format: not known (name the channel configuration in schema2iceberg.toml, or give --record-format), so the channel verdicts are given for both".to_string(),
    }
}

fn title(file: &FileDiff) -> String {
    match (&file.old, &file.new) {
        (Some(old), Some(new)) => format!("{old} → {new}"),
        (None, Some(new)) => format!("{new} (added)"),
        (Some(old), None) => format!("{old} (removed)"),
        (None, None) => String::new(),
    }
}

fn text(files: &[FileDiff], not_compiled: &str, level: FailLevel) -> String {
    let mut out = String::new();
    let mut total = 0;
    let mut table_changes = 0;
    let mut dead_letter = 0;
    let mut incompatible = 0;
    let mut not_compared = Vec::new();
    for file in files {
        out.push_str(&format!("{}\n", title(file)));
        if file.status == "changed" {
            out.push_str(&format!("  {}\n", format_line(file)));
        }
        for note in &file.notes {
            out.push_str(&format!("  note: {note}\n"));
        }
        match file.status.as_str() {
            "added" => out.push_str("  a new schema: its channel and table do not exist yet\n"),
            "removed" => out.push_str(
                "  the schema was removed: a channel that uses it keeps the table it created\n",
            ),
            "not-compiled" => {
                let problem = file.problem.clone().unwrap_or_default();
                out.push_str(&format!("  not compared: {problem}\n"));
                not_compared.push(format!("{}: {problem}", title(file)));
            }
            _ if file.changes.is_empty() && file.old_kind.as_deref() == Some("json-schema") => {
                out.push_str("  no change to the table, its channel or its records\n")
            }
            _ if file.changes.is_empty() => out.push_str("  no change to the table\n"),
            _ => {}
        }
        for c in &file.changes {
            total += 1;
            table_changes += usize::from(c.change.table == TableVerdict::Changed);
            dead_letter += usize::from(
                c.change
                    .channel
                    .iter()
                    .any(|v| v.records.reach_dead_letter()),
            );
            incompatible += usize::from(c.change.iceberg == IcebergVerdict::Incompatible);
            let what = match (&c.change.old, &c.change.new) {
                (Some(o), Some(n)) => format!(": {o} → {n}"),
                (None, Some(n)) => format!(": {n}"),
                (Some(o), None) => format!(": was {o}"),
                (None, None) => String::new(),
            };
            let path = match unnamed_path(&c.change) {
                Some(name) => name.to_string(),
                None => format!("`{}`", c.change.path),
            };
            out.push_str(&format!("  {} {path}{what}\n", kind_name(&c.change)));
            if let (Some(file), Some(line), Some(column)) = (&c.file, c.line, c.column) {
                out.push_str(&format!(
                    "    at {file}:{line}:{column} ({})\n",
                    c.pointer
                        .clone()
                        .filter(|p| !p.is_empty())
                        .unwrap_or_else(|| "root".to_string())
                ));
            }
            out.push_str(&format!("    table: {}\n", table_text(&c.change)));
            for verdict in &c.change.channel {
                out.push_str(&format!(
                    "    channel, {}: {}\n",
                    format_label(verdict.record_format),
                    verdict_text(verdict)
                ));
            }
            out.push_str(&format!("    iceberg: {}\n", iceberg_text(&c.change)));
            out.push_str(&format!("    why: {}\n", c.change.reason));
            if let Some(note) = &c.change.note {
                out.push_str(&format!("    note: {note}\n"));
            }
        }
        out.push('\n');
    }
    if !not_compiled.is_empty() {
        out.push_str(not_compiled);
        out.push('\n');
    }
    let summary = format!(
        "{total} change(s): {table_changes} change the table, {dead_letter} can send records to the dead-letter queue, {incompatible} break Iceberg evolution (--fail-on {})",
        level.as_str()
    );
    if not_compared.is_empty() {
        out.push_str(&format!("{summary}\n"));
    } else if not_compared.len() == files.len() {
        out.push_str(&format!(
            "could not compare {} (the errors are above)\n",
            not_compared.join("; ")
        ));
    } else {
        out.push_str(&format!(
            "{summary}\ncould not compare {} (the errors are above)\n",
            not_compared.join("; ")
        ));
    }
    out
}

fn github(files: &[FileDiff], fail_on: FailOn, level: FailLevel) -> String {
    let mut out = String::new();
    for file in files.iter().filter(|f| f.status == "not-compiled") {
        let command = if level == FailLevel::Never {
            "warning"
        } else {
            "error"
        };
        let mut message = format!(
            "could not compare {}: {}",
            title(file),
            file.problem.clone().unwrap_or_default()
        );
        for line in &file.errors {
            message.push_str(&format!("\n{line}"));
        }
        out.push_str(&format!(
            "::{command} title=diff::{}\n",
            escape_data(&message)
        ));
    }
    for file in files {
        for c in &file.changes {
            let failing = fails(std::slice::from_ref(&c.change), fail_on);
            let command = if failing { "error" } else { "notice" };
            let mut message = format!(
                "{}; table: {}; ",
                kind_name(&c.change),
                table_text(&c.change)
            );
            for verdict in &c.change.channel {
                message.push_str(&format!(
                    "channel, {}: {}; ",
                    format_label(verdict.record_format),
                    records_text(verdict.records)
                ));
            }
            message.push_str(&format!(
                "iceberg: {}. {}.",
                iceberg_text(&c.change),
                c.change.reason
            ));
            for verdict in &c.change.channel {
                message.push_str(&format!(
                    " {}: {}.",
                    format_label(verdict.record_format),
                    verdict.reason
                ));
            }
            if let Some(note) = &c.change.note {
                message.push_str(&format!(" Note: {note}."));
            }
            if c.change.channel.len() > 1 {
                message.push_str(&format!(" ({})", format_line(file)));
            }
            let place = match (&c.file, c.line, c.column) {
                (Some(file), Some(line), Some(column)) => {
                    format!(" file={},line={line},col={column},", escape_property(file))
                }
                _ => " ".to_string(),
            };
            out.push_str(&format!(
                "::{command}{place}title=diff {}::{}\n",
                escape_property(unnamed_path(&c.change).unwrap_or(&c.change.path)),
                escape_data(&message)
            ));
        }
    }
    out
}

/// What to show for a change that has no column path: the partition spec, or the root schema.
fn unnamed_path(change: &Change) -> Option<&'static str> {
    if !change.path.is_empty() {
        None
    } else if change.kind == ChangeKind::PartitionChanged {
        Some("(partition spec)")
    } else {
        Some("(root)")
    }
}
