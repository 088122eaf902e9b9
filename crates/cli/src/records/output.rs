//! How `records` prints each record and the summary, in three formats: text (a rustc-style
//! report per failing record, drawn with annotate-snippets), one JSON document, and NDJSON. Each
//! record renders to its own string on a worker thread; the writer only joins them in order.

use std::fmt::Write as _;

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use schema2iceberg_mapper::records::{Failure, Reason, RecordFormat, Verdict};
use serde_json::{json, Map, Value};

use crate::intake::input::{InputKind, Record};
use crate::render::record::record_json;
use crate::render::{plural, span_line};

/// Output formats of `records`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RecordsFormat {
    /// A rustc-style report per failing record, then a summary.
    Text,
    /// One JSON document: {"records": [...], "summary": {...}}.
    Json,
    /// One JSON object a line, one per printed record.
    Ndjson,
}

/// Which records are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Show {
    /// Only the records that go to the dead-letter queue.
    Failures,
    /// Every record; delivered ones with their row and dropped fields.
    All,
}

/// How records are printed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    pub(crate) format: RecordsFormat,
    pub(crate) show: Show,
    pub(crate) input: InputKind,
    pub(crate) record_format: RecordFormat,
    pub(crate) color: bool,
}

/// Counts of records and verdicts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub(crate) records: u64,
    pub(crate) delivered: u64,
    /// Dead-letter records per reason, in [`Reason::ALL`] order.
    pub(crate) dlq: [u64; Reason::ALL.len()],
}

impl Tally {
    pub(crate) fn add(&mut self, verdict: &Verdict) {
        self.records += 1;
        match verdict {
            Verdict::Delivered(_) => self.delivered += 1,
            Verdict::Dlq(failure) => {
                if let Some(i) = Reason::ALL.iter().position(|r| *r == failure.reason) {
                    if let Some(count) = self.dlq.get_mut(i) {
                        *count += 1;
                    }
                }
            }
        }
    }

    pub(crate) fn merge(&mut self, other: &Tally) {
        self.records += other.records;
        self.delivered += other.delivered;
        for (mine, theirs) in self.dlq.iter_mut().zip(other.dlq) {
            *mine += theirs;
        }
    }

    pub(crate) fn dead_letters(&self) -> u64 {
        self.dlq.iter().sum()
    }

    /// The non-zero reasons, in [`Reason::ALL`] order.
    fn reasons(&self) -> impl Iterator<Item = (Reason, u64)> + '_ {
        Reason::ALL
            .into_iter()
            .zip(self.dlq)
            .filter(|(_, count)| *count > 0)
    }
}

/// What the output starts with.
pub(crate) fn header(format: RecordsFormat) -> &'static str {
    match format {
        RecordsFormat::Json => "{\"records\": [\n",
        RecordsFormat::Text | RecordsFormat::Ndjson => "",
    }
}

/// What goes between two printed records.
pub(crate) fn separator(format: RecordsFormat) -> &'static str {
    match format {
        RecordsFormat::Json => ",\n",
        RecordsFormat::Text => "\n",
        RecordsFormat::Ndjson => "",
    }
}

/// What the output ends with: the summary (nothing for NDJSON, whose lines are all records).
pub(crate) fn footer(format: RecordsFormat, tally: &Tally, printed_any: bool) -> String {
    match format {
        RecordsFormat::Ndjson => String::new(),
        RecordsFormat::Json => {
            let by_reason: Map<String, Value> = tally
                .reasons()
                .map(|(reason, count)| (reason.code().to_string(), json!(count)))
                .collect();
            let summary = json!({
                "records": tally.records,
                "delivered": tally.delivered,
                "dlq": tally.dead_letters(),
                "dlq-by-reason": by_reason,
            });
            format!(
                "{}],\n\"summary\": {summary}}}\n",
                if printed_any { "\n" } else { "" }
            )
        }
        RecordsFormat::Text => {
            let mut out = String::new();
            if printed_any {
                out.push('\n');
            }
            let _ = writeln!(
                out,
                "{} read: {} delivered, {} to the dead-letter queue",
                plural(
                    usize::try_from(tally.records).unwrap_or(usize::MAX),
                    "record"
                ),
                tally.delivered,
                tally.dead_letters()
            );
            for (reason, count) in tally.reasons() {
                let _ = writeln!(out, "  {count} {}", reason.code());
            }
            out
        }
    }
}

