//! `cargo xtask bench --peers`: `records` against what a team would use instead (ajv 8 on node,
//! compiled validators), and `deliver` against pyarrow's JSON reader with pyiceberg's `append`,
//! on one generated file of order events, as whole processes taking turns; each of ours also
//! on one core (`taskset -c 0`), for how it scales (issue 41, docs/dev/performance.md).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::bench_deliver::check_summary;
use crate::bench_process::{
    generated_file, machine, measure, release_build_tool, remove_folder, target_dir, BenchFile,
    Job, Options, Run, PARTITION,
};

/// The order events: long, the timestamptz partition source, an enum, decimal(38, 2) from
/// `multipleOf: 0.01`, a double, a boolean, a nullable string, a struct, a list of structs.
pub(crate) const SCHEMA: &str = "testdata/records/bench/orders.schema.json";
/// The peers' scripts and their pinned packages.
const PEERS: &str = "xtask/peers";
/// The size the issue measured at: about 400,000 order events.
const DEFAULT_SIZE: u64 = 113_000_000;
const DEFAULT_RUNS: usize = 3;

/// The goals, as ratios of wall times (issue 41).
const RECORDS_OVER_AJV: f64 = 2.0;
const DELIVER_OVER_PYICEBERG: f64 = 2.0;
const DELIVER_OVER_RECORDS: f64 = 1.5;
const TWO_CORES_OVER_ONE: f64 = 1.8;
const RECORDS_PEAK_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// Where the peers live once installed: `<target>/peers/{ajv,venv}`.
struct Peers {
    /// The folder with `ajv_check.mjs` and its node_modules, or why there is none.
    ajv: Result<PathBuf, String>,
    /// The venv's python with pyarrow, pyiceberg and pyiceberg-core, or why there is none.
    python: Result<PathBuf, String>,
    /// Whether `taskset` can pin a process to one core.
    taskset: Result<(), String>,
}

/// Reads `--size SIZE` and `--runs N`, with this benchmark's defaults.
fn options(args: &[String]) -> Result<Options, String> {
    let mut given = crate::bench_process::parse_args("--peers", args)?;
    let defaults = Options::default();
    if !args.iter().any(|a| a == "--size") && given.size == defaults.size {
        given.size = DEFAULT_SIZE;
    }
    if !args.iter().any(|a| a == "--runs") && given.runs == defaults.runs {
        given.runs = DEFAULT_RUNS;
    }
    Ok(given)
}

/// Builds, generates, installs the peers and measures; prints the table of
/// docs/dev/performance.md.
pub fn run(
    repository: &Path,
    args: &[String],
    cargo: impl Fn(&[&str]) -> bool,
) -> Result<(), String> {
    let options = options(args)?;
    release_build_tool(&cargo, None)?;
    let target = target_dir(repository);
    let tool = target.join("release/schema2iceberg");
    let cache = target.join("peers");
    std::fs::create_dir_all(&cache)
        .map_err(|e| format!("cannot create {}: {e}", cache.display()))?;
    let schema = repository.join(SCHEMA);
    let file = generated_file(&schema, "orders", &cache, options.size, true)?;
    let compiled = compile_json(&tool, &schema, &cache)?;
    let peers = Peers {
        ajv: install_ajv(repository, &cache),
        python: install_venv(repository, &cache),
        taskset: command_works("taskset", &["-c", "0", "true"]),
    };
    let load_before = load_average();
    let setup = Setup {
        tool: &tool,
        schema: &schema,
        compiled: &compiled,
        file: &file,
        warehouse: cache.join("warehouse"),
    };
    let measured = measure_all(&setup, &peers, &options, &cache)?;
    print_table(&setup, &options, &load_before, &measured);
    Ok(())
}

/// What every job reads.
struct Setup<'a> {
    tool: &'a Path,
    schema: &'a Path,
    compiled: &'a Path,
    file: &'a BenchFile,
    /// Made anew before each deliver or pyiceberg run.
    warehouse: PathBuf,
}

