//! Round trip of the `deliver` spike (issue 14): every `testdata/deliver/<case>/` (a
//! `schema.json`, a `records.ndjson` and the `args` that `records` takes) is delivered into a
//! temporary warehouse, the table is scanned back with the `iceberg` crate's table scan into
//! Arrow, and every value is compared with the rows `records --show all` prints. The same run
//! checks exactly-once: a second run adds nothing, and a run stopped after one cycle and started
//! again gives the same rows.

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;
use std::process::Command;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float64Type, Int32Type, Int64Type, Time64MicrosecondType,
    TimestampMicrosecondType,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use futures::TryStreamExt;
use iceberg::spec::{Literal, PrimitiveLiteral, PrimitiveType, Type};
use iceberg::{Catalog, NamespaceIdent, TableIdent};
use schema2iceberg::deliver::{deliver, open_catalog, DeliverOptions, POSITION_PROPERTY};
use schema2iceberg_mapper::records::{RecordChecker, RecordOptions};
use schema2iceberg_mapper::CompileOptions;
use schema2iceberg_parser::{LoadOptions, Workspace};
use serde_json::{Map, Value};

/// The delivered rows `records --show all --format ndjson` prints for the case.
fn records_rows(case: &Path) -> Vec<Value> {
    let args_text = std::fs::read_to_string(case.join("args")).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
        .args([
            "records",
            "schema.json",
            "--format",
            "ndjson",
            "--show",
            "all",
        ])
        .args(args_text.lines())
        .current_dir(case)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["verdict"] == "delivered")
        .map(|v| v["row"].clone())
        .collect()
}

fn partition(case: &Path) -> String {
    let args_text = std::fs::read_to_string(case.join("args")).unwrap();
    let args: Vec<&str> = args_text.lines().collect();
    let at = args.iter().position(|a| *a == "--partition").unwrap();
    args[at + 1].to_string()
}

fn primitive(literal: PrimitiveLiteral, ty: PrimitiveType) -> Value {
    Literal::Primitive(literal)
        .try_into_json(&Type::Primitive(ty))
        .unwrap()
}

/// As `records` writes decimals: exactly `scale` digits after the point.
fn decimal_text(unscaled: i128, scale: usize) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (integer, fraction) = padded.split_at(padded.len() - scale);
    format!("{sign}{integer}.{fraction}")
}

/// As `records` writes timestamptz: UTC, the fraction in 0, 3 or 6 digits.
fn timestamptz_text(micros: i64) -> String {
    let days = micros.div_euclid(86_400_000_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let of_day = micros.rem_euclid(86_400_000_000);
    let seconds = of_day / 1_000_000;
    let fraction = of_day % 1_000_000;
    let fraction = if fraction == 0 {
        String::new()
    } else if fraction % 1000 == 0 {
        format!(".{:03}", fraction / 1000)
    } else {
        format!(".{fraction:06}")
    };
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}{fraction}+00:00",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
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
            usize::try_from(*scale).unwrap(),
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

/// The table's rows, read back with a table scan, sorted by their JSON text; and the summary
/// position of every snapshot, oldest first.
fn scan(warehouse: &Path) -> (Vec<String>, Vec<String>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let catalog = open_catalog(warehouse).await.unwrap();
        let ident = TableIdent::new(NamespaceIdent::new("db".to_string()), "events".to_string());
        let table = catalog.load_table(&ident).await.unwrap();
        let batches: Vec<RecordBatch> = table
            .scan()
            .select_all()
            .build()
            .unwrap()
            .to_arrow()
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        let mut rows: Vec<String> = batches
            .iter()
            .flat_map(batch_rows)
            .map(|v| v.to_string())
            .collect();
        rows.sort();
        let mut snapshots: Vec<_> = table.metadata().snapshots().collect();
        snapshots.sort_by_key(|s| s.sequence_number());
        let positions = snapshots
            .iter()
            .map(|s| s.summary().additional_properties[POSITION_PROPERTY].clone())
            .collect();
        (rows, positions)
    })
}

