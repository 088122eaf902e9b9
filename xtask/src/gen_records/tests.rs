//! Generated records for the benchmark's every-type schema must all be delivered, and must
//! cover every column with a value, and every optional field absent and (where the schema
//! allows) null; a snapshot keeps the first records, their rows and the coverage counts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schema2iceberg_mapper::records::{RecordChecker, RecordOptions, Verdict};
use schema2iceberg_mapper::CompileOptions;
use schema2iceberg_parser::{LoadOptions, Workspace};
use serde_json::{json, Value};

use super::shape::{Shape, StructShape};
use super::{parse_size, Generator};

const SCHEMA: &str = "testdata/records/bench/every-type.schema.json";
const PARTITION: &str = "event_time";
const RECORDS: usize = 200;

fn repository_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
}

/// How often each column was written with a value, as null, and left out.
#[derive(Default)]
struct Seen {
    value: usize,
    null: usize,
    absent: usize,
}

fn count(shape: &StructShape, record: &Value, seen: &mut BTreeMap<String, Seen>) {
    for field in &shape.fields {
        let entry = seen.entry(field.path.clone()).or_default();
        match record.get(&field.name) {
            None => entry.absent += 1,
            Some(Value::Null) => entry.null += 1,
            Some(value) => {
                entry.value += 1;
                count_nested(&field.shape, value, seen);
            }
        }
    }
}

fn count_nested(shape: &Shape, value: &Value, seen: &mut BTreeMap<String, Seen>) {
    match (shape, value) {
        (Shape::Struct(s), _) => count(s, value, seen),
        (Shape::List { element, .. }, Value::Array(items)) => {
            for item in items {
                count_nested(element, item, seen);
            }
        }
        (Shape::Map { value: v, .. }, Value::Object(entries)) => {
            for item in entries.values() {
                count_nested(v, item, seen);
            }
        }
        _ => {}
    }
}

