//! Exactly once: how far into each input the table's commits reached, kept in the table's
//! properties (every commit sets it) and in each snapshot's summary, and read back to resume.
//!
//! An input is known by its canonical path (links and `..` resolved; `-` for standard input).
//! Each commit records, for every input the table was ever filled from, how many of its records
//! are done (delivered or sent to the dead-letter queue), a fingerprint of those records (the
//! last one's sequence number too, for get-records) and one of its first record. A later run
//! skips the records done, after checking that the input's first records still have that
//! fingerprint, so a different file under the same name is refused rather than half skipped;
//! and an input under another name that starts with a delivered input's first record is
//! refused as the same content.

use iceberg::table::Table;
use serde::{Deserialize, Serialize};

/// The snapshot-summary property that holds the [`Progress`] as JSON.
pub const PROGRESS_PROPERTY: &str = "schema2iceberg.progress";

/// Why the table's progress cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ProgressError {
    #[error("the table property `{property}` cannot be read ({source}), so it is not known which records the table holds", property = PROGRESS_PROPERTY)]
    Property { source: serde_json::Error },
    #[error("snapshot {snapshot} has a `{property}` that cannot be read ({source}), so it is not known which records the table holds", property = PROGRESS_PROPERTY)]
    Snapshot {
        snapshot: i64,
        source: serde_json::Error,
    },
    /// A bug: the progress always serializes.
    #[error("cannot write the delivery progress: {0}")]
    Write(#[source] serde_json::Error),
}

/// How far the table's commits reached, over every run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Progress {
    /// Delivery cycles done: numbers the dead-letter files.
    pub(crate) cycles: u64,
    /// Each input, in the order first delivered.
    pub(crate) inputs: Vec<InputProgress>,
    /// The dead-letter file that the last cycle wrote, relative to the warehouse; dead-letter
    /// files of cycles after `cycles` were never committed.
    #[serde(
        default,
        rename = "dead-letter-file",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) dead_letter_file: Option<String>,
}

/// How far one input is done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct InputProgress {
    /// The input's name, as given.
    pub(crate) input: String,
    /// Records done, from the start of the input (blank NDJSON lines are not records).
    pub(crate) records: u64,
    /// The fingerprint of the records done ([`chain`] over each record's [`fingerprint`]).
    pub(crate) fingerprint: String,
    /// The last record's `SequenceNumber` (get-records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sequence_number: Option<String>,
    /// The fingerprint of the input's first record: another input that starts with the same
    /// record is the same content under another name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) first: Option<String>,
    /// Of the records done, those sent to the dead-letter queue: a rerun's exit code says
    /// what the table and the dead-letter folder hold for the input, as the first run's did.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) dead_letters: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Progress {
    /// The progress in the table's properties; else that of the newest snapshot that records
    /// one, walking back from the current snapshot through its parents; none for a table
    /// without.
    pub(crate) fn of_table(table: &Table) -> Result<Progress, ProgressError> {
        let metadata = table.metadata();
        if let Some(text) = metadata.properties().get(PROGRESS_PROPERTY) {
            return serde_json::from_str(text).map_err(|source| ProgressError::Property { source });
        }
        let mut next = metadata.current_snapshot_id();
        // Snapshots form a chain; the count bounds the walk even if the metadata had a loop.
        for _ in 0..=metadata.snapshots().count() {
            let Some(snapshot) = next.and_then(|id| metadata.snapshot_by_id(id)) else {
                break;
            };
            if let Some(text) = snapshot
                .summary()
                .additional_properties
                .get(PROGRESS_PROPERTY)
            {
                return serde_json::from_str(text).map_err(|source| ProgressError::Snapshot {
                    snapshot: snapshot.snapshot_id(),
                    source,
                });
            }
            next = snapshot.parent_snapshot_id();
        }
        Ok(Progress::default())
    }

    /// How far `input` is done.
    pub(crate) fn of_input(&self, input: &str) -> Option<&InputProgress> {
        self.inputs.iter().find(|p| p.input == input)
    }

    /// Records that `input` is done up to `done`.
    pub(crate) fn advance(&mut self, done: InputProgress) {
        match self.inputs.iter_mut().find(|p| p.input == done.input) {
            Some(known) => *known = done,
            None => self.inputs.push(done),
        }
    }

    /// The summary property's value. An error is a bug, and the commit is refused for it:
    /// an empty property would lose the table's progress.
    pub(crate) fn to_property(&self) -> Result<String, ProgressError> {
        serde_json::to_string(self).map_err(ProgressError::Write)
    }
}

/// A record's fingerprint: 64 bits, taken eight bytes at a time (FxHash's multiply and rotate,
/// with the length mixed in). Not for security, only to tell a different record at the same
/// position from the same one; fast (every record is fingerprinted), and stable across
/// versions, unlike std's hasher.
pub(crate) fn fingerprint(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |hash: u64, word: u64| (hash.rotate_left(5) ^ word).wrapping_mul(K);
    let mut hash = mix(CHAIN_START, bytes.len() as u64);
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    for word in words {
        hash = mix(
            hash,
            u64::from_le_bytes(word.try_into().unwrap_or_default()),
        );
    }
    let mut last = [0u8; 8];
    for (to, from) in last.iter_mut().zip(tail) {
        *to = *from;
    }
    mix(hash, u64::from_le_bytes(last))
}

/// The fingerprint of an input's first records: each record's fingerprint, chained in order.
pub(crate) fn chain(so_far: u64, record: u64) -> u64 {
    let mut hash = so_far;
    for byte in record.to_le_bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// Where [`chain`] starts: FNV's offset basis.
pub(crate) const CHAIN_START: u64 = 0xcbf2_9ce4_8422_2325;

/// A fingerprint as the summary holds it.
pub(crate) fn fingerprint_text(hash: u64) -> String {
    format!("fx64:{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_stable_and_see_every_byte() {
        // Fixed values: a change of the function would make tables filled before it refuse
        // their own inputs.
        let text = |bytes: &[u8]| fingerprint_text(fingerprint(bytes));
        assert_eq!(text(b""), text(b""));
        let record = br#"{"id": 1, "event_time": "2026-07-09T20:00:00Z"}"#;
        let base = fingerprint(record);
        for at in 0..record.len() {
            let mut changed = record.to_vec();
            changed[at] ^= 1;
            assert_ne!(fingerprint(&changed), base, "byte {at}");
        }
        assert_ne!(fingerprint(&record[..record.len() - 1]), base);
        assert_ne!(fingerprint(b"\0"), fingerprint(b""));
        assert_eq!(text(b"foobar"), FOOBAR);
    }

    // Computed independently (a few lines of Python that follow the doc comment).
    const FOOBAR: &str = "fx64:7cea09a3789c0ff8";

    #[test]
    fn advancing_keeps_first_delivered_order() {
        let mut progress = Progress::default();
        for (input, records) in [("b", 1), ("a", 2), ("b", 3)] {
            progress.advance(InputProgress {
                input: input.to_string(),
                records,
                fingerprint: String::new(),
                sequence_number: None,
                first: None,
                dead_letters: 0,
            });
        }
        let order: Vec<(&str, u64)> = progress
            .inputs
            .iter()
            .map(|p| (p.input.as_str(), p.records))
            .collect();
        assert_eq!(order, [("b", 3), ("a", 2)]);
        let read: Progress = serde_json::from_str(&progress.to_property().unwrap()).unwrap();
        assert_eq!(read, progress);
    }
}
