//! `schema2iceberg check`: the CI gate over a repository of schemas and channel configurations.

//! A check is planned (`plan`: config, files, channel configurations; every usage error), run
//! (`run`: each schema compiled on all cores) and reported (`report`: the files sorted, rendered).

mod classify;
pub(crate) mod config;
mod discover;
pub mod output;
mod plan;
mod policy_check;
mod report;
mod run;
mod severity;

use std::path::{Path, PathBuf};

use schema2iceberg_parser::{absolute_path, Draft};

pub use config::ChannelPolicies;
pub use discover::FileId;
use output::Report;
use plan::Planned;

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
    /// Policy documents to check against `channel_configs`: `--role-policy` (repeatable),
    /// `--trust-policy`, `--table-key-policy`, `--table-bucket-policy` and `--dlq-kms-key`,
    /// held as one channel's entry (its `configs` are left empty: they are `channel_configs`).
    pub policies: ChannelPolicies,
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
    /// The file standard output is redirected into, when it is one: never checked, since it
    /// is the report being written (`check --format json > report.json` in the folder searched).
    pub output: Option<FileId>,
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
            policies: ChannelPolicies::default(),
            draft: None,
            ref_root: None,
            allow: Vec::new(),
            warn: Vec::new(),
            deny: Vec::new(),
            color: false,
            output: None,
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

/// How `check` names every file it reports, in every format: relative to the folder it runs in,
/// with `../` for a file above it, so that GitHub attaches annotations to repository paths.
/// Schemas, the files their `$ref`s reach, channel configurations and the config follow this one
/// rule; only a file on another drive (Windows) keeps its absolute path.
pub(crate) fn display_of(path: &Path, dir: &Path) -> String {
    let path = absolute_path(path);
    let dir = absolute_path(dir);
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

/// Runs the whole check.
pub fn check(request: &CheckRequest, format: CheckFormat) -> Result<Checked, UsageError> {
    let plan = match plan::plan(request)? {
        Planned::Ready(plan) => plan,
        Planned::ConfigMistakes(failure) => {
            return report::config_failure(request, format, failure)
        }
    };
    let run = run::Run {
        request,
        format,
        config: &plan.config,
        cli_overrides: &plan.cli_overrides,
        groups: &plan.groups,
        channel_texts: &plan.channel_texts,
    };
    let mut outcomes = run::compile_all(&run, &plan.schemas, &plan.schema_groups);
    let policies = policy_check::check_all(request, &plan)?;
    outcomes.extend(policies.outcomes);
    report::report(
        request,
        format,
        &plan,
        outcomes,
        policies.channel_diagnostics,
    )
}
