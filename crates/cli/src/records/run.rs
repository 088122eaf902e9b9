//! The pipeline that `records` and `deliver` share: one reader thread cuts the inputs into
//! batches, workers on every core check them, and the calling thread takes the results back in
//! input order ([`in_order`]); `records` renders and writes them ([`Pipeline`]).
//!
//! Memory stays bounded whatever the input size: the reader enters a batch into the budget of
//! work in flight before it hands it on, and the consumer lets it go after it has taken it, so
//! only a fixed number of batches (each at most `BATCH_RECORDS` records or about `BATCH_BYTES`
//! bytes), and a fixed total of record bytes, are read, checked or waiting for their turn at
//! any time. Std channels are enough: work moves in batches, so the
//! one lock on the shared receiver is taken once per thousand records.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Condvar, Mutex};

use schema2iceberg_mapper::records::{RecordChecker, Verdict};

use super::input::{read_inputs, Batch, HeldBack, InputError, InputKind, Source, Tail};
use super::output::{self, Style, Tally};

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

/// One worker per core.
pub(crate) fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// The most record bytes read and not yet consumed, over every batch: with records of up to 64
/// MiB, a count of batches alone would let memory grow with the number of cores.
pub(crate) const BYTES_IN_FLIGHT: u64 = 128 * 1024 * 1024;

/// Limits the batches, and their bytes, that are read and not yet consumed. The reader waits in
/// [`InFlight::enter`]; the consumer lets batches go with [`InFlight::leave`], and
/// [`InFlight::close`] wakes the reader for good when the consumer stops.
struct InFlight {
    /// Batches in flight, bytes in flight, and whether the consumer has stopped.
    state: Mutex<(usize, u64, bool)>,
    changed: Condvar,
    batches: usize,
    bytes: u64,
}

impl InFlight {
    /// Waits until a batch of `bytes` fits (a batch larger than the whole budget goes alone);
    /// `false` once the consumer has stopped.
    fn enter(&self, bytes: u64) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return false;
        };
        loop {
            let (count, used, closed) = *state;
            if closed {
                return false;
            }
            if count < self.batches && (count == 0 || used.saturating_add(bytes) <= self.bytes) {
                *state = (count + 1, used.saturating_add(bytes), false);
                return true;
            }
            state = match self.changed.wait(state) {
                Ok(state) => state,
                Err(_) => return false,
            };
        }
    }

    fn leave(&self, bytes: u64) {
        if let Ok(mut state) = self.state.lock() {
            state.0 = state.0.saturating_sub(1);
            state.1 = state.1.saturating_sub(bytes);
        }
        self.changed.notify_all();
    }

    fn close(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.2 = true;
        }
        self.changed.notify_all();
    }
}

/// How reading the inputs ended.
#[derive(Debug, Default)]
pub(crate) struct ReadEnd {
    /// The input error that stopped the reading; the batches before it were consumed.
    pub(crate) error: Option<InputError>,
    /// The last lines held back by [`Tail::HoldIncomplete`].
    pub(crate) held_back: Vec<HeldBack>,
}

/// Reads `sources` in batches, runs `work` on each batch on `workers` threads, and hands the
/// results to `consume` on the calling thread in input order, until `consume` returns `false`.
///
/// Memory stays bounded: at most `workers * 4 + 2` batches, and at most [`BYTES_IN_FLIGHT`]
/// bytes of records (one larger batch alone), are read, worked on or waiting for their turn at
/// any time (enough to keep every worker busy while `consume` waits for a slow batch, few
/// enough that memory does not grow with the input).
pub(crate) fn in_order<T: Send>(
    sources: &[Source],
    kind: InputKind,
    tail: Tail,
    workers: usize,
    work: &(dyn Fn(Batch) -> T + Sync),
    consume: &mut dyn FnMut(T) -> bool,
) -> ReadEnd {
    let in_flight = InFlight {
        state: Mutex::new((0, 0, false)),
        changed: Condvar::new(),
        batches: workers * 4 + 2,
        bytes: BYTES_IN_FLIGHT,
    };
    let (batch_tx, batch_rx) = sync_channel::<Batch>(workers);
    let batch_rx = Arc::new(Mutex::new(batch_rx));
    let (done_tx, done_rx) = sync_channel::<(u64, u64, T)>(in_flight.batches);
    std::thread::scope(|scope| {
        let in_flight = &in_flight;
        let reader = scope.spawn(move || {
            let mut emit = |batch: Batch| {
                let bytes = batch_bytes(&batch);
                if !in_flight.enter(bytes) {
                    return false;
                }
                batch_tx.send(batch).is_ok()
            };
            read_inputs(sources, kind, tail, &mut emit)
        });
        for _ in 0..workers {
            let batch_rx = Arc::clone(&batch_rx);
            let done_tx = done_tx.clone();
            scope.spawn(move || loop {
                let next = match batch_rx.lock() {
                    Ok(receiver) => receiver.recv(),
                    Err(_) => return,
                };
                let Ok(batch) = next else { return };
                let seq = batch.seq;
                let bytes = batch_bytes(&batch);
                if done_tx.send((seq, bytes, work(batch))).is_err() {
                    return;
                }
            });
        }
        // The workers hold the only other handles: when the last ends, the loop below ends.
        drop(done_tx);
        drop(batch_rx);
        let mut pending: BTreeMap<u64, (u64, T)> = BTreeMap::new();
        let mut next = 0u64;
        'consuming: for (seq, bytes, result) in done_rx {
            pending.insert(seq, (bytes, result));
            while let Some((bytes, result)) = pending.remove(&next) {
                next += 1;
                if !consume(result) {
                    break 'consuming;
                }
                in_flight.leave(bytes);
            }
        }
        // Returning drops the receiver; closing wakes a reader waiting for room, so the workers
        // and the reader stop.
        in_flight.close();
        match reader.join() {
            Ok(Ok(held_back)) => ReadEnd {
                error: None,
                held_back,
            },
            Ok(Err(e)) => ReadEnd {
                error: Some(e),
                held_back: Vec::new(),
            },
            Err(_) => ReadEnd {
                error: Some(InputError(
                    "the input reader stopped unexpectedly".to_string(),
                )),
                held_back: Vec::new(),
            },
        }
    })
}

/// The record bytes of a batch.
fn batch_bytes(batch: &Batch) -> u64 {
    batch.records.iter().map(|r| r.bytes.len() as u64).sum()
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