/// Every data file of the current snapshot: its partition value (the hour) must be the hour of
/// each of its rows' partition source, read from the Parquet file itself.
fn check_partitions(warehouse: &Path, source: &str) -> usize {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let catalog = open_catalog(warehouse).await.unwrap();
        let ident = TableIdent::new(NamespaceIdent::new("db".to_string()), "events".to_string());
        let table = catalog.load_table(&ident).await.unwrap();
        let snapshot = table.metadata().current_snapshot().unwrap().clone();
        let list = table.manifest_list_reader(&snapshot).load().await.unwrap();
        let mut files = 0;
        for manifest_file in list.entries() {
            let manifest = manifest_file.load_manifest(table.file_io()).await.unwrap();
            for entry in manifest.entries() {
                let data_file = entry.data_file();
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
                let reader =
                    parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(bytes)
                        .unwrap()
                        .build()
                        .unwrap();
                for batch in reader {
                    let batch = batch.unwrap();
                    let column = batch.column_by_name(source).unwrap();
                    for micros in column.as_primitive::<TimestampMicrosecondType>().values() {
                        assert_eq!(
                            micros.div_euclid(3_600_000_000),
                            i64::from(hour),
                            "{}",
                            data_file.file_path()
                        );
                    }
                }
                files += 1;
            }
        }
        files
    })
}

/// Another engine: pyiceberg's `SqlCatalog` on the same `catalog.db` must read the same rows.
/// One known difference is allowed: pyiceberg 0.12 reads a null top-level `list<struct>` as
/// `[]` (the Parquet file holds null; see docs/deliver-notes.md), so such columns compare with
/// null and `[]` taken as equal.
fn compare_with_pyiceberg(python: &std::ffi::OsStr, warehouse: &Path, expected: &[String]) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deliver/read_pyiceberg.py");
    let output = Command::new(python)
        .arg(&script)
        .arg(std::path::absolute(warehouse).unwrap())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let schema = created_schema(warehouse);
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

/// The schema of the created table.
fn created_schema(warehouse: &Path) -> iceberg::spec::Schema {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let catalog = open_catalog(warehouse).await.unwrap();
        let ident = TableIdent::new(NamespaceIdent::new("db".to_string()), "events".to_string());
        let table = catalog.load_table(&ident).await.unwrap();
        table.metadata().current_schema().as_ref().clone()
    })
}

fn checker(case: &Path) -> RecordChecker {
    let ws = Workspace::open(&case.join("schema.json"), LoadOptions::default()).unwrap();
    let options = CompileOptions {
        partition: vec![partition(case)],
        ..CompileOptions::default()
    };
    RecordChecker::new(&ws, &options, RecordOptions::default()).unwrap()
}

fn input(case: &Path) -> Vec<Vec<u8>> {
    std::fs::read_to_string(case.join("records.ndjson"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.as_bytes().to_vec())
        .collect()
}

#[test]
fn delivered_rows_read_back_as_records_shows_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/deliver");
    for entry in std::fs::read_dir(&root).unwrap() {
        let case = entry.unwrap().path();
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let mut expected: Vec<String> = records_rows(&case).iter().map(Value::to_string).collect();
        expected.sort();
        assert!(!expected.is_empty(), "{name}: no delivered rows");
        let checker = checker(&case);
        let records = input(&case);
        let temp = tempfile::tempdir().unwrap();
        // DELIVER_KEEP=<dir> keeps the warehouse in <dir>/<case> for other readers (pyiceberg):
        // the catalog stores absolute locations, so a warehouse cannot be moved afterwards.
        let warehouse = match std::env::var_os("DELIVER_KEEP") {
            Some(dir) => {
                let kept = Path::new(&dir).join(&name);
                let _ = std::fs::remove_dir_all(&kept);
                kept
            }
            None => temp.path().join("warehouse"),
        };
        let options = DeliverOptions {
            warehouse,
            namespace: "db".to_string(),
            table: "events".to_string(),
            cycle_records: 3,
            max_cycles: None,
        };

        // Stopped after one cycle, then started again: the rest, once.
        let first = deliver(
            &checker,
            &records,
            &DeliverOptions {
                max_cycles: Some(1),
                ..options.clone()
            },
        )
        .unwrap();
        assert_eq!(first.len(), 1, "{name}");
        let rest = deliver(&checker, &records, &options).unwrap();
        assert_eq!(
            created_schema(&options.warehouse),
            checker.compiled().schema.clone().unwrap(),
            "{name}: create_table kept the compiled field ids"
        );
        let cycles = records.len().div_ceil(3);
        assert_eq!(rest.len(), cycles - 1, "{name}: {rest:?}");
        let (rows, positions) = scan(&options.warehouse);
        assert_eq!(rows, expected, "{name}");
        let expected_positions: Vec<String> = (1..=cycles)
            .map(|c| (c * 3).min(records.len()).to_string())
            .collect();
        assert_eq!(positions, expected_positions, "{name}");
        let files = check_partitions(&options.warehouse, &partition(&case));
        assert!(files >= 2, "{name}: {files} data files");

        if let Some(python) = std::env::var_os("DELIVER_PYICEBERG_PYTHON") {
            compare_with_pyiceberg(&python, &options.warehouse, &expected);
        }

        // A second run over the same input delivers nothing.
        let again = deliver(&checker, &records, &options).unwrap();
        assert!(again.is_empty(), "{name}: {again:?}");
        assert_eq!(scan(&options.warehouse).0, expected, "{name}");
    }
}

