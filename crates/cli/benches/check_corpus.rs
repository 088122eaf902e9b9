//! `schema2iceberg check` over the whole corpus in `../shared/corpus`, as CI would run it.
//!
//! Run with `cargo bench -p schema2iceberg --bench check_corpus`; the figures are in
//! docs/dev/performance.md.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use schema2iceberg::check::{Check, CheckFormat, CheckRequest};
use schema2iceberg::run_captured;

fn corpus(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = root.join("../shared/corpus");
    if !corpus.is_dir() {
        println!("skipped: {} is missing", corpus.display());
        return;
    }
    let mut request = CheckRequest::new(corpus);
    request.config = Some(root.join("testdata/corpus/schema2iceberg.toml"));
    request.format = CheckFormat::Json;
    let mut group = c.benchmark_group("check");
    group.sample_size(10);
    group.bench_function("corpus_json", |b| {
        b.iter(|| run_captured::<Check>(&request).map(|(checked, _)| checked.report.summary.files))
    });
    group.finish();
}

criterion_group!(benches, corpus);
criterion_main!(benches);
