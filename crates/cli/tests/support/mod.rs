//! What the test files share: the corpus in `../shared/corpus`, which is not part of the
//! repository. A missing corpus fails the test under `CI=true`; elsewhere the test skips and says
//! so where `cargo test`'s output shows it.

use std::io::Write;
use std::path::{Path, PathBuf};

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
