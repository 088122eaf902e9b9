//! What the test files share: the repository's root, the command-line options a fixture asks
//! for in its `$comment`, and the corpus in `../shared/corpus`, which is not part of the
//! repository. A missing corpus fails the test under `CI=true`; elsewhere the test skips and says
//! so where `cargo test`'s output shows it.

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// The repository's root, as `crates/cli/../..` (paths under it show as written).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The repository's root as a canonical path (for tests that compare or print absolute paths).
pub fn canonical_root() -> PathBuf {
    root().canonicalize().expect("the repository root exists")
}

/// `dir` when it is a folder. When it is missing: a failure under `CI=true`, otherwise a notice
/// and `None`, and the caller returns.
pub fn corpus_dir(dir: PathBuf, test: &str) -> Option<PathBuf> {
    if dir.is_dir() {
        return Some(dir);
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    missing_corpus(&dir, test, ci, &mut std::io::stderr());
    None
}

/// Fails under CI; otherwise tells the person running `cargo test` that `test` checked nothing,
/// on `out` (standard error).
pub fn missing_corpus(dir: &Path, test: &str, ci: bool, out: &mut impl Write) {
    assert!(
        !ci,
        "{test}: {} is missing, and CI=true: the corpus tests must run in CI",
        dir.display()
    );
    // libtest captures what `print!` and `eprint!` write, and shows it only when the test fails:
    // a passing test's `println!("skipped")` is never seen. A write to the stderr handle itself
    // is not captured, so this line shows in `cargo test`'s output among the results.
    let _ = writeln!(
        out,
        "note: {test} checked nothing: {} is missing (under CI=true this fails)",
        dir.display()
    );
}

/// The options a fixture asks for in its root `$comment`.
pub fn fixture_args(bytes: &[u8]) -> Vec<String> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return Vec::new();
    };
    value
        .get("$comment")
        .and_then(|c| c.as_str())
        .and_then(|c| c.strip_prefix("args:"))
        .map(|args| args.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The `--partition` a fixture names anywhere in its root `$comment` (the compile fixtures write
/// `args: --partition x`, the hand-on fixtures say it in a sentence).
pub fn comment_partition(bytes: &[u8]) -> Option<String> {
    let value = serde_json::from_slice::<serde_json::Value>(bytes).ok()?;
    let comment = value.get("$comment")?.as_str()?;
    let mut words = comment.split_whitespace();
    words.find(|w| *w == "--partition")?;
    words.next().map(str::to_string)
}

/// `compile` of `bytes` in `format`, everything else as `request` says: what the binary prints
/// and its exit code (a usage error as the binary renders it).
pub fn compile(
    request: &schema2iceberg::CompileRequest,
    bytes: Vec<u8>,
    format: schema2iceberg::Format,
) -> schema2iceberg::Outcome {
    let request = schema2iceberg::CompileRequest {
        schema: schema2iceberg::SchemaInput::Bytes(bytes),
        format,
        ..request.clone()
    };
    match schema2iceberg::run_captured::<schema2iceberg::Compile>(&request) {
        Ok((outcome, stdout)) => schema2iceberg::Outcome {
            stdout,
            stderr: outcome.stderr,
            exit: outcome.exit,
        },
        Err(e) => schema2iceberg::Outcome {
            stdout: String::new(),
            stderr: format!("error: {e}\n"),
            exit: 2,
        },
    }
}

/// What `check` printed for a request, in `format`.
#[derive(Debug)]
pub struct CheckedText {
    /// The report.
    pub report: schema2iceberg::check::output::Report,
    /// Standard output.
    pub stdout: String,
    /// The exit code.
    pub exit: u8,
}

/// `check` of `request` in `format`.
pub fn run_check(
    request: &schema2iceberg::check::CheckRequest,
    format: schema2iceberg::check::CheckFormat,
) -> Result<CheckedText, schema2iceberg::check::UsageError> {
    let request = schema2iceberg::check::CheckRequest {
        format,
        ..request.clone()
    };
    let (checked, stdout) = schema2iceberg::run_captured::<schema2iceberg::check::Check>(&request)?;
    Ok(CheckedText {
        report: checked.report,
        stdout,
        exit: checked.exit,
    })
}

/// What `diff` printed for a request, in `format`.
#[derive(Debug)]
pub struct DiffedText {
    /// Every pair compared.
    pub files: Vec<schema2iceberg::diff::FileDiff>,
    /// Standard output.
    pub stdout: String,
    /// The exit code.
    pub exit: u8,
}

/// `diff` of `request` in `format`.
pub fn run_diff(
    request: &schema2iceberg::diff::DiffRequest,
    format: schema2iceberg::diff::DiffFormat,
) -> Result<DiffedText, schema2iceberg::diff::DiffError> {
    let request = schema2iceberg::diff::DiffRequest {
        format,
        ..request.clone()
    };
    let (diffed, stdout) = schema2iceberg::run_captured::<schema2iceberg::diff::Diff>(&request)?;
    Ok(DiffedText {
        files: diffed.files,
        stdout,
        exit: diffed.exit,
    })
}
