//! Developer tasks, run as `cargo xtask <task>`.

mod bench_backfill;
mod bench_deliver;
mod bench_linear;
mod bench_peers;
mod bench_process;
mod bench_records;
mod bench_whole;
#[cfg(test)]
mod code_shape;
mod gen_records;
mod module_map;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  codegen   regenerate docs/diagnostics.md, docs/report.schema.json and the generated
            sections of docs/mapping.md and docs/records.md from the code
  ci        run what CI runs: cargo fmt --check, clippy with -D warnings, and the tests
  corpus [--source NAME]
            check every schema in ../shared/corpus and print the per-source summary
            (Markdown tables; docs/dev/corpus.md)
  gen-records SCHEMA --size SIZE [--seed N] [--partition FIELD] [--out FILE]
            write NDJSON records that the channel delivers for SCHEMA, the same bytes for a
            seed (`cargo xtask gen-records --help` says more)
  bench     run the criterion benchmarks and print, from one run, compile time against
            serde_json's parse of the same bytes, the corpus check, and process start-up
            against a hello-world binary, and the records benchmark below (docs/dev/performance.md);
            the deliver benchmark runs only when asked for (`bench --deliver`)
  bench --records [--size SIZE] [--runs N]
            generate (or reuse, cached in the target directory) NDJSON files of SIZE/4, SIZE/2
            and SIZE (default 200MB) for testdata/records/bench/every-type.schema.json, and
            time `schema2iceberg records` on each against serde_json parsing every line on one
            thread (the floor), as whole processes: MB/s, the ratio, and peak memory; N runs
            each (default 5), median
  bench --deliver [--size SIZE] [--runs N]
            the same sizes, generated with `gen-records --stream` (event times that follow a
            clock: a few hour partitions a cycle); on each, time `schema2iceberg records` and
            `schema2iceberg deliver` (each deliver run into a new warehouse in the target
            directory, checked to hold every record): wall time, MB/s, records/s, cores used,
            peak memory, and deliver / records; N runs each (default 5), taking turns, median
  bench --peers [--size SIZE] [--runs N]
            one file of order events (default 113MB, testdata/records/bench/orders.schema.json,
            `gen-records --stream`): `schema2iceberg records` against ajv 8 on node (installed
            with npm ci from xtask/peers into the target directory), `schema2iceberg deliver`
            against pyarrow's JSON reader and pyiceberg's append (a venv in the target
            directory, xtask/peers/requirements.txt), and both of ours on one core (taskset -c
            0); every run's verdicts checked; wall time, MB/s, peak memory, the goals' ratios
            and the load average; N runs each (default 3), taking turns, median. A peer whose
            node, npm or python3 is missing is left out with the reason
  bench --linear [--runs N]
            `schema2iceberg records` and `deliver` (two cores) on the order events of --peers at
            10MB, 100MB and 1GB (cached in the target directory): MB/s and peak memory at each
            size, and whether each stays linear (MB/s within 15% of the 100MB figure) with flat
            memory (the 1GB peak at most 1.25× the 100MB peak); N runs each (default 3), median
  bench --backfill [--runs N]
            `schema2iceberg deliver` on two generated backfills in one cycle each (2,000 hours
            interleaved, 40,000 hours in time order; 40,000 records each): wall time, peak
            memory, and the data files each hour got; N runs each (default 5), median
  bench --whole-process [--runs N]
            the binary as users run it, timed with hyperfine (N runs each, default 10): compile
            on the Mozilla file and kubernetes-definitions (JSON and text) against a process
            that only parses the file, jsonschema-transpiler 2.0.1 on the Mozilla file
            (installed once into the target directory), peak memory, check over the corpus in
            every format, generated schemas of 1k to 100k columns and 1k to 40k diagnostics,
            and start-up against hello world; prints a Markdown table and the goals met
  bench --instructions
            count the instructions of each phase (parse, read, compile, Iceberg's build)
            under valgrind's callgrind: slower, but the same on every run";

/// Runs cargo as a developer's shell would. `cargo run` gives xtask the variables of its own
/// package, and cargo decides whether to rerun a build script from its own environment: ring's
/// tracks `CARGO_MANIFEST_DIR`, so a release build from `cargo xtask` and one from the shell
/// rebuilt ring, and everything above it, each time they took turns.
fn cargo(args: &[&str]) -> bool {
    println!("== cargo {}", args.join(" "));
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()));
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        if key.starts_with("CARGO_PKG_")
            || matches!(
                key,
                "CARGO_MANIFEST_DIR"
                    | "CARGO_MANIFEST_PATH"
                    | "CARGO_CRATE_NAME"
                    | "CARGO_BIN_NAME"
            )
        {
            command.env_remove(key);
        }
    }
    command.args(args).status().is_ok_and(|s| s.success())
}

