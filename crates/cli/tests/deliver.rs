//! Data-driven tests of `schema2iceberg deliver`. Each `testdata/deliver/<case>/` holds a schema,
//! inputs, and one or more runs (`run-1`, `run-2`, …: the arguments, one per line; `run-N.stdin`,
//! when present, is piped to standard input), run in order in the case's folder on one fresh
//! warehouse. The snapshot holds each run's exit code and output, then the table as read back by
//! the `iceberg` crate: its rows (a table scan into Arrow, each value in Iceberg's single-value
//! JSON), its snapshots with their progress, its data files with their partition hour, and the
//! dead-letter files.
//!
//! Checked beyond the snapshot, for every case:
//! - each data file's partition hour is the hour of every one of its rows (read from Parquet);
//! - `records-args`, when present: the rows equal the delivered rows of `records --show all`;
//! - `same-as`, when present: the rows and dead-letter lines equal those of one uninterrupted
//!   run with those arguments on a fresh warehouse (re-runs and kill-and-resume);
//! - pyiceberg reads the same rows, with the Python in SCHEMA2ICEBERG_TEST_PYTHON (`.ci/run` makes
//!   it with scripts/test-python-venv.sh); under CI=true its absence fails the test.

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float64Type, Int32Type, Int64Type, Time64MicrosecondType,
    TimestampMicrosecondType,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use iceberg::spec::{Literal, PrimitiveLiteral, PrimitiveType, Type};
use iceberg::table::Table;
use schema2iceberg::deliver::PROGRESS_PROPERTY;
use schema2iceberg_mapper::records::{decimal_text, timestamptz_text};
use serde_json::{Map, Value};

#[path = "deliver/warehouse.rs"]
mod warehouse;

use warehouse::{runtime, scan_all, the_table, walk};

const BIN: &str = env!("CARGO_BIN_EXE_schema2iceberg");

fn primitive(literal: PrimitiveLiteral, ty: PrimitiveType) -> Value {
    Literal::Primitive(literal)
        .try_into_json(&Type::Primitive(ty))
        .unwrap()
}

/// One Arrow value as `records` writes it in a row.
fn json(array: &dyn Array, i: usize) -> Value {
    if array.is_null(i) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::Boolean => Value::Bool(array.as_boolean().value(i)),
        DataType::Int32 => Value::from(array.as_primitive::<Int32Type>().value(i)),
        DataType::Int64 => Value::from(array.as_primitive::<Int64Type>().value(i)),
        DataType::Float64 => primitive(
            PrimitiveLiteral::Double(array.as_primitive::<Float64Type>().value(i).into()),
            PrimitiveType::Double,
        ),
        DataType::Decimal128(_, scale) => Value::String(decimal_text(
            array.as_primitive::<Decimal128Type>().value(i),
            u32::try_from(*scale).unwrap(),
        )),
        DataType::Utf8 => Value::String(array.as_string::<i32>().value(i).to_string()),
        DataType::Date32 => primitive(
            PrimitiveLiteral::Int(array.as_primitive::<Date32Type>().value(i)),
            PrimitiveType::Date,
        ),
        DataType::Time64(_) => primitive(
            PrimitiveLiteral::Long(array.as_primitive::<Time64MicrosecondType>().value(i)),
            PrimitiveType::Time,
        ),
        DataType::Timestamp(_, _) => Value::String(timestamptz_text(
            array.as_primitive::<TimestampMicrosecondType>().value(i),
        )),
        DataType::FixedSizeBinary(16) => {
            let bytes: [u8; 16] = array.as_fixed_size_binary().value(i).try_into().unwrap();
            primitive(
                PrimitiveLiteral::UInt128(u128::from_be_bytes(bytes)),
                PrimitiveType::Uuid,
            )
        }
        DataType::LargeBinary => primitive(
            PrimitiveLiteral::Binary(array.as_binary::<i64>().value(i).to_vec()),
            PrimitiveType::Binary,
        ),
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let mut object = Map::new();
            for (f, column) in fields.iter().zip(s.columns()) {
                object.insert(f.name().clone(), json(column.as_ref(), i));
            }
            Value::Object(object)
        }
        DataType::List(_) => {
            let items = array.as_list::<i32>().value(i);
            Value::Array((0..items.len()).map(|j| json(items.as_ref(), j)).collect())
        }
        DataType::Map(_, _) => {
            let entries = array.as_map().value(i);
            let keys = entries.column(0).as_string::<i32>();
            let values = entries.column(1);
            Value::Object(
                (0..entries.len())
                    .map(|j| (keys.value(j).to_string(), json(values.as_ref(), j)))
                    .collect(),
            )
        }
        other => panic!("no JSON for Arrow {other}"),
    }
}

