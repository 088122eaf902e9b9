//! The corpus run: `check` over the real-world schemas in `../shared/corpus`, summarised per source.
//!
//! The summary is what `cargo xtask corpus` prints, what `crates/cli/tests/corpus.rs` snapshots,
//! and what `docs/dev/corpus.md` analyses. It is built from `check`'s JSON report rather than from a
//! compile loop of its own, so the corpus sees exactly what a CI user sees: the same discovery,
//! the same config (Snowplow read as draft-04), the same lints.

use std::collections::BTreeMap;
use std::fmt;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::app::run_captured;
use crate::check::output::{FileKind, Report, SeverityName, Status};
use crate::check::{Check, CheckFormat, CheckRequest, Checked};

/// The corpus sources, alphabetically: the folders of `../shared/corpus` (its `SOURCES.md`).
pub const SOURCES: [&str; 7] = [
    "asyncapi-spec-json-schemas",
    "cloudevents-spec",
    "json-schema-test-suite",
    "mozilla-pipeline-schemas",
    "octokit-webhooks",
    "schemastore",
    "snowplow-iglu-central",
];

/// The corpus folder, relative to the repository root.
pub(crate) const CORPUS_DIR: &str = "../shared/corpus";

/// The `check` config for the corpus, relative to the repository root.
pub(crate) const CONFIG_FILE: &str = "testdata/corpus/schema2iceberg.toml";

/// What to run: the corpus, the config that reads it, and optionally one source.
#[derive(Debug, Clone)]
pub struct CorpusRequest {
    /// The corpus root (`../shared/corpus` beside the repository).
    pub corpus: PathBuf,
    /// The `schema2iceberg.toml` that sets each source's options.
    pub config: PathBuf,
    /// One source of [`SOURCES`]; `None` runs them all.
    pub source: Option<String>,
}

impl CorpusRequest {
    /// The whole corpus, with the repository's corpus config; `repository` is the repository root.
    pub fn for_repository(repository: &Path) -> Self {
        CorpusRequest {
            corpus: repository.join(CORPUS_DIR),
            config: repository.join(CONFIG_FILE),
            source: None,
        }
    }
}

/// Why a corpus run could not happen at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CorpusError {
    /// The corpus folder does not exist.
    MissingCorpus(PathBuf),
    /// `--source` names no known source.
    UnknownSource(String),
    /// `check` itself refused to run (a usage error or a config with mistakes).
    Check(String),
}

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorpusError::MissingCorpus(path) => write!(
                f,
                "the corpus folder `{}` does not exist (it is ../shared/corpus beside the repository; see its SOURCES.md)",
                path.display()
            ),
            CorpusError::UnknownSource(name) => write!(
                f,
                "`{name}` is not a corpus source; the sources are: {}",
                SOURCES.join(", ")
            ),
            CorpusError::Check(message) => write!(f, "check could not run: {message}"),
        }
    }
}

impl std::error::Error for CorpusError {}

/// Runs `check` in JSON over the corpus (or one source of it): the result and the JSON report.
///
/// `check` runs in the corpus root whatever the source, so paths, the reference root and the
/// config's globs are the same whether one source or all are run, and so are the results.
pub fn run_check(request: &CorpusRequest) -> Result<(Checked, String), CorpusError> {
    if !request.corpus.is_dir() {
        return Err(CorpusError::MissingCorpus(request.corpus.clone()));
    }
    let mut check_request = CheckRequest::new(&request.corpus);
    check_request.config = Some(request.config.clone());
    if let Some(source) = &request.source {
        if !SOURCES.contains(&source.as_str()) {
            return Err(CorpusError::UnknownSource(source.clone()));
        }
        check_request.paths = vec![PathBuf::from(source)];
    }
    check_request.format = CheckFormat::Json;
    let (checked, stdout) =
        run_captured::<Check>(&check_request).map_err(|e| CorpusError::Check(e.to_string()))?;
    if checked.exit == crate::app::EXIT_USAGE {
        return Err(CorpusError::Check(format!(
            "`{}` has mistakes:\n{}",
            request.config.display(),
            stdout
        )));
    }
    Ok((checked, stdout))
}

/// Runs `check` over the corpus and summarises it.
pub fn summary(request: &CorpusRequest) -> Result<CorpusSummary, CorpusError> {
    run_check(request).map(|(checked, _)| summarize(&checked.report))
}

/// The outcome of the corpus run, per source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CorpusSummary {
    /// One entry per source, alphabetically.
    pub sources: Vec<SourceSummary>,
}

/// The outcome of one source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceSummary {
    /// The source's folder name.
    pub name: String,
    /// Schema files checked.
    pub files: usize,
    /// Files that compiled with no warnings (notes allowed).
    pub compiled: usize,
    /// Files that compiled with warnings.
    pub compiled_with_warnings: usize,
    /// Files with at least one error.
    pub rejected: usize,
    /// Per code and severity: how many diagnostics, in how many files.
    pub codes: BTreeMap<CodeKey, CodeCount>,
}

/// A diagnostic code at one severity; orders by code, then error, warning, note.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CodeKey {
    /// The stable code.
    pub code: String,
    /// Its severity after the config's overrides.
    pub severity: SeverityRank,
}

/// A severity that sorts worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SeverityRank {
    /// An error: the file is rejected.
    Error,
    /// A warning.
    Warning,
    /// A note.
    Note,
}

