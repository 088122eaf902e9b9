//! `schema2iceberg diff`: what a schema change does to the table, to a running channel, and
//! under Iceberg's evolution rules. This module holds the request, the result and the pairing of
//! two loaded sides; `load` reads a side, `git` finds the pairs of `--git`, `output` renders.

mod git;
mod load;

use std::io::Write;
use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use schema2iceberg_mapper::channel::{check_channel_configs, RecordFormat};
pub use schema2iceberg_mapper::diff::FailOn;
use schema2iceberg_mapper::diff::{diff, fails, ChangeKind, Side};
use schema2iceberg_parser::JsonFile;

use crate::app::{color_enabled, ColorArg, Command, ReadArgs};
use crate::project::channel::RecordFormatFlag;
use crate::project::config::{self, Config};
use crate::project::display_of;
use crate::project::source::SourceOptions;
use crate::render;
use crate::render::diff::report_changes;
pub use crate::render::diff::{ChangeReport, DiffFormat, FileDiff};
use git::{git_changes, git_pair};
use load::{load, Loaded, NotCompiled, SideOptions};

/// The `after_help` of `diff --help`.
pub(crate) const HELP: &str = "\
Both sides are compiled and their columns matched by full path. Each change gets three verdicts:
the table's (a channel keeps the table and the schema version it was created with, so a new
table needs a new channel), the channel's for the record format (GSR-framed records produced
with a new schema version go to the dead-letter queue; plain JSON records are validated against
the old schema, and the report says what each change does to them), and Iceberg's
schema-evolution rules, for teams that manage the table themselves. The record format comes from
the channel configuration that schema2iceberg.toml names, else from --record-format; with
neither, both verdicts are given. OLD may also be an existing table's Iceberg table-metadata
JSON or Iceberg schema JSON.

Examples:
  schema2iceberg diff old/event.json schemas/event.json --partition event_time
  schema2iceberg diff table-metadata.json schemas/event.json
  schema2iceberg diff --git origin/main schemas/ --format github

Exit codes: 0 nothing reaches --fail-on, 1 something does (or a side does not compile),
2 usage or I/O error. docs/diff.md explains why an innocent edit can change the table.";

#[derive(Debug, clap::Args)]
#[command(
    about = "Show what a schema change does to the table, to a running channel, and under Iceberg's evolution rules",
    after_help = HELP
)]
#[command(
    mut_arg("draft", |a| a.help("Read both sides as this draft, whatever their $schema says")),
    mut_arg("ref_root", |a| a.help("The folder that file $refs may read from, for both sides [default: as check: the config's ref-root for NEW, else the config's folder, else the current directory]")),
)]
pub struct DiffArgs {
    /// OLD and NEW, or with --git the PATHS to look under [default: .]
    #[arg(value_name = "FILES")]
    files: Vec<PathBuf>,
    /// Compare every changed *.json under PATHS with its version at REV (a commit, tag or branch).
    #[arg(long, value_name = "REV")]
    git: Option<String>,
    /// The partition field, for both sides [default: from schema2iceberg.toml, as check reads it:
    /// the channel configuration's SourceName wins]
    #[arg(long, value_name = "FIELD")]
    partition: Option<String>,
    #[command(flatten)]
    read: ReadArgs,
    /// How the channel's records are written, for schemas whose channel configuration
    /// schema2iceberg.toml does not name [default: verdicts for both]
    #[arg(long, value_enum, value_name = "FORMAT")]
    record_format: Option<RecordFormatFlag>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    format: DiffFormat,
    /// Exit 1 when a change reaches this level.
    #[arg(long, value_parser = fail_on_parser(), default_value = "table-change", value_name = "LEVEL")]
    fail_on: FailOn,
    #[command(flatten)]
    color: ColorArg,
}

/// `diff`, in the one shape of a command ([`Command`]).
#[derive(Debug)]
pub struct Diff;

impl Command for Diff {
    type Args = DiffArgs;
    type Request = DiffRequest;
    type Outcome = Diffed;
    type Error = DiffError;

    fn request(args: DiffArgs) -> Result<DiffRequest, DiffError> {
        if args.git.is_none() && args.files.len() != 2 {
            return Err(DiffError::NoPair);
        }
        crate::project::source::ref_root_is_dir(args.read.ref_root.as_deref())?;
        Ok(DiffRequest {
            dir: PathBuf::from("."),
            files: args.files,
            git: args.git,
            source: SourceOptions {
                draft: args.read.draft.draft,
                ref_root: args.read.ref_root,
                partition: args.partition.into_iter().collect(),
                color: args.format == DiffFormat::Text && color_enabled(args.color.color),
            },
            record_format: args.record_format.map(RecordFormatFlag::format),
            fail_on: args.fail_on,
            format: args.format,
        })
    }