/// Whether a verdict is printed at all.
pub(crate) fn shown(show: Show, verdict: &Verdict) -> bool {
    show == Show::All || matches!(verdict, Verdict::Dlq(_))
}

/// One printed record. `json_text` is the record's JSON text (for a GSR record, the payload),
/// which the text format underlines; it is only looked up for failures with a span.
pub(crate) fn render_record(
    style: &Style,
    input: &str,
    record: &Record,
    verdict: &Verdict,
    json_text: Option<&[u8]>,
) -> String {
    match style.format {
        RecordsFormat::Ndjson => {
            let mut line = record_json(input, record, verdict).to_string();
            line.push('\n');
            line
        }
        RecordsFormat::Json => record_json(input, record, verdict).to_string(),
        RecordsFormat::Text => match verdict {
            Verdict::Dlq(failure) => text_failure(style, input, record, failure, json_text),
            Verdict::Delivered(delivered) => {
                let mut out = format!("delivered: {}\n", place(input, record));
                if let Some(row) = &delivered.row {
                    let _ = writeln!(out, "  row: {row}");
                }
                if !delivered.dropped.is_empty() {
                    let _ = writeln!(out, "  dropped: {}", delivered.dropped.join(", "));
                }
                out
            }
        },
    }
}

/// Where a record is, for people: `file:line`, `file record N (SequenceNumber S)`, or `file`.
fn place(input: &str, record: &Record) -> String {
    match (&record.line, &record.sequence_number) {
        (Some(line), _) => format!("{input}:{line}"),
        (None, Some(sequence)) => format!(
            "{input} record {} (SequenceNumber {sequence})",
            record.position
        ),
        (None, None) => input.to_string(),
    }
}

/// One failing record in rustc's style: the reason and message, the record's line with the
/// failure underlined (where there is JSON text to show), the pointer and the help.
fn text_failure(
    style: &Style,
    input: &str,
    record: &Record,
    failure: &Failure,
    json_text: Option<&[u8]>,
) -> String {
    let title = Level::ERROR
        .primary_title(failure.message.as_str())
        .id(failure.reason.code());
    let mut notes = Vec::new();
    let mut at = if failure.pointer.is_empty() {
        "at the whole record".to_string()
    } else {
        format!("at {}", failure.pointer)
    };
    if let Some(keyword) = &failure.keyword {
        let _ = write!(at, " (keyword `{keyword}`)");
    }
    notes.push(Level::NOTE.message(at));
    if style.input == InputKind::GetRecords {
        notes.push(Level::NOTE.message(format!(
            "record {} of the Records array, SequenceNumber {}; lines are counted in its decoded Data",
            record.position,
            record.sequence_number.as_deref().unwrap_or("?")
        )));
    }
    let text = json_text.and_then(|bytes| std::str::from_utf8(bytes).ok());
    let window = failure.span.zip(text).and_then(|((start, end), text)| {
        // A JSON text that ends too early is reported at its very end, after the final newline;
        // the last character written is the place to show.
        let written = text.trim_end().len();
        let (start, end) = if start >= written {
            (written, written)
        } else {
            (start, end)
        };
        span_line(text, start, end).map(|w| (text, w))
    });
    if window.is_some() && style.record_format == RecordFormat::GsrJson {
        notes.push(Level::NOTE.message(
            "the underlined text is in the GSR payload, after the 18-byte header (inflated when compressed)",
        ));
    }
    notes.push(Level::HELP.message(failure.help()));
    // Lines are numbered in the file for NDJSON, and in the record itself otherwise.
    let first_line = record.line.unwrap_or(1);
    let group: Group<'_> = match &window {
        Some((text, (line_start, line, range))) => {
            let lines_before = text
                .get(..*line_start)
                .map_or(0, |before| before.matches('\n').count());
            let snippet = Snippet::source(*line)
                .line_start(usize::try_from(first_line).unwrap_or(1) + lines_before)
                .path(input)
                .annotation(AnnotationKind::Primary.span(range.clone()));
            notes
                .into_iter()
                .fold(title.element(snippet), |g, m| g.element(m))
        }
        None => {
            let mut origin = Origin::path(input);
            if let Some(line) = record.line {
                origin = origin.line(usize::try_from(line).unwrap_or(1));
            }
            notes
                .into_iter()
                .fold(title.element(origin), |g, m| g.element(m))
        }
    };
    let renderer = if style.color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = renderer.render(&[group]);
    out.push('\n');
    out
}
