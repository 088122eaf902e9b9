//! `cargo xtask symbol-order`: writes crates/cli/symbol-order.txt, the functions that the
//! release binary runs on typical commands, in the order crates/cli/build.rs has the linker lay
//! them out; `--check` tells whether the file still names the binary's functions and whether the
//! linker followed it.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::bench_process;
use crate::bench_whole::{KUBERNETES, MOZILLA};

/// The file, relative to the repository root.
const ORDER_FILE: &str = "crates/cli/symbol-order.txt";

/// `--check` fails below this share of the file's names defined in the binary. Editing a
/// function keeps its name, but ThinLTO suffixes the local functions that one module lends
/// another with a hash of the module (`.llvm.<digits>`, about an eighth of the file), and a
/// change anywhere in that module renames them; a new toolchain, a changed dependency or other
/// features rename nearly everything. The few renamed names are hot ones (`Vec` growth, hash
/// table allocation, drops), each now placed as if there were no order: on 2026-12-07 a change
/// in the mapper renamed 18 (1.2%), and the binary's pages mapped by the Mozilla file's run
/// went from 4.6 to 6.0 MB until the file was written again. So the bar is high, and the check
/// lists what is missing.
const MIN_DEFINED_SHARE: f64 = 0.95;

/// The commands profiled, as `cargo install` users run them: start-up, help, the README's
/// compile, the large schemas of `bench --whole-process` in both formats, and `check` on a
/// fixture repository and over the corpus. `records` and `deliver` are left out: their runs are
/// dominated by their data, not by the binary's pages.
fn workloads(repository: &Path) -> Vec<(Vec<String>, PathBuf)> {
    let corpus = repository.join("../shared/corpus");
    let mozilla = corpus.join(MOZILLA);
    let kubernetes = corpus.join(KUBERNETES);
    let kinesis_repo = repository.join("testdata/check/kinesis-repo");
    let path = |p: &Path| p.display().to_string();
    let args = |words: &[&str]| words.iter().map(|w| (*w).to_string()).collect::<Vec<_>>();
    let mut runs = vec![
        (args(&["--version"]), repository.to_path_buf()),
        (args(&["compile", "--help"]), repository.to_path_buf()),
        (
            args(&[
                "compile",
                "testdata/examples/event.json",
                "--partition",
                "event_time",
            ]),
            repository.to_path_buf(),
        ),
    ];
    for file in [&mozilla, &kubernetes] {
        for format in ["json", "text"] {
            let mut command = args(&["compile", "--format", format, "--color", "never"]);
            command.push(path(file));
            runs.push((command, repository.to_path_buf()));
        }
    }
    for format in ["text", "json", "github"] {
        runs.push((
            args(&["check", "--format", format, "--color", "never"]),
            kinesis_repo.clone(),
        ));
    }
    let mut corpus_check = args(&["check", "--config"]);
    corpus_check.push(path(
        &repository.join("testdata/corpus/schema2iceberg.toml"),
    ));
    corpus_check.extend(args(&["--format", "text", "--color", "never"]));
    corpus_check.push(path(&corpus));
    runs.push((corpus_check, repository.to_path_buf()));
    runs
}

/// `cargo xtask symbol-order [--check]`.
pub fn run(
    repository: &Path,
    args: &[String],
    cargo: impl Fn(&[&str]) -> bool,
) -> Result<(), String> {
    let check = match args {
        [] => false,
        [flag] if flag == "--check" => true,
        _ => {
            return Err(format!(
                "usage: cargo xtask symbol-order [--check] (got {args:?})"
            ))
        }
    };
    if !cfg!(all(
        target_arch = "x86_64",
        target_os = "linux",
        target_env = "gnu"
    )) {
        println!("skipped: the symbol order is used only on x86_64-unknown-linux-gnu (crates/cli/build.rs)");
        return Ok(());
    }
    // The check builds apart, into a directory that CI removes afterwards (.ci/run): a release
    // build is 1.1 GB, and CI's disk is a budget.
    let target = bench_process::target_dir(repository);
    let target = if check {
        target.join("symbol-order-check")
    } else {
        target
    };
    bench_process::release_build_tool(&cargo, Some(&target))?;
    let binary = target.join("release/schema2iceberg");
    let defined = defined_functions(&binary)?;
    if check {
        check_order(repository, &defined)
    } else {
        write_order(repository, &binary, &defined)
    }
}

