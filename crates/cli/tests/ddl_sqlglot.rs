//! `compile --format ddl` parses in a real SQL parser, sqlglot, in each dialect, and reads back
//! as the compiled table: every name, type, NOT NULL, comment, the partition, the location and
//! the table properties, with the dialect's documented losses (docs/mapping.md) and nothing else.
//! The schemas are every fixture in `testdata/` and every schema in `../shared/corpus` that
//! compiles, so names from the wild (quotes, backticks, dots, non-ASCII) meet each quoting rule.
//!
//! The Python is SCHEMA2ICEBERG_TEST_PYTHON (`.ci/run` makes it with scripts/test-python-venv.sh,
//! pinned sqlglot); under CI=true its absence fails the test, as a missing corpus does.

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use iceberg::spec::{PartitionSpec, PrimitiveType, Schema, StructType, Type};
use schema2iceberg::deliver::Compression;
use schema2iceberg::{CompileRequest, Format, SchemaInput, SourceOptions, TableOptions};
use schema2iceberg_mapper::formats::ddl::Dialect;
use schema2iceberg_parser::Draft;
use serde_json::{json, Value};

mod support;
use support::comment_partition;

/// A location with both quote characters a dialect might have to escape.
const LOCATION: &str = "s3://amzn-s3-demo-bucket/it's \\ here";

