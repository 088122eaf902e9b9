//! The four output formats of `check`: text, a JSON report (with a published JSON Schema),
//! GitHub workflow commands, and SARIF 2.1.0.

use schema2iceberg_parser::{Diagnostic, Severity};
use schemars::JsonSchema;
use serde::Serialize;
use serde_sarif::sarif;

use crate::render::github::{escape_data, escape_property};

/// The JSON report of one `check` run. Its JSON Schema is `docs/report.schema.json`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct Report {
    /// The version of this report's shape; it changes only when a field changes meaning or goes away.
    pub report_version: u32,
    /// `schema2iceberg`.
    pub tool: String,
    /// Every file checked, sorted by path.
    pub files: Vec<FileReport>,
    /// Counts over all files.
    pub summary: Summary,
}

impl Report {
    /// Every file's diagnostics, file by file.
    pub(crate) fn diagnostics(&self) -> impl Iterator<Item = &DiagnosticReport> + Clone {
        self.files.iter().flat_map(|f| &f.diagnostics)
    }
}

/// One checked file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct FileReport {
    /// The path, relative to the folder `check` ran in.
    pub path: String,
    /// What the file is.
    pub kind: FileKind,
    /// The worst severity among its diagnostics, after overrides.
    pub status: Status,
    /// The table the schema compiles to; absent for channel configurations and for schemas with
    /// errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<TableSummary>,
    /// Its diagnostics, after severity overrides, by position.
    pub diagnostics: Vec<DiagnosticReport>,
}

/// What a checked file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    /// A JSON Schema.
    Schema,
    /// A channel configuration (Kinesis or MSK).
    ChannelConfig,
    /// A policy document checked against its channel (`--role-policy`, `[[channels]]`).
    Policy,
    /// The repository config, `schema2iceberg.toml`.
    Config,
    /// Shared definitions that other schemas reach by `$ref`, not compiled on their own
    /// (`definitions-only`).
    Definitions,
    /// A JSON file that is neither a schema nor a channel configuration (`not-a-schema`).
    Other,
}

/// The outcome of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// No errors or warnings.
    Ok,
    /// Warnings, no errors.
    Warnings,
    /// At least one error.
    Errors,
}

/// The shape of a compiled table.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct TableSummary {
    /// Top-level columns.
    pub columns: usize,
    /// All fields, nested ones included (the highest field id).
    pub fields: usize,
    /// The partition source column, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
}

/// One diagnostic.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct DiagnosticReport {
    /// `error`, `warning` or `note`, after overrides.
    pub severity: SeverityName,
    /// The stable code (docs/diagnostics.md).
    pub code: String,
    /// What is wrong.
    pub message: String,
    /// The file it points into (a `$ref` may lead into another file).
    pub file: String,
    /// RFC 6901 JSON Pointer into `file` (`""` is the root); for the TOML config, the key path.
    pub pointer: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The dotted Iceberg column path, where there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// How to fix it, where the message alone does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

/// A severity name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SeverityName {
    /// The channel would reject the schema, or the table would not be what the schema says.
    Error,
    /// The table works, but probably not as meant.
    Warning,
    /// A remark about a choice the compiler made.
    Note,
}

/// Counts over all files.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct Summary {
    /// Files checked.
    pub files: usize,
    /// Files with at least one error.
    pub files_with_errors: usize,
    /// Errors.
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// Notes.
    pub notes: usize,
}

impl DiagnosticReport {
    /// The report form of a diagnostic.
    pub(crate) fn from_diagnostic(d: &Diagnostic) -> Self {
        DiagnosticReport {
            severity: match d.severity {
                Severity::Error => SeverityName::Error,
                Severity::Warning => SeverityName::Warning,
                Severity::Note => SeverityName::Note,
            },
            code: d.code.to_string(),
            message: d.message.clone(),
            file: d.location.file.to_string(),
            pointer: d.location.pointer.clone(),
            line: d.location.line,
            column: d.location.column,
            field: d.field.clone(),
            help: d.help.clone(),
        }
    }
}

/// The status a list of diagnostics gives a file.
pub(crate) fn status(diagnostics: &[Diagnostic]) -> Status {
    if diagnostics.iter().any(|d| d.severity == Severity::Error) {
        Status::Errors
    } else if diagnostics.iter().any(|d| d.severity == Severity::Warning) {
        Status::Warnings
    } else {
        Status::Ok
    }
}