/// Generates `RECORDS` records, checks each with the mapper, and returns the snapshot's JSON.
fn check(seed: u64) -> Value {
    let schema = repository_path(SCHEMA);
    let mut generator = Generator::new(&schema, Some(PARTITION), seed)
        .unwrap_or_else(|e| panic!("the generator cannot read {SCHEMA}: {e}"));
    let ws = Workspace::open(&schema, LoadOptions::default())
        .unwrap_or_else(|e| panic!("cannot read {SCHEMA}: {e}"));
    let options = CompileOptions {
        partition: vec![PARTITION.to_string()],
        ..CompileOptions::default()
    };
    let checker = RecordChecker::new(&ws, &options, RecordOptions::default())
        .unwrap_or_else(|e| panic!("{SCHEMA} has no checker: {e}"));
    let mut seen = BTreeMap::new();
    let mut failures = Vec::new();
    let mut first = Vec::new();
    let mut dropped = 0;
    for n in 1..=RECORDS {
        let mut line = String::new();
        generator.next_record(&mut line);
        let record: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("record {n} is not JSON ({e}): {line}"));
        count(generator.shape(), &record, &mut seen);
        match checker.check(line.as_bytes(), n <= 2) {
            Verdict::Delivered(delivered) => {
                dropped += usize::from(!delivered.dropped.is_empty());
                if n <= 2 {
                    first.push(
                        json!({"record": line, "row": delivered.row, "dropped": delivered.dropped}),
                    );
                }
            }
            Verdict::Dlq(failure) => failures.push(format!(
                "record {n}: {} at {}: {}\n  {line}",
                failure.reason.code(),
                failure.pointer,
                failure.message
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {RECORDS} generated records go to the DLQ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let mut uncovered = Vec::new();
    let all_fields = all_fields(generator.shape());
    for (path, always, nullable) in &all_fields {
        let s = seen
            .get(path)
            .map_or((0, 0, 0), |s| (s.value, s.null, s.absent));
        if s.0 == 0 || (!always && s.2 == 0) || (*nullable && s.1 == 0) {
            uncovered.push(format!(
                "{path}: {} values, {} nulls, {} absent",
                s.0, s.1, s.2
            ));
        }
    }
    assert!(
        uncovered.is_empty(),
        "columns not covered by {RECORDS} records:\n{}",
        uncovered.join("\n")
    );
    assert!(dropped > 0, "no record has a field that the table drops");
    json!({
        "records": RECORDS,
        "with_dropped_fields": dropped,
        "coverage (values, nulls, absent)": seen
            .iter()
            .map(|(path, s)| (path.clone(), json!(format!("{} {} {}", s.value, s.null, s.absent))))
            .collect::<serde_json::Map<_, _>>(),
        "first": first,
    })
}

fn all_fields(shape: &StructShape) -> Vec<(String, bool, bool)> {
    let mut out = Vec::new();
    for field in &shape.fields {
        out.push((field.path.clone(), field.always, field.nullable));
        let mut nested = &field.shape;
        while let Shape::List { element: inner, .. } | Shape::Map { value: inner, .. } = nested {
            nested = inner;
        }
        if let Shape::Struct(s) = nested {
            out.extend(all_fields(s));
        }
    }
    out
}

#[test]
fn every_generated_record_is_delivered() {
    let summary = check(1);
    insta::assert_json_snapshot!("every_type_seed_1", summary);
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    let schema = repository_path(SCHEMA);
    let records = |seed| {
        let mut g =
            Generator::new(&schema, Some(PARTITION), seed).unwrap_or_else(|e| panic!("{e}"));
        let mut out = String::new();
        for _ in 0..50 {
            g.next_record(&mut out);
            out.push('\n');
        }
        out
    };
    assert_eq!(records(7), records(7));
    assert_ne!(records(7), records(8));
}

#[test]
fn sizes_and_bad_schemas_are_errors_not_panics() {
    assert_eq!(parse_size("200MB"), Ok(200_000_000));
    assert_eq!(parse_size("1.5kb"), Ok(1_500));
    assert_eq!(parse_size("2MiB"), Ok(2 << 20));
    assert_eq!(parse_size("4096"), Ok(4096));
    for bad in ["", "MB", "12 parsecs", "0MB", "-3MB", "1e3MB"] {
        assert!(parse_size(bad).is_err(), "{bad:?} should be refused");
    }
    let error = Generator::new(
        &repository_path("testdata/compile/rule02-root-not-object-error.json"),
        None,
        1,
    )
    .err()
    .unwrap_or_default();
    assert!(error.contains("does not compile to a table"), "{error}");
    let missing = Generator::new(&repository_path("testdata/no-such-schema.json"), None, 1)
        .err()
        .unwrap_or_default();
    assert!(missing.starts_with("cannot read"), "{missing}");
}

#[test]
fn stream_times_follow_the_clock_and_are_delivered() {
    use schema2iceberg_mapper::records::Cell;
    let schema = repository_path(SCHEMA);
    let mut generator = Generator::new(&schema, Some(PARTITION), 3)
        .and_then(|g| g.with_stream(Some(PARTITION)))
        .unwrap_or_else(|e| panic!("{e}"));
    let index = generator
        .shape()
        .fields
        .iter()
        .position(|f| f.path == PARTITION)
        .unwrap_or_else(|| panic!("no {PARTITION} field"));
    let ws = Workspace::open(&schema, LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let options = CompileOptions {
        partition: vec![PARTITION.to_string()],
        ..CompileOptions::default()
    };
    let checker = RecordChecker::new(&ws, &options, RecordOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    for n in 0..2_000i64 {
        let mut line = String::new();
        generator.next_record(&mut line);
        let Verdict::Delivered(delivered) = checker.check_for_table(line.as_bytes()) else {
            panic!("record {n} is not delivered: {line}");
        };
        let cells = delivered.cells.unwrap_or_default();
        let Some(Cell::Timestamptz(micros)) = cells.get(index) else {
            panic!("record {n} has no {PARTITION} cell: {line}");
        };
        let clock = super::STREAM_START + n * super::STREAM_STEP;
        // Written with 0 or 3 fraction digits, the instant is truncated by up to a second.
        assert!(
            (clock - super::STREAM_SPREAD - 1_000_000..=clock + super::STREAM_SPREAD)
                .contains(micros),
            "record {n}: {micros} is not within the spread of {clock}: {line}"
        );
    }
    let refused = Generator::new(&schema, Some(PARTITION), 3)
        .and_then(|g| g.with_stream(Some("kind")))
        .err()
        .unwrap_or_default();
    assert!(refused.contains("timestamptz"), "{refused}");
}