    fn run(request: &DiffRequest, out: &mut dyn Write) -> Result<Diffed, DiffError> {
        let (diffed, text) = diff_all(request)?;
        out.write_all(text.as_bytes()).map_err(DiffError::Write)?;
        Ok(diffed)
    }

    fn finish(diffed: Diffed) -> u8 {
        diffed.exit
    }
}

/// `--fail-on`'s values: the mapper's [`FailOn`] levels by name, each with its help.
pub(crate) fn fail_on_parser() -> impl TypedValueParser<Value = FailOn> {
    PossibleValuesParser::new(
        FailOn::ALL.map(|level| PossibleValue::new(level.as_str()).help(fail_on_help(level))),
    )
    .try_map(|name: String| {
        FailOn::ALL
            .into_iter()
            .find(|level| level.as_str() == name)
            .ok_or("not a --fail-on level")
    })
}

fn fail_on_help(level: FailOn) -> &'static str {
    match level {
        FailOn::TableChange => "Any change to the table, which only a new channel creates (doc-only and table-neutral changes do not fail)",
        FailOn::DeadLetter => "Any change that can send records produced under NEW to the dead-letter queue, for the record format (for either, when it is not known)",
        FailOn::IcebergIncompatible => "Only changes that Iceberg's schema evolution forbids",
        FailOn::Never => "Report, and exit 0",
    }
}

