//! Compile time against the floor: `serde_json::from_slice::<Value>` of the same bytes, for the
//! seed's event schema, a 1.28 MB Mozilla schema and SchemaStore's Kubernetes definitions.
//!
//! Run with `cargo bench -p schema2iceberg --bench compile_vs_parse`; `cargo xtask bench` prints
//! the ratios. Files outside the repository are skipped when `../shared/corpus` is missing.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use schema2iceberg_mapper::{compile, CompileOptions};
use support::{files, read_bytes};

mod support;

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
