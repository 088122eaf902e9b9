//! `schema2iceberg diff`: what a schema change does to the table, to a running channel, and
//! under Iceberg's evolution rules.

use std::path::{Path, PathBuf};
use std::process::Command;

use iceberg::spec::{PartitionSpec, Schema, TableMetadata};
use schema2iceberg_mapper::diff::{
    diff, fails, Change, ChangeKind, ChannelVerdict, FailOn, IcebergVerdict, Side,
};
use schema2iceberg_mapper::{compile, ColumnSource, CompileOptions, Compiled};
use schema2iceberg_parser::{Draft, LoadOptions, Url, Workspace};
use serde::Serialize;

use crate::check::config::{self, Config};
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
    /// Any change that needs a new channel and table (doc-only and table-neutral changes do not).
    TableChange,
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
            fail_on: FailLevel::TableChange,
            color: false,
        }
    }
}

impl FailLevel {
    /// The flag's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FailLevel::TableChange => "table-change",
            FailLevel::IcebergIncompatible => "iceberg-incompatible",
            FailLevel::Never => "never",
        }
    }

    fn fail_on(self) -> FailOn {
        match self {
            FailLevel::TableChange => FailOn::TableChange,
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

/// What a side failed with: its diagnostics, rendered.
struct NotCompiled {
    display: String,
    rendered: String,
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
    /// What OLD is: `json-schema`, `iceberg-table-metadata` or `iceberg-schema`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_kind: Option<String>,
    /// The changes, in NEW's column order.
    pub changes: Vec<ChangeReport>,
    /// Why a side could not be compared, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
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
                Err(e) => Err(NotCompiled {
                    display: display.to_string(),
                    rendered: format!(
                        "`{display}` looks like Iceberg table metadata, but it is not valid: {e}\n"
                    ),
                }),
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
                Err(e) => Err(NotCompiled {
                    display: display.to_string(),
                    rendered: format!(
                        "`{display}` looks like an Iceberg schema, but it is not valid: {e}\n"
                    ),
                }),
            };
        }
    }
    let absolute =
        std::path::absolute(path_for_refs).unwrap_or_else(|_| path_for_refs.to_path_buf());
    let base = Url::from_file_path(&absolute)
        .or_else(|()| Url::parse("file:///schema.json"))
        .map_err(|e| NotCompiled {
            display: display.to_string(),
            rendered: format!("cannot make a base URI for `{display}`: {e}\n"),
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
            for d in compiled
                .diagnostics
                .iter()
                .filter(|d| d.severity == schema2iceberg_parser::Severity::Error)
            {
                let source = ws
                    .documents()
                    .iter()
                    .find(|doc| *doc.display == *d.location.file)
                    .and_then(|doc| doc.text_str());
                rendered.push_str(&render::diagnostic(source, d, color));
                rendered.push('\n');
            }
            Err(NotCompiled {
                display: display.to_string(),
                rendered,
            })
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

fn compare(old: &Loaded, new: &Loaded) -> Vec<ChangeReport> {
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
    report_changes(diff(&old_side, &new_side))
}

/// Runs `diff`.
pub fn run_diff(request: &DiffRequest, format: DiffFormat) -> Result<Diffed, DiffError> {
    let config = match config::find(&request.dir) {
        Some(path) => {
            let display = path.display().to_string();
            let text = std::fs::read_to_string(&path)
                .map_err(|e| error(format!("cannot read `{display}`: {e}")))?;
            config::load(&path, &display, &text).map_err(|diagnostics| {
                let mut message = String::new();
                for d in &diagnostics {
                    message.push_str(&render::diagnostic(Some(&text), d, request.color));
                    message.push('\n');
                }
                error(message)
            })?
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
            files.push(pair(old, new, &mut not_compiled));
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
        DiffFormat::Github => github(&files, fail_on),
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
    not_compiled: &mut String,
) -> FileDiff {
    match (old, new) {
        (Ok(old), Ok(new)) => {
            let mut changes = compare(&old, &new);
            let mut notes = Vec::new();
            if old.kind == "iceberg-schema" {
                // An Iceberg schema JSON carries no partition spec, so there is nothing to compare.
                changes.retain(|c| c.change.kind != ChangeKind::PartitionChanged);
                notes.push(format!(
                    "the partition spec is not compared: `{}` is an Iceberg schema, which carries none (give the table metadata to compare it)",
                    old.display
                ));
            }
            FileDiff {
                old: Some(old.display.clone()),
                new: Some(new.display.clone()),
                status: "changed".to_string(),
                old_kind: Some(old.kind.to_string()),
                changes,
                problem: None,
                notes,
            }
        }
        (old, new) => {
            let mut problem = Vec::new();
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
            }
            FileDiff {
                old: Some(old_name),
                new: Some(new_name),
                status: "not-compiled".to_string(),
                old_kind: None,
                changes: Vec::new(),
                problem: Some(problem.join("; ")),
                notes: Vec::new(),
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
        return Err(error(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(output.stdout)
}

/// Every `*.json` file under `paths` that differs between REV and the working tree, untracked
/// new files included; channel configurations and skipped files are left out.
fn git_changes(
    dir: &Path,
    rev: &str,
    paths: &[PathBuf],
    config: &Config,
) -> Result<Vec<GitEntry>, DiffError> {
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
    match entry.status {
        'A' => Ok(FileDiff {
            old: None,
            new: Some(display),
            status: "added".to_string(),
            old_kind: None,
            changes: Vec::new(),
            problem: None,
            notes: Vec::new(),
        }),
        'D' => Ok(FileDiff {
            old: Some(old_display),
            new: None,
            status: "removed".to_string(),
            old_kind: None,
            changes: Vec::new(),
            problem: None,
            notes: Vec::new(),
        }),
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
            Ok(pair(old, new, not_compiled))
        }
    }
}

fn channel_text(change: &Change) -> String {
    match change.channel {
        ChannelVerdict::NewChannelAndTable => "needs a new channel and a new table".to_string(),
        ChannelVerdict::KeepsRunning if change.records_may_fail => {
            "keeps running, but records that were valid before may now fail validation".to_string()
        }
        ChannelVerdict::KeepsRunning => "keeps running".to_string(),
    }
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

fn text(files: &[FileDiff], not_compiled: &str, level: FailLevel) -> String {
    let mut out = String::new();
    let mut total = 0;
    let mut new_channel = 0;
    let mut incompatible = 0;
    for file in files {
        let title = match (&file.old, &file.new) {
            (Some(old), Some(new)) => format!("{old} → {new}"),
            (None, Some(new)) => format!("{new} (added)"),
            (Some(old), None) => format!("{old} (removed)"),
            (None, None) => String::new(),
        };
        out.push_str(&format!("{title}\n"));
        for note in &file.notes {
            out.push_str(&format!("  note: {note}\n"));
        }
        match file.status.as_str() {
            "added" => out.push_str("  a new schema: its channel and table do not exist yet\n"),
            "removed" => out.push_str(
                "  the schema was removed: a channel that uses it keeps the table it created\n",
            ),
            "not-compiled" => out.push_str(&format!(
                "  not compared: {}\n",
                file.problem.clone().unwrap_or_default()
            )),
            _ if file.changes.is_empty() && file.old_kind.as_deref() == Some("json-schema") => {
                out.push_str("  no change to the table, its channel or its records\n")
            }
            _ if file.changes.is_empty() => out.push_str("  no change to the table\n"),
            _ => {}
        }
        for c in &file.changes {
            total += 1;
            new_channel += usize::from(c.change.channel == ChannelVerdict::NewChannelAndTable);
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
            out.push_str(&format!("    channel: {}\n", channel_text(&c.change)));
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
    out.push_str(&format!(
        "{total} change(s): {new_channel} need a new channel and table, {incompatible} break Iceberg evolution (--fail-on {})\n",
        level.as_str()
    ));
    out
}

fn github(files: &[FileDiff], fail_on: FailOn) -> String {
    let mut out = String::new();
    for c in files.iter().flat_map(|f| &f.changes) {
        let failing = fails(std::slice::from_ref(&c.change), fail_on);
        let command = if failing { "error" } else { "notice" };
        let mut message = format!(
            "{}; channel: {}; iceberg: {}. {}",
            kind_name(&c.change),
            channel_text(&c.change),
            iceberg_text(&c.change),
            c.change.reason
        );
        if let Some(note) = &c.change.note {
            message.push_str(&format!(" Note: {note}"));
        }
        let message = message
            .replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A");
        let place = match (&c.file, c.line, c.column) {
            (Some(file), Some(line), Some(column)) => format!(
                " file={},line={line},col={column},",
                file.replace(',', "%2C").replace(':', "%3A")
            ),
            _ => " ".to_string(),
        };
        out.push_str(&format!(
            "::{command}{place}title=diff {}::{message}\n",
            unnamed_path(&c.change)
                .unwrap_or(&c.change.path)
                .replace(',', "%2C")
                .replace(':', "%3A")
        ));
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
