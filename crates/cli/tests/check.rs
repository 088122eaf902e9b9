//! `schema2iceberg check` over fixture repositories in `testdata/check/`: one snapshot a
//! repository, holding the exit code and all four output formats.

// A test should stop loudly; the no-panic rule is for code that reads input.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schema2iceberg::check::{CheckFormat, CheckRequest};

mod support;
use support::run_check;

fn request(dir: &Path) -> CheckRequest {
    CheckRequest::new(dir)
}

/// Runs `check` in `testdata/check/<repo>` in every format, after `adjust` sets options.
fn check(repo: &str, adjust: impl Fn(&mut CheckRequest)) -> String {
    let mut req = request(&support::canonical_root().join("testdata/check").join(repo));
    adjust(&mut req);
    let mut out = String::new();
    for format in [
        CheckFormat::Text,
        CheckFormat::Json,
        CheckFormat::Github,
        CheckFormat::Sarif,
    ] {
        match run_check(&req, format) {
            Ok(checked) => {
                out.push_str(&format!(
                    "--- {format:?} (exit {}) ---\n{}\n",
                    checked.exit, checked.stdout
                ));
            }
            Err(e) => {
                out.push_str(&format!(
                    "--- {format:?} (usage error, exit 2) ---\n{}\n",
                    e
                ));
            }
        }
    }
    out
}

#[test]
fn kinesis_repository() {
    insta::assert_snapshot!(check("kinesis-repo", |_| {}));
}

#[test]
fn msk_repository() {
    insta::assert_snapshot!(check("msk-repo", |_| {}));
}

#[test]
fn config_mistakes_are_reported_with_their_lines() {
    insta::assert_snapshot!(check("bad-config", |_| {}));
}

#[test]
fn an_unknown_config_key_is_reported_with_its_line() {
    insta::assert_snapshot!(check("bad-config-key", |_| {}));
}

/// Without paths: the named channel configuration is validated with its schema, the unnamed one
/// and the JSON files that are not schemas get a warning each, not type errors.
#[test]
fn layout_repository() {
    insta::assert_snapshot!(check("layout-repo", |_| {}));
}

/// A commit that changes only a channel configuration: pre-commit passes that one file, and it is
/// checked together with the schemas that use it.
#[test]
fn a_changed_channel_configuration_is_checked_with_its_schemas() {
    insta::assert_snapshot!(check("layout-repo", |r| {
        r.paths = vec![PathBuf::from("channels/orders-kinesis.json")];
    }));
}

/// Run from `schemas/`, below the config: the channel configuration and the file a `$ref` reaches
/// are named from there, as the schema is, in every format.
#[test]
fn paths_are_relative_to_the_folder_check_runs_in() {
    insta::assert_snapshot!(check("layout-repo/schemas", |r| {
        r.paths = vec![PathBuf::from("orders.json")];
    }));
}

/// `[schemas.severity]` belongs to the `[[schemas]]` entry above it; with none above, the
/// mistake is named as such.
#[test]
fn an_entry_table_before_any_entry_is_reported() {
    insta::assert_snapshot!(check("severity-before-entry", |_| {}));
}

#[test]
fn command_line_options_for_a_single_schema() {
    insta::assert_snapshot!(check("kinesis-repo", |r| {
        r.paths = vec![PathBuf::from("schemas/clicks.json")];
        r.config = Some(PathBuf::from("../msk-repo/schema2iceberg.toml"));
        r.source.partition = vec!["event_time".to_string()];
        r.deny = vec!["warnings".to_string()];
        r.allow = vec!["uppercase-name".to_string()];
    }));
}

