//! How `records` runs: the shared reading and checking ([`in_order`]), with each batch rendered
//! on its worker and written in input order ([`Pipeline`]).

use std::io::{self, Write};

use schema2iceberg_mapper::records::{RecordChecker, Verdict};

use super::output::{self, Style, Tally};
use crate::intake::input::{Batch, InputError, InputKind, Source, Tail};
use crate::intake::order::in_order;

/// A batch, checked and rendered.
struct Rendered {
    /// Each printed record's text, in input order.
    pieces: Vec<String>,
    tally: Tally,
}

/// What a run found.
#[derive(Debug)]
pub(crate) struct RunOutcome {
    pub(crate) tally: Tally,
    /// An input that could not be read; the records before it were still checked and printed.
    pub(crate) input_error: Option<InputError>,
    /// Writing the output failed (a closed pipe among others); the run stopped there.
    pub(crate) write_result: io::Result<()>,
}

/// The settings of one run.
pub(crate) struct Pipeline<'a> {
    pub(crate) checker: &'a RecordChecker,
    pub(crate) sources: &'a [Source],
    pub(crate) kind: InputKind,
    pub(crate) style: Style,
    pub(crate) workers: usize,
}

impl Pipeline<'_> {
    /// Checks every record of every input and writes the output to `out`.
    pub(crate) fn run(&self, out: &mut dyn Write) -> RunOutcome {
        let names: Vec<String> = self.sources.iter().map(Source::name).collect();
        let mut writer = OrderedWriter {
            style: self.style,
            out,
            tally: Tally::default(),
            printed_any: false,
            result: Ok(()),
        };
        writer.result = writer
            .out
            .write_all(output::header(self.style.format).as_bytes());
        let input_error = if writer.result.is_ok() {
            in_order(
                self.sources,
                self.kind,
                Tail::Record,
                self.workers,
                &|batch| self.render(&batch, &names),
                &mut |rendered| writer.write(&rendered),
            )
            .error
        } else {
            None
        };
        let write_result = writer.finish();
        RunOutcome {
            tally: writer.tally,
            input_error,
            write_result,
        }
    }

    /// Checks each record of a batch and renders the ones that are shown.
    fn render(&self, batch: &Batch, names: &[String]) -> Rendered {
        let want_row = self.style.show == output::Show::All;
        let input = names.get(batch.input).map_or("-", String::as_str);
        let mut tally = Tally::default();
        let mut pieces = Vec::new();
        for record in &batch.records {
            let verdict = self.checker.check(&record.bytes, want_row);
            tally.add(&verdict);
            if !output::shown(self.style.show, &verdict) {
                continue;
            }
            let json_text = match &verdict {
                Verdict::Dlq(failure)
                    if failure.span.is_some()
                        && self.style.format == output::RecordsFormat::Text =>
                {
                    self.checker.json_text(&record.bytes)
                }
                _ => None,
            };
            pieces.push(output::render_record(
                &self.style,
                input,
                record,
                &verdict,
                json_text.as_deref(),
            ));
        }
        Rendered { pieces, tally }
    }
}

/// Writes rendered batches, in the order given, with the separators the format needs; stops at
/// the first write error.
struct OrderedWriter<'o> {
    style: Style,
    out: &'o mut dyn Write,
    tally: Tally,
    printed_any: bool,
    result: io::Result<()>,
}

impl OrderedWriter<'_> {
    fn write(&mut self, batch: &Rendered) -> bool {
        self.tally.merge(&batch.tally);
        for piece in &batch.pieces {
            let separator = if self.printed_any {
                output::separator(self.style.format)
            } else {
                ""
            };
            self.result = self
                .out
                .write_all(separator.as_bytes())
                .and_then(|()| self.out.write_all(piece.as_bytes()));
            if self.result.is_err() {
                return false;
            }
            self.printed_any = true;
        }
        true
    }

    fn finish(&mut self) -> io::Result<()> {
        std::mem::replace(&mut self.result, Ok(()))?;
        let footer = output::footer(self.style.format, &self.tally, self.printed_any);
        self.out
            .write_all(footer.as_bytes())
            .and_then(|()| self.out.flush())
    }
}

#[cfg(test)]
mod tests {
    use schema2iceberg_mapper::records::{RecordFormat, RecordOptions};
    use schema2iceberg_mapper::CompileOptions;
    use schema2iceberg_parser::{LoadOptions, Url, Workspace};

    use super::*;
    use crate::intake::input::{InputKind, BATCH_RECORDS};
    use crate::records::output::{RecordsFormat, Show};

    /// Many batches on more workers than cores: the output must still be in input order, and
    /// every record accounted for.
    #[test]
    fn output_keeps_input_order_across_batches_and_workers() {
        let schema = br#"{"type": "object", "properties": {"id": {"type": "integer", "maximum": 1000000}}, "required": ["id"]}"#;
        let base = Url::parse("file:///schemas/order.json").unwrap();
        let ws = Workspace::from_bytes("order.json", schema.to_vec(), base, LoadOptions::default());
        let checker =
            RecordChecker::new(&ws, &CompileOptions::default(), RecordOptions::default()).unwrap();
        let count = BATCH_RECORDS * 7 + 13;
        // Every seventh record fails, and some records are much longer, so that batches take
        // different times and finish out of order.
        let mut text = String::new();
        for i in 0..count {
            if i % 7 == 0 {
                text.push_str(&format!("{{\"id\": \"{i}\"}}\n"));
            } else if i % 101 == 0 {
                text.push_str(&format!(
                    "{{\"id\": {i}, \"pad\": \"{}\"}}\n",
                    "x".repeat(50_000)
                ));
            } else {
                text.push_str(&format!("{{\"id\": {i}}}\n"));
            }
        }
        let path =
            std::env::temp_dir().join(format!("records-order-{}.ndjson", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let sources = [Source::File(path.clone())];
        let pipeline = Pipeline {
            checker: &checker,
            sources: &sources,
            kind: InputKind::Ndjson,
            style: Style {
                format: RecordsFormat::Ndjson,
                show: Show::All,
                input: InputKind::Ndjson,
                record_format: RecordFormat::Json,
                color: false,
            },
            workers: 4,
        };
        let mut out = Vec::new();
        let outcome = pipeline.run(&mut out);
        std::fs::remove_file(&path).unwrap();
        assert!(outcome.input_error.is_none());
        assert!(outcome.write_result.is_ok());
        let lines: Vec<serde_json::Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), count);
        for (i, line) in lines.iter().enumerate() {
            assert_eq!(line["line"], i + 1, "record {i} is out of place");
            let verdict = if i % 7 == 0 { "dlq" } else { "delivered" };
            assert_eq!(line["verdict"], verdict, "record {i}");
        }
        assert_eq!(outcome.tally.records, count as u64);
        assert_eq!(outcome.tally.dead_letters(), count.div_ceil(7) as u64);
    }
}