impl DiffRequest {
    /// A request in `dir` with no options: compare `files`, fail on table changes.
    pub fn new(dir: impl Into<PathBuf>, files: Vec<PathBuf>) -> Self {
        DiffRequest {
            dir: dir.into(),
            files,
            git: None,
            source: SourceOptions::default(),
            record_format: None,
            fail_on: FailOn::TableChange,
            format: DiffFormat::Text,
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
    /// For both sides: the partition field, the draft override and `--ref-root` (relative to
    /// `dir`: the folder that file `$ref`s may read from, otherwise as `check` finds it); and
    /// whether to color the text format.
    pub source: SourceOptions,
    /// `--record-format`: for a schema whose channel configuration `schema2iceberg.toml` does
    /// not name (the configuration wins where it does).
    pub record_format: Option<RecordFormat>,
    /// When to exit 1.
    pub fail_on: FailOn,
    /// The output format.
    pub format: DiffFormat,
}

/// A usage or I/O problem: exit code 2, the message printed after `error: `.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// A file that cannot be read.
    #[error("cannot read `{shown}`: {source}")]
    Read {
        shown: String,
        source: std::io::Error,
    },
    /// `schema2iceberg.toml` has mistakes, drawn under the one `error:` line.
    #[error("{}", config_mistakes(shown, text, diagnostics, *color))]
    ConfigMistakes {
        shown: String,
        text: String,
        diagnostics: Vec<schema2iceberg_parser::Diagnostic>,
        color: bool,
    },
    /// Neither two files nor `--git`.
    #[error("give OLD and NEW, or --git REV [PATHS]...")]
    NoPair,
    /// git cannot be started.
    #[error("cannot run git: {0}")]
    GitNotRun(std::io::Error),
    /// `--ref-root` is not a folder.
    #[error(transparent)]
    Project(#[from] crate::project::ProjectError),
    /// Standard output cannot be written.
    #[error("cannot write the report: {0}")]
    Write(std::io::Error),
    /// git failed; its first line of standard error.
    #[error("git {args} failed: {first}")]
    GitFailed { args: String, first: String },
    /// `--git` outside a repository.
    #[error("--git compares with a revision, but `{}` is not inside a git repository", .0.display())]
    NotARepository(PathBuf),
}

/// The result, besides its rendering on standard output.
#[derive(Debug, Clone)]
pub struct Diffed {
    /// Every pair compared.
    pub files: Vec<FileDiff>,
    /// The exit code.
    pub exit: u8,
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

/// What the channel configurations that `schema2iceberg.toml` names for a schema decide.
struct FromChannel {
    /// The record format, or how it was chosen without one.
    choice: FormatChoice,
    /// The configurations' `SourceName`: the partition, as `check` takes it.
    partition: Option<String>,
}

/// The record format from the channel configurations that `schema2iceberg.toml` names for the
/// schema (`RecordFormatType`, `ValueConverter`), else from `--record-format`. Neither: `None`,
/// and every change gets a verdict for each format rather than a guess. The partition is their
/// `SourceName`, which wins over `--partition` and the config's `partition`, as in `check`.
fn from_channel(request: &DiffRequest, settings: &config::FileSettings) -> FromChannel {
    let channel_configs = &settings.channel_configs;
    let mut notes = Vec::new();
    let mut files = Vec::new();
    for path in channel_configs {
        let shown = display_of(path, &request.dir);
        match std::fs::read(path) {
            Ok(bytes) => files.push(JsonFile::parse(shown, bytes).0),
            Err(e) => notes.push(format!(
                "the channel configuration `{shown}` cannot be read ({e}), so its record format is not known"
            )),
        }
    }
    let checked = check_channel_configs(&files);
    let partition = checked
        .partition_sources
        .first()
        .map(|(source, _)| source.clone());
    if let Some(source) = &partition {
        if let Some(given) = request
            .source
            .partition
            .first()
            .or(settings.partition.as_ref())
            .filter(|given| *given != source)
        {
            notes.push(format!(
                "the channel configuration partitions on `{source}`, but `{given}` was given for this schema; the channel's `SourceName` is used"
            ));
        }
    }
    let found = checked.record_formats;
    let mut formats: Vec<RecordFormat> = found.iter().map(|(f, _)| *f).collect();
    formats.sort();
    formats.dedup();
    let from_config: Vec<String> = found
        .iter()
        .map(|(_, at)| format!("{}:{}:{}", at.file, at.line, at.column))
        .collect();
    let choice = match formats.as_slice() {
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
    };
    FromChannel { choice, partition }
}

/// The configuration's mistakes, rendered under one `error:` line.
fn config_mistakes(
    display: &str,
    text: &str,
    diagnostics: &[schema2iceberg_parser::Diagnostic],
    color: bool,
) -> String {
    let mut message = format!("`{display}` has mistakes, so nothing was compared:\n");
    for d in diagnostics {
        message.push_str(&render::diagnostic(Some(text), d, color));
        message.push('\n');
    }
    message.trim_end().to_string()
}

/// Runs `diff`: the result, and its rendering in the request's format.
fn diff_all(request: &DiffRequest) -> Result<(Diffed, String), DiffError> {
    let config = project_config(request)?;
    let mut files = Vec::new();
    let mut not_compiled = String::new();
    match &request.git {
        None => {
            let [old_path, new_path] = request.files.as_slice() else {
                return Err(DiffError::NoPair);
            };
            let old_full = request.dir.join(old_path);
            let new_full = request.dir.join(new_path);
            let read = |full: &std::path::Path, shown: &std::path::Path| {
                std::fs::read(full).map_err(|source| DiffError::Read {
                    shown: shown.display().to_string(),
                    source,
                })
            };
            let old_bytes = read(&old_full, old_path)?;
            let new_bytes = read(&new_full, new_path)?;
            let (options, choice) = SideOptions::for_new(request, &config, &new_full);
            let old = load(
                &old_path.display().to_string(),
                &old_full,
                old_bytes,
                &options,
            );
            let new = load(
                &new_path.display().to_string(),
                &new_full,
                new_bytes,
                &options,
            );
            files.push(pair(old, new, choice, &mut not_compiled));
        }
        Some(rev) => {
            for entry in git_changes(&request.dir, rev, &request.files, &config)? {
                files.push(git_pair(request, &config, rev, entry, &mut not_compiled)?);
            }
        }
    }
    let failing = files.iter().any(|f| {
        f.status == "not-compiled" && request.fail_on != FailOn::Never
            || fails(
                &f.changes
                    .iter()
                    .map(|c| c.change.clone())
                    .collect::<Vec<_>>(),
                request.fail_on,
            )
    });
    let stdout = render::diff::render(
        request.format,
        &files,
        &not_compiled,
        request.fail_on,
        failing,
    );
    let exit = if failing {
        crate::app::EXIT_SCHEMA_ERRORS
    } else {
        crate::app::EXIT_OK
    };
    Ok((Diffed { files, exit }, stdout))
}

/// The `schema2iceberg.toml` that `dir` is under, or none.
fn project_config(request: &DiffRequest) -> Result<Config, DiffError> {
    let Some(path) = config::find(&request.dir) else {
        return Ok(Config::none(&request.dir));
    };
    let display = display_of(&path, &request.dir);
    let text = std::fs::read_to_string(&path).map_err(|source| DiffError::Read {
        shown: display.clone(),
        source,
    })?;
    config::load(&path, &display, &text).map_err(|diagnostics| DiffError::ConfigMistakes {
        shown: display.clone(),
        text: text.clone(),
        diagnostics,
        color: request.source.color,
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
