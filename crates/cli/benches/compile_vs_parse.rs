//! Compile time against the floor: `serde_json::from_slice::<Value>` of the same bytes, for the
//! seed's event schema, a 1.28 MB Mozilla schema and SchemaStore's Kubernetes definitions.
//!
//! Run with `cargo bench -p schema2iceberg --bench compile_vs_parse`; `cargo xtask bench` prints
//! the ratios. Files outside the repository are skipped when `../shared/corpus` is missing.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use schema2iceberg_mapper::{compile, CompileOptions};
use schema2iceberg_parser::{LoadOptions, Url, Workspace};

/// The benchmarked files: a short name and a path.
pub fn files() -> Vec<(&'static str, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = root.join("../shared/corpus");
    vec![
        ("seed_event", root.join("testdata/examples/seed-event.json")),
        (
            "mozilla_first_shutdown_use_counter",
            corpus.join("mozilla-pipeline-schemas/telemetry/first-shutdown-use-counter/first-shutdown-use-counter.4.schema.json"),
        ),
        ("kubernetes_definitions", corpus.join("schemastore/kubernetes-definitions.json")),
    ]
}

/// Reads the file as `compile` does: its own place is the base for references.
fn read_bytes(path: &Path, bytes: &[u8]) -> Workspace {
    let base = Url::from_file_path(path)
        .unwrap_or_else(|()| Url::parse("file:///x.json").unwrap_or_else(|_| unreachable!()));
    Workspace::from_bytes("bench.json", bytes.to_vec(), base, LoadOptions::default())
}

fn compile_bytes(path: &Path, bytes: &[u8]) -> usize {
    let ws = read_bytes(path, bytes);
    let compiled = compile(&ws, &CompileOptions::default());
    compiled.diagnostics.len()
}

fn compile_vs_parse(c: &mut Criterion) {
    for (name, path) in files() {
        let Ok(bytes) = std::fs::read(&path) else {
            println!("skipped {name}: {} is missing", path.display());
            continue;
        };
        let mut group = c.benchmark_group(name);
        group.bench_function("serde_json_parse", |b| {
            b.iter(|| {
                serde_json::from_slice::<serde_json::Value>(black_box(&bytes))
                    .map(|v| v.is_object())
            })
        });
        // Reading alone: our JSON reader (spans, exact numbers, duplicate keys) and the schema
        // table with `$ref`s resolved, without mapping.
        group.bench_function("read", |b| {
            b.iter(|| read_bytes(&path, black_box(&bytes)).root().is_some())
        });
        group.bench_function("compile", |b| {
            b.iter(|| compile_bytes(&path, black_box(&bytes)))
        });
        // The share of `compile` that is the official crate building its `Schema` (indexes by
        // id and name, accessors): a floor that no change on our side removes.
        let ws = read_bytes(&path, &bytes);
        if let Some(schema) = compile(&ws, &CompileOptions::default()).schema {
            let fields = schema.as_struct().fields().to_vec();
            group.bench_function("iceberg_schema_build", |b| {
                b.iter(|| {
                    iceberg::spec::Schema::builder()
                        .with_schema_id(0)
                        .with_fields(black_box(fields.clone()))
                        .build()
                        .map(|s| s.highest_field_id())
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, compile_vs_parse);
criterion_main!(benches);