impl SeverityRank {
    fn of(severity: SeverityName) -> Self {
        match severity {
            SeverityName::Error => SeverityRank::Error,
            SeverityName::Warning => SeverityRank::Warning,
            SeverityName::Note => SeverityRank::Note,
        }
    }

    fn name(self) -> &'static str {
        match self {
            SeverityRank::Error => "error",
            SeverityRank::Warning => "warning",
            SeverityRank::Note => "note",
        }
    }
}

/// How often one code occurred in one source.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CodeCount {
    /// Diagnostics with this code and severity.
    pub diagnostics: usize,
    /// Files with at least one of them; for an error, the files it rejects.
    pub files: usize,
}

/// The source a report path belongs to: its first path component.
fn source_of(path: &str) -> &str {
    path.split(['/', '\\']).next().unwrap_or(path)
}

/// Summarises a corpus `check` report per source.
///
/// Every schema file is counted under its first path component, so a folder added to the corpus
/// shows up in the summary even before it is added to [`SOURCES`].
pub fn summarize(report: &Report) -> CorpusSummary {
    let mut sources: BTreeMap<&str, SourceSummary> = BTreeMap::new();
    for file in report.files.iter().filter(|f| f.kind == FileKind::Schema) {
        let name = source_of(&file.path);
        let source = sources.entry(name).or_insert_with(|| SourceSummary {
            name: name.to_string(),
            ..SourceSummary::default()
        });
        source.files += 1;
        match file.status {
            Status::Ok => source.compiled += 1,
            Status::Warnings => source.compiled_with_warnings += 1,
            Status::Errors => source.rejected += 1,
        }
        let mut in_file: BTreeMap<CodeKey, usize> = BTreeMap::new();
        for d in &file.diagnostics {
            let key = CodeKey {
                code: d.code.clone(),
                severity: SeverityRank::of(d.severity),
            };
            *in_file.entry(key).or_default() += 1;
        }
        for (key, n) in in_file {
            let count = source.codes.entry(key).or_default();
            count.diagnostics += n;
            count.files += 1;
        }
    }
    CorpusSummary {
        sources: sources.into_values().collect(),
    }
}

/// `part` of `whole` as a percentage with one decimal, rounded half up, in integers only.
fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "–".to_string();
    }
    let tenths = (part.saturating_mul(1000) + whole / 2) / whole;
    format!("{}.{}%", tenths / 10, tenths % 10)
}

impl CorpusSummary {
    /// The summary as Markdown: one table of outcomes, then one table of codes per source.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        out.push_str(
            "| source | files | compiled | compiled with warnings | rejected | rejected share |\n",
        );
        out.push_str("|---|---:|---:|---:|---:|---:|\n");
        let mut total = SourceSummary::default();
        for s in &self.sources {
            total.files += s.files;
            total.compiled += s.compiled;
            total.compiled_with_warnings += s.compiled_with_warnings;
            total.rejected += s.rejected;
            outcome_row(&mut out, &format!("`{}`", s.name), s);
        }
        if self.sources.len() > 1 {
            outcome_row(&mut out, "**total**", &total);
        }
        out.push_str(
            "\n\"compiled\" allows notes. A code's \"rejects\" share is the share of the source's \
files that have at least one error with that code; a file with several error codes counts \
under each.\n",
        );
        for s in &self.sources {
            let files = if s.files == 1 { "file" } else { "files" };
            let _ = write!(out, "\n### `{}` ({} {files})\n\n", s.name, s.files);
            if s.codes.is_empty() {
                out.push_str("No diagnostics.\n");
                continue;
            }
            out.push_str("| code | severity | diagnostics | files | rejects |\n");
            out.push_str("|---|---|---:|---:|---:|\n");
            for (key, count) in &s.codes {
                let rejects = if key.severity == SeverityRank::Error {
                    percent(count.files, s.files)
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {} | {} |",
                    key.code,
                    key.severity.name(),
                    count.diagnostics,
                    count.files,
                    rejects
                );
            }
        }
        out
    }
}

fn outcome_row(out: &mut String, label: &str, s: &SourceSummary) {
    let _ = writeln!(
        out,
        "| {label} | {} | {} | {} | {} | {} |",
        s.files,
        s.compiled,
        s.compiled_with_warnings,
        s.rejected,
        percent(s.rejected, s.files)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_round_half_up_in_tenths() {
        assert_eq!(percent(0, 10), "0.0%");
        assert_eq!(percent(1, 3), "33.3%");
        assert_eq!(percent(2, 3), "66.7%");
        assert_eq!(percent(1, 660), "0.2%");
        assert_eq!(percent(7, 7), "100.0%");
        assert_eq!(percent(1, 0), "–");
    }

    #[test]
    fn a_file_counts_under_its_first_path_component() {
        assert_eq!(source_of("schemastore/a.json"), "schemastore");
        assert_eq!(
            source_of("octokit-webhooks/api.github.com/x.json"),
            "octokit-webhooks"
        );
        assert_eq!(source_of("top.json"), "top.json");
    }

    #[test]
    fn unknown_sources_and_a_missing_corpus_are_errors() {
        let mut request = CorpusRequest::for_repository(Path::new("/nonexistent/repo"));
        assert!(matches!(
            run_check(&request),
            Err(CorpusError::MissingCorpus(_))
        ));
        request.corpus = std::env::temp_dir();
        request.source = Some("nope".to_string());
        let message = run_check(&request).map(|_| ()).unwrap_err().to_string();
        assert!(message.contains("`nope` is not a corpus source"));
        assert!(message.contains("snowplow-iglu-central"));
    }
}
