//! Links the `schema2iceberg` binary with the functions that typical commands run side by side,
//! in the order of `symbol-order.txt`, so that a run maps fewer pages of its 19 MB of code
//! (docs/performance.md, "Code layout"; `cargo xtask symbol-order` writes the file).
//!
//! Only rust-lld, the default linker of x86_64-unknown-linux-gnu since Rust 1.90, is given the
//! file: a linker the user chose may not know the option, and then the link would fail. A name
//! the file lists that the build does not define (another toolchain, a changed dependency) is
//! skipped by the linker; `cargo xtask symbol-order --check` is what notices a stale file.
//!
//! It also gives `schema2iceberg --version` the commit and the target it was built from:
//! `SCHEMA2ICEBERG_COMMIT` (the variable of that name if the build's environment sets it, else
//! `git rev-parse`, else `unknown`: no git, or a build outside this repository's checkout, such
//! as crates.io's package or an sdist)
//! and `SCHEMA2ICEBERG_TARGET` (the target triple cargo builds for).

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=symbol-order.txt");
    version_info();
    link_in_symbol_order();
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

/// Passes `symbol-order.txt` to rust-lld on x86_64-unknown-linux-gnu.
fn link_in_symbol_order() {
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    if env::var("TARGET").as_deref() != Ok("x86_64-unknown-linux-gnu") {
        return;
    }
    // Cargo sets RUSTC_LINKER when `target.<triple>.linker` is configured; the flags name the
    // other ways to choose a linker (`-C linker=`, `-C linker-features=`, `-fuse-ld=`).
    if env::var_os("RUSTC_LINKER").is_some() {
        return;
    }
    let rustflags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if rustflags
        .split('\x1f')
        .any(|flag| flag.contains("linker") || flag.contains("fuse-ld"))
    {
        return;
    }
    let Some(manifest_dir) = env::var_os("CARGO_MANIFEST_DIR") else {
        return;
    };
    let order = Path::new(&manifest_dir).join("symbol-order.txt");
    let Some(order) = order.to_str() else {
        return;
    };
    // `-Wl,` splits its argument at commas.
    if order.contains(',') || !Path::new(order).is_file() {
        return;
    }
    println!("cargo:rustc-link-arg-bin=schema2iceberg=-Wl,--symbol-ordering-file={order}");
    println!("cargo:rustc-link-arg-bin=schema2iceberg=-Wl,--no-warn-symbol-ordering");
}
