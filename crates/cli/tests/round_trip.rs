//! The JSON output is Iceberg's own: it parses back into `iceberg::spec` types equal to the
//! compiled ones, for every fixture and example that compiles.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::Path;

use iceberg::spec::{PartitionSpec, Schema};
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
    true
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