/// A task's outcome: `true` when it succeeded, else `false` after printing its error.
fn succeeded(result: Result<(), String>) -> bool {
    match result {
        Ok(()) => true,
        Err(message) => {
            eprintln!("error: {message}");
            false
        }
    }
}

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn write(relative: &str, text: &str) -> bool {
    let path = repository_root().join(relative);
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current == text {
        println!("unchanged {relative}");
        return true;
    }
    match std::fs::write(&path, text) {
        Ok(()) => {
            println!("wrote {relative}");
            true
        }
        Err(e) => {
            eprintln!("cannot write {relative}: {e}");
            false
        }
    }
}

/// Rewrites the generated sections of docs/mapping.md (rule 14's keyword list from the
/// mapper's keyword table, the code index from the code tables); the prose around them is kept.
fn write_mapping_sections() -> bool {
    const MAPPING: &str = "docs/mapping.md";
    let current = std::fs::read_to_string(repository_root().join(MAPPING)).unwrap_or_default();
    let updated = schema2iceberg_mapper::compiler::keywords::with_rule_14_section(&current)
        .and_then(|text| schema2iceberg::codes::with_code_index(&text));
    match updated {
        Some(text) => write(MAPPING, &text),
        None => {
            eprintln!("{MAPPING} lacks the marker lines of a generated section (rule 14's keyword list, the code index)");
            false
        }
    }
}

/// Rewrites the reason table of docs/records.md from the mapper's `Reason`s.
fn write_records_reasons() -> bool {
    const RECORDS: &str = "docs/records.md";
    let current = std::fs::read_to_string(repository_root().join(RECORDS)).unwrap_or_default();
    match schema2iceberg_mapper::records::with_reason_table(&current) {
        Some(text) => write(RECORDS, &text),
        None => {
            eprintln!("{RECORDS} lacks the marker lines of the reason table");
            false
        }
    }
}