/// One statement to parse, and what sqlglot must read from it.
struct Case {
    schema_path: PathBuf,
    dialect: Dialect,
    sql: String,
    expected: Value,
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// The compiled schema and spec of `path`, or `None` when it does not compile.
fn compiled(request: &CompileRequest, bytes: &[u8]) -> Option<(Schema, PartitionSpec)> {
    let out = support::compile(request, bytes.to_vec(), Format::Json);
    if out.exit != 0 {
        return None;
    }
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    Some((
        serde_json::from_value(report["schema"].clone()).unwrap(),
        serde_json::from_value(report["partition-spec"].clone()).unwrap(),
    ))
}

/// Whether the table has a column of a type the dialect's DDL cannot create.
fn has_type_the_dialect_lacks(fields: &StructType, dialect: Dialect) -> bool {
    fn lacks(ty: &Type, dialect: Dialect) -> bool {
        match ty {
            Type::Primitive(PrimitiveType::Time | PrimitiveType::Uuid) => dialect != Dialect::Trino,
            Type::Primitive(_) => false,
            Type::Struct(fields) => has_type_the_dialect_lacks(fields, dialect),
            Type::List(list) => lacks(&list.element_field.field_type, dialect),
            Type::Map(map) => {
                lacks(&map.key_field.field_type, dialect)
                    || lacks(&map.value_field.field_type, dialect)
            }
        }
    }
    fields
        .fields()
        .iter()
        .any(|f| lacks(&f.field_type, dialect))
}

/// A type as parse_ddl.py names it, after the dialect's documented change (Athena makes
/// timestamptz columns as `timestamp`).
fn expected_type(ty: &Type, dialect: Dialect) -> Value {
    match ty {
        Type::Primitive(primitive) => Value::from(match primitive {
            PrimitiveType::Decimal { precision, scale } => format!("decimal({precision}, {scale})"),
            PrimitiveType::Timestamptz if dialect == Dialect::Athena => "timestamp".into(),
            other => other.to_string(),
        }),
        Type::Struct(fields) => json!({"struct": expected_columns(fields, dialect, false)}),
        Type::List(list) => json!({"list": expected_type(&list.element_field.field_type, dialect)}),
        Type::Map(map) => json!({"map": [
            expected_type(&map.key_field.field_type, dialect),
            expected_type(&map.value_field.field_type, dialect),
        ]}),
    }
}

/// The columns as parse_ddl.py reads them: Athena has no NOT NULL, Trino none inside a row and
/// no comments there.
fn expected_columns(fields: &StructType, dialect: Dialect, top: bool) -> Vec<Value> {
    fields
        .fields()
        .iter()
        .map(|field| {
            let not_null = field.required
                && match dialect {
                    Dialect::Athena => false,
                    Dialect::Spark => true,
                    Dialect::Trino => top,
                };
            let comment = match dialect {
                Dialect::Trino if !top => None,
                _ => field.doc.clone(),
            };
            json!({
                "name": field.name,
                "type": expected_type(&field.field_type, dialect),
                "not_null": not_null,
                "comment": comment,
            })
        })
        .collect()
}

fn expected_statement(
    schema: &Schema,
    spec: &PartitionSpec,
    dialect: Dialect,
    compression: Compression,
) -> Value {
    let partition: Vec<Value> = spec
        .fields()
        .iter()
        .map(|field| {
            let source = schema.name_by_field_id(field.source_id).unwrap();
            json!({
                "transform": if dialect == Dialect::Spark { "hours" } else { "hour" },
                "column": source.split('.').collect::<Vec<_>>(),
            })
        })
        .collect();
    let codec = compression.property();
    let properties = match dialect {
        Dialect::Athena => json!({
            "table_type": "ICEBERG",
            "format": "parquet",
            "write_compression": if codec == "uncompressed" { "none" } else { codec },
        }),
        Dialect::Spark => json!({
            "USING": "iceberg",
            "format-version": "2",
            "write.format.default": "parquet",
            "write.parquet.compression-codec": codec,
        }),
        Dialect::Trino => json!({"format": "PARQUET", "format_version": "2"}),
    };
    json!({
        "table": ["sales", "orders"],
        "columns": expected_columns(schema.as_struct(), dialect, true),
        "partition": partition,
        "location": LOCATION,
        "properties": properties,
    })
}

/// The DDL of `path` in each dialect, or none when the schema does not compile. A table with a
/// type the dialect lacks must fail, naming the column; every other must give a statement.
fn cases_of(path: &Path, index: usize, cases: &mut Vec<Case>) -> bool {
    let bytes = std::fs::read(path).unwrap();
    let compression = [Compression::Zstd, Compression::Snappy, Compression::None][index % 3];
    let mut request = CompileRequest {
        name: path.display().to_string(),
        path: Some(path.to_path_buf()),
        schema: SchemaInput::Bytes(Vec::new()),
        source: SourceOptions {
            partition: comment_partition(&bytes).into_iter().collect(),
            // Iglu's self-describing meta-schema is draft-04 with Snowplow's keywords.
            draft: path
                .components()
                .any(|c| c.as_os_str() == "snowplow-iglu-central")
                .then_some(Draft::Draft04),
            ref_root: None,
            color: false,
        },
        format: Format::Json,
        output: None,
        table: TableOptions {
            location: Some(LOCATION.to_string()),
            namespace: Some("sales".to_string()),
            table: Some("orders".to_string()),
            compression,
            ..TableOptions::default()
        },
    };
    let Some((schema, spec)) = compiled(&request, &bytes) else {
        return false;
    };
    for dialect in Dialect::ALL {
        request.table.dialect = Some(dialect);
        let out = support::compile(&request, bytes.clone(), Format::Ddl);
        if has_type_the_dialect_lacks(schema.as_struct(), dialect) {
            assert_eq!(out.exit, 1, "{} in {dialect:?}", path.display());
            assert!(out.stdout.is_empty());
            assert!(
                out.stderr.contains("no type for these columns"),
                "{}: {}",
                path.display(),
                out.stderr
            );
            continue;
        }
        assert_eq!(
            out.exit,
            0,
            "{} in {dialect:?}: {}",
            path.display(),
            out.stderr
        );
        cases.push(Case {
            schema_path: path.to_path_buf(),
            dialect,
            expected: expected_statement(&schema, &spec, dialect, compression),
            sql: out.stdout,
        });
    }
    true
}

/// What sqlglot read from each case's statement, in order.
fn parse_with_sqlglot(python: &std::ffi::OsStr, cases: &[Case]) -> Vec<Value> {
    let input: Vec<Value> = cases
        .iter()
        .map(|c| json!({"dialect": c.dialect.name(), "sql": c.sql}))
        .collect();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ddl/parse_ddl.py");
    let mut child = Command::new(python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let written = serde_json::to_vec(&input).unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&written));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn every_dialect_parses_in_sqlglot_as_the_compiled_table() {
    let Some(python) = std::env::var_os("SCHEMA2ICEBERG_TEST_PYTHON") else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true, but SCHEMA2ICEBERG_TEST_PYTHON is not set: run scripts/test-python-venv.sh (as .ci/run does) so that sqlglot parses the DDL"
        );
        let _ = writeln!(
            std::io::stderr(),
            "note: the DDL was not parsed with sqlglot: SCHEMA2ICEBERG_TEST_PYTHON is not set (scripts/test-python-venv.sh makes it)"
        );
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut paths = Vec::new();
    for dir in ["examples", "compile", "compile-formats"] {
        json_files(&root.join("testdata").join(dir), &mut paths);
    }
    if let Some(corpus) = support::corpus_dir(root.join("../shared/corpus"), "ddl_sqlglot") {
        json_files(&corpus, &mut paths);
    }
    let mut cases = Vec::new();
    let mut schemas = 0;
    for (index, path) in paths.iter().enumerate() {
        schemas += usize::from(cases_of(path, index, &mut cases));
    }
    let parsed = parse_with_sqlglot(&python, &cases);
    assert_eq!(parsed.len(), cases.len());
    let mut failures = Vec::new();
    let _ = writeln!(
        std::io::stderr(),
        "note: {} statements from {schemas} of {} schemas",
        cases.len(),
        paths.len()
    );
    for (case, read) in cases.iter().zip(&parsed) {
        if *read != case.expected {
            failures.push(format!(
                "{} in {:?}:\n{}\nsqlglot read:\n{}\nexpected:\n{}",
                case.schema_path.display(),
                case.dialect,
                case.sql,
                serde_json::to_string(read).unwrap(),
                serde_json::to_string(&case.expected).unwrap()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} statements differ; the first:\n{}",
        failures.len(),
        cases.len(),
        failures[0]
    );
    for dialect in Dialect::ALL {
        let count = cases.iter().filter(|c| c.dialect == dialect).count();
        assert!(
            count >= 20,
            "only {count} {dialect:?} statements were parsed"
        );
    }
    let _ = writeln!(
        std::io::stderr(),
        "note: sqlglot parsed {} statements from {schemas} schemas",
        cases.len()
    );
}
