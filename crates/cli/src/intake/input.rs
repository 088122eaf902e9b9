//! The three kinds of `records` input, read as a stream of batches: NDJSON (one record a line),
//! the JSON that `aws kinesis get-records` prints (read with a streaming deserializer, so a big
//! document is never held whole), and raw files (one record each).

use std::cell::Cell;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::rc::Rc;

use base64::Engine as _;
use schema2iceberg_mapper::records::MAX_INFLATED;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// How the INPUT files hold records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum InputKind {
    /// One JSON record a line (blank lines are skipped; a trailing \r is stripped).
    Ndjson,
    /// The JSON that `aws kinesis get-records` prints; each Records[].Data is base64.
    GetRecords,
    /// Each INPUT file is one record's bytes, exactly as the producer sends them.
    Raw,
}

/// Records per batch: a batch is the unit that workers take and the writer puts back in order.
pub(crate) const BATCH_RECORDS: usize = 1_000;
/// Bytes of record text per batch (a batch closes at whichever limit comes first).
pub(crate) const BATCH_BYTES: usize = 1024 * 1024;
/// The longest record read: no stream carries a bigger one, and the mapper inflates GSR
/// payloads to at most this, so a line over it is an input error rather than unbounded memory.
pub(crate) const MAX_RECORD: u64 = MAX_INFLATED;

/// One INPUT: a file, or standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// `-`, or no INPUT at all.
    Stdin,
    /// A file, with the path as given.
    File(PathBuf),
}

impl Source {
    /// The name output shows: the path as given, or `-`.
    pub(crate) fn name(&self) -> String {
        match self {
            Source::Stdin => "-".to_string(),
            Source::File(path) => path.display().to_string(),
        }
    }

    /// A regular file (not standard input, a pipe or a device), which may still be growing.
    fn is_regular_file(&self) -> bool {
        match self {
            Source::Stdin => false,
            Source::File(path) => std::fs::metadata(path).is_ok_and(|m| m.is_file()),
        }
    }

    fn open(&self) -> Result<Box<dyn Read + Send>, InputError> {
        match self {
            Source::Stdin => Ok(Box::new(std::io::stdin())),
            Source::File(path) => match std::fs::File::open(path) {
                Ok(file) => Ok(Box::new(file)),
                Err(e) => Err(InputError(format!("cannot read `{}`: {e}", path.display()))),
            },
        }
    }
}

/// One record's bytes and where it is.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    /// 1-based position in its input.
    pub(crate) position: u64,
    /// 1-based line (NDJSON only).
    pub(crate) line: Option<u64>,
    /// The Kinesis `SequenceNumber` (get-records only).
    pub(crate) sequence_number: Option<String>,
    /// The Kinesis `ApproximateArrivalTimestamp` as written: RFC 3339 text (AWS CLI v2) or
    /// seconds since the epoch (the API, CLI v1). get-records only, and only when present.
    pub(crate) arrival: Option<String>,
    /// The bytes the channel receives.
    pub(crate) bytes: Vec<u8>,
}

/// Consecutive records of one input.
#[derive(Debug, Clone)]
pub(crate) struct Batch {
    /// Its place in the whole run, from 0: the writer prints batches in this order.
    pub(crate) seq: u64,
    /// The input's index among the INPUTs.
    pub(crate) input: usize,
    /// The records, in input order.
    pub(crate) records: Vec<Record>,
}

/// An input that cannot be read as its kind says: exit code 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InputError(pub(crate) String);

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// Whether the reader should go on: `false` once the pipeline has stopped taking batches.
pub(crate) type Proceed = bool;

/// Collects records into batches and hands each full one on.
struct Batcher<'e> {
    next_seq: u64,
    input: usize,
    records: Vec<Record>,
    bytes: usize,
    emit: &'e mut dyn FnMut(Batch) -> Proceed,
    stopped: bool,
}