fn batch_rows(batch: &RecordBatch) -> Vec<Value> {
    (0..batch.num_rows())
        .map(|i| {
            let mut object = Map::new();
            for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
                object.insert(field.name().clone(), json(column.as_ref(), i));
            }
            Value::Object(object)
        })
        .collect()
}

/// The arguments of a run file, one per line.
fn args_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The environment of a run (`run-N.env`: `KEY=VALUE` lines), e.g. the test builds' fault
/// hook `SCHEMA2ICEBERG_TEST_FAULT=after-commit@1`, which stops the run as a kill would.
fn env_of(path: &Path) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The run files of a case, in order.
fn runs(case: &Path) -> Vec<PathBuf> {
    let mut runs: Vec<PathBuf> = std::fs::read_dir(case)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            name.starts_with("run-") && !name.contains('.')
        })
        .collect();
    runs.sort();
    assert!(!runs.is_empty(), "{}: no run-N file", case.display());
    runs
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(
    case: &Path,
    args: &[String],
    stdin: Option<&Path>,
    env: &[(String, String)],
    warehouse: &Path,
) -> Ran {
    let mut command = Command::new(BIN);
    command
        .envs(env.iter().map(|(k, v)| (k, v)))
        .arg("deliver")
        .args(args)
        .arg("--warehouse")
        .arg(warehouse)
        .current_dir(case)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match stdin {
        Some(path) => command.stdin(std::fs::File::open(path).unwrap()),
        None => command.stdin(Stdio::null()),
    };
    let output = command.output().unwrap();
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// Output with what differs from run to run replaced: the warehouse and case paths, snapshot ids,
/// file sizes and data-file UUIDs.
fn redact(text: &str, case: &Path, warehouse: &Path) -> String {
    let case = std::path::absolute(case).unwrap();
    let text = text
        .replace(&warehouse.display().to_string(), "<warehouse>")
        .replace(&case.display().to_string(), "<case>");
    let rules = [
        (r"snapshot -?\d+", "snapshot <id>"),
        (r#""snapshot-id": -?\d+"#, r#""snapshot-id": <id>"#),
        (r#""bytes": \d+"#, r#""bytes": <size>"#),
        (r"\(\d+(\.\d+)? (B|KiB|MiB)\)", "(<size>)"),
        (r"data-[0-9a-f-]{36}-", "data-<uuid>-"),
    ];
    let mut text = text;
    for (pattern, replacement) in rules {
        text = regex::Regex::new(pattern)
            .unwrap()
            .replace_all(&text, replacement)
            .to_string();
    }
    text
}

/// What a warehouse holds after the runs.
#[derive(Default)]
struct State {
    /// Rows, sorted by their JSON text.
    rows: Vec<String>,
    /// The table's name, snapshots, files; for the snapshot.
    report: String,
    /// Every dead-letter line, in file order.
    dead_letters: Vec<String>,
    table: Option<String>,
}

fn state(warehouse: &Path, case: &Path) -> State {
    let mut state = State::default();
    let dlq = warehouse.join("dlq");
    let mut files = Vec::new();
    if dlq.exists() {
        for entry in walk(&dlq) {
            files.push(entry);
        }
    }
    files.sort();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file.strip_prefix(warehouse).unwrap().display().to_string();
        writeln!(state.report, "dead-letter file {shown}:").unwrap();
        for line in text.lines() {
            writeln!(state.report, "  {line}").unwrap();
            state.dead_letters.push(line.to_string());
        }
    }
    runtime().block_on(async {
        let Some(table) = the_table(warehouse).await else {
            writeln!(state.report, "no table").unwrap();
            return;
        };
        state.table = Some(table.identifier().to_string());
        let metadata = table.metadata();
        let mut report = format!(
            "table {} (format {:?})\n",
            table.identifier(),
            metadata.format_version()
        );
        let mut properties: Vec<_> = metadata.properties().iter().collect();
        properties.sort();
        for (key, value) in properties {
            writeln!(report, "  property {key} = {value}").unwrap();
        }
        writeln!(
            report,
            "  partition spec {:?}",
            metadata
                .default_partition_spec()
                .fields()
                .iter()
                .map(|f| format!("{}({})", f.transform, f.name))
                .collect::<Vec<_>>()
        )
        .unwrap();
        let mut snapshots: Vec<_> = metadata.snapshots().collect();
        snapshots.sort_by_key(|s| s.sequence_number());
        for snapshot in snapshots {
            let props = &snapshot.summary().additional_properties;
            writeln!(
                report,
                "  snapshot {}: added {} records, {} files; progress {}",
                snapshot.sequence_number(),
                props.get("added-records").map_or("0", String::as_str),
                props.get("added-data-files").map_or("0", String::as_str),
                props.get(PROGRESS_PROPERTY).map_or("none", String::as_str)
            )
            .unwrap();
        }
        report.push_str(&check_partitions(&table).await);
        let batches = scan_all(&table).await;
        state.rows = batches
            .iter()
            .flat_map(batch_rows)
            .map(|v| v.to_string())
            .collect();
        state.rows.sort();
        writeln!(report, "  {} rows (sorted):", state.rows.len()).unwrap();
        for row in &state.rows {
            writeln!(report, "    {row}").unwrap();
        }
        state.report = format!("{report}{}", state.report);
    });
    state.report = redact(&state.report, case, warehouse);
    state
}

/// Every data file of the current snapshot: its partition value (the hour) must be the hour of
/// each of its rows' partition source, read from the Parquet file itself. Returns one line per
/// file (hour and row count), sorted.
async fn check_partitions(table: &Table) -> String {
    let Some(snapshot) = table.metadata().current_snapshot() else {
        return String::new();
    };
    let spec = table.metadata().default_partition_spec();
    let source = table
        .metadata()
        .current_schema()
        .field_by_id(spec.fields()[0].source_id)
        .unwrap()
        .name
        .clone();
    let list = table.manifest_list_reader(snapshot).load().await.unwrap();
    let mut lines = Vec::new();
    let mut held = Vec::new();
    // Each column's encoding in the data files' row groups: one line when all agree.
    let mut encodings = std::collections::BTreeSet::new();
    for manifest_file in list.entries() {
        let manifest = manifest_file.load_manifest(table.file_io()).await.unwrap();
        for entry in manifest.entries() {
            let data_file = entry.data_file();
            held.push(
                data_file
                    .file_path()
                    .trim_start_matches("file://")
                    .to_string(),
            );
            let Some(Literal::Primitive(PrimitiveLiteral::Int(hour))) =
                data_file.partition().fields()[0].clone()
            else {
                panic!(
                    "partition of {}: {:?}",
                    data_file.file_path(),
                    data_file.partition()
                );
            };
            let bytes = table
                .file_io()
                .new_input(data_file.file_path())
                .unwrap()
                .read()
                .await
                .unwrap();
            let builder =
                parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(bytes)
                    .unwrap();
            for row_group in builder.metadata().row_groups() {
                let columns: Vec<String> = row_group
                    .columns()
                    .iter()
                    .map(|c| {
                        let encoding = match c.dictionary_page_offset() {
                            Some(_) => "dictionary",
                            None => "plain",
                        };
                        format!("{} {encoding}", c.column_path().string())
                    })
                    .collect();
                encodings.insert(columns.join(", "));
            }
            let reader = builder.build().unwrap();
            let mut rows = 0;
            for batch in reader {
                let batch = batch.unwrap();
                let column = batch.column_by_name(&source).unwrap();
                for micros in column.as_primitive::<TimestampMicrosecondType>().values() {
                    assert_eq!(
                        micros.div_euclid(3_600_000_000),
                        i64::from(hour),
                        "{}",
                        data_file.file_path()
                    );
                    rows += 1;
                }
            }
            assert_eq!(rows, data_file.record_count(), "{}", data_file.file_path());
            lines.push(format!(
                "  data file in hour {hour}: {rows} rows, {:?}",
                data_file.file_format()
            ));
        }
    }
    lines.sort();
    lines.extend(
        encodings
            .into_iter()
            .map(|columns| format!("  column encodings: {columns}")),
    );
    // Append-only: the current snapshot holds every data file ever committed, so a file on disk
    // that it does not hold was left by a cycle that did not commit.
    let data = table
        .metadata()
        .location()
        .trim_start_matches("file://")
        .to_string()
        + "/data";
    let orphans = walk(Path::new(&data))
        .into_iter()
        .filter(|p| !held.contains(&p.display().to_string()))
        .count();
    lines.push(format!(
        "  data files on disk that no snapshot holds: {orphans}"
    ));
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The delivered rows of `records --show all` with `args`.
fn records_rows(case: &Path, args: &[String]) -> Vec<String> {
    let output = Command::new(BIN)
        .arg("records")
        .args(args)
        .args(["--format", "ndjson", "--show", "all"])
        .current_dir(case)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let mut rows: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["verdict"] == "delivered")
        .map(|v| v["row"].to_string())
        .collect();
    rows.sort();
    rows
}

/// Another engine: pyiceberg's `SqlCatalog` on the same `catalog.db` must read the same rows.
/// One known difference is allowed: pyiceberg 0.12 reads a null top-level `list<struct>` as
/// `[]` (the Parquet file holds null; see docs/deliver.md), so such columns compare with null
/// and `[]` taken as equal.
fn compare_with_pyiceberg(warehouse: &Path, table: &str, expected: &[String]) {
    let Some(python) = std::env::var_os("SCHEMA2ICEBERG_TEST_PYTHON") else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true, but SCHEMA2ICEBERG_TEST_PYTHON is not set: run scripts/test-python-venv.sh (as .ci/run does) so that pyiceberg reads the tables"
        );
        eprintln!("skipped the pyiceberg comparison: SCHEMA2ICEBERG_TEST_PYTHON is not set (scripts/test-python-venv.sh makes it)");
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deliver/read_pyiceberg.py");
    let output = Command::new(python)
        .arg(&script)
        .arg(warehouse)
        .arg(table)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let schema = runtime().block_on(async {
        the_table(warehouse)
            .await
            .unwrap()
            .metadata()
            .current_schema()
            .as_ref()
            .clone()
    });
    let lists_of_structs: Vec<String> = schema
        .as_struct()
        .fields()
        .iter()
        .filter(|f| match f.field_type.as_ref() {
            Type::List(list) => matches!(list.element_field.field_type.as_ref(), Type::Struct(_)),
            _ => false,
        })
        .map(|f| f.name.clone())
        .collect();
    let normalise = |mut row: Value| {
        for name in &lists_of_structs {
            if row[name].is_null() {
                row[name] = Value::Array(Vec::new());
            }
        }
        row.to_string()
    };
    let mut read: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| normalise(serde_json::from_str(l).unwrap()))
        .collect();
    read.sort();
    let mut wanted: Vec<String> = expected
        .iter()
        .map(|r| normalise(serde_json::from_str(r).unwrap()))
        .collect();
    wanted.sort();
    assert_eq!(read, wanted, "pyiceberg reads other rows");
}