/// `schema2iceberg compile --format json` of the schema, which the pyiceberg script builds its
/// table from (untimed: a team writes its table's schema once).
fn compile_json(tool: &Path, schema: &Path, cache: &Path) -> Result<PathBuf, String> {
    let output = Command::new(tool)
        .args(["compile", "--format", "json", "--partition", PARTITION])
        .arg(schema)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tool.display()))?;
    if !output.status.success() {
        return Err(format!(
            "compile failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let path = cache.join("orders.compiled.json");
    std::fs::write(&path, &output.stdout)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// Whether `program args` runs and exits 0; if not, why.
fn command_works(program: &str, args: &[&str]) -> Result<(), String> {
    match Command::new(program).args(args).output() {
        Ok(output) if output.status.success() => Ok(()),
        Ok(output) => Err(format!("`{program}` exited with {}", output.status)),
        Err(e) => Err(format!("`{program}` cannot run: {e}")),
    }
}

/// ajv and ajv-formats at the versions `xtask/peers/package-lock.json` pins, installed with
/// `npm ci` into `<cache>/ajv` (again when the lock file changed).
fn install_ajv(repository: &Path, cache: &Path) -> Result<PathBuf, String> {
    command_works("node", &["--version"])?;
    command_works("npm", &["--version"])?;
    let folder = cache.join("ajv");
    std::fs::create_dir_all(&folder)
        .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    let peers = repository.join(PEERS);
    let lock = std::fs::read(peers.join("package-lock.json")).unwrap_or_default();
    let installed = std::fs::read(folder.join("package-lock.json")).unwrap_or_default();
    for name in ["package.json", "package-lock.json", "ajv_check.mjs"] {
        std::fs::copy(peers.join(name), folder.join(name))
            .map_err(|e| format!("cannot copy {name}: {e}"))?;
    }
    if lock != installed || !folder.join("node_modules").is_dir() {
        println!("== npm ci in {}", folder.display());
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&folder)
            .status()
            .map_err(|e| format!("cannot run npm: {e}"))?;
        if !status.success() {
            return Err(format!("npm ci failed ({status})"));
        }
    }
    Ok(folder)
}

/// A venv at `<cache>/venv` with `xtask/peers/requirements.txt` (the tests' pinned pyiceberg
/// and pyarrow, and pyiceberg-core for the hour transform), installed again when that file
/// changed.
fn install_venv(repository: &Path, cache: &Path) -> Result<PathBuf, String> {
    command_works("python3", &["--version"])?;
    let venv = cache.join("venv");
    let python = venv.join("bin/python");
    let wanted = repository.join(PEERS).join("requirements.txt");
    let stamp = venv.join("requirements.txt");
    let same = |a: &Path, b: &Path| {
        std::fs::read(a)
            .ok()
            .is_some_and(|a| std::fs::read(b).ok() == Some(a))
    };
    if python.exists() && same(&wanted, &stamp) {
        return Ok(python);
    }
    println!("== pip install into {}", venv.display());
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status();
    if !made.is_ok_and(|s| s.success()) {
        return Err("python3 -m venv failed".to_string());
    }
    let installed = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "-r"])
        .arg(&wanted)
        .status();
    if !installed.is_ok_and(|s| s.success()) {
        return Err(format!("pip install -r {} failed", wanted.display()));
    }
    std::fs::copy(&wanted, &stamp).map_err(|e| format!("cannot copy {}: {e}", wanted.display()))?;
    Ok(python)
}

/// The 1-, 5- and 15-minute load averages.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// One row of the table: what ran, and its figures when it could run.
struct Row {
    name: &'static str,
    run: Result<Run, String>,
}

/// Checks that `program` printed `expected` (its verdicts on the whole file), and nothing else.
fn check_output(program: &str, printed: &str, expected: &str) -> Result<(), String> {
    if printed.trim() == expected {
        Ok(())
    } else {
        Err(format!(
            "{program} printed `{}`, not `{expected}`",
            printed.trim()
        ))
    }
}

/// Checks that ajv printed `valid N invalid 0` for a file of N records.
fn check_ajv(printed: &str, records: u64) -> Result<(), String> {
    check_output("ajv", printed, &format!("valid {records} invalid 0"))
}

/// Checks `records --format json`'s summary: every record of the file delivered.
pub(crate) fn check_records(printed: &str, records: u64) -> Result<(), String> {
    let value: serde_json::Value = serde_json::from_str(printed)
        .map_err(|e| format!("its output is not the JSON report ({e})"))?;
    let delivered = value
        .pointer("/summary/delivered")
        .and_then(serde_json::Value::as_u64);
    if delivered == Some(records) {
        Ok(())
    } else {
        Err(format!(
            "records delivered {delivered:?} of {records} records"
        ))
    }
}