/// A schema that compiles to another table is refused on an existing table, and nothing is
/// written.
#[test]
fn a_different_schema_is_refused() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/deliver/roundtrip");
    let records = input(&case);
    let temp = tempfile::tempdir().unwrap();
    let options = DeliverOptions {
        warehouse: temp.path().join("warehouse"),
        namespace: "db".to_string(),
        table: "events".to_string(),
        cycle_records: 100,
        max_cycles: None,
    };
    deliver(&checker(&case), &records[..2], &options).unwrap();
    let mut schema: Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("schema.json")).unwrap()).unwrap();
    schema["properties"].as_object_mut().unwrap().remove("flag");
    let changed = temp.path().join("changed");
    std::fs::create_dir(&changed).unwrap();
    std::fs::write(changed.join("schema.json"), schema.to_string()).unwrap();
    std::fs::copy(case.join("args"), changed.join("args")).unwrap();
    let error = deliver(&checker(&changed), &records, &options).unwrap_err();
    assert!(error.contains("cannot evolve"), "{error}");
    let (rows, positions) = scan(&options.warehouse);
    assert_eq!((rows.len(), positions), (2, vec!["2".to_string()]));
}

/// Two runs at once on one warehouse and one input: one holds the warehouse lock, the other
/// fails with a clear message, and no record is delivered twice. Without the lock both commit
/// every cycle (docs/deliver-notes.md). Run once on a fresh warehouse (a race on
/// `create_table`) and once on a created table (a race on commits).
#[test]
fn two_runs_at_once() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/deliver/roundtrip");
    let records = input(&case);
    for precreate in [false, true] {
        let temp = tempfile::tempdir().unwrap();
        let options = DeliverOptions {
            warehouse: temp.path().join("warehouse"),
            namespace: "db".to_string(),
            table: "events".to_string(),
            cycle_records: 1,
            max_cycles: None,
        };
        if precreate {
            deliver(&checker(&case), &[], &options).unwrap();
        }
        let outcomes: Vec<Result<_, String>> = std::thread::scope(|scope| {
            let runs: Vec<_> = (0..2)
                .map(|_| scope.spawn(|| deliver(&checker(&case), &records, &options)))
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).collect()
        });
        let (rows, positions) = scan(&options.warehouse);
        let mut unique = rows.clone();
        unique.dedup();
        assert_eq!(
            rows.len(),
            unique.len(),
            "a row was delivered twice: {positions:?}"
        );
        assert_eq!(rows.len(), 6);
        let failed: Vec<&String> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
        assert!(
            failed
                .iter()
                .all(|e| e.contains("another deliver is writing")),
            "{failed:?}"
        );
    }
}