impl Batcher<'_> {
    fn push(&mut self, record: Record) -> Proceed {
        self.bytes += record.bytes.len();
        self.records.push(record);
        if self.records.len() >= BATCH_RECORDS || self.bytes >= BATCH_BYTES {
            return self.flush();
        }
        true
    }

    fn flush(&mut self) -> Proceed {
        if self.records.is_empty() || self.stopped {
            return !self.stopped;
        }
        let batch = Batch {
            seq: self.next_seq,
            input: self.input,
            records: std::mem::take(&mut self.records),
        };
        self.next_seq += 1;
        self.bytes = 0;
        self.stopped = !(self.emit)(batch);
        !self.stopped
    }
}

/// What to do with an NDJSON file's last line when it has no newline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tail {
    /// It is a record, like every other line (`records`: a sample file ends where it ends).
    Record,
    /// In a regular file it is not a record yet: a producer may still be writing it. It is
    /// held back, neither checked nor counted, and reported (`deliver`, which delivers it
    /// once the line is complete). Standard input and pipes end where they end.
    HoldIncomplete,
}

/// A last line that [`Tail::HoldIncomplete`] held back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeldBack {
    /// The input's index among the INPUTs.
    pub(crate) input: usize,
    /// Its 1-based line number.
    pub(crate) line: u64,
    /// The bytes it has so far.
    pub(crate) bytes: u64,
}

/// Reads every input in order, handing on batches of at most [`BATCH_RECORDS`] records or
/// [`BATCH_BYTES`] bytes; stops early when `emit` says so, or at the first input error.
/// Returns the last lines held back under [`Tail::HoldIncomplete`].
pub(crate) fn read_inputs(
    sources: &[Source],
    kind: InputKind,
    tail: Tail,
    emit: &mut dyn FnMut(Batch) -> Proceed,
) -> Result<Vec<HeldBack>, InputError> {
    let mut batcher = Batcher {
        next_seq: 0,
        input: 0,
        records: Vec::new(),
        bytes: 0,
        emit,
        stopped: false,
    };
    let mut held_back = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        batcher.input = index;
        let reader = source.open()?;
        let name = source.name();
        let hold = tail == Tail::HoldIncomplete && source.is_regular_file();
        let read = match kind {
            InputKind::Ndjson => {
                read_ndjson(reader, &name, hold, &mut batcher).map(|(go, held)| {
                    held_back.extend(held.map(|(line, bytes)| HeldBack {
                        input: index,
                        line,
                        bytes,
                    }));
                    go
                })
            }
            InputKind::GetRecords => read_get_records(reader, &name, &mut batcher),
            InputKind::Raw => read_raw(reader, &name, &mut batcher),
        };
        // A batch never spans two inputs, so that each names one file; the records read before
        // an input error are still checked.
        let flushed = batcher.flush();
        if !(read? && flushed) {
            break;
        }
    }
    Ok(held_back)
}

/// What reading one line found.
enum Line {
    /// A line (possibly empty) is in the buffer; `complete` when a newline ended it.
    Read { complete: bool },
    /// The input ended.
    End,
}

/// Reads up to the next `\n` (dropped) into `line`, refusing lines longer than [`MAX_RECORD`].
fn read_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    name: &str,
    number: u64,
) -> Result<Line, InputError> {
    line.clear();
    let mut read_any = false;
    loop {
        let buffer = reader
            .fill_buf()
            .map_err(|e| InputError(format!("cannot read `{name}`: {e}")))?;
        if buffer.is_empty() {
            return Ok(if read_any {
                Line::Read { complete: false }
            } else {
                Line::End
            });
        }
        read_any = true;
        let (taken, done) = match memchr::memchr(b'\n', buffer) {
            Some(at) => (buffer.get(..at).unwrap_or_default(), at + 1),
            None => (buffer, buffer.len()),
        };
        line.extend_from_slice(taken);
        let found_end = taken.len() < done;
        reader.consume(done);
        if line.len() as u64 > MAX_RECORD {
            return Err(InputError(format!(
                "`{name}` line {number} is longer than {MAX_RECORD} bytes; no stream carries a record that large"
            )));
        }
        if found_end {
            return Ok(Line::Read { complete: true });
        }
    }
}

