//! `cargo xtask bench --linear`: `records` and `deliver` on the order events of `bench --peers`
//! at 10 MB, 100 MB and 1 GB, for issue 41's goal that both stay linear in the input (the same
//! MB/s at every size) with memory flat (the same peak at every size).

use std::path::Path;

use crate::bench_deliver::check_summary;
use crate::bench_peers::{check_records, fresh_folder, load_average, our_lines, paths, SCHEMA};
use crate::bench_process::{
    generated_file, machine, measure, release_build_tool, target_dir, BenchFile, Job, Run,
};

/// The sizes the issue names.
const SIZES: [u64; 3] = [10_000_000, 100_000_000, 1_000_000_000];
/// Each size's MB/s may differ from the 100 MB figure by this share: the 10 MB run carries the
/// process's start-up and the schema's compile, which the larger runs spread thinner.
const LINEAR_TOLERANCE: f64 = 0.15;
/// The 1 GB run's peak memory may be this many times the 100 MB run's. Not the 10 MB run's:
/// its 17,000 records are less than one of deliver's cycles (100,000 records), so it never
/// holds a whole cycle.
const FLAT_MEMORY: f64 = 1.25;
const DEFAULT_RUNS: usize = 3;

/// One size's figures: `records` and `deliver`, medians of the runs.
struct Measured {
    file: BenchFile,
    records: Run,
    deliver: Run,
}

/// Builds, generates the three files (cached in the target directory) and measures; prints
/// the table and the goals.
pub fn run(
    repository: &Path,
    args: &[String],
    cargo: impl Fn(&[&str]) -> bool,
) -> Result<(), String> {
    let mut options = crate::bench_process::parse_args("--linear", args)?;
    if !args.iter().any(|a| a == "--runs") {
        options.runs = DEFAULT_RUNS;
    }
    if args.iter().any(|a| a == "--size") {
        return Err("bench --linear measures 10MB, 100MB and 1GB; it takes no --size".into());
    }
    release_build_tool(&cargo, None)?;
    let target = target_dir(repository);
    let tool = target.join("release/schema2iceberg");
    let cache = target.join("peers");
    std::fs::create_dir_all(&cache)
        .map_err(|e| format!("cannot create {}: {e}", cache.display()))?;
    let schema = repository.join(SCHEMA);
    let warehouse = cache.join("warehouse-linear");
    let load_before = load_average();
    let mut measured = Vec::new();
    for size in SIZES {
        let file = generated_file(&schema, "orders", &cache, size, true)?;
        let [records, deliver] = measure_size(&tool, &schema, &file, &warehouse, options.runs)?;
        measured.push(Measured {
            file,
            records,
            deliver,
        });
    }
    print_table(&measured, options.runs, &load_before);
    Ok(())
}

/// `records` and `deliver` on one file, taking turns; each deliver into a new warehouse.
fn measure_size(
    tool: &Path,
    schema: &Path,
    file: &BenchFile,
    warehouse: &Path,
    runs: usize,
) -> Result<[Run; 2], String> {
    let (records_args, deliver_args) = our_lines(schema, &file.path, warehouse);
    let count = file.records;
    let check_all_delivered = |printed: &str| check_records(printed, count);
    let check_table = |printed: &str| check_summary(printed, count).map(|_| ());
    let nothing = || Ok(());
    let fresh = || fresh_folder(warehouse);
    let records = Job::new(tool, paths(&records_args), &nothing, &check_all_delivered);
    let deliver = Job::new(tool, paths(&deliver_args), &fresh, &check_table);
    let scratch = warehouse.with_extension("scratch");
    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let mut runs = measure(&[&records, &deliver], runs, &scratch)?.into_iter();
    match (runs.next(), runs.next()) {
        (Some(records), Some(deliver)) => Ok([records, deliver]),
        _ => Err("no figures".into()),
    }
}

fn print_table(measured: &[Measured], runs: usize, load_before: &str) {
    println!(
        "\n`records` and `deliver` (two cores) on order events ({SCHEMA}) at three sizes: {}; median of {runs} runs of each, taking turns, after one warm-up; load average before: {load_before}, after: {}",
        machine(),
        load_average()
    );
    println!("| size | records | records/s | records peak | deliver | deliver peak |\n|---:|---:|---:|---:|---:|---:|");
    for m in measured {
        println!(
            "| {:.0} MB | {} | {:.0} | {:.0} MiB | {} | {:.0} MiB |",
            m.file.megabytes(),
            m.records.throughput(&m.file),
            m.records.records_per_s(&m.file),
            m.records.peak_mib(),
            m.deliver.throughput(&m.file),
            m.deliver.peak_mib()
        );
    }
    println!();
    for line in goals(measured) {
        println!("{line}");
    }
}

/// Which program's run of a size a goal reads.
type Pick = fn(&Measured) -> &Run;

/// Linear: each size's MB/s within [`LINEAR_TOLERANCE`] of the 100 MB run's; flat: the 1 GB
/// peak at most [`FLAT_MEMORY`] times the 100 MB peak. For `records` and `deliver` each.
fn goals(measured: &[Measured]) -> Vec<String> {
    let [small, middle, large] = measured else {
        return vec!["not measured: three sizes expected".into()];
    };
    let mut lines = Vec::new();
    let pick: [(&str, Pick); 2] = [("records", |m| &m.records), ("deliver", |m| &m.deliver)];
    for (name, run) in pick {
        let speed = |m: &Measured| run(m).mb_per_s(&m.file);
        let worst = [small, large]
            .iter()
            .map(|m| (speed(m) / speed(middle) - 1.0).abs())
            .fold(0.0, f64::max);
        lines.push(format!(
            "{name} linear: MB/s at 10 MB, 100 MB, 1 GB = {:.1}, {:.1}, {:.1}; largest difference from 100 MB {:.0}% (goal at most {:.0}%); {}",
            speed(small),
            speed(middle),
            speed(large),
            worst * 100.0,
            LINEAR_TOLERANCE * 100.0,
            verdict(worst <= LINEAR_TOLERANCE)
        ));
        let growth = run(large).peak_mib() / run(middle).peak_mib();
        lines.push(format!(
            "{name} memory flat: peak at 10 MB, 100 MB, 1 GB = {:.0}, {:.0}, {:.0} MiB; 1 GB / 100 MB = {growth:.2}× (goal at most {FLAT_MEMORY}×); {}",
            run(small).peak_mib(),
            run(middle).peak_mib(),
            run(large).peak_mib(),
            verdict(growth <= FLAT_MEMORY)
        ));
    }
    lines
}

fn verdict(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "NOT met"
    }
}
