//! Gives `schema2iceberg --version` the commit and the target it was built from:
//! `SCHEMA2ICEBERG_COMMIT` (the variable of that name if the build's environment sets it, else
//! `git rev-parse`, else `unknown`: no git, or a build outside this repository's checkout, such
//! as crates.io's package or an sdist)
//! and `SCHEMA2ICEBERG_TARGET` (the target triple cargo builds for).

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    version_info();
}

/// Sets `SCHEMA2ICEBERG_COMMIT` and `SCHEMA2ICEBERG_TARGET` for the crate's code.
fn version_info() {
    let target = env::var("TARGET").unwrap_or_else(|_| "unknown".to_owned());
    println!("cargo:rustc-env=SCHEMA2ICEBERG_TARGET={target}");
    // A build where git cannot be asked (the release workflow's Linux containers) passes the
    // commit in instead.
    println!("cargo:rerun-if-env-changed=SCHEMA2ICEBERG_COMMIT");
    let commit = env::var("SCHEMA2ICEBERG_COMMIT")
        .ok()
        .filter(|commit| !commit.is_empty())
        .or_else(|| env::var_os("CARGO_MANIFEST_DIR").and_then(|dir| git_commit(Path::new(&dir))))
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=SCHEMA2ICEBERG_COMMIT={commit}");
}

/// The checkout's short commit, if `dir` is `crates/cli` of a git checkout (not a crate that
/// happens to be unpacked inside someone else's repository), and its files to watch: the build
/// script runs again when HEAD moves, so the version never names an old commit.
fn git_commit(dir: &Path) -> Option<String> {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        out.status.success().then(|| text.trim().to_owned())
    };
    if git(&["rev-parse", "--show-prefix"])?.as_str() != "crates/cli/" {
        return None;
    }
    let commit = git(&["rev-parse", "--short=12", "HEAD"])?;
    let mut watched = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        // A path that does not exist would make cargo run the script on every build.
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            let path = dir.join(path);
            if path.is_file() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
    Some(commit)
}