/// `cargo xtask corpus [--source NAME]`: prints the summary, or says why it cannot (exit 2).
fn corpus(args: &[String]) -> Result<bool, String> {
    let mut request = schema2iceberg::corpus::CorpusRequest::for_repository(&repository_root());
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let name = match arg.strip_prefix("--source=") {
            Some(name) => name.to_string(),
            None if arg == "--source" => args
                .next()
                .cloned()
                .ok_or("--source needs a NAME".to_string())?,
            None => return Err(format!("unknown argument `{arg}` for `corpus`\n\n{USAGE}")),
        };
        if request.source.replace(name).is_some() {
            return Err("--source is given more than once".to_string());
        }
    }
    let summary = schema2iceberg::corpus::summary(&request).map_err(|e| e.to_string())?;
    print!("{}", summary.to_markdown());
    Ok(true)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let ok = match args.first().map(String::as_str) {
        Some("codegen") => codegen(),
        Some("ci") => {
            let steps: [&[&str]; 3] = [
                &["fmt", "--all", "--check"],
                &[
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ],
                &["test", "--workspace"],
            ];
            steps.iter().all(|step| cargo(step))
        }
        Some("gen-records") => match gen_records::run(rest) {
            Ok(()) => true,
            Err(message) => {
                eprintln!("error: {message}");
                return ExitCode::from(2);
            }
        },
        Some("corpus") => match corpus(rest) {
            Ok(ok) => ok,
            Err(message) => {
                eprintln!("error: {message}");
                return ExitCode::from(2);
            }
        },
        Some("bench") => bench_task(rest),
        Some("-h" | "--help") | None => {
            println!("{USAGE}");
            true
        }
        Some(other) => {
            eprintln!("unknown task `{other}`\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `cargo xtask codegen`: every generated document, from the code.
fn codegen() -> bool {
    write(
        "docs/diagnostics.md",
        &schema2iceberg::docs::diagnostics_markdown(),
    ) & match schema2iceberg::check::output::report_schema() {
        Ok(schema) => write("docs/report.schema.json", &schema),
        Err(e) => {
            eprintln!("cannot serialize the report's JSON Schema: {e}");
            false
        }
    } & write(
        "docs/outputs.md",
        &schema2iceberg::docs::outputs_markdown(&repository_root()),
    ) & write_mapping_sections()
        & write_records_reasons()
        & write_architecture()
}

/// ARCHITECTURE.md's code map, from each module's `//!` comment.
fn write_architecture() -> bool {
    const ARCHITECTURE: &str = "ARCHITECTURE.md";
    let root = repository_root();
    let current = std::fs::read_to_string(root.join(ARCHITECTURE)).unwrap_or_default();
    match module_map::with_module_list(&current, &root) {
        Some(text) => write(ARCHITECTURE, &text),
        None => {
            eprintln!("{ARCHITECTURE} lacks the marker lines of the module list");
            false
        }
    }
}

/// `cargo xtask bench [FLAG] ...`: the benchmark FLAG names, or the criterion and records
/// benches without one.
fn bench_task(args: &[String]) -> bool {
    let flag = args.first().map(String::as_str);
    let rest = args.get(1..).unwrap_or_default();
    let root = repository_root();
    match flag {
        Some("--instructions") => succeeded(bench_instructions()),
        Some("--records") => succeeded(
            bench_process::parse_args("--records", rest)
                .and_then(|options| bench_records::run(&root, &options, cargo)),
        ),
        Some("--whole-process") => succeeded(bench_whole::run(&root, rest, cargo)),
        Some("--backfill") => succeeded(
            bench_process::parse_args("--backfill", rest)
                .and_then(|options| bench_backfill::run(&root, options.runs, cargo)),
        ),
        Some("--peers") => succeeded(bench_peers::run(&root, rest, cargo)),
        Some("--linear") => succeeded(bench_linear::run(&root, rest, cargo)),
        Some("--deliver") => succeeded(
            bench_process::parse_args("--deliver", rest)
                .and_then(|options| bench_deliver::run(&root, &options, cargo)),
        ),
        Some(other) => {
            eprintln!("error: unknown bench flag `{other}`\n\n{USAGE}");
            false
        }
        None => {
            succeeded(bench().and_then(|()| {
                bench_records::run(&root, &bench_process::Options::default(), cargo)
            }))
        }
    }
}

/// The median of one criterion benchmark, in nanoseconds, from its `estimates.json`.
fn criterion_median(group: &str, bench: &str) -> Option<f64> {
    let path = bench_process::target_dir(&repository_root())
        .join("criterion")
        .join(group)
        .join(bench)
        .join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get("median")?.get("point_estimate")?.as_f64()
}

fn human(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.1} µs", ns / 1e3)
    }
}

/// Median wall time of `runs` runs of `program args`, in nanoseconds.
fn median_run(program: &Path, args: &[&str], runs: usize) -> Result<f64, String> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = std::time::Instant::now();
        let status = bench_process::timed_command(program)
            .args(args)
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
        if !status.success() {
            return Err(format!("{} failed", program.display()));
        }
        times.push(start.elapsed().as_nanos() as f64);
    }
    times.sort_by(f64::total_cmp);
    Ok(times.get(runs / 2).copied().unwrap_or(0.0))
}

fn bench() -> Result<(), String> {
    let ok = cargo(&[
        "bench",
        "-p",
        "schema2iceberg",
        "--bench",
        "compile_vs_parse",
    ]) && cargo(&["bench", "-p", "schema2iceberg", "--bench", "check_corpus"])
        && cargo(&["build", "--release", "-p", "schema2iceberg"]);
    if !ok {
        return Err("a benchmark or the release build failed".to_string());
    }
    println!(
        "\ncompile against serde_json::from_slice::<Value> of the same bytes (criterion medians)"
    );
    println!("| file | parse | read | compile | ratio | of which Iceberg's `Schema` build | compile without it | ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|");
    for file in [
        "seed_event",
        "mozilla_first_shutdown_use_counter",
        "kubernetes_definitions",
    ] {
        match (
            criterion_median(file, "serde_json_parse"),
            criterion_median(file, "compile"),
        ) {
            (Some(parse), Some(compile)) => {
                let build = criterion_median(file, "iceberg_schema_build");
                let read = criterion_median(file, "read").map_or("?".to_string(), human);
                let (build_text, ours, ours_ratio) = match build {
                    Some(b) => (
                        human(b),
                        human(compile - b),
                        format!("{:.1}×", (compile - b) / parse),
                    ),
                    None => (
                        "(no table)".into(),
                        human(compile),
                        format!("{:.1}×", compile / parse),
                    ),
                };
                println!(
                    "| {file} | {} | {read} | {} | {:.1}× | {build_text} | {ours} | {ours_ratio} |",
                    human(parse),
                    human(compile),
                    compile / parse
                )
            }
            _ => println!("| {file} | skipped (no measurement) | | |"),
        }
    }
    if let Some(check) = criterion_median("check", "corpus_json") {
        println!(
            "\ncheck over the whole corpus: {} (criterion median)",
            human(check)
        );
    }
    let target = bench_process::target_dir(&repository_root());
    let hello = bench_whole::hello_world(&target)?;
    let tool = target.join("release/schema2iceberg");
    let runs = 200;
    let ours = median_run(&tool, &["--version"], runs)?;
    let baseline = median_run(&hello, &[], runs)?;
    println!(
        "\nstart-up, median of {runs} runs: `schema2iceberg --version` {}, hello world {}, ratio {:.1}×",
        human(ours),
        human(baseline),
        ours / baseline
    );
    Ok(())
}