/// Totals over `files`.
pub(crate) fn summarize(files: &[FileReport]) -> Summary {
    let count = |s: SeverityName| {
        files
            .iter()
            .flat_map(|f| &f.diagnostics)
            .filter(|d| d.severity == s)
            .count()
    };
    Summary {
        files: files.len(),
        files_with_errors: files.iter().filter(|f| f.status == Status::Errors).count(),
        errors: count(SeverityName::Error),
        warnings: count(SeverityName::Warning),
        notes: count(SeverityName::Note),
    }
}

/// The closing line of text and GitHub output.
pub(crate) fn summary_line(summary: &Summary) -> String {
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("1 {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    format!(
        "checked {}: {}, {}, {}{}",
        plural(summary.files, "file"),
        plural(summary.errors, "error"),
        plural(summary.warnings, "warning"),
        plural(summary.notes, "note"),
        if summary.files_with_errors > 0 {
            format!(
                " ({} with errors)",
                plural(summary.files_with_errors, "file")
            )
        } else {
            String::new()
        }
    )
}

/// The JSON Schema of [`Report`], as published in `docs/report.schema.json`.
pub fn report_schema() -> serde_json::Result<String> {
    crate::render::pretty_line(&schemars::schema_for!(Report))
}

/// GitHub Actions workflow commands: one annotation a diagnostic, then the `closing` line.
pub(crate) fn github(report: &Report, closing: &str) -> String {
    let mut out = String::new();
    for d in report.diagnostics() {
        let command = match d.severity {
            SeverityName::Error => "error",
            SeverityName::Warning => "warning",
            SeverityName::Note => "notice",
        };
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        out.push_str(&format!(
            "::{command} file={},line={},col={},title={}::{}\n",
            escape_property(&d.file),
            d.line,
            d.column,
            escape_property(&d.code),
            escape_data(&message)
        ));
    }
    out.push_str(closing);
    out.push('\n');
    out
}

/// SARIF 2.1.0 for GitHub code scanning: one rule for each code that occurs.
pub(crate) fn sarif(report: &Report) -> serde_json::Result<String> {
    let rule_ids = sarif_rule_ids(report);
    let log = SarifLog {
        tool: sarif_tool(&rule_ids),
        results: SarifResults {
            report,
            rule_ids: &rule_ids,
        },
    };
    crate::render::pretty_line(&log)
}

/// The codes that occur in `report`, sorted: the run's rules, in the order of `ruleIndex`.
fn sarif_rule_ids(report: &Report) -> Vec<&str> {
    let mut rule_ids: Vec<&str> = report.diagnostics().map(|d| d.code.as_str()).collect();
    rule_ids.sort_unstable();
    rule_ids.dedup();
    rule_ids
}

/// The tool of the run, with one rule for each of `rule_ids`.
fn sarif_tool(rule_ids: &[&str]) -> sarif::Tool {
    let rules: Vec<sarif::ReportingDescriptor> = rule_ids
        .iter()
        .map(|id| {
            let code = crate::codes::find(id);
            let builder = sarif::ReportingDescriptor::builder().id(id.to_string());
            match code {
                Some(code) => builder
                    .short_description(&code.summary.to_string())
                    .help(&code.fix.to_string())
                    .build(),
                None => builder.build(),
            }
        })
        .collect();
    let driver = sarif::ToolComponent::builder()
        .name("schema2iceberg")
        .version(env!("CARGO_PKG_VERSION"))
        .rules(rules)
        .build();
    sarif::Tool::builder().driver(driver).build()
}

/// The `$schema` of every SARIF log written.
const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// A SARIF log of one run, written field by field as `serde_sarif::Sarif` and `Run` write
/// themselves (`$schema`, `runs`, `version`; a run's `results`, then `tool`), so that its
/// results can be built one at a time as they are written. A `sarif::Result` is large: held all
/// at once, a corpus's 25,000 of them faulted in about 100 MB.
struct SarifLog<'r> {
    tool: sarif::Tool,
    results: SarifResults<'r>,
}

/// The results of the run, each built from its diagnostic when it is serialized.
struct SarifResults<'r> {
    report: &'r Report,
    rule_ids: &'r [&'r str],
}

impl Serialize for SarifLog<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        struct Run<'l, 'r>(&'l SarifLog<'r>);
        impl Serialize for Run<'_, '_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut run = serializer.serialize_map(Some(2))?;
                run.serialize_entry("results", &self.0.results)?;
                run.serialize_entry("tool", &self.0.tool)?;
                run.end()
            }
        }
        let mut log = serializer.serialize_map(Some(3))?;
        log.serialize_entry("$schema", SARIF_SCHEMA)?;
        log.serialize_entry("runs", &[Run(self)])?;
        log.serialize_entry("version", &sarif::Version::V2_1_0.to_string())?;
        log.end()
    }
}

