//! Fixture tests for `schema2iceberg records`: every `testdata/records/<case>/` holds a
//! `schema.json`, its inputs and an `args` file (the rest of the command line, one argument a
//! line); a file named `stdin` is fed to standard input. The binary runs in the case folder with
//! `--format ndjson --show all` before the args (unless the args choose `--format` or `--show`
//! themselves), and the snapshot holds the exit code, standard output and standard error.
//! Adding a case folder adds a test; testdata/records/README.md says how the inputs were made.

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs one case and renders its snapshot.
fn check(case: &Path) -> String {
    let args_text = std::fs::read_to_string(case.join("args")).expect("the case has args");
    let args: Vec<&str> = args_text.lines().collect();
    let mut command_line = vec!["records", "schema.json"];
    if !args.contains(&"--format") {
        command_line.extend(["--format", "ndjson"]);
    }
    if !args.contains(&"--show") {
        command_line.extend(["--show", "all"]);
    }
    command_line.extend(&args);
    let stdin = std::fs::read(case.join("stdin")).ok();
    let mut child = Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
        .args(&command_line)
        .current_dir(case)
        .env_remove("CLICOLOR_FORCE")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut pipe = child.stdin.take().unwrap();
    if let Some(bytes) = &stdin {
        pipe.write_all(bytes).unwrap();
    }
    drop(pipe);
    let output = child.wait_with_output().expect("the binary finishes");
    format!(
        "$ schema2iceberg {}\nexit code: {}\n--- stdout\n{}--- stderr\n{}",
        command_line.join(" "),
        output
            .status
            .code()
            .map_or("signal".to_string(), |c| c.to_string()),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn records_fixtures() {
    insta::glob!("../../../testdata/records", "*/args", |path| {
        insta::assert_snapshot!(check(path.parent().expect("a case folder")));
    });
}

/// A `schema-violation`'s help is its keyword's own: the shape of a `format` with an example,
/// every allowed value of an `enum` (up to 20, then how many more), the step of a `multipleOf`.
#[test]
fn schema_violations_get_their_keywords_help() {
    let case =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/records/text-keyword-help");
    let out = check(&case);
    let helps: Vec<&str> = out
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("= help: "))
        .collect();
    let expected = [
        "RFC 3339 date-time, with `T` and an offset, e.g. `2024-05-01T12:30:00Z`",
        "one of the 3 allowed values: \"new\", \"open\", \"done\";",
        "one of the 27 allowed values: \"AT\", \"BE\", \"BG\", \"CY\", \"CZ\", \"DE\", \"DK\", \"EE\", \"ES\", \"FI\", \"FR\", \"GR\", \"HR\", \"HU\", \"IE\", \"IT\", \"LT\", \"LU\", \"LV\", \"MT\", and 7 more;",
        "a multiple of 0.05",
        "RFC 3339 full date, e.g. `2024-05-01`",
        "send exactly \"click\"",
    ];
    assert_eq!(helps.len(), expected.len(), "{out}");
    for (help, want) in helps.iter().zip(expected) {
        assert!(help.contains(want), "`{help}` does not say `{want}`\n{out}");
    }
}