/// A data team's repository after `deliver` and a build: the warehouse's metadata JSON and what
/// `.gitignore` and `.git/info/exclude` ignore are not read, and a package.json whose only
/// schema-looking key is empty is not compiled as a schema (one `not-a-schema` warning).
#[test]
fn a_repository_with_a_warehouse_and_ignored_files() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    let git = std::process::Command::new("git")
        .args(["init", "--quiet"])
        .current_dir(repo)
        .status()
        .expect("git is needed for this test (check reads .gitignore inside a git repository)");
    assert!(git.success());
    let write = |path: &str, text: &str| {
        let path = repo.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "schemas/orders.json",
        r#"{"type": "object", "properties": {"id": {"type": "integer", "maximum": 1000}}, "required": ["id"]}"#,
    );
    write("warehouse/catalog.db", "");
    write("warehouse/deliver.lock", "");
    write(
        "warehouse/shop/orders/metadata/00000-0.metadata.json",
        r#"{"format-version": 2, "table-uuid": "x", "location": "file:///w"}"#,
    );
    write(".gitignore", "build/\n");
    write("build/out.json", r#"{"anything": true}"#);
    write(".git/info/exclude", "scratch.json\n");
    write("scratch.json", r#"{"not": "a schema"}"#);
    write(
        "package.json",
        r#"{"name": "app", "version": "1.0.0", "dependencies": {}}"#,
    );
    // What `policies --out` writes beside the documents: a statement to paste into a key policy.
    write(
        "iam/table-key-policy-statement.json",
        r#"{"Sid": "AllowS3TablesMaintenance", "Effect": "Allow", "Principal": {"Service": "maintenance.s3tables.amazonaws.com"}, "Action": ["kms:GenerateDataKey", "kms:Decrypt"], "Resource": "*"}"#,
    );
    let checked = run_check(&request(repo), CheckFormat::Text).unwrap();
    assert_eq!(checked.exit, 0, "{}", checked.stdout);
    for not_read in ["metadata.json", "out.json", "scratch.json", "unconstrained"] {
        assert!(!checked.stdout.contains(not_read), "{}", checked.stdout);
    }
    // package.json is named once, as not a schema (a warning that `skip` silences); the policy
    // statement only gets a note, so `--deny warnings` would not fail on it.
    assert_eq!(checked.stdout.matches("not-a-schema").count(), 1);
    assert_eq!(checked.stdout.matches("note[unnamed-policy]").count(), 1);
    insta::assert_snapshot!(checked.stdout);
}

#[test]
fn usage_errors() {
    let dir = support::canonical_root().join("testdata/check/kinesis-repo");
    let mut unknown = request(&dir);
    unknown.deny = vec!["no-such-code".to_string()];
    let mut twice = request(&dir);
    twice.deny = vec!["uppercase-name".to_string()];
    twice.allow = vec!["uppercase-name".to_string()];
    let mut partition_many = request(&dir);
    partition_many.source.partition = vec!["ts".to_string()];
    let mut missing = request(&dir);
    missing.paths = vec![PathBuf::from("schemas/nope.json")];
    let mut out = String::new();
    for (name, req) in [
        ("unknown code", unknown),
        ("code twice", twice),
        ("--partition with many schemas", partition_many),
        ("missing path", missing),
    ] {
        let message = run_check(&req, CheckFormat::Text)
            .err()
            .map(|e| e.to_string());
        out.push_str(&format!(
            "{name}: {}\n",
            message.unwrap_or_else(|| "(no error)".to_string())
        ));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn the_published_report_schema_is_current() {
    let published =
        std::fs::read_to_string(support::canonical_root().join("docs/report.schema.json"))
            .unwrap_or_default();
    assert!(
        published == schema2iceberg::check::output::report_schema().unwrap(),
        "docs/report.schema.json is stale: run `cargo xtask codegen`"
    );
}

#[test]
fn json_reports_validate_against_the_published_shape() {
    let checked = run_check(
        &request(&support::canonical_root().join("testdata/check/kinesis-repo")),
        CheckFormat::Json,
    )
    .unwrap();
    let report: serde_json::Value = serde_json::from_str(&checked.stdout).unwrap();
    let schema: serde_json::Value =
        serde_json::from_str(&schema2iceberg::check::output::report_schema().unwrap()).unwrap();
    // Every top-level key of the report is a property of the schema, and every required one is there.
    let properties = schema["properties"].as_object().unwrap();
    for key in report.as_object().unwrap().keys() {
        assert!(properties.contains_key(key), "{key} is documented");
    }
    for key in schema["required"].as_array().unwrap() {
        assert!(
            report.get(key.as_str().unwrap()).is_some(),
            "{key} is present"
        );
    }
}

/// Checks every schema of `../shared/corpus` in one run: nothing may crash, and the counts of
/// each code are a snapshot, so that a change in behaviour shows up in review.
#[test]
fn corpus() {
    let Some(corpus) =
        support::corpus_dir(support::canonical_root().join("../shared/corpus"), "corpus")
    else {
        return;
    };
    let mut req = request(&corpus);
    req.config = Some(support::canonical_root().join("testdata/corpus/schema2iceberg.toml"));
    let checked = run_check(&req, CheckFormat::Json).expect("the corpus check runs");
    let on_disk = walkdir::WalkDir::new(&corpus)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "json"))
        .count();
    assert_eq!(
        checked.report.summary.files, on_disk,
        "every corpus file has a report"
    );
    let mut by_code: BTreeMap<String, usize> = BTreeMap::new();
    for d in checked.report.files.iter().flat_map(|f| &f.diagnostics) {
        *by_code
            .entry(format!("{:?} {}", d.severity, d.code))
            .or_default() += 1;
    }
    let mut out = format!("{:?}\n\n", checked.report.summary);
    for (code, count) in by_code {
        out.push_str(&format!("{count:>6} {code}\n"));
    }
    insta::assert_snapshot!(out);
}

/// Under CI a missing corpus is a failure, not a test that passes having checked nothing.
#[test]
#[should_panic(expected = "is missing, and CI=true")]
fn a_missing_corpus_fails_under_ci() {
    support::missing_corpus(
        &support::canonical_root().join("no-such-corpus"),
        "corpus",
        true,
        &mut Vec::new(),
    );
}

/// Elsewhere it is a skip with a notice (written to the stderr handle, which libtest does not
/// capture), and the test goes on.
#[test]
fn a_missing_corpus_is_skipped_elsewhere() {
    let mut notice = Vec::new();
    support::missing_corpus(
        &support::canonical_root().join("no-such-corpus"),
        "corpus",
        false,
        &mut notice,
    );
    let notice = String::from_utf8(notice).unwrap();
    assert!(
        notice.starts_with("note: corpus checked nothing:")
            && notice.contains("no-such-corpus is missing"),
        "{notice}"
    );
}

#[test]
fn the_diagnostics_reference_is_current() {
    let published = std::fs::read_to_string(support::canonical_root().join("docs/diagnostics.md"))
        .unwrap_or_default();
    assert!(
        published == schema2iceberg::docs::diagnostics_markdown(),
        "docs/diagnostics.md is stale: run `cargo xtask codegen`"
    );
}

#[test]
fn paths_may_be_files_directories_and_globs() {
    let dir = support::canonical_root().join("testdata/check/kinesis-repo");
    let paths_of = |paths: &[&str]| {
        let mut req = request(&dir);
        req.paths = paths.iter().map(PathBuf::from).collect();
        run_check(&req, CheckFormat::Json)
            .unwrap()
            .report
            .files
            .iter()
            .map(|f| f.path.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        paths_of(&["schemas/*.json"]),
        [
            "channels/orders-kinesis.json",
            "schemas/broken.json",
            "schemas/clicks.json",
            "schemas/orders.json"
        ]
    );
    assert_eq!(
        paths_of(&["schemas/legacy"]),
        ["schemas/legacy/session.json"]
    );
    assert_eq!(
        paths_of(&["schemas/legacy/session.json", "schemas/**/session.json"]),
        ["schemas/legacy/session.json"],
        "a file named twice is checked once"
    );
}
