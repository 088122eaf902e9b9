//! The binary as a user runs it: exit codes, standard input, unreadable files, help and color.

// A test should stop loudly; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::indexing_slicing)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

mod support;

/// Runs `schema2iceberg` in the repository root with `args`, feeding `stdin`.
fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
        .args(args)
        .current_dir(support::root())
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    if let Some(bytes) = stdin {
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("the binary finishes")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_example_compiles_with_exit_0() {
    let o = run(
        &[
            "compile",
            "testdata/examples/event.json",
            "--partition",
            "event_time",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("1000 event_time_hour: hour(event_time)"));
}

#[test]
fn schema_errors_exit_1_and_json_still_prints_with_a_null_schema() {
    let o = run(
        &["compile", "-", "--format", "json"],
        Some(br#"{"type": "object", "properties": {"a": {}}}"#),
    );
    assert_eq!(o.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("stdout is JSON");
    assert_eq!(report["schema"], serde_json::Value::Null);
    assert_eq!(report["format-version"], 2);
    assert_eq!(report["diagnostics"][1]["code"], "unconstrained");
    assert_eq!(report["diagnostics"][1]["pointer"], "/properties/a");
    assert_eq!(report["diagnostics"][1]["file"], "<stdin>");
}

#[test]
fn invalid_json_exits_1() {
    let o = run(&["compile", "-"], Some(b"{\"type\": \"object\",}"));
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("error[invalid-json]"), "{}", stdout(&o));
    assert!(stdout(&o).contains("<stdin>:1:19"), "{}", stdout(&o));
}

#[test]
fn a_missing_file_exits_2_with_a_message() {
    let o = run(&["compile", "testdata/no-such-file.json"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot read `testdata/no-such-file.json`"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["compile"],
        vec!["compile", "x.json", "--format", "yaml"],
        vec!["compile", "x.json", "--draft", "2020-12"],
        vec![
            "compile",
            "testdata/examples/event.json",
            "--ref-root",
            "testdata/no-such-dir",
        ],
        vec!["frobnicate"],
    ] {
        let o = run(&args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).is_empty(), "{args:?} explains itself");
    }
}

/// Every usage error of every command, clap's and our own, starts with `error:` and exits 2:
/// the first line of each is snapshotted with the number of lines, so a message that loses its
/// prefix or grows into a page shows.
#[test]
fn every_usage_error_starts_with_error() {
    let outside_git = std::env::temp_dir().join(format!(
        "schema2iceberg-usage-no-git-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&outside_git).unwrap();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (".", vec!["compile"]),
        (".", vec!["compile", "testdata/no-such-file.json"]),
        (".", vec!["compile", "x.json", "--draft", "2020-12"]),
        (
            ".",
            vec![
                "compile",
                "testdata/examples/event.json",
                "--ref-root",
                "testdata/no-such-dir",
            ],
        ),
        (
            "testdata/check/msk-repo",
            vec!["check", "--deny", "no-such-code"],
        ),
        (
            "testdata/check/msk-repo",
            vec![
                "check",
                "--allow",
                "uppercase-name",
                "--deny",
                "uppercase-name",
            ],
        ),
        (
            "testdata/check/kinesis-repo",
            vec!["check", "--partition", "event_time"],
        ),
        ("testdata/check/kinesis-repo", vec!["check", "no-such-dir"]),
        (
            "testdata/check/kinesis-repo",
            vec!["check", "--config", "nope.toml"],
        ),
        (
            "testdata/check/kinesis-repo",
            vec![
                "check",
                "schemas/clicks.json",
                "--channel-config",
                "nope.json",
            ],
        ),
        (".", vec!["diff", "testdata/diff-cli/event-v1.json"]),
        (
            ".",
            vec![
                "diff",
                "testdata/diff-cli/event-v1.json",
                "testdata/diff-cli/nope.json",
            ],
        ),
        (
            ".",
            vec!["diff", "a.json", "b.json", "--record-format", "avro"],
        ),
        (
            "testdata/check/bad-config",
            vec!["diff", "a.json", "b.json"],
        ),
        (
            ".",
            vec![
                "diff",
                "testdata/diff-cli/event-v1.json",
                "testdata/diff-cli/event-v2.json",
                "--ref-root",
                "testdata/no-such-dir",
            ],
        ),
        ("<outside-git>", vec!["diff", "--git", "HEAD"]),
        // A channel configuration that `check` rejects is refused by compile too.
        (
            "testdata/deliver/channel-config-errors",
            vec!["compile", "schema.json", "--channel-config", "channel.json"],
        ),
    ];
    let mut seen = String::new();
    for (dir, args) in &cases {
        let cwd = if *dir == "<outside-git>" {
            outside_git.clone()
        } else {
            support::root().join(dir)
        };
        let o = Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
            .args(args)
            .current_dir(&cwd)
            .output()
            .expect("the binary runs");
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        let first = err
            .lines()
            .next()
            .unwrap_or_default()
            .replace(&outside_git.display().to_string(), "<outside-git>");
        seen.push_str(&format!(
            "{} ({} line(s))\n  {first}\n",
            args.join(" "),
            err.lines().count()
        ));
    }
    std::fs::remove_dir_all(&outside_git).unwrap();
    insta::assert_snapshot!(seen);
}

#[test]
fn stdin_compiles_like_a_file() {
    let bytes = std::fs::read(support::root().join("testdata/examples/event.json")).unwrap();
    let from_stdin = run(&["compile", "-", "--format", "json"], Some(&bytes));
    let from_file = run(
        &[
            "compile",
            "testdata/examples/event.json",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(from_stdin.status.code(), Some(0));
    let a: serde_json::Value = serde_json::from_slice(&from_stdin.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&from_file.stdout).unwrap();
    assert_eq!(a["schema"], b["schema"]);
}

#[test]
fn help_teaches_with_examples() {
    let top = run(&["--help"], None);
    assert_eq!(top.status.code(), Some(0));
    assert!(stdout(&top).contains("Examples:"));
    let compile = run(&["compile", "--help"], None);
    assert_eq!(compile.status.code(), Some(0));
    for needle in [
        "--partition",
        "--ref-root",
        "--draft",
        "Exit codes",
        "schema2iceberg compile testdata/examples/event.json",
    ] {
        assert!(
            stdout(&compile).contains(needle),
            "compile --help mentions {needle}"
        );
    }
}

#[test]
fn color_follows_the_flag() {
    let args = ["compile", "-", "--color"];
    let input = br#"{"type": "object", "properties": {"A": {"type": "string"}}}"#;
    let always = run(&[&args[..], &["always"]].concat(), Some(input));
    let never = run(&[&args[..], &["never"]].concat(), Some(input));
    assert!(stdout(&always).contains('\u{1b}'));
    assert!(!stdout(&never).contains('\u{1b}'));
    assert_eq!(always.status.code(), Some(0));
}

#[test]
fn output_is_identical_across_runs() {
    let args = [
        "compile",
        "testdata/examples/event.json",
        "--format",
        "json",
        "--partition",
        "event_time",
    ];
    let first = run(&args, None);
    let second = run(&args, None);
    assert_eq!(first.stdout, second.stdout);
}

/// Runs `schema2iceberg check` in `dir` (relative to the repository root).
fn run_check_in(dir: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
        .arg("check")
        .args(args)
        .current_dir(support::root().join(dir))
        .output()
        .expect("the binary runs")
}

#[test]
fn check_exit_codes_follow_the_issue() {
    assert_eq!(
        run_check_in("testdata/check/msk-repo", &[]).status.code(),
        Some(1)
    );
    assert_eq!(
        run_check_in("testdata/check/bad-config", &[]).status.code(),
        Some(2)
    );
    assert_eq!(
        run_check_in("testdata/check/msk-repo", &["--deny", "no-such-code"])
            .status
            .code(),
        Some(2)
    );
    let clean = run_check_in(
        "testdata/check/kinesis-repo",
        &[
            "schemas/clicks.json",
            "--allow",
            "uppercase-name",
            "--allow",
            "metadata-column-name",
        ],
    );
    assert_eq!(clean.status.code(), Some(0), "{}", stdout(&clean));
    assert!(stdout(&clean).contains("checked 1 file: 0 errors, 0 warnings"));
}

/// docs/ci.md's GitLab job runs `check --format json > schema2iceberg-report.json` at the
/// repository root: the shell creates the report file, empty, before `check` searches the folder.
/// It must not check its own report (it would be `invalid-json` and fail the run).
#[cfg(unix)]
#[test]
fn check_skips_the_file_its_output_is_redirected_into() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("schemas")).unwrap();
    std::fs::write(
        dir.path().join("schemas/orders.json"),
        r#"{"type": "object", "properties": {"order_id": {"type": "string"}}}"#,
    )
    .unwrap();
    for (format, report_name) in [("json", "schema2iceberg-report.json"), ("text", "out.json")] {
        let report = std::fs::File::create(dir.path().join(report_name)).unwrap();
        let status = Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
            .args(["check", "--format", format])
            .current_dir(dir.path())
            .stdout(report)
            .status()
            .unwrap();
        let written = std::fs::read_to_string(dir.path().join(report_name)).unwrap();
        assert!(status.success(), "{format}: {written}");
        assert!(written.contains("orders.json"), "{format}: {written}");
        assert!(!written.contains(report_name), "{format}: {written}");
        std::fs::remove_file(dir.path().join(report_name)).unwrap();
    }
    // The same report file, named on the command line as a file to check, with output elsewhere,
    // is checked as before.
    std::fs::write(dir.path().join("other.json"), "").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
        .args(["check", "other.json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn check_reports_json_on_stdout() {
    let o = run_check_in("testdata/check/kinesis-repo", &["--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON report");
    assert_eq!(report["summary"]["files"], 5);
    let paths: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(paths, sorted, "files are sorted by path");
    assert!(
        !paths.iter().any(|p| p.starts_with("vendor/")),
        "skipped files stay out"
    );
}

#[test]
fn diff_exit_codes() {
    let (v1, v2) = (
        "testdata/diff-cli/event-v1.json",
        "testdata/diff-cli/event-v2.json",
    );
    let run_diff = |extra: &[&str]| {
        let mut args = vec!["diff", v1, v2, "--partition", "event_time"];
        args.extend_from_slice(extra);
        run(&args, None).status.code()
    };
    assert_eq!(run_diff(&[]), Some(1), "a table change fails by default");
    assert_eq!(run_diff(&["--fail-on", "never"]), Some(0));
    assert_eq!(
        run(&["diff", v1], None).status.code(),
        Some(2),
        "NEW is missing"
    );
    assert_eq!(
        run(&["diff", v1, "testdata/diff-cli/nope.json"], None)
            .status
            .code(),
        Some(2)
    );
    assert_eq!(run(&["diff", v1, v1], None).status.code(), Some(0));
}

/// The README's first commands run a cold build of iceberg, arrow and parquet: `-q` would hide
/// cargo's progress for all of it, so a new user would see nothing for many minutes.
#[test]
fn the_readme_quick_start_shows_cargo_progress() {
    let readme = std::fs::read_to_string(support::root().join("README.md")).unwrap();
    let quick_start = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap();
    for command in quick_start.lines().filter(|l| l.starts_with("cargo ")) {
        let words: Vec<&str> = command.split_whitespace().collect();
        assert!(
            !words.contains(&"-q") && !words.contains(&"--quiet"),
            "`{command}` hides cargo's progress during the first build"
        );
    }
}

#[test]
fn a_dotdot_file_ref_compiles_the_same_from_any_current_directory() {
    let schema = support::root()
        .join("testdata/ref-root/schemas/orders/order.json")
        .canonicalize()
        .unwrap();
    let schema = schema.to_str().unwrap();
    let from = |dir: &str| {
        Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
            .args(["compile", schema, "--color", "never"])
            .current_dir(support::root().join(dir))
            .output()
            .expect("the binary runs")
    };
    let at_root = from(".");
    let beside = from("testdata/ref-root/schemas/orders");
    assert_eq!(at_root.status.code(), Some(0), "{}", stdout(&at_root));
    assert!(stdout(&at_root).contains("total: decimal(38, 2)"));
    assert_eq!(stdout(&at_root), stdout(&beside));
    assert_eq!(beside.status.code(), Some(0));
}

/// A schema named through `..` (`check ..` from a subfolder) is the same file as the schema
/// named directly: its `$ref`s resolve to the same files in `check`, `diff` and `compile`. A file
/// URL that kept the `..` made a two-level `../../common/money.json` resolve one folder too deep.
#[test]
fn a_schema_named_through_dotdot_resolves_its_refs_as_named_directly() {
    let dir = support::root().join("testdata/diff-cli/shared-refs/repo/schemas");
    let at = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
            .args(args)
            .args(["--ref-root", "../..", "--color", "never"])
            .current_dir(&dir)
            .output()
            .expect("the binary runs")
    };
    let direct = at(&["check", "order-v1.json", "--format", "json"]);
    assert_eq!(direct.status.code(), Some(0), "{}", stdout(&direct));
    for through in [
        vec!["check", "../schemas/order-v1.json", "--format", "json"],
        vec![
            "check",
            "../schemas/../schemas/order-v1.json",
            "--format",
            "json",
        ],
    ] {
        let o = at(&through);
        assert_eq!(stdout(&o), stdout(&direct), "{through:?}");
    }
    let all = at(&["check", ".."]);
    assert_eq!(all.status.code(), Some(0), "{}", stdout(&all));
    assert!(
        stdout(&all).contains("checked 2 files: 0 errors, 3 warnings"),
        "{}",
        stdout(&all)
    );
    let diffed = at(&[
        "diff",
        "../schemas/order-v1.json",
        "../schemas/order-v2.json",
    ]);
    assert_eq!(diffed.status.code(), Some(1), "{}", stdout(&diffed));
    assert!(
        stdout(&diffed).contains("column-added `tax`"),
        "{}",
        stdout(&diffed)
    );
    let compiled = at(&["compile", "../schemas/order-v2.json"]);
    assert_eq!(compiled.status.code(), Some(0), "{}", stderr(&compiled));
    assert!(stdout(&compiled).contains("tax: decimal(38, 2)"));
}

#[test]
fn bundle_writes_stdout_or_output_and_exits_like_compile() {
    let to_stdout = run(&["bundle", "testdata/bundle/nested/schema.json"], None);
    assert_eq!(to_stdout.status.code(), Some(0), "{}", stderr(&to_stdout));
    assert!(stdout(&to_stdout).contains("\"#/definitions/types/definitions/address\""));
    assert!(stderr(&to_stdout).is_empty());

    let output = std::env::temp_dir().join(format!("s2i-bundle-{}.json", std::process::id()));
    let to_file = run(
        &[
            "bundle",
            "testdata/bundle/nested/schema.json",
            "--output",
            output.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(to_file.status.code(), Some(0));
    assert!(stdout(&to_file).is_empty());
    assert_eq!(
        std::fs::read_to_string(&output).unwrap(),
        stdout(&to_stdout)
    );
    std::fs::remove_file(&output).unwrap();

    let dangling = run(
        &["bundle", "testdata/bundle/dangling-error/schema.json"],
        None,
    );
    assert_eq!(dangling.status.code(), Some(1));
    assert!(stdout(&dangling).is_empty());
    assert!(stderr(&dangling).contains("error[ref-dangling]"));

    let missing = run(&["bundle", "testdata/bundle/no-such.json"], None);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).starts_with("error: cannot read"));

    let help = run(&["bundle", "--help"], None);
    assert_eq!(help.status.code(), Some(0));
    assert!(stdout(&help).contains("Examples:"));
    assert!(stdout(&help).contains("register-schema-version"));
}

/// `--version` names the version, the commit (the checkout's own `git rev-parse`, or `unknown`
/// outside a git checkout) and the target triple this binary runs on.
#[test]
fn version_names_the_commit_and_the_target() {
    let o = run(&["--version"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let line = stdout(&o);
    println!("{line}");
    let rest = line
        .trim_end()
        .strip_prefix(&format!("schema2iceberg {} (", env!("CARGO_PKG_VERSION")))
        .expect("the line is `schema2iceberg VERSION (…)`");
    let (commit, target) = rest
        .strip_suffix(')')
        .and_then(|inner| inner.split_once(' '))
        .expect("the parenthesis is `(COMMIT TARGET)`");
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    // As build.rs: only this repository's own checkout has a commit to name.
    let head = git(&["rev-parse", "--show-prefix"])
        .filter(|prefix| prefix == "crates/cli/")
        .and_then(|_| git(&["rev-parse", "--short=12", "HEAD"]));
    match head {
        Some(head) => assert_eq!(commit, head, "{line:?}"),
        None => assert_eq!(commit, "unknown", "{line:?}"),
    }
    let os = match std::env::consts::OS {
        "macos" => "apple-darwin",
        os => os,
    };
    assert!(
        target.starts_with(std::env::consts::ARCH) && target.contains(os),
        "the target {target:?} is not this machine's ({} {})",
        std::env::consts::ARCH,
        std::env::consts::OS
    );
    // `-V` prints the same line.
    assert_eq!(stdout(&run(&["-V"], None)), line);
}