/// NDJSON: one record a line, lines counted from 1. A blank line (nothing but spaces and tabs)
/// is not a record and is skipped, but still counted; a trailing `\r` is stripped. With `hold`,
/// a last line without a newline is not a record yet: its line number and length are returned
/// instead.
fn read_ndjson(
    reader: Box<dyn Read + Send>,
    name: &str,
    hold: bool,
    batcher: &mut Batcher<'_>,
) -> Result<(Proceed, Option<(u64, u64)>), InputError> {
    let mut reader = BufReader::with_capacity(256 * 1024, reader);
    let mut line = Vec::new();
    let mut number = 0u64;
    let mut position = 0u64;
    loop {
        number += 1;
        let complete = match read_line(&mut reader, &mut line, name, number)? {
            Line::End => return Ok((true, None)),
            Line::Read { complete } => complete,
        };
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.iter().all(|b| matches!(b, b' ' | b'\t')) {
            continue;
        }
        if hold && !complete {
            return Ok((true, Some((number, line.len() as u64))));
        }
        position += 1;
        let record = Record {
            position,
            line: Some(number),
            sequence_number: None,
            arrival: None,
            bytes: line.clone(),
        };
        if !batcher.push(record) {
            return Ok((false, None));
        }
    }
}

/// Raw: the whole input is one record.
fn read_raw(
    reader: Box<dyn Read + Send>,
    name: &str,
    batcher: &mut Batcher<'_>,
) -> Result<Proceed, InputError> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_RECORD + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| InputError(format!("cannot read `{name}`: {e}")))?;
    if bytes.len() as u64 > MAX_RECORD {
        return Err(InputError(format!(
            "`{name}` is longer than {MAX_RECORD} bytes; no stream carries a record that large"
        )));
    }
    Ok(batcher.push(Record {
        position: 1,
        line: None,
        sequence_number: None,
        arrival: None,
        bytes,
    }))
}

/// One element of `Records` in `aws kinesis get-records` output; other members are ignored.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct KinesisRecord {
    sequence_number: String,
    data: String,
    #[serde(default)]
    approximate_arrival_timestamp: Option<Arrival>,
}

/// `ApproximateArrivalTimestamp`: text or a number, kept as written.
#[derive(Deserialize)]
#[serde(untagged)]
enum Arrival {
    Text(String),
    Seconds(serde_json::Number),
}

impl Arrival {
    fn into_text(self) -> String {
        match self {
            Arrival::Text(text) => text,
            Arrival::Seconds(number) => number.to_string(),
        }
    }
}

/// get-records: one JSON document whose `Records` array is streamed element by element.
fn read_get_records(
    reader: Box<dyn Read + Send>,
    name: &str,
    batcher: &mut Batcher<'_>,
) -> Result<Proceed, InputError> {
    let meter = Rc::new(Meter::default());
    let reader = BufReader::with_capacity(
        256 * 1024,
        MeteredReader {
            inner: reader,
            meter: Rc::clone(&meter),
        },
    );
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let mut state = GetRecordsState {
        batcher,
        position: 0,
        problem: None,
        stopped: false,
        meter,
    };
    let document = DocumentSeed { state: &mut state }.deserialize(&mut deserializer);
    let outcome = document.and_then(|found| {
        deserializer.end()?;
        Ok(found)
    });
    if let Some(problem) = state.problem {
        return Err(InputError(format!("`{name}`: {problem}")));
    }
    match outcome {
        Ok(true) => Ok(!state.stopped),
        Ok(false) => Err(InputError(format!(
            "`{name}` is not the output of `aws kinesis get-records`: it has no `Records` array"
        ))),
        Err(_) if state.stopped => Ok(false),
        Err(e) => Err(InputError(format!(
            "`{name}` is not the output of `aws kinesis get-records`: {e}"
        ))),
    }
}

/// The most bytes of get-records text one element of `Records` may take: the base64 text of a
/// [`MAX_RECORD`]-byte record, with room for its other members and the reader's buffer. The
/// JSON reader holds a string whole, so the cap is applied to the bytes read, before any
/// string is.
const MAX_ELEMENT_TEXT: u64 = MAX_RECORD.div_ceil(3) * 4 + 1024 * 1024;

