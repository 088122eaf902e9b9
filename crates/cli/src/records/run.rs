//! The `records` pipeline: one reader thread cuts the inputs into batches, workers on every core
//! check and render them, and the calling thread writes them back in input order.
//!
//! Memory stays bounded whatever the input size: the reader takes a token before it hands on a
//! batch and the writer returns one after it has written a batch, so at most [`Pipeline::window`]
//! batches (each at most `BATCH_RECORDS` records or about `BATCH_BYTES` bytes) are read, checked
//! or waiting for their turn at any time. Std channels are enough: work moves in batches, so the
//! one lock on the shared receiver is taken once per thousand records.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use schema2iceberg_mapper::records::{RecordChecker, Verdict};

use super::input::{read_inputs, Batch, InputError, InputKind, Source};
use super::output::{self, Style, Tally};

/// A batch, checked and rendered.
struct Rendered {
    seq: u64,
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
    /// Batches in flight at most: enough to keep every worker busy while the writer waits for a
    /// slow batch, few enough that memory does not grow with the input.
    fn window(&self) -> usize {
        self.workers * 4 + 2
    }

    /// Checks every record of every input and writes the output to `out`.
    pub(crate) fn run(&self, out: &mut dyn Write) -> RunOutcome {
        let window = self.window();
        let (batch_tx, batch_rx) = sync_channel::<Batch>(self.workers);
        let batch_rx = Arc::new(Mutex::new(batch_rx));
        let (done_tx, done_rx) = sync_channel::<Rendered>(window);
        let (token_tx, token_rx) = sync_channel::<()>(window);
        for _ in 0..window {
            let _ = token_tx.send(());
        }
        let names: Vec<String> = self.sources.iter().map(Source::name).collect();
        std::thread::scope(|scope| {
            let reader = scope.spawn(move || {
                let mut emit =
                    |batch: Batch| token_rx.recv().is_ok() && batch_tx.send(batch).is_ok();
                read_inputs(self.sources, self.kind, &mut emit)
            });
            for _ in 0..self.workers {
                let batch_rx = Arc::clone(&batch_rx);
                let done_tx = done_tx.clone();
                let names = &names;
                scope.spawn(move || self.work(&batch_rx, &done_tx, names));
            }
            // The workers hold the only other handles: when the last ends, the writer's loop ends.
            drop(done_tx);
            drop(batch_rx);
            let (tally, write_result) = write_in_order(self.style, done_rx, token_tx, out);
            let input_error = match reader.join() {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e),
                Err(_) => Some(InputError(
                    "the input reader stopped unexpectedly".to_string(),
                )),
            };
            RunOutcome {
                tally,
                input_error,
                write_result,
            }
        })
    }

    /// A worker: takes batches until there are none, checks each record and renders the ones
    /// that are shown.
    fn work(
        &self,
        batch_rx: &Mutex<Receiver<Batch>>,
        done_tx: &SyncSender<Rendered>,
        names: &[String],
    ) {
        let want_row = self.style.show == output::Show::All;
        loop {
            let next = match batch_rx.lock() {
                Ok(receiver) => receiver.recv(),
                Err(_) => return,
            };
            let Ok(batch) = next else { return };
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
            let rendered = Rendered {
                seq: batch.seq,
                pieces,
                tally,
            };
            if done_tx.send(rendered).is_err() {
                return;
            }
        }
    }
}

/// The writer: puts rendered batches back in input order, writes them, and gives a token back
/// for each batch written. It stops at the first write error; returning drops its receiver and
/// the token sender, which stops the workers and the reader.
fn write_in_order(
    style: Style,
    done_rx: Receiver<Rendered>,
    token_tx: SyncSender<()>,
    out: &mut dyn Write,
) -> (Tally, io::Result<()>) {
    let mut tally = Tally::default();
    let mut pending: BTreeMap<u64, Rendered> = BTreeMap::new();
    let mut next = 0u64;
    let mut printed_any = false;
    if let Err(e) = out.write_all(output::header(style.format).as_bytes()) {
        return (tally, Err(e));
    }
    for rendered in done_rx {
        pending.insert(rendered.seq, rendered);
        while let Some(batch) = pending.remove(&next) {
            next += 1;
            tally.merge(&batch.tally);
            for piece in &batch.pieces {
                let written = if printed_any {
                    out.write_all(output::separator(style.format).as_bytes())
                } else {
                    Ok(())
                }
                .and_then(|()| out.write_all(piece.as_bytes()));
                if let Err(e) = written {
                    return (tally, Err(e));
                }
                printed_any = true;
            }
            let _ = token_tx.send(());
        }
    }
    let footer = output::footer(style.format, &tally, printed_any);
    let result = out.write_all(footer.as_bytes()).and_then(|()| out.flush());
    (tally, result)
}

#[cfg(test)]
mod tests {
    use schema2iceberg_mapper::records::{RecordFormat, RecordOptions};
    use schema2iceberg_mapper::CompileOptions;
    use schema2iceberg_parser::{LoadOptions, Url, Workspace};

    use super::*;
    use crate::records::input::{InputKind, BATCH_RECORDS};
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
