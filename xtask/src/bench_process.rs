//! Whole-process benchmarks over generated NDJSON files, shared by `cargo xtask bench --records`
//! and `cargo xtask bench --deliver`: their options, the release build, the cached files, and
//! the timing of a process (wall time, CPU time, peak memory; median of N runs after a warm-up).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::gen_records::{self, Generator};

/// The benchmarks' schema and its partition source.
pub const SCHEMA: &str = "testdata/records/bench/every-type.schema.json";
pub const PARTITION: &str = "event_time";
const SEED: u64 = 1;

/// What `bench --records` or `bench --deliver` was asked for.
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

/// Reads `--size SIZE` and `--runs N` (the arguments after `--records` or `--deliver`, which
/// `task` names in errors).
pub fn parse_args(task: &str, args: &[String]) -> Result<Options, String> {
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
            other => return Err(format!("unknown argument `{other}` for `bench {task}`")),
        }
    }
    Ok(options)
}

/// A command that runs (or times) the processes a benchmark measures, in the environment users
/// run them in. `cargo xtask` runs through `cargo run`, which puts the target and toolchain
/// directories (seven here, three of them build scripts' `out`) on LD_LIBRARY_PATH. Every
/// process timed would search them for its C libraries first: 84 failed opens and 70 failed
/// stats for hello world, whose median was 1.1–1.4 ms in the benchmark's runs with them and
/// 0.8 ms in the runs without.
pub fn timed_command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new(program);
    command.env_remove("LD_LIBRARY_PATH");
    command
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

/// One timed run of a whole process, or the summary of several.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    pub wall_s: f64,
    pub cpu_s: f64,
    pub max_rss_kb: u64,
}

impl Run {
    /// Cores used on average: CPU time over wall time.
    pub fn cores(&self) -> f64 {
        self.cpu_s / self.wall_s
    }

    pub fn peak_mib(&self) -> f64 {
        self.max_rss_kb as f64 / 1024.0
    }

    /// MB (10^6 bytes) of `file` per second of wall time.
    pub fn mb_per_s(&self, file: &BenchFile) -> f64 {
        file.megabytes() / self.wall_s
    }

    /// Records of `file` per second of wall time.
    pub fn records_per_s(&self, file: &BenchFile) -> f64 {
        file.records as f64 / self.wall_s
    }

    /// The throughput over `file` as the records table shows it: `X MB/s (W s)`.
    pub fn throughput(&self, file: &BenchFile) -> String {
        format!("{:.1} MB/s ({:.2} s)", self.mb_per_s(file), self.wall_s)
    }
}

/// A process to time: `program args`, with work done before each run (untimed) and a check of
/// each run's standard output (untimed; a run whose output is wrong proves nothing).
pub struct Job<'a> {
    pub program: &'a Path,
    pub args: Vec<&'a Path>,
    pub before: &'a dyn Fn() -> Result<(), String>,
    pub check: &'a dyn Fn(&str) -> Result<(), String>,
}

