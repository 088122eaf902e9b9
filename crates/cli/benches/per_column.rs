//! Cost per column from 1,000 to 100,000 columns, phase by phase, in process, in the order
//! `compile` runs them: reading the schema, mapping it, freeing the parsed documents, and the
//! `iceberg` crate building its `Schema`. The whole-process bench
//! (`cargo xtask bench --whole-process`) says whether the cost per column stays constant; this
//! one says which phase makes it grow.
//!
//! Run with `cargo bench -p schema2iceberg --bench per_column`. Criterion reports each phase's
//! throughput in columns per second; a phase whose cost per column is constant has the same
//! throughput at every size.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use generated::generated_schema;
use schema2iceberg_mapper::{map, CompileOptions};
use support::read_bytes;

#[path = "support/generated.rs"]
mod generated;
// Only the way files are read is shared here: this benchmark measures generated schemas, not
// the corpus files that `support::files` lists.
#[allow(dead_code)]
mod support;

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

fn per_column(c: &mut Criterion) {
    let path = Path::new("generated.schema.json");
    let mut group = c.benchmark_group("per_column");
    group.sample_size(10);
    for n in SIZES {
        let bytes = generated_schema(n, false).into_bytes();
        group.throughput(Throughput::Elements(n as u64));
        // What the process frees is timed on its own (`free`); what it never frees (the
        // mapping's result, the Iceberg schema) is dropped outside the timing.
        group.bench_with_input(BenchmarkId::new("read", n), &bytes, |b, bytes| {
            b.iter_with_large_drop(|| read_bytes(path, black_box(bytes)))
        });
        let ws = read_bytes(path, &bytes);
        let options = CompileOptions::default();
        group.bench_with_input(BenchmarkId::new("map", n), &ws, |b, ws| {
            b.iter_with_large_drop(|| map(black_box(ws), &options))
        });
        group.bench_with_input(BenchmarkId::new("free", n), &bytes, |b, bytes| {
            b.iter_batched(
                || read_bytes(path, bytes),
                |ws| ws.into_source_texts(),
                BatchSize::PerIteration,
            )
        });
        let Some(schema) = map(&ws, &options).build().schema else {
            println!("skipped the build at {n} columns: the generated schema did not compile");
            continue;
        };
        let fields = schema.as_struct().fields().to_vec();
        group.bench_with_input(
            BenchmarkId::new("iceberg_schema_build", n),
            &fields,
            |b, fields| {
                b.iter_with_large_drop(|| {
                    iceberg::spec::Schema::builder()
                        .with_schema_id(0)
                        .with_fields(black_box(fields.clone()))
                        .build()
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, per_column);
criterion_main!(benches);