/// Runs one case and returns its snapshot text.
fn check(case: &Path) -> String {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().join("warehouse");
    let mut out = String::new();
    for run_file in runs(case) {
        let args = args_of(&run_file);
        let stdin_file = run_file.with_extension("stdin");
        let stdin = stdin_file.exists().then_some(stdin_file.as_path());
        let env = env_of(&run_file.with_extension("env"));
        let ran = run(case, &args, stdin, &env, &warehouse);
        writeln!(
            out,
            "== {}{} {}{}\nexit {}\n-- stdout\n{}-- stderr\n{}",
            env.iter()
                .map(|(k, v)| format!("{k}={v} "))
                .collect::<String>(),
            run_file.file_name().unwrap().to_string_lossy(),
            args.join(" "),
            if stdin.is_some() { " < stdin" } else { "" },
            ran.code,
            redact(&ran.stdout, case, &warehouse),
            redact(&ran.stderr, case, &warehouse),
        )
        .unwrap();
    }
    let filled = state(&warehouse, case);
    writeln!(out, "== warehouse\n{}", filled.report).unwrap();
    let records_args = case.join("records-args");
    if records_args.exists() {
        assert_eq!(
            filled.rows,
            records_rows(case, &args_of(&records_args)),
            "{}: the table's rows are not the rows records --show all delivers",
            case.display()
        );
    }
    let same_as = case.join("same-as");
    if same_as.exists() {
        let fresh = dir.path().join("uninterrupted");
        let ran = run(case, &args_of(&same_as), None, &[], &fresh);
        assert!(ran.code == 0 || ran.code == 1, "{}", ran.stderr);
        let once = state(&fresh, case);
        assert_eq!(
            filled.rows,
            once.rows,
            "{}: rows differ from one uninterrupted run",
            case.display()
        );
        assert_eq!(
            filled.dead_letters,
            once.dead_letters,
            "{}: dead letters differ from one uninterrupted run",
            case.display()
        );
    }
    if let Some(table) = &filled.table {
        compare_with_pyiceberg(&warehouse, table, &filled.rows);
    }
    out
}