/// `cargo xtask bench --instructions`: instructions per repetition of each phase, from two
/// callgrind runs of the `phase_instructions` example (none and N repetitions).
fn bench_instructions() -> Result<(), String> {
    let found = Command::new("valgrind")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        return Err(
            "valgrind is not installed; `cargo xtask bench` measures times without it".into(),
        );
    }
    if !cargo(&[
        "build",
        "--release",
        "-p",
        "schema2iceberg",
        "--example",
        "phase_instructions",
    ]) {
        return Err("the phase_instructions example did not build".to_string());
    }
    let program =
        bench_process::target_dir(&repository_root()).join("release/examples/phase_instructions");
    // Enough repetitions that the set-up's share is small; callgrind runs about 50× slower.
    let files = [
        ("seed_event", 200),
        ("mozilla_first_shutdown_use_counter", 3),
        ("kubernetes_definitions", 3),
    ];
    println!("\ninstructions per repetition (callgrind), and their ratio to serde_json's parse");
    println!("| file | parse | read | compile | of which Iceberg's `Schema` build | read + compile | ratio | without Iceberg's build | ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (file, repetitions) in files {
        let mut counts = Vec::new();
        for phase in ["parse", "read", "compile", "iceberg"] {
            counts.push(phase_instructions(&program, phase, file, repetitions)?);
        }
        let [Some(parse), Some(read), Some(compile), build] = counts[..] else {
            println!("| {file} | skipped (the file is missing) | | | | | | | |");
            continue;
        };
        let total = read + compile;
        let ours = total - build.unwrap_or(0.0);
        println!(
            "| {file} | {} | {} | {} | {} | {} | {:.1}× | {} | {:.1}× |",
            millions(parse),
            millions(read),
            millions(compile),
            build.map_or("(no table)".to_string(), millions),
            millions(total),
            total / parse,
            millions(ours),
            ours / parse
        );
    }
    Ok(())
}

/// Instructions of one repetition of `phase`; `None` when the phase does not apply (the file is
/// missing, or it compiles to no table).
fn phase_instructions(
    program: &Path,
    phase: &str,
    file: &str,
    repetitions: usize,
) -> Result<Option<f64>, String> {
    let mut counts = [0u64; 2];
    for (count, n) in counts.iter_mut().zip([0, repetitions]) {
        let output = Command::new("valgrind")
            .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
            .arg(program)
            .args([phase, file, &n.to_string()])
            .output()
            .map_err(|e| format!("cannot run valgrind: {e}"))?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        match output.status.code() {
            Some(0) => {}
            // The example's own codes: 3, the file is missing; 4, no table to build.
            Some(3 | 4) => return Ok(None),
            _ => return Err(format!("{phase} {file} failed:\n{stderr}")),
        }
        *count = stderr
            .lines()
            .find_map(|line| line.split_once("I   refs:"))
            .map(|(_, n)| n.trim().replace(',', ""))
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("no instruction count in valgrind's output:\n{stderr}"))?;
    }
    let [none, some] = counts;
    Ok(Some(some.saturating_sub(none) as f64 / repetitions as f64))
}

fn millions(instructions: f64) -> String {
    if instructions >= 1e6 {
        format!("{:.1} M", instructions / 1e6)
    } else {
        format!("{:.1} k", instructions / 1e3)
    }
}
