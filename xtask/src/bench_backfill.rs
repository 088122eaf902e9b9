//! `cargo xtask bench --backfill`: `schema2iceberg deliver` on two backfills delivered in one
//! cycle, records of 2,000 hours interleaved and 40,000 hours in time order, with the data
//! files each hour got and the peak memory (goal: one file per hour, under 300 MB;
//! docs/dev/performance.md).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::bench_process::{machine, measure, release_build_tool, remove_folder, target_dir, Job};
use crate::gen_records::values::civil_from_days;

/// The goals: data files per hour, and peak resident memory.
const MAX_FILES_PER_HOUR: usize = 1;
const MAX_PEAK_BYTES: f64 = 300e6;

/// The backfills' schema: a stream's usual columns, with the hour partition on `event_time`.
const SCHEMA: &str = r#"{"type": "object", "properties": {
  "id": {"type": "integer", "maximum": 100000000000},
  "event_time": {"type": "string", "format": "date-time"},
  "kind": {"type": "string", "enum": ["click", "view", "buy"]},
  "amount": {"type": "number", "multipleOf": 0.01, "maximum": 1000000},
  "user": {"type": "string"},
  "tags": {"type": "array", "items": {"type": "string"}}
}, "required": ["id", "event_time"]}"#;

/// One backfill: its file, its hours and records.
struct Backfill {
    name: &'static str,
    path: PathBuf,
    hours: u64,
    records: u64,
}

/// Writes `records` records over `hours` hours (from 2020-01-01T00Z): in time order when
/// `ordered`, else each record in the hour a fixed stride away from the last, so that every
/// batch holds many hours.
fn write_backfill(path: &Path, hours: u64, records: u64, ordered: bool) -> Result<(), String> {
    let file = std::fs::File::create(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    const START: i64 = 1_577_836_800; // 2020-01-01T00:00:00Z
    for i in 0..records {
        let hour = if ordered {
            i * hours / records
        } else {
            (i * 7919) % hours
        };
        let seconds = START + (hour * 3600 + i % 3600) as i64;
        let days = seconds.div_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        let of_day = seconds.rem_euclid(86_400);
        writeln!(
            out,
            r#"{{"id": {i}, "event_time": "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", "kind": "{}", "amount": {}.{:02}, "user": "user-{}", "tags": ["a", "b{}"]}}"#,
            of_day / 3600,
            of_day / 60 % 60,
            of_day % 60,
            match i % 3 {
                0 => "click",
                1 => "view",
                _ => "buy",
            },
            i % 1000,
            i % 100,
            i % 5000,
            i % 7
        )
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    out.flush()
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Data files per hour folder under the warehouse's table: (hours, most files in one hour,
/// files in all).
fn files_per_hour(warehouse: &Path) -> (usize, usize, usize) {
    let data = warehouse.join("bench/backfill/data");
    let Ok(hours) = std::fs::read_dir(&data) else {
        return (0, 0, 0);
    };
    let counts: Vec<usize> = hours
        .filter_map(Result::ok)
        .map(|hour| std::fs::read_dir(hour.path()).map_or(0, |files| files.count()))
        .collect();
    (
        counts.len(),
        counts.iter().copied().max().unwrap_or(0),
        counts.iter().sum(),
    )
}

/// Builds, generates and measures; prints the table of docs/dev/performance.md.
pub fn run(repository: &Path, runs: usize, cargo: impl Fn(&[&str]) -> bool) -> Result<(), String> {
    release_build_tool(&cargo, None)?;
    let target = target_dir(repository);
    let tool = target.join("release/schema2iceberg");
    let cache = target.join("backfill-bench");
    std::fs::create_dir_all(&cache)
        .map_err(|e| format!("cannot create {}: {e}", cache.display()))?;
    let schema = cache.join("schema.json");
    std::fs::write(&schema, SCHEMA).map_err(|e| format!("cannot write the schema: {e}"))?;
    let backfills = [
        (
            "2,000 hours, interleaved",
            "interleaved",
            2_000,
            40_000,
            false,
        ),
        ("40,000 hours, in order", "ordered", 40_000, 40_000, true),
    ]
    .map(|(name, file, hours, records, ordered)| {
        let path = cache.join(format!("{file}.ndjson"));
        write_backfill(&path, hours, records, ordered).map(|()| Backfill {
            name,
            path,
            hours,
            records,
        })
    });
    println!(
        "\ndeliver, one cycle per backfill: {}; median of {runs} runs after one warm-up, each into a new warehouse",
        machine()
    );
    println!("| backfill | records | hours | wall time | peak memory | data files | most in one hour | goal met |\n|---|---:|---:|---:|---:|---:|---:|---|");
    let mut all_met = true;
    for backfill in backfills {
        all_met &= measure_backfill(&tool, &schema, &cache, &backfill?, runs)?;
    }
    println!(
        "\ngoals: at most {MAX_FILES_PER_HOUR} data file per hour, peak memory under {:.0} MB: {}",
        MAX_PEAK_BYTES / 1e6,
        if all_met { "met" } else { "not met" }
    );
    Ok(())
}

/// Delivers one backfill `runs` times, each into a new warehouse; prints its row of the table
/// and says whether it met the goals.
fn measure_backfill(
    tool: &Path,
    schema: &Path,
    cache: &Path,
    backfill: &Backfill,
    runs: usize,
) -> Result<bool, String> {
    let warehouse = cache.join("warehouse");
    let fresh = || remove_folder(&warehouse);
    let args: Vec<PathBuf> = [
        "deliver".into(),
        schema.to_path_buf(),
        backfill.path.clone(),
        "--partition".into(),
        "event_time".into(),
        "--namespace".into(),
        "bench".into(),
        "--table".into(),
        "backfill".into(),
        "--format".into(),
        "json".into(),
        "--warehouse".into(),
        warehouse.clone(),
    ]
    .into_iter()
    .collect();
    let job = Job {
        program: tool,
        args: args.iter().map(PathBuf::as_path).collect(),
        before: &fresh,
        check: &|_| Ok(()),
    };
    let [run] = measure(&[&job], runs, cache)?[..] else {
        return Err("no measurement".to_string());
    };
    let (hours, most, files) = files_per_hour(&warehouse);
    if hours as u64 != backfill.hours {
        return Err(format!(
            "{}: the table has {hours} hour folders, not {}",
            backfill.name, backfill.hours
        ));
    }
    let met = most <= MAX_FILES_PER_HOUR && (run.max_rss_kb as f64 * 1024.0) < MAX_PEAK_BYTES;
    println!(
        "| {} | {} | {} | {:.2} s | {:.0} MiB | {files} | {most} | {} |",
        backfill.name,
        backfill.records,
        backfill.hours,
        run.wall_s,
        run.peak_mib(),
        if met { "yes" } else { "no" }
    );
    Ok(met)
}
