//! One checked record as a JSON object: a line of `records --format ndjson`, and of `deliver`'s
//! dead-letter files.

use schema2iceberg_mapper::records::Verdict;
use serde_json::{json, Map, Value};

use crate::intake::input::Record;

/// The JSON object of one record (NDJSON's line, and an element of the JSON format's array).
pub(crate) fn record_json(input: &str, record: &Record, verdict: &Verdict) -> Value {
    let mut object = Map::new();
    object.insert("input".into(), json!(input));
    object.insert("record".into(), json!(record.position));
    if let Some(line) = record.line {
        object.insert("line".into(), json!(line));
    }
    if let Some(sequence) = &record.sequence_number {
        object.insert("sequence-number".into(), json!(sequence));
    }
    match verdict {
        Verdict::Delivered(delivered) => {
            object.insert("verdict".into(), json!("delivered"));
            if let Some(row) = &delivered.row {
                object.insert("row".into(), row.clone());
            }
            object.insert("dropped".into(), json!(delivered.dropped));
        }
        Verdict::Dlq(failure) => {
            object.insert("verdict".into(), json!("dlq"));
            object.insert("reason".into(), json!(failure.reason.code()));
            object.insert("pointer".into(), json!(failure.pointer));
            object.insert("message".into(), json!(failure.message));
            if let Some(keyword) = &failure.keyword {
                object.insert("keyword".into(), json!(keyword));
            }
        }
    }
    Value::Object(object)
}
