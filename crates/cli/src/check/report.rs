//! Reporting a check: adds the channel configurations as files of their own, sorts the files,
//! builds the format-independent `Report` and renders it in the requested format.

use std::collections::BTreeMap;

use schema2iceberg_parser::{Diagnostic, Severity};

use super::output::{self, DiagnosticReport, FileKind, FileReport, Report};
use super::plan::{ConfigFailure, Plan};
use super::run::SchemaOutcome;
use super::{CheckFormat, CheckRequest, Checked, UsageError};
use crate::render;

/// The report of a run: every schema's and policy document's outcome, then each channel
/// configuration's diagnostics (collected from every group that read it and from the policy
/// checks, de-duplicated), sorted by path.
pub(super) fn report(
    request: &CheckRequest,
    format: CheckFormat,
    plan: &Plan,
    outcomes: Vec<SchemaOutcome>,
    policy_channel_diagnostics: Vec<Diagnostic>,
) -> Result<(Checked, String), UsageError> {
    let Plan {
        config,
        cli_overrides,
        groups,
        config_files,
        ..
    } = plan;

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
    for d in policy_channel_diagnostics {
        channel_diagnostics
            .entry(d.location.file.to_string())
            .or_default()
            .push(d);
    }
    let mut reports: Vec<(FileReport, String)> =
        outcomes.into_iter().map(|o| (o.report, o.text)).collect();
    for (display, diagnostics) in channel_diagnostics {
        let overrides = config.overrides.layered(cli_overrides);
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
        let text = render_file_text(&display, &kept, |_| source, request.source.color);
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
    finish(reports, format, None)
}

/// The report of a run whose config has mistakes: the config's diagnostics, exit code 2.
pub(super) fn config_failure(
    request: &CheckRequest,
    format: CheckFormat,
    failure: ConfigFailure,
) -> Result<(Checked, String), UsageError> {
    let text = render_file_text(
        &failure.display,
        &failure.diagnostics,
        |_| Some(failure.text.as_str()),
        request.source.color,
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
    let (mut checked, stdout) = finish(vec![(report, text)], format, Some(closing))?;
    checked.exit = crate::app::EXIT_USAGE;
    Ok((checked, stdout))
}

/// Builds the report from every file's result and renders it in `format`. `closing` replaces
/// the summary line of the text and GitHub formats. A report that cannot be serialized is an
/// error (exit 2), never an empty standard output.
fn finish(
    reports: Vec<(FileReport, String)>,
    format: CheckFormat,
    closing: Option<String>,
) -> Result<(Checked, String), UsageError> {
    let (files, texts): (Vec<FileReport>, Vec<String>) = reports.into_iter().unzip();
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
            let mut out: String = texts.concat();
            out.push_str(&closing);
            out.push('\n');
            out
        }
        CheckFormat::Json => render::pretty_line(&report).map_err(unserializable)?,
        CheckFormat::Github => output::github(&report, &closing),
        CheckFormat::Sarif => output::sarif(&report).map_err(unserializable)?,
    };
    let exit = if report.summary.errors > 0 {
        crate::app::EXIT_SCHEMA_ERRORS
    } else {
        crate::app::EXIT_OK
    };
    Ok((Checked { report, exit }, stdout))
}

fn unserializable(e: serde_json::Error) -> UsageError {
    UsageError::Json(e)
}

/// The text block of one file: a header and its diagnostics; nothing for a clean file.
pub(super) fn render_file_text<'s>(
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
    render::push_diagnostics(&mut out, diagnostics, &source, color, ("", "\n\n"));
    out
}