/// The command lines of the six rows; a peer that is not installed, or `taskset` when it
/// cannot run, leaves its rows out with the reason.
struct Lines {
    ajv: Result<(PathBuf, Vec<PathBuf>), String>,
    records: Vec<PathBuf>,
    pyiceberg: Result<(PathBuf, Vec<PathBuf>), String>,
    deliver: Vec<PathBuf>,
}

fn lines(setup: &Setup, peers: &Peers) -> Lines {
    let file = setup.file.path.clone();
    let (records, deliver) = our_lines(setup.schema, &file, &setup.warehouse);
    Lines {
        ajv: peers.ajv.clone().map(|folder| {
            let script = folder.join("ajv_check.mjs");
            (
                "node".into(),
                vec![script, setup.schema.to_path_buf(), file.clone()],
            )
        }),
        records,
        pyiceberg: peers.python.clone().map(|python| {
            let script = std::env::current_dir()
                .unwrap_or_default()
                .join(PEERS)
                .join("pyiceberg_append.py");
            let args = vec![
                script,
                setup.compiled.to_path_buf(),
                file.clone(),
                setup.warehouse.clone(),
            ];
            (python, args)
        }),
        deliver,
    }
}

/// The arguments of `schema2iceberg records` and `deliver` (into `warehouse`) on `file`, both
/// printing JSON, as every bench of the order events runs them.
pub(crate) fn our_lines(
    schema: &Path,
    file: &Path,
    warehouse: &Path,
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let records = ["records", "--format", "json", "--partition", PARTITION]
        .iter()
        .map(PathBuf::from)
        .chain([schema.to_path_buf(), file.to_path_buf()])
        .collect();
    let deliver = [
        "deliver",
        "--format",
        "json",
        "--partition",
        PARTITION,
        "--namespace",
        "bench",
        "--table",
        "orders",
        "--warehouse",
    ]
    .iter()
    .map(PathBuf::from)
    .chain([
        warehouse.to_path_buf(),
        schema.to_path_buf(),
        file.to_path_buf(),
    ])
    .collect();
    (records, deliver)
}

/// `taskset -c 0 tool args`.
fn one_core(tool: &Path, args: &[PathBuf]) -> Vec<PathBuf> {
    ["-c", "0"]
        .iter()
        .map(PathBuf::from)
        .chain(std::iter::once(tool.to_path_buf()))
        .chain(args.iter().cloned())
        .collect()
}

/// `list` as the `&Path` arguments of a [`Job`].
pub(crate) fn paths(list: &[PathBuf]) -> Vec<&Path> {
    list.iter().map(PathBuf::as_path).collect()
}

/// Runs every job that can run, taking turns, and returns the six rows in order.
fn measure_all(
    setup: &Setup,
    peers: &Peers,
    options: &Options,
    scratch: &Path,
) -> Result<Vec<Row>, String> {
    let lines = lines(setup, peers);
    let records = setup.file.records;
    let expected_rows = format!("rows {records}");
    let fresh = || fresh_folder(&setup.warehouse);
    let nothing = || Ok(());
    let (ajv, records, pyiceberg, deliver) = (
        |p: &str| check_ajv(p, records),
        |p: &str| check_records(p, records),
        |p: &str| check_output("pyiceberg", p, &expected_rows),
        |p: &str| check_summary(p, records).map(|_| ()),
    );
    let taskset = Path::new("taskset");
    let records_one = one_core(setup.tool, &lines.records);
    let deliver_one = one_core(setup.tool, &lines.deliver);
    let job = Job::new;
    let planned: [(&'static str, Result<Job, String>); 6] = [
        (
            "ajv 8 on node (one core)",
            lines
                .ajv
                .as_ref()
                .map_err(Clone::clone)
                .map(|(p, a)| job(p, paths(a), &nothing, &ajv)),
        ),
        (
            "schema2iceberg records (two cores)",
            Ok(job(setup.tool, paths(&lines.records), &nothing, &records)),
        ),
        (
            "schema2iceberg records (one core)",
            peers
                .taskset
                .clone()
                .map(|()| job(taskset, paths(&records_one), &nothing, &records)),
        ),
        (
            "pyarrow + pyiceberg append",
            lines
                .pyiceberg
                .as_ref()
                .map_err(Clone::clone)
                .map(|(p, a)| job(p, paths(a), &fresh, &pyiceberg)),
        ),
        (
            "schema2iceberg deliver (two cores)",
            Ok(job(setup.tool, paths(&lines.deliver), &fresh, &deliver)),
        ),
        (
            "schema2iceberg deliver (one core)",
            peers
                .taskset
                .clone()
                .map(|()| job(taskset, paths(&deliver_one), &fresh, &deliver)),
        ),
    ];
    let runnable: Vec<&Job> = planned
        .iter()
        .filter_map(|(_, job)| job.as_ref().ok())
        .collect();
    let mut runs = measure(&runnable, options.runs, scratch)?.into_iter();
    Ok(planned
        .iter()
        .map(|(name, job)| Row {
            name,
            run: match job {
                Ok(_) => runs.next().ok_or_else(|| "no figures".to_string()),
                Err(why) => Err(why.clone()),
            },
        })
        .collect())
}

/// Removes `folder` and makes it again, empty (SQLite needs the folder of its file).
pub(crate) fn fresh_folder(folder: &Path) -> Result<(), String> {
    remove_folder(folder)?;
    std::fs::create_dir_all(folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))
}

