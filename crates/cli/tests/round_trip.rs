//! The JSON and table-metadata outputs are Iceberg's own: they parse back into `iceberg::spec`
//! types equal to the compiled ones, for every fixture and example that compiles.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;
use std::process::Command;

use iceberg::spec::{FormatVersion, PartitionSpec, Schema, TableMetadata};
use schema2iceberg::{compile_bytes, CompileRequest, Format};

fn check(path: &Path) -> bool {
    let bytes = std::fs::read(path).unwrap();
    let partition = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| v["$comment"].as_str().map(str::to_string))
        .and_then(|c| {
            let words: Vec<&str> = c.split_whitespace().collect();
            words
                .iter()
                .position(|w| *w == "--partition")
                .map(|i| words[i + 1].to_string())
        });
    let request = CompileRequest {
        name: path.display().to_string(),
        path: Some(path.to_path_buf()),
        partition: partition.into_iter().collect(),
        draft: None,
        ref_root: None,
        table: Default::default(),
    };
    let out = compile_bytes(&request, bytes, Format::Json, false);
    if out.exit != 0 {
        return false;
    }
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let schema: Schema = serde_json::from_value(report["schema"].clone()).expect("schema parses");
    let spec: PartitionSpec =
        serde_json::from_value(report["partition-spec"].clone()).expect("partition spec parses");
    assert_eq!(
        serde_json::to_value(&schema).unwrap(),
        report["schema"],
        "{}",
        path.display()
    );
    assert_eq!(
        serde_json::to_value(&spec).unwrap(),
        report["partition-spec"]
    );
    // The spec binds to the schema it came with.
    let bound = spec
        .clone()
        .into_unbound()
        .bind(schema.clone())
        .expect("spec binds to schema");
    assert_eq!(bound.fields(), spec.fields());
    check_table_metadata(&request, path, &schema, &spec);
    true
}

/// `--format table-metadata` holds the same schema, field ids included (the builder assigns
/// ids afresh, as a catalog does), and the same partition spec.
fn check_table_metadata(
    request: &CompileRequest,
    path: &Path,
    schema: &Schema,
    spec: &PartitionSpec,
) {
    let bytes = std::fs::read(path).unwrap();
    let out = compile_bytes(request, bytes, Format::TableMetadata, false);
    assert_eq!(out.exit, 0, "{}", path.display());
    let metadata: TableMetadata = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{}: table metadata parses: {e}", path.display()));
    assert_eq!(metadata.format_version(), FormatVersion::V2);
    assert_eq!(
        metadata.current_schema().as_ref(),
        schema,
        "{}",
        path.display()
    );
    assert_eq!(metadata.default_partition_spec().fields(), spec.fields());
    assert!(metadata.default_sort_order().is_unsorted());
    assert_eq!(
        metadata
            .properties()
            .get("write.format.default")
            .map(String::as_str),
        Some("parquet")
    );
    diff_finds_no_change(request, path, &out.stdout);
}

/// `diff` takes the table metadata as OLD, and finds no change against the schema it came from.
fn diff_finds_no_change(request: &CompileRequest, path: &Path, metadata: &str) {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("table-metadata.json");
    std::fs::write(&old, metadata).unwrap();
    let path = path.canonicalize().unwrap();
    let mut diff = Command::new(env!("CARGO_BIN_EXE_schema2iceberg"));
    diff.arg("diff").arg(&old).arg(&path);
    // As the compile above read it: file references from the schema's own folder, which is
    // where `diff` looks from when it runs there.
    diff.current_dir(path.parent().unwrap());
    for field in &request.partition {
        diff.args(["--partition", field]);
    }
    let out = diff.args(["--format", "json"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}: {stdout}", path.display());
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["files"][0]["old-kind"], "iceberg-table-metadata");
    assert_eq!(
        report["files"][0]["changes"].as_array().map(Vec::len),
        Some(0),
        "{}: {stdout}",
        path.display()
    );
}

#[test]
fn compiled_output_parses_back_into_iceberg_types() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
    let mut compiled = 0;
    for dir in ["examples", "compile"] {
        let mut entries: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        entries.sort();
        for path in entries {
            compiled += usize::from(check(&path));
        }
    }
    assert!(
        compiled >= 2,
        "at least the examples compile ({compiled} did)"
    );
}
