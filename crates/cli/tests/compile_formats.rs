//! Fixture tests for `compile`'s hand-on formats: each `testdata/compile-formats/*.args` is one
//! command line (a schema path from the repository root, then flags), run through the binary;
//! its exit code, standard output and standard error make one snapshot.

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the command line of one fixture as a user would, from the repository root.
fn check(path: &Path) -> String {
    let line = std::fs::read_to_string(path).expect("fixture is readable");
    let args: Vec<&str> = line.split_whitespace().collect();
    let out = Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
        .arg("compile")
        .args(&args)
        .args(["--color", "never"])
        .current_dir(workspace_root())
        .output()
        .unwrap();
    format!(
        "args: {}\nexit: {}\n\n--- stdout ---\n{}\n--- stderr ---\n{}",
        args.join(" "),
        out.status
            .code()
            .map_or("signal".to_string(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn compile_formats() {
    insta::glob!("../../../testdata/compile-formats", "*.args", |path| {
        insta::assert_snapshot!(check(path));
    });
}

#[test]
fn the_outputs_reference_is_current() {
    let published =
        std::fs::read_to_string(workspace_root().join("docs/outputs.md")).unwrap_or_default();
    assert!(
        published == schema2iceberg::docs::outputs_markdown(&workspace_root()),
        "docs/outputs.md is stale: run `cargo xtask codegen`"
    );
}
