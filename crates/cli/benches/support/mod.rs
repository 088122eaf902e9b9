//! The files that the compile benchmarks measure, and how they are read; shared by the
//! `compile_vs_parse` benchmark and the `phase_instructions` example, so that both measure the
//! same work (the `per_column` benchmark reads its generated schemas the same way).

use std::path::{Path, PathBuf};

use schema2iceberg_parser::{LoadOptions, Url, Workspace};

/// The benchmarked files: a short name and a path. Files outside the repository are missing
/// when `../shared/corpus` is.
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
pub fn read_bytes(path: &Path, bytes: &[u8]) -> Workspace {
    let base = Url::from_file_path(path)
        .unwrap_or_else(|()| Url::parse("file:///x.json").unwrap_or_else(|_| unreachable!()));
    Workspace::from_bytes("bench.json", bytes.to_vec(), base, LoadOptions::default())
}