impl<'a> Job<'a> {
    pub fn new(
        program: &'a Path,
        args: Vec<&'a Path>,
        before: &'a dyn Fn() -> Result<(), String>,
        check: &'a dyn Fn(&str) -> Result<(), String>,
    ) -> Job<'a> {
        Job {
            program,
            args,
            before,
            check,
        }
    }

    /// `program args`, with nothing to do before a run and nothing to check but the exit status.
    pub fn plain(program: &'a Path, args: Vec<&'a Path>) -> Job<'a> {
        Job {
            program,
            args,
            before: &|| Ok(()),
            check: &|_| Ok(()),
        }
    }

    fn command_line(&self) -> String {
        std::iter::once(self.program)
            .chain(self.args.iter().copied())
            .map(|a| a.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Runs it once under `/usr/bin/time` (for the peak resident set and the CPU time, which
    /// std cannot read of a child); its standard output goes to a file in `scratch`, read by
    /// the check afterwards. The wall time is measured here, around the whole child. Any exit
    /// but 0 is an error, with the child's stderr.
    fn timed(&self, scratch: &Path) -> Result<Run, String> {
        (self.before)()?;
        let report = scratch.join("time.txt");
        let stdout_path = scratch.join("stdout.txt");
        let stdout = std::fs::File::create(&stdout_path)
            .map_err(|e| format!("cannot create {}: {e}", stdout_path.display()))?;
        let start = Instant::now();
        let output = timed_command("/usr/bin/time")
            .args(["-f", "%U %S %M", "-o"])
            .arg(&report)
            .arg(self.program)
            .args(&self.args)
            .stdout(stdout)
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("cannot run /usr/bin/time {}: {e}", self.program.display()))?;
        let wall_s = start.elapsed().as_secs_f64();
        if !output.status.success() {
            return Err(format!(
                "`{}` failed ({}):\n{}",
                self.command_line(),
                output.status,
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let printed = std::fs::read_to_string(&stdout_path)
            .map_err(|e| format!("cannot read {}: {e}", stdout_path.display()))?;
        (self.check)(&printed).map_err(|e| format!("`{}`: {e}", self.command_line()))?;
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
}

/// Times each job `runs` times, after one untimed run of each, taking turns (job 1, job 2, …,
/// job 1, …) so that the machine's slower moments fall on every job alike; for each job, the
/// median wall time, the median CPU time and the largest peak memory.
pub fn measure(jobs: &[&Job], runs: usize, scratch: &Path) -> Result<Vec<Run>, String> {
    for job in jobs {
        job.timed(scratch)?;
    }
    let mut all: Vec<Vec<Run>> = vec![Vec::with_capacity(runs); jobs.len()];
    for _ in 0..runs {
        for (job, times) in jobs.iter().zip(&mut all) {
            times.push(job.timed(scratch)?);
        }
    }
    let median = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values.get(values.len() / 2).copied().unwrap_or(0.0)
    };
    Ok(all
        .iter()
        .map(|times| Run {
            wall_s: median(times.iter().map(|r| r.wall_s).collect()),
            cpu_s: median(times.iter().map(|r| r.cpu_s).collect()),
            max_rss_kb: times.iter().map(|r| r.max_rss_kb).max().unwrap_or(0),
        })
        .collect())
}

/// One generated file.
#[derive(Debug, Clone)]
pub struct BenchFile {
    pub path: PathBuf,
    pub bytes: u64,
    /// Its records: its non-empty lines.
    pub records: u64,
}

impl BenchFile {
    /// Its size in MB (10^6 bytes).
    pub fn megabytes(&self) -> f64 {
        self.bytes as f64 / 1e6
    }
}

/// What both benchmarks work with: the release binaries, the cache folder (in the target
/// directory) and the generated files of SIZE/4, SIZE/2 and SIZE.
pub struct Bench {
    pub tool: PathBuf,
    pub floor: PathBuf,
    pub cache: PathBuf,
    pub schema: PathBuf,
    pub files: Vec<BenchFile>,
}

impl Bench {
    /// Builds the release binaries and generates (or reuses) the files; with `stream`, their
    /// partition source follows a stream's clock (`gen-records --stream`).
    pub fn prepare(
        repository: &Path,
        options: &Options,
        stream: bool,
        cargo: impl Fn(&[&str]) -> bool,
    ) -> Result<Bench, String> {
        release_build(&cargo)?;
        let target = target_dir(repository);
        let cache = target.join("records-bench");
        std::fs::create_dir_all(&cache)
            .map_err(|e| format!("cannot create {}: {e}", cache.display()))?;
        // Made before any table, so that the generator's lines do not break it.
        let files = [options.size / 4, options.size / 2, options.size]
            .iter()
            .map(|size| records_file(repository, &cache, *size, stream))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Bench {
            tool: target.join("release/schema2iceberg"),
            floor: target.join("release/examples/parse_floor"),
            cache,
            schema: repository.join(SCHEMA),
            files,
        })
    }
}

/// The generated file of `size` bytes for the benchmarks' schema, cached in `cache`.
fn records_file(
    repository: &Path,
    cache: &Path,
    size: u64,
    stream: bool,
) -> Result<BenchFile, String> {
    generated_file(&repository.join(SCHEMA), "every-type", cache, size, stream)
}

/// The generated file of `size` bytes for `schema` (seed 1, partition source [`PARTITION`]),
/// named after `stem` and cached in `cache`; made again when the schema or the xtask binary
/// (and so the generator) is newer than it.
pub fn generated_file(
    schema: &Path,
    stem: &str,
    cache: &Path,
    size: u64,
    stream: bool,
) -> Result<BenchFile, String> {
    let kind = if stream { "-stream" } else { "" };
    let path = cache.join(format!("{stem}-seed{SEED}{kind}-{size}.ndjson"));
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let inputs = [
        modified(schema),
        std::env::current_exe().ok().and_then(|e| modified(&e)),
    ];
    let fresh =
        modified(&path).is_some_and(|made| inputs.iter().all(|i| i.is_none_or(|t| t <= made)));
    if !fresh {
        println!("== generating {} ({size} bytes)", path.display());
        let mut generator = Generator::new(schema, Some(PARTITION), SEED)?;
        if stream {
            generator = generator.with_stream(Some(PARTITION))?;
        }
        let file = std::fs::File::create(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        gen_records::write_records(&mut generator, size, file)?;
    }
    let text = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let records = text
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .count() as u64;
    Ok(BenchFile {
        path,
        bytes: text.len() as u64,
        records,
    })
}

/// The release build of the binary alone, as `cargo install` builds it. Built together with
/// xtask, the feature sets of the two unite, and the binary is not the one users run: its
/// dependencies are compiled with other features. Into `target_dir` when given, else the usual
/// one.
pub fn release_build_tool(
    cargo: &impl Fn(&[&str]) -> bool,
    target_dir: Option<&Path>,
) -> Result<(), String> {
    let mut args = vec![
        "build",
        "--release",
        "-p",
        "schema2iceberg",
        "--bin",
        "schema2iceberg",
    ];
    let dir = target_dir.map(|d| d.display().to_string());
    if let Some(dir) = &dir {
        args.extend(["--target-dir", dir.as_str()]);
    }
    if cargo(&args) {
        Ok(())
    } else {
        Err("the release build of schema2iceberg failed".to_string())
    }
}

/// The release builds of the binary (`release_build_tool`) and of the floor that the
/// whole-process benchmarks time (`xtask/examples/parse_floor.rs`).
pub fn release_build(cargo: impl Fn(&[&str]) -> bool) -> Result<(), String> {
    release_build_tool(&cargo, None)?;
    if cargo(&[
        "build",
        "--release",
        "-p",
        "xtask",
        "--example",
        "parse_floor",
    ]) {
        Ok(())
    } else {
        Err("the release build of parse_floor failed".to_string())
    }
}

/// The machine, for the tables' heading.
pub fn machine() -> String {
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

/// Removes `folder` and everything in it; a folder that is not there is no error.
pub fn remove_folder(folder: &Path) -> Result<(), String> {
    match std::fs::remove_dir_all(folder) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("cannot remove {}: {e}", folder.display()))
        }
        _ => Ok(()),
    }
}
