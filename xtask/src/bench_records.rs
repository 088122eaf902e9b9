//! `cargo xtask bench --records`: the throughput of `schema2iceberg records` over a generated
//! NDJSON file against the floor (serde_json parsing each line into a `Value` on one thread),
//! both timed as whole processes, with the records process's peak memory (docs/performance.md).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::gen_records::{self, Generator};

/// The benchmark's schema and its partition source.
const SCHEMA: &str = "testdata/records/bench/every-type.schema.json";
const PARTITION: &str = "event_time";
const SEED: u64 = 1;

/// What `bench --records` was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The largest file; the linearity check also runs a quarter and a half of it.
    pub size: u64,
    /// Timed runs of each process at each size (after one untimed run that warms the page
    /// cache); the median is reported.
    pub runs: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            size: 200_000_000,
            runs: 5,
        }
    }
}

/// Reads `--size SIZE` and `--runs N` (the arguments after `--records`).
pub fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--size" => options.size = gen_records::parse_size(value()?)?,
            "--runs" => {
                let text = value()?;
                options.runs = text
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or(format!("--runs {text}: not a positive whole number"))?;
            }
            other => return Err(format!("unknown argument `{other}` for `bench --records`")),
        }
    }
    Ok(options)
}

/// Cargo's target directory: `CARGO_TARGET_DIR` when set, else the one this xtask binary was
/// built into (`<target>/debug/xtask`), else `target/` in the repository.
pub fn target_dir(repository: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.to_path_buf()))
        .unwrap_or_else(|| repository.join("target"))
}

/// One timed run of a whole process.
#[derive(Debug, Clone, Copy)]
struct Run {
    wall_s: f64,
    cpu_s: f64,
    max_rss_kb: u64,
}

/// Runs `program args` under `/usr/bin/time` (for the peak resident set and the CPU time,
/// which std cannot read of a child); its output goes to `/dev/null`. The wall time is
/// measured here, around the whole child. Any exit but 0 is an error, with the child's stderr.
fn timed(program: &Path, args: &[&Path], scratch: &Path) -> Result<Run, String> {
    let report = scratch.join("time.txt");
    let start = Instant::now();
    let output = Command::new("/usr/bin/time")
        .args(["-f", "%U %S %M", "-o"])
        .arg(&report)
        .arg(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run /usr/bin/time {}: {e}", program.display()))?;
    let wall_s = start.elapsed().as_secs_f64();
    if !output.status.success() {
        return Err(format!(
            "`{} {}` failed ({}):\n{}",
            program.display(),
            args.iter()
                .map(|a| a.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let text = std::fs::read_to_string(&report)
        .map_err(|e| format!("cannot read /usr/bin/time's report: {e}"))?;
    let fields: Vec<f64> = text
        .lines()
        .last()
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    let [user, system, rss] = fields[..] else {
        return Err(format!("unexpected /usr/bin/time report: {text}"));
    };
    Ok(Run {
        wall_s,
        cpu_s: user + system,
        max_rss_kb: rss as u64,
    })
}

/// The median wall time, the median CPU time and the largest peak memory of `runs` runs,
/// after one untimed run.
fn measure(program: &Path, args: &[&Path], runs: usize, scratch: &Path) -> Result<Run, String> {
    timed(program, args, scratch)?;
    let mut all = Vec::with_capacity(runs);
    for _ in 0..runs {
        all.push(timed(program, args, scratch)?);
    }
    let median = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values.get(values.len() / 2).copied().unwrap_or(0.0)
    };
    Ok(Run {
        wall_s: median(all.iter().map(|r| r.wall_s).collect()),
        cpu_s: median(all.iter().map(|r| r.cpu_s).collect()),
        max_rss_kb: all.iter().map(|r| r.max_rss_kb).max().unwrap_or(0),
    })
}

/// The generated file of `size` bytes, cached in the target directory; made again when the
/// schema or the xtask binary (and so the generator) is newer than it.
fn records_file(repository: &Path, cache: &Path, size: u64) -> Result<PathBuf, String> {
    let path = cache.join(format!("every-type-seed{SEED}-{size}.ndjson"));
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let schema = repository.join(SCHEMA);
    let inputs = [
        modified(&schema),
        std::env::current_exe().ok().and_then(|e| modified(&e)),
    ];
    let fresh =
        modified(&path).is_some_and(|made| inputs.iter().all(|i| i.is_none_or(|t| t <= made)));
    if fresh {
        return Ok(path);
    }
    println!("== generating {} ({size} bytes)", path.display());
    let mut generator = Generator::new(&schema, Some(PARTITION), SEED)?;
    let file = std::fs::File::create(&path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    gen_records::write_records(&mut generator, size, file)?;
    Ok(path)
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|m| m.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{cores} cores ({cpu}), {}", std::env::consts::OS)
}

/// Builds, generates and measures; prints the tables of docs/performance.md.
pub fn run(
    repository: &Path,
    options: &Options,
    cargo: impl Fn(&[&str]) -> bool,
) -> Result<(), String> {
    // One build for both: built apart, the two feature sets (the example brings xtask's
    // dev-dependencies) rebuild the mapper and the cli each time.
    let built = cargo(&[
        "build",
        "--release",
        "-p",
        "schema2iceberg",
        "-p",
        "xtask",
        "--bin",
        "schema2iceberg",
        "--example",
        "parse_floor",
    ]);
    if !built {
        return Err("the release build of schema2iceberg or parse_floor failed".to_string());
    }
    let target = target_dir(repository);
    let tool = target.join("release/schema2iceberg");
    let floor = target.join("release/examples/parse_floor");
    let cache = target.join("records-bench");
    std::fs::create_dir_all(&cache)
        .map_err(|e| format!("cannot create {}: {e}", cache.display()))?;
    let schema = repository.join(SCHEMA);
    let sizes = [options.size / 4, options.size / 2, options.size];
    // Made before the table, so that the generator's lines do not break it.
    let files = sizes
        .iter()
        .map(|size| records_file(repository, &cache, *size))
        .collect::<Result<Vec<_>, _>>()?;
    println!(
        "\nrecords against the floor: {}; median of {} runs after one warm-up (the file in the page cache)",
        machine(),
        options.runs
    );
    println!("| file | floor (serde_json, 1 thread) | records (all cores) | records / floor | records CPU time / wall | records peak memory |\n|---:|---:|---:|---:|---:|---:|");
    for (size, file) in sizes.iter().zip(&files) {
        let bytes = std::fs::metadata(file).map_or(*size, |m| m.len());
        let megabytes = bytes as f64 / 1e6;
        let base = measure(&floor, &[file], options.runs, &cache)?;
        let ours = measure(
            &tool,
            &[
                Path::new("records"),
                Path::new("--partition"),
                Path::new(PARTITION),
                &schema,
                file,
            ],
            options.runs,
            &cache,
        )?;
        println!(
            "| {megabytes:.0} MB | {:.1} MB/s ({:.2} s) | {:.1} MB/s ({:.2} s) | {:.0}% | {:.2} | {:.1} MiB |",
            megabytes / base.wall_s,
            base.wall_s,
            megabytes / ours.wall_s,
            ours.wall_s,
            100.0 * base.wall_s / ours.wall_s,
            ours.cpu_s / ours.wall_s,
            ours.max_rss_kb as f64 / 1024.0,
        );
    }
    println!("\ngoals: records / floor at least 50%, peak memory below 100 MB, MB/s the same at every size");
    Ok(())
}
