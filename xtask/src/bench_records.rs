//! `cargo xtask bench --records`: the throughput of `schema2iceberg records` over a generated
//! NDJSON file against the floor (serde_json parsing each line into a `Value` on one thread),
//! both timed as whole processes, with the records process's peak memory (docs/dev/performance.md).

use std::path::Path;

use crate::bench_process::{machine, measure, Bench, BenchFile, Job, Options, PARTITION};

/// `schema2iceberg records --partition PARTITION SCHEMA FILE`, as both benchmarks time it.
pub fn records_job<'a>(bench: &'a Bench, file: &'a BenchFile) -> Job<'a> {
    Job::plain(
        &bench.tool,
        vec![
            Path::new("records"),
            Path::new("--partition"),
            Path::new(PARTITION),
            &bench.schema,
            &file.path,
        ],
    )
}

/// Builds, generates and measures; prints the table of docs/dev/performance.md.
pub fn run(
    repository: &Path,
    options: &Options,
    cargo: impl Fn(&[&str]) -> bool,
) -> Result<(), String> {
    let bench = Bench::prepare(repository, options, false, cargo)?;
    println!(
        "\nrecords against the floor: {}; median of {} runs of each, taking turns, after one warm-up (the file in the page cache)",
        machine(),
        options.runs
    );
    println!("| file | floor (serde_json, 1 thread) | records (all cores) | records / floor | records CPU time / wall | records peak memory |\n|---:|---:|---:|---:|---:|---:|");
    for file in &bench.files {
        let floor = Job::plain(&bench.floor, vec![&file.path]);
        let records = records_job(&bench, file);
        let [base, ours] = measure(&[&floor, &records], options.runs, &bench.cache)?[..] else {
            return Err("measure gave no figures".to_string());
        };
        println!(
            "| {:.0} MB | {} | {} | {:.0}% | {:.2} | {:.1} MiB |",
            file.megabytes(),
            base.throughput(file),
            ours.throughput(file),
            100.0 * base.wall_s / ours.wall_s,
            ours.cores(),
            ours.peak_mib(),
        );
    }
    println!("\ngoals: records / floor at least 50%, peak memory below 100 MB, MB/s the same at every size");
    Ok(())
}
