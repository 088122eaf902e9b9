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

/// The opening of every ```text block of README.md that starts with a `$ schema2iceberg` line.
const README_SAMPLE: &str = "```text\n$ schema2iceberg ";

/// README.md with each sample block's body (the lines after its `$ schema2iceberg …` line)
/// replaced by what the binary prints for that command line, run from the repository root
/// without colour: standard output, then standard error. `None` when a block is not closed.
fn readme_with_current_samples(readme: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = readme;
    while let Some(start) = rest.find(README_SAMPLE) {
        let (before, block) = rest.split_at(start + README_SAMPLE.len());
        out.push_str(before);
        let (command, after) = block.split_once('\n')?;
        let (_, closing) = after.split_at(after.find("```")?);
        let args: Vec<&str> = command.split_whitespace().collect();
        let run = Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
            .args(&args)
            .args(["--color", "never"])
            .current_dir(support::root())
            .output()
            .unwrap();
        out.push_str(command);
        out.push('\n');
        out.push_str(&String::from_utf8_lossy(&run.stdout));
        out.push_str(&String::from_utf8_lossy(&run.stderr));
        rest = closing;
    }
    out.push_str(rest);
    Some(out)
}

/// The README's sample output is the binary's, as docs/outputs.md is: a hand edit, or a change
/// in what `compile` prints, fails here. `SCHEMA2ICEBERG_UPDATE_README=1` writes the current
/// output into README.md instead (then read the diff before committing it).
#[test]
fn the_readme_sample_is_current() {
    let path = support::root().join("README.md");
    let published = std::fs::read_to_string(&path).expect("README.md is readable");
    assert!(
        published.contains(README_SAMPLE),
        "README.md has no ```text block that starts with `$ schema2iceberg`"
    );
    let current = readme_with_current_samples(&published).expect("README.md's blocks are closed");
    if published != current && std::env::var_os("SCHEMA2ICEBERG_UPDATE_README").is_some() {
        std::fs::write(&path, &current).expect("README.md is writable");
        return;
    }
    assert!(
        published == current,
        "README.md's sample output is stale: run \
         `SCHEMA2ICEBERG_UPDATE_README=1 cargo test -p schema2iceberg --test compile_formats readme`"
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
