//! Fixture tests for `compile`'s hand-on formats: each `testdata/compile-formats/*.args` is one
//! command line (a schema path from the repository root, then flags), run through the binary;
//! its exit code, standard output and standard error make one snapshot.

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

mod support;

/// Runs the command line of one fixture as a user would, from the repository root.
fn check(path: &Path) -> String {
    let line = std::fs::read_to_string(path).expect("fixture is readable");
    let args: Vec<&str> = line.split_whitespace().collect();
    let out = Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
        .arg("compile")
        .args(&args)
        .args(["--color", "never"])
        .current_dir(support::root())
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
        std::fs::read_to_string(support::root().join("docs/outputs.md")).unwrap_or_default();
    assert!(
        published == schema2iceberg::docs::outputs_markdown(&support::root()),
        "docs/outputs.md is stale: run `cargo xtask codegen`"
    );
}

/// A uuid column is said up front, when the schema compiles, as a note naming the dialects
/// whose DDL cannot create it and the way out; `check` says it too, and the DDL error gives the
/// same way out.
#[test]
fn columns_no_ddl_can_create_are_noted_before_the_ddl_fails() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
            .args(args)
            .args(["--color", "never"])
            .current_dir(support::root())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let way_out = "drop `\"format\": \"uuid\"` to make it a string column, or keep it and query the table the channel creates through the catalog";
    let (code, stdout, _) = run(&[
        "compile",
        "testdata/examples/event.json",
        "--partition",
        "event_time",
    ]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("note[ddl-cannot-create]: `device.device_id` is a uuid column, which the channel's table holds but Athena and Spark SQL's CREATE TABLE cannot create"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("= help: {way_out}")), "{stdout}");
    let (_, check_out, check_err) = run(&["check", "testdata/examples/event.json"]);
    assert!(
        format!("{check_out}{check_err}").contains("ddl-cannot-create"),
        "{check_out}{check_err}"
    );
    for dialect in ["athena", "spark"] {
        let (code, _, stderr) = run(&[
            "compile",
            "testdata/examples/event.json",
            "--partition",
            "event_time",
            "--format",
            "ddl",
            "--dialect",
            dialect,
        ]);
        assert_eq!(code, Some(1), "{stderr}");
        assert!(stderr.contains("note[ddl-cannot-create]"), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "`device.device_id` (uuid); for the uuid columns, {way_out}"
            )),
            "{stderr}"
        );
    }
    let (code, _, stderr) = run(&[
        "compile",
        "testdata/examples/event.json",
        "--partition",
        "event_time",
        "--format",
        "ddl",
        "--dialect",
        "trino",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
}