#[test]
fn deliver_cases() {
    insta::glob!("../../../testdata/deliver", "*/run-1", |path| {
        insta::assert_snapshot!(check(path.parent().expect("a case folder")));
    });
}

/// Two runs on one warehouse at once: the second stops at once (the first holds the lock), or
/// starts after the first has finished and delivers nothing; never a record twice.
#[test]
fn two_runs_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("many.ndjson");
    let mut text = String::new();
    for i in 0..20_000 {
        writeln!(
            text,
            r#"{{"id": {i}, "event_time": "2026-07-09T20:{:02}:00Z"}}"#,
            i % 60
        )
        .unwrap();
    }
    std::fs::write(&input, text).unwrap();
    let schema = dir.path().join("schema.json");
    std::fs::write(&schema, r#"{"type": "object", "properties": {"id": {"type": "integer", "maximum": 1000000}, "event_time": {"type": "string", "format": "date-time"}}, "required": ["id", "event_time"]}"#).unwrap();
    let warehouse = dir.path().join("warehouse");
    let spawn = || {
        Command::new(BIN)
            .args([
                "deliver",
                "schema.json",
                "many.ndjson",
                "--partition",
                "event_time",
                "--namespace",
                "db",
                "--table",
                "events",
                "--cycle-records",
                "1000",
                "--warehouse",
            ])
            .arg(&warehouse)
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let first = spawn();
    let second = spawn();
    let outputs = [
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    ];
    let mut locked_out = 0;
    for output in &outputs {
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.code() == Some(2) {
            assert!(
                stderr.contains("another deliver is writing to the warehouse"),
                "{stderr}"
            );
            locked_out += 1;
        } else {
            assert_eq!(output.status.code(), Some(0), "{stderr}");
        }
    }
    assert!(locked_out <= 1);
    let rows = runtime().block_on(async {
        let table = the_table(&warehouse).await.unwrap();
        let batches = scan_all(&table).await;
        batches.iter().map(RecordBatch::num_rows).sum::<usize>()
    });
    assert_eq!(rows, 20_000);
}