/// The table, then each goal with its ratio and verdict.
fn print_table(setup: &Setup, options: &Options, load_before: &str, rows: &[Row]) {
    let file = setup.file;
    println!(
        "\n`records` against ajv, `deliver` against pyarrow + pyiceberg, on {:.0} MB of order events ({} records, {}): {}; median of {} runs of each, taking turns, after one warm-up; load average before: {load_before}, after: {}",
        file.megabytes(),
        file.records,
        SCHEMA,
        machine(),
        options.runs,
        load_average()
    );
    println!("| program | wall | MB/s | records/s | CPU time / wall | peak memory |\n|---|---:|---:|---:|---:|---:|");
    for row in rows {
        match &row.run {
            Ok(run) => println!(
                "| {} | {:.2} s | {:.1} | {:.0} | {:.2} | {:.0} MiB |",
                row.name,
                run.wall_s,
                run.mb_per_s(file),
                run.records_per_s(file),
                run.cores(),
                run.peak_mib()
            ),
            Err(why) => println!("| {} | not measured: {why} | | | | |", row.name),
        }
    }
    println!();
    for line in goals(rows) {
        println!("{line}");
    }
}

/// Each goal: `name: A / B = ratio (goal); met` from the rows' wall times, or why it was not
/// measured.
fn goals(rows: &[Row]) -> Vec<String> {
    let wall = |index: usize| {
        rows.get(index)
            .and_then(|r| r.run.as_ref().ok())
            .map(|r| r.wall_s)
    };
    let peak = rows
        .get(1)
        .and_then(|r| r.run.as_ref().ok())
        .map(|r| r.max_rss_kb as f64 * 1024.0);
    let ratio = |what: &str,
                 fast: usize,
                 slow: usize,
                 at_least: Option<f64>,
                 at_most: Option<f64>| match (wall(fast), wall(slow)) {
        (Some(fast), Some(slow)) => {
            let ratio = slow / fast;
            let met = at_least.is_none_or(|g| ratio >= g) && at_most.is_none_or(|g| ratio <= g);
            let goal = at_least.map_or_else(
                || format!("at most {}×", at_most.unwrap_or_default()),
                |g| format!("at least {g}×"),
            );
            format!(
                "- {what}: {ratio:.2}× ({goal}): {}",
                if met { "met" } else { "NOT met" }
            )
        }
        _ => format!("- {what}: not measured"),
    };
    vec![
        ratio(
            "records' throughput over ajv's",
            1,
            0,
            Some(RECORDS_OVER_AJV),
            None,
        ),
        ratio(
            "deliver's throughput over pyarrow + pyiceberg's",
            4,
            3,
            Some(DELIVER_OVER_PYICEBERG),
            None,
        ),
        ratio(
            "deliver's wall time over records'",
            1,
            4,
            None,
            Some(DELIVER_OVER_RECORDS),
        ),
        ratio(
            "records on two cores over one core",
            1,
            2,
            Some(TWO_CORES_OVER_ONE),
            None,
        ),
        ratio(
            "deliver on two cores over one core",
            4,
            5,
            Some(TWO_CORES_OVER_ONE),
            None,
        ),
        match peak {
            Some(bytes) => format!(
                "- records' peak memory: {:.0} MiB (under {:.0} MiB): {}",
                bytes / 1048576.0,
                RECORDS_PEAK_BYTES / 1048576.0,
                if bytes < RECORDS_PEAK_BYTES {
                    "met"
                } else {
                    "NOT met"
                }
            ),
            None => "- records' peak memory: not measured".to_string(),
        },
    ]
}
