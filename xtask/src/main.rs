//! Developer tasks, run as `cargo xtask <task>`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  codegen   regenerate docs/diagnostics.md and docs/report.schema.json from the code
  ci        run what CI runs: cargo fmt --check, clippy with -D warnings, and the tests
  corpus [--source NAME]
            check every schema in ../shared/corpus and print the per-source summary
            (Markdown tables; docs/corpus.md)";

fn cargo(args: &[&str]) -> bool {
    println!("== cargo {}", args.join(" "));
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()))
        .args(args)
        .status()
        .is_ok_and(|s| s.success())
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
    let task = std::env::args().nth(1);
    let ok = match task.as_deref() {
        Some("codegen") => {
            write(
                "docs/diagnostics.md",
                &schema2iceberg::docs::diagnostics_markdown(),
            ) & write(
                "docs/report.schema.json",
                &schema2iceberg::check::output::report_schema(),
            )
        }
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
        Some("corpus") => match corpus(&std::env::args().skip(2).collect::<Vec<_>>()) {
            Ok(ok) => ok,
            Err(message) => {
                eprintln!("error: {message}");
                return ExitCode::from(2);
            }
        },
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