impl Serialize for SarifResults<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let diagnostics = self.report.diagnostics();
        let mut results = serializer.serialize_seq(Some(diagnostics.clone().count()))?;
        for d in diagnostics {
            results.serialize_element(&sarif_result(d, self.rule_ids))?;
        }
        results.end()
    }
}

/// The SARIF result of one diagnostic; `rule_ids` is the run's sorted list of rules.
fn sarif_result(d: &DiagnosticReport, rule_ids: &[&str]) -> sarif::Result {
    let level = match d.severity {
        SeverityName::Error => sarif::ResultLevel::Error,
        SeverityName::Warning => sarif::ResultLevel::Warning,
        SeverityName::Note => sarif::ResultLevel::Note,
    };
    let mut text = d.message.clone();
    if let Some(help) = &d.help {
        text.push_str(" Help: ");
        text.push_str(help);
    }
    let region = sarif::Region::builder()
        .start_line(i64::try_from(d.line).unwrap_or(i64::MAX))
        .start_column(i64::try_from(d.column).unwrap_or(i64::MAX))
        .build();
    let location = sarif::Location::builder()
        .physical_location(
            sarif::PhysicalLocation::builder()
                .artifact_location(
                    sarif::ArtifactLocation::builder()
                        .uri(d.file.replace('\\', "/"))
                        .build(),
                )
                .region(region)
                .build(),
        )
        .build();
    let rule_index = rule_ids.binary_search(&d.code.as_str()).unwrap_or(0);
    sarif::Result::builder()
        .rule_id(d.code.clone())
        .rule_index(i64::try_from(rule_index).unwrap_or(0))
        .level(level)
        .message(sarif::Message::builder().text(text).build())
        .locations(vec![location])
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log as `serde_sarif` writes it when built whole, results and all: what [`sarif`]
    /// must write, byte for byte.
    fn sarif_built_whole(report: &Report) -> String {
        let rule_ids = sarif_rule_ids(report);
        let results: Vec<sarif::Result> = report
            .diagnostics()
            .map(|d| sarif_result(d, &rule_ids))
            .collect();
        let run = sarif::Run::builder()
            .tool(sarif_tool(&rule_ids))
            .results(results)
            .build();
        let log = sarif::Sarif::builder()
            .version(sarif::Version::V2_1_0.to_string())
            .schema(SARIF_SCHEMA)
            .runs(vec![run])
            .build();
        crate::render::pretty_line(&log).unwrap()
    }

    fn diagnostic(
        severity: SeverityName,
        code: &str,
        file: &str,
        help: Option<&str>,
    ) -> DiagnosticReport {
        DiagnosticReport {
            severity,
            code: code.to_string(),
            message: format!("a message with \"quotes\", a tab\t and é for {code}"),
            file: file.to_string(),
            pointer: "/properties/a".to_string(),
            line: 3,
            column: 7,
            field: None,
            help: help.map(str::to_string),
        }
    }

    fn file(path: &str, diagnostics: Vec<DiagnosticReport>) -> FileReport {
        FileReport {
            path: path.to_string(),
            kind: FileKind::Schema,
            status: Status::Warnings,
            table: None,
            diagnostics,
        }
    }

    fn report(files: Vec<FileReport>) -> Report {
        let summary = summarize(&files);
        Report {
            report_version: 1,
            tool: "schema2iceberg".to_string(),
            files,
            summary,
        }
    }

    #[test]
    fn sarif_streamed_is_the_log_serde_sarif_builds_whole() {
        let reports = [
            report(Vec::new()),
            report(vec![file("clean.schema.json", Vec::new())]),
            report(vec![
                file(
                    "schemas\\orders.schema.json",
                    vec![
                        diagnostic(
                            SeverityName::Warning,
                            "uppercase-name",
                            "schemas\\orders.schema.json",
                            Some("rename it"),
                        ),
                        diagnostic(
                            SeverityName::Error,
                            "no-partition-candidate",
                            "schemas\\orders.schema.json",
                            None,
                        ),
                        diagnostic(
                            SeverityName::Note,
                            "draft-assumed",
                            "schemas/shared.json",
                            None,
                        ),
                    ],
                ),
                file(
                    "b.schema.json",
                    vec![
                        diagnostic(
                            SeverityName::Warning,
                            "a-code-no-table-knows",
                            "b.schema.json",
                            None,
                        ),
                        diagnostic(
                            SeverityName::Warning,
                            "uppercase-name",
                            "b.schema.json",
                            Some("again"),
                        ),
                    ],
                ),
            ]),
        ];
        for report in &reports {
            assert_eq!(sarif(report).unwrap(), sarif_built_whole(report));
        }
    }
}