/// Bytes read so far, and how far the element being read may go.
#[derive(Debug, Default)]
struct Meter {
    read: Cell<u64>,
    limit: Cell<u64>,
}

impl Meter {
    /// The element starting now may take [`MAX_ELEMENT_TEXT`] bytes.
    fn start_element(&self) {
        self.limit
            .set(self.read.get().saturating_add(MAX_ELEMENT_TEXT));
    }

    fn over(&self) -> bool {
        self.limit.get() > 0 && self.read.get() > self.limit.get()
    }
}

/// A reader that stops with an error once the element being read is over its cap.
struct MeteredReader {
    inner: Box<dyn Read + Send>,
    meter: Rc<Meter>,
}

impl Read for MeteredReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.meter.over() {
            return Err(std::io::Error::other("a record is too large"));
        }
        let read = self.inner.read(buf)?;
        self.meter
            .read
            .set(self.meter.read.get().saturating_add(read as u64));
        Ok(read)
    }
}

/// What reading a get-records document keeps between elements.
struct GetRecordsState<'b, 'e> {
    batcher: &'b mut Batcher<'e>,
    meter: Rc<Meter>,
    position: u64,
    /// A problem the JSON error cannot say well (a Data that is not base64).
    problem: Option<String>,
    /// The pipeline stopped taking batches.
    stopped: bool,
}

/// The top-level object; deserializes to whether it had a `Records` array.
struct DocumentSeed<'s, 'b, 'e> {
    state: &'s mut GetRecordsState<'b, 'e>,
}

impl<'de> DeserializeSeed<'de> for DocumentSeed<'_, '_, '_> {
    type Value = bool;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for DocumentSeed<'_, '_, '_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object with a `Records` array")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut found = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "Records" {
                map.next_value_seed(RecordsSeed {
                    state: &mut *self.state,
                })?;
                found = true;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// The `Records` array: each element is decoded and handed to the batcher as it is read.
struct RecordsSeed<'s, 'b, 'e> {
    state: &'s mut GetRecordsState<'b, 'e>,
}

impl<'de> DeserializeSeed<'de> for RecordsSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RecordsSeed<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of records, each with `SequenceNumber` and `Data`")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let state = self.state;
        loop {
            state.meter.start_element();
            let element = match seq.next_element::<KinesisRecord>() {
                Ok(Some(element)) => element,
                Ok(None) => {
                    // The members after `Records` are not records: no element cap applies.
                    state.meter.limit.set(0);
                    break;
                }
                Err(e) if state.meter.over() => {
                    let problem = format!(
                        "Records[{}] is longer than {MAX_RECORD} bytes of record (base64 in `Data`); no stream carries a record that large",
                        state.position
                    );
                    state.problem = Some(problem);
                    return Err(e);
                }
                Err(e) => return Err(e),
            };
            state.position += 1;
            let bytes = match base64::engine::general_purpose::STANDARD.decode(&element.data) {
                Ok(bytes) => bytes,
                Err(e) => {
                    let problem = format!(
                        "Records[{}].Data (SequenceNumber {}) is not base64: {e}",
                        state.position - 1,
                        element.sequence_number
                    );
                    state.problem = Some(problem.clone());
                    return Err(de::Error::custom(problem));
                }
            };
            if bytes.len() as u64 > MAX_RECORD {
                let problem = format!(
                    "Records[{}].Data (SequenceNumber {}) is longer than {MAX_RECORD} bytes; no stream carries a record that large",
                    state.position - 1,
                    element.sequence_number
                );
                state.problem = Some(problem.clone());
                return Err(de::Error::custom(problem));
            }
            let record = Record {
                position: state.position,
                line: None,
                sequence_number: Some(element.sequence_number),
                arrival: element
                    .approximate_arrival_timestamp
                    .map(Arrival::into_text),
                bytes,
            };
            if !state.batcher.push(record) {
                state.stopped = true;
                return Err(de::Error::custom("stopped"));
            }
        }
        Ok(())
    }
}