/// The functions the binary defines, with their addresses, from `nm`.
fn defined_functions(binary: &Path) -> Result<HashMap<String, u64>, String> {
    let output = Command::new("nm")
        .args(["--defined-only", "--no-demangle"])
        .arg(binary)
        .output()
        .map_err(|e| format!("cannot run nm (binutils) on {}: {e}", binary.display()))?;
    if !output.status.success() {
        return Err(format!(
            "nm failed on {}: {}",
            binary.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let mut functions = HashMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let mut fields = line.split_whitespace();
        let (Some(address), Some(kind), Some(name)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if matches!(kind, "T" | "t" | "W" | "w") {
            if let Ok(address) = u64::from_str_radix(address, 16) {
                functions.insert(name.to_string(), address);
            }
        }
    }
    Ok(functions)
}

/// Profiles the workloads under callgrind and writes the file (`layout_order`).
fn write_order(
    repository: &Path,
    binary: &Path,
    defined: &HashMap<String, u64>,
) -> Result<(), String> {
    let corpus = repository.join("../shared/corpus");
    if !corpus.join(MOZILLA).is_file() {
        return Err(format!(
            "{} is missing: the profile runs the corpus's schemas",
            corpus.display()
        ));
    }
    let profile = bench_process::target_dir(repository).join("symbol-order.callgrind");
    // Per function: the first workload that ran it, and its instructions over all of them.
    let mut ranks: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    for (index, (args, dir)) in workloads(repository).into_iter().enumerate() {
        println!("== callgrind: schema2iceberg {}", args.join(" "));
        let status = Command::new("valgrind")
            .args([
                "--tool=callgrind",
                "--demangle=no",
                "--compress-strings=no",
                "--compress-pos=no",
            ])
            .arg(format!("--callgrind-out-file={}", profile.display()))
            .arg(binary)
            .args(&args)
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("cannot run valgrind (Debian: apt-get install valgrind): {e}"))?;
        // check and compile exit 1 on schemas with errors; only a crash is a failed profile.
        if !matches!(status.code(), Some(0 | 1)) {
            return Err(format!(
                "schema2iceberg {} ended with {status}",
                args.join(" ")
            ));
        }
        let text = std::fs::read_to_string(&profile)
            .map_err(|e| format!("cannot read {}: {e}", profile.display()))?;
        for (name, instructions) in self_costs(&text) {
            if instructions > 0 && defined.contains_key(&name) {
                ranks.entry(name).or_insert((index, 0)).1 += instructions;
            }
        }
    }
    let ranked = layout_order(&ranks);
    let rustc = Command::new("rustc")
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let mut text = format!(
        "# The functions that schema2iceberg runs on typical commands: those of the first command\n\
         # profiled, then what each later one adds; within each, most instructions first.\n\
         # crates/cli/build.rs hands this file to the linker, which places them side by side, so\n\
         # that a run maps fewer pages of the binary (docs/performance.md, \"Code layout\").\n\
         # Written by `cargo xtask symbol-order` from callgrind runs of the release binary built as\n\
         # `cargo install` builds it, with {rustc}.\n\
         # The names carry hashes of the toolchain, the dependencies and their features: after\n\
         # changing any of those, run it again (`--check` says when the file no longer fits).\n"
    );
    for name in &ranked {
        let _ = writeln!(text, "{name}");
    }
    if crate::write(ORDER_FILE, &text) {
        println!(
            "{} functions; relink the binary (cargo build --release -p schema2iceberg) to use them",
            ranked.len()
        );
        Ok(())
    } else {
        Err(format!("cannot write {ORDER_FILE}"))
    }
}

/// The functions grouped by the first workload that ran them, in the workloads' order, and
/// within a group by their own instructions over all workloads, most first, ties by name: the
/// code of `--version` is at the front, and each later command adds what it alone runs, so
/// that a command touches a run of pages rather than pages spread over the whole file.
fn layout_order(ranks: &BTreeMap<String, (usize, u64)>) -> Vec<&str> {
    let mut ranked: Vec<(&String, &(usize, u64))> = ranks.iter().collect();
    ranked.sort_by(|(a_name, (a_first, a_cost)), (b_name, (b_first, b_cost))| {
        a_first
            .cmp(b_first)
            .then_with(|| b_cost.cmp(a_cost))
            .then_with(|| a_name.cmp(b_name))
    });
    ranked.into_iter().map(|(name, _)| name.as_str()).collect()
}

/// Each function's own instructions in one callgrind profile written with
/// `--compress-strings=no --compress-pos=no`: the cost lines under `fn=`, without the inclusive
/// cost line that follows each `calls=`.
fn self_costs(profile: &str) -> BTreeMap<String, u64> {
    let mut costs: BTreeMap<String, u64> = BTreeMap::new();
    let mut function: Option<&str> = None;
    let mut after_calls = false;
    for line in profile.lines() {
        if let Some(name) = line.strip_prefix("fn=") {
            function = Some(name);
            continue;
        }
        if line.starts_with("calls=") {
            after_calls = true;
            continue;
        }
        if !line.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        if std::mem::take(&mut after_calls) {
            continue;
        }
        let instructions = line
            .split_whitespace()
            .nth(1)
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0);
        if let Some(name) = function {
            *costs.entry(name.to_string()).or_default() += instructions;
        }
    }
    costs
}

/// How many of the file's names the binary defines, and whether the linker placed them in the
/// file's order (addresses rising along the file), which shows that build.rs passed the file.
fn check_order(repository: &Path, defined: &HashMap<String, u64>) -> Result<(), String> {
    let path = repository.join(ORDER_FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let names: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let addresses: Vec<u64> = names
        .iter()
        .filter_map(|n| defined.get(*n).copied())
        .collect();
    let missing: Vec<&&str> = names
        .iter()
        .filter(|n| !defined.contains_key(**n))
        .collect();
    for name in missing.iter().take(20) {
        println!("  not in the binary: {name}");
    }
    if missing.len() > 20 {
        println!("  … and {} more", missing.len() - 20);
    }
    let rising = addresses
        .iter()
        .zip(addresses.iter().skip(1))
        .filter(|(a, b)| a <= b)
        .count();
    let pairs = addresses.len().saturating_sub(1);
    println!(
        "{ORDER_FILE}: {} of {} names are functions of the release binary; {rising} of {pairs} neighbours in the file's order",
        addresses.len(),
        names.len()
    );
    if names.is_empty() || (addresses.len() as f64) < MIN_DEFINED_SHARE * names.len() as f64 {
        return Err(format!(
            "{ORDER_FILE} no longer fits the binary (fewer than {:.0}% of its names are defined): run `cargo xtask symbol-order`",
            MIN_DEFINED_SHARE * 100.0
        ));
    }
    if rising < pairs {
        return Err(format!(
            "the linker did not lay the functions out in the order of {ORDER_FILE}: is crates/cli/build.rs passing it?"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{layout_order, self_costs};

    #[test]
    fn layout_groups_by_first_workload_then_cost() {
        let ranks: BTreeMap<String, (usize, u64)> = [
            ("late_hot", (1, 900)),
            ("early_cold", (0, 5)),
            ("early_hot", (0, 50)),
            ("late_cold_b", (1, 1)),
            ("late_cold_a", (1, 1)),
        ]
        .into_iter()
        .map(|(n, r)| (n.to_string(), r))
        .collect();
        assert_eq!(
            layout_order(&ranks),
            [
                "early_hot",
                "early_cold",
                "late_hot",
                "late_cold_a",
                "late_cold_b"
            ]
        );
    }

    #[test]
    fn self_cost_leaves_out_the_inclusive_cost_of_calls() {
        let profile = "events: Ir\nfl=a.rs\nfn=_ZN1a4main\n3 10\ncfn=_ZN1a6helper\ncalls=1 7\n4 500\n5 2\nfn=_ZN1a6helper\n7 480\n";
        let costs = self_costs(profile);
        assert_eq!(costs.get("_ZN1a4main"), Some(&12));
        assert_eq!(costs.get("_ZN1a6helper"), Some(&480));
    }
}
