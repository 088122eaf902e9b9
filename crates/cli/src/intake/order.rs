//! The reading and ordering that `records` and `deliver` share: one reader thread cuts the
//! inputs into batches, workers on every core check them, and the calling thread takes the
//! results back in input order ([`in_order`]).
//!
//! Memory stays bounded whatever the input size: the reader enters a batch into the budget of
//! work in flight before it hands it on, and the consumer lets it go after it has taken it, so
//! only a fixed number of batches (each at most `BATCH_RECORDS` records or about `BATCH_BYTES`
//! bytes), and a fixed total of record bytes, are read, checked or waiting for their turn at
//! any time. Std channels are enough: work moves in batches, so the
//! one lock on the shared receiver is taken once per thousand records.

use std::collections::BTreeMap;
use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Condvar, Mutex};

use super::input::{read_inputs, Batch, HeldBack, InputError, InputKind, Source, Tail};

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
/// enough that memory does not grow with the input). Over 80 lines: the reader, the workers and
/// the consumer share one thread scope and its channels.
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
