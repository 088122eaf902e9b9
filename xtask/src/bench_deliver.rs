//! `cargo xtask bench --deliver`: the throughput and peak memory of `schema2iceberg deliver`
//! (check, build Arrow rows, write partitioned Parquet, commit to the SQLite catalog) against
//! `records` alone (check only) on the same generated file, both timed as whole processes
//! (docs/dev/performance.md).

use std::cell::Cell;
use std::path::Path;

use crate::bench_process::{
    machine, measure, remove_folder, Bench, BenchFile, Job, Options, Run, PARTITION,
};
use crate::bench_records::records_job;

/// The goals of issue 14: deliver's wall time at most this multiple of records', and its peak
/// resident memory below this many bytes.
const MAX_RATIO: f64 = 1.5;
const MAX_PEAK_BYTES: f64 = 300e6;

/// What one deliver run wrote, from its `--format json` summary.
#[derive(Debug, Clone, Copy, Default)]
pub struct Written {
    cycles: u64,
    data_files: u64,
    bytes: u64,
}

/// Checks deliver's JSON summary: every record of the file delivered, none to the dead-letter
/// queue, and the table holding exactly that many rows.
pub fn check_summary(printed: &str, records: u64) -> Result<Written, String> {
    let value: serde_json::Value = serde_json::from_str(printed)
        .map_err(|e| format!("its output is not the JSON summary ({e}):\n{printed}"))?;
    let number = |pointer: &str| {
        value
            .pointer(pointer)
            .and_then(serde_json::Value::as_u64)
            .ok_or(format!("its JSON output lacks {pointer}"))
    };
    let delivered = number("/summary/delivered")?;
    let dead_letters = number("/summary/dead-letters")?;
    let table_rows = number("/summary/table-rows")?;
    if (delivered, dead_letters, table_rows) != (records, 0, records) {
        return Err(format!(
            "the file has {records} records, but deliver delivered {delivered}, sent {dead_letters} to the dead-letter queue, and the table holds {table_rows} rows"
        ));
    }
    let cycles = value
        .get("cycles")
        .and_then(serde_json::Value::as_array)
        .ok_or("its JSON output lacks the cycles")?;
    let sum = |key: &str| {
        cycles
            .iter()
            .filter_map(|c| c.get(key).and_then(serde_json::Value::as_u64))
            .sum()
    };
    Ok(Written {
        cycles: cycles.len() as u64,
        data_files: sum("data-files"),
        bytes: sum("bytes"),
    })
}

/// Builds, generates and measures; prints the table of docs/dev/performance.md.
pub fn run(
    repository: &Path,
    options: &Options,
    cargo: impl Fn(&[&str]) -> bool,
) -> Result<(), String> {
    // The partition source follows a stream's clock, so that a cycle spans a few hours: with
    // times spread over three centuries, as `bench --records` has them, every record is its own
    // hour partition, and so its own data file (docs/dev/performance.md).
    let bench = Bench::prepare(repository, options, true, cargo)?;
    let warehouse = bench.cache.join("deliver-warehouse");
    // Each run starts from no warehouse: a table that already holds the file would skip it.
    let fresh_warehouse = || remove_folder(&warehouse);
    println!(
        "\ndeliver against records on the same file: {}; median of {} runs of each, taking turns, after one warm-up (the file in the page cache); each deliver run into a new warehouse",
        machine(),
        options.runs
    );
    println!("| file | program | wall | MB/s | records/s | CPU time / wall | peak memory | deliver / records |\n|---:|---|---:|---:|---:|---:|---:|---:|");
    let mut worst_ratio: f64 = 0.0;
    let mut last_ratio: f64 = 0.0;
    let mut worst_peak_kb = 0;
    let mut outputs = Vec::new();
    for file in &bench.files {
        let records = records_job(&bench, file);
        let written = Cell::new(Written::default());
        let check = |printed: &str| {
            written.set(check_summary(printed, file.records)?);
            Ok(())
        };
        let deliver = Job {
            program: &bench.tool,
            args: vec![
                Path::new("deliver"),
                Path::new("--partition"),
                Path::new(PARTITION),
                Path::new("--namespace"),
                Path::new("bench"),
                Path::new("--table"),
                Path::new("events"),
                Path::new("--warehouse"),
                &warehouse,
                Path::new("--format"),
                Path::new("json"),
                &bench.schema,
                &file.path,
            ],
            before: &fresh_warehouse,
            check: &check,
        };
        let [checked, deliver] = measure(&[&records, &deliver], options.runs, &bench.cache)?[..]
        else {
            return Err("measure gave no figures".to_string());
        };
        let ratio = deliver.wall_s / checked.wall_s;
        worst_ratio = worst_ratio.max(ratio);
        last_ratio = ratio;
        worst_peak_kb = worst_peak_kb.max(deliver.max_rss_kb);
        print_rows(file, &checked, &deliver, ratio);
        outputs.push((file, written.get()));
    }
    print_goals(
        &outputs,
        options,
        Worst {
            last_ratio,
            worst_ratio,
            worst_peak_kb,
        },
    );
    Ok(())
}

/// The figures the goals are judged on.
struct Worst {
    /// deliver / records on the largest file.
    last_ratio: f64,
    /// deliver / records at its highest over the files.
    worst_ratio: f64,
    worst_peak_kb: u64,
}

/// What deliver wrote for each file, and the verdict on the goals.
fn print_goals(outputs: &[(&BenchFile, Written)], options: &Options, worst: Worst) {
    let Worst {
        last_ratio,
        worst_ratio,
        worst_peak_kb,
    } = worst;
    println!();
    for (file, written) in outputs {
        println!(
            "deliver of {:.0} MB: every record in the table (checked on every run), {} cycle(s), {} data file(s), {:.1} MB of Parquet",
            file.megabytes(),
            written.cycles,
            written.data_files,
            written.bytes as f64 / 1e6
        );
    }
    let verdict = |met: bool| if met { "met" } else { "NOT met" };
    println!(
        "\ngoals: deliver / records at most {MAX_RATIO}× on the {:.0} MB file ({}: {last_ratio:.2}×; at every size, at most {worst_ratio:.2}×), deliver peak memory below {:.0} MB ({}: at most {:.0} MB), MB/s the same at every size",
        options.size as f64 / 1e6,
        verdict(last_ratio <= MAX_RATIO),
        MAX_PEAK_BYTES / 1e6,
        verdict((worst_peak_kb as f64) * 1024.0 < MAX_PEAK_BYTES),
        worst_peak_kb as f64 * 1024.0 / 1e6,
    );
}

/// One file's two rows: records, then deliver with its ratio to records.
fn print_rows(file: &BenchFile, checked: &Run, deliver: &Run, ratio: f64) {
    for (name, run, ratio) in [
        ("records", checked, String::new()),
        ("deliver", deliver, format!("{ratio:.2}×")),
    ] {
        println!(
            "| {:.0} MB ({} records) | {name} | {:.2} s | {:.1} | {:.0} | {:.2} | {:.1} MiB | {ratio} |",
            file.megabytes(),
            file.records,
            run.wall_s,
            run.mb_per_s(file),
            run.records_per_s(file),
            run.cores(),
            run.peak_mib(),
        );
    }
}
