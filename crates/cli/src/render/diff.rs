//! How a diff is shown, for `diff` and for `deliver` (an existing table against the schema): the
//! report of each pair of files, rendered as text blocks, one JSON object, or GitHub workflow
//! commands.

use schema2iceberg_mapper::channel::RecordFormat;
use schema2iceberg_mapper::diff::{
    diff, fails, Change, ChangeKind, ChannelVerdict, FailOn, IcebergVerdict, Records, Side,
    TableVerdict,
};
use serde::Serialize;

use super::github::{escape_data, escape_property};

/// Renders every compared pair in `format`; `not_compiled` holds the rendered errors of the
/// sides that did not compile, and `failing` whether the run fails at `fail_on`.
pub(crate) fn render(
    format: DiffFormat,
    files: &[FileDiff],
    not_compiled: &str,
    fail_on: FailOn,
    failing: bool,
) -> String {
    match format {
        DiffFormat::Text => text(files, not_compiled, fail_on),
        DiffFormat::Json => {
            let value = serde_json::json!({
                "fail-on": fail_on.as_str(),
                "fails": failing,
                "files": files,
            });
            crate::render::pretty_value_line(&value)
        }
        DiffFormat::Github => github(files, fail_on),
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

/// The channel verdicts' reasons already given in one file's block, each with the change it was
/// given for: a reason that every change shares (GSR records meet the same fate whatever the
/// change) is said once, and pointed back to after.
#[derive(Default)]
struct Said {
    reasons: Vec<(RecordFormat, String, String)>,
}

impl Said {
    /// The verdict as the text format shows it under the change at `path`.
    fn verdict_text(&mut self, verdict: &ChannelVerdict, path: &str) -> String {
        let records = records_text(verdict.records);
        let earlier = self
            .reasons
            .iter()
            .find(|(format, reason, _)| {
                *format == verdict.record_format && *reason == verdict.reason
            })
            .map(|(_, _, at)| at);
        match earlier {
            Some(at) => format!("{records} (why: as for {at} above)"),
            None => {
                self.reasons.push((
                    verdict.record_format,
                    verdict.reason.clone(),
                    path.to_string(),
                ));
                format!("{records}: {}", verdict.reason)
            }
        }
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

/// The text format: one block a file, one a change, then the summary line. Over 80 lines: one
/// function, since the counts of the summary are taken while the blocks are written.
fn text(files: &[FileDiff], not_compiled: &str, level: FailOn) -> String {
    let mut out = String::new();
    let mut total = 0;
    let mut table_changes = 0;
    let mut dead_letter = 0;
    let mut incompatible = 0;
    let mut not_compared = Vec::new();
    for file in files {
        let mut said = Said::default();
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
                    said.verdict_text(verdict, &path)
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

fn github(files: &[FileDiff], fail_on: FailOn) -> String {
    let mut out = String::new();
    for file in files.iter().filter(|f| f.status == "not-compiled") {
        let command = if fail_on == FailOn::Never {
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

/// Each change with where it is.
pub(crate) fn report_changes(changes: Vec<Change>) -> Vec<ChangeReport> {
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

/// What `deliver` shows when an existing table differs from the one the schema compiles to:
/// the changes from `old` (the table, named `old_name`) to `new` (the schema), and their
/// rendering as `diff` renders one pair in `format` (text or JSON).
pub(crate) fn existing_table_against_schema(
    old_name: &str,
    new_name: &str,
    old: &Side<'_>,
    new: &Side<'_>,
    record_format: RecordFormat,
    format: DiffFormat,
) -> (FileDiff, String) {
    let file = FileDiff {
        old: Some(old_name.to_string()),
        new: Some(new_name.to_string()),
        status: "changed".to_string(),
        record_format: Some(record_format),
        record_format_from: None,
        old_kind: Some("iceberg-table".to_string()),
        changes: report_changes(diff(old, new, &[record_format])),
        problem: None,
        errors: Vec::new(),
        notes: Vec::new(),
    };
    let failing = !file.changes.is_empty();
    let rendered = render(
        format,
        std::slice::from_ref(&file),
        "",
        FailOn::TableChange,
        failing,
    );
    (file, rendered)
}
