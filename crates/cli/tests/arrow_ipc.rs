//! `compile --format arrow`: the Arrow IPC schema message, written to `-o FILE` or to a standard
//! output that is not a terminal, read back by arrow-rs and, with SCHEMA2ICEBERG_TEST_PYTHON
//! (scripts/test-python-venv.sh), by pyarrow's `pyarrow.ipc.read_schema`; under CI=true its
//! absence fails the test. `--format arrow-json` keeps arrow-rs's serde JSON.

// A test should stop loudly; the no-panic rule is for code that reads input.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::Write;
use std::process::{Command, Output};

use schema2iceberg_mapper::{compile_source, CompileOptions};

mod support;

const SCHEMA: &str = "testdata/examples/event.json";

fn compile(extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
        .args(["compile", SCHEMA, "--partition", "event_time"])
        .args(extra)
        .current_dir(support::root())
        .output()
        .unwrap()
}

/// The Arrow schema the `iceberg` crate makes of the example's table.
fn expected() -> arrow_schema::Schema {
    let text = std::fs::read_to_string(support::root().join(SCHEMA)).unwrap();
    let compiled = compile_source(
        "event.json",
        &text,
        &CompileOptions {
            partition: vec!["event_time".to_string()],
            ..CompileOptions::default()
        },
    );
    iceberg::arrow::schema_to_arrow_schema(compiled.schema.as_ref().unwrap()).unwrap()
}

#[test]
fn arrow_is_an_ipc_schema_message_in_a_file_or_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("event.arrows");
    let written = compile(&["--format", "arrow", "-o", file.to_str().unwrap()]);
    assert_eq!(written.status.code(), Some(0), "{written:?}");
    assert!(written.stdout.is_empty(), "{written:?}");
    let bytes = std::fs::read(&file).unwrap();
    // The encapsulated message: the continuation marker, then the flatbuffer's length.
    assert_eq!(bytes[..4], [0xff, 0xff, 0xff, 0xff]);
    let read = arrow_ipc::convert::try_schema_from_ipc_buffer(&bytes).unwrap();
    assert_eq!(read, expected());
    // Standard output that is a pipe gets the same bytes, the same on every run.
    let piped = compile(&["--format", "arrow"]);
    assert_eq!(piped.status.code(), Some(0), "{piped:?}");
    assert_eq!(piped.stdout, bytes);
    // The JSON is still there, under its own name.
    let json = compile(&["--format", "arrow-json"]);
    assert_eq!(json.status.code(), Some(0), "{json:?}");
    let from_json: arrow_schema::Schema = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(from_json, expected());
}

#[test]
fn pyarrow_reads_the_ipc_schema() {
    let Some(python) = std::env::var_os("SCHEMA2ICEBERG_TEST_PYTHON") else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true, but SCHEMA2ICEBERG_TEST_PYTHON is not set: run scripts/test-python-venv.sh (as .ci/run does) so that pyarrow reads the Arrow IPC schema"
        );
        let _ = writeln!(
            std::io::stderr(),
            "note: the Arrow IPC schema was not read with pyarrow: SCHEMA2ICEBERG_TEST_PYTHON is not set (scripts/test-python-venv.sh makes it)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("event.arrows");
    let written = compile(&["--format", "arrow", "-o", file.to_str().unwrap()]);
    assert_eq!(written.status.code(), Some(0), "{written:?}");
    // pyarrow's view of every field, as `name type nullable field_id`, one a line, nested
    // fields by their dotted path.
    let script = r#"
import sys
import pyarrow as pa

with open(sys.argv[1], "rb") as f:
    schema = pa.ipc.read_schema(pa.py_buffer(f.read()))

def walk(fields, prefix):
    for field in fields:
        meta = field.metadata or {}
        field_id = meta.get(b"PARQUET:field_id", b"-").decode()
        print(prefix + field.name, field.type, field.nullable, field_id)
        t = field.type
        if pa.types.is_struct(t):
            walk([t.field(i) for i in range(t.num_fields)], prefix + field.name + ".")
        elif pa.types.is_list(t) or pa.types.is_large_list(t):
            walk([t.value_field], prefix + field.name + ".")
        elif pa.types.is_map(t):
            walk([t.key_field, t.item_field], prefix + field.name + ".")

walk(schema, "")
"#;
    let out = Command::new(python)
        .args(["-c", script])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pyarrow could not read the schema: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen = String::from_utf8(out.stdout).unwrap();
    let mut want = Vec::new();
    describe(expected().fields(), "", &mut want);
    assert_eq!(seen.lines().count(), want.len(), "{seen}");
    for (line, (name, nullable, id)) in seen.lines().zip(&want) {
        let parts: Vec<&str> = line.split(' ').collect();
        assert_eq!(parts.first(), Some(&name.as_str()), "{line}");
        assert_eq!(
            parts[parts.len() - 2..],
            [if *nullable { "True" } else { "False" }, id.as_str()],
            "{line}"
        );
    }
}

/// Every field of `fields` and below, as `(dotted name, nullable, field id)`, in pyarrow's order.
fn describe(fields: &arrow_schema::Fields, prefix: &str, out: &mut Vec<(String, bool, String)>) {
    use arrow_schema::DataType;
    for field in fields {
        let name = format!("{prefix}{}", field.name());
        out.push((
            name.clone(),
            field.is_nullable(),
            field
                .metadata()
                .get("PARQUET:field_id")
                .cloned()
                .unwrap_or_else(|| "-".to_string()),
        ));
        let below = format!("{name}.");
        match field.data_type() {
            DataType::Struct(children) => describe(children, &below, out),
            DataType::List(child) | DataType::LargeList(child) => {
                describe(&vec![child.clone()].into(), &below, out)
            }
            DataType::Map(entries, _) => {
                if let DataType::Struct(kv) = entries.data_type() {
                    describe(kv, &below, out);
                }
            }
            _ => {}
        }
    }
}

/// On a terminal, `--format arrow` without `-o` is a usage error that names the ways out, and
/// writes nothing. The terminal is util-linux `script`'s pseudo-terminal; without `script` the
/// test says so and passes.
#[test]
fn arrow_on_a_terminal_is_a_usage_error() {
    let bin = env!("CARGO_BIN_EXE_schema2iceberg");
    let command = format!("{bin} compile {SCHEMA} --partition event_time --format arrow");
    let Ok(out) = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(support::root())
        .output()
    else {
        let _ = writeln!(
            std::io::stderr(),
            "note: `script` is not installed, so no terminal was tried"
        );
        return;
    };
    let seen = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{seen}");
    assert!(
        seen.contains("error: --format arrow writes a binary Arrow IPC schema message")
            && seen.contains("give -o FILE")
            && seen.contains("--format arrow-json"),
        "{seen}"
    );
    assert!(!seen.contains("PARQUET:field_id"), "{seen}");
}
