//! `schema2iceberg diff`: schema against schema, against a live table's Iceberg metadata, the
//! `--fail-on` levels, `--git` against a repository the test creates, and real version histories
//! from Snowplow's Iglu Central.

// A test should stop loudly; the no-panic rule is for code that reads input.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use schema2iceberg::diff::{DiffFormat, DiffRequest, FailOn};
use schema2iceberg_mapper::channel::RecordFormat;
use schema2iceberg_parser::Draft;

mod support;
use support::run_diff;

/// Runs `diff` in every format with `request`, and renders the outputs with their exit codes.
fn check(request: &DiffRequest) -> String {
    let mut out = String::new();
    for format in [DiffFormat::Text, DiffFormat::Json, DiffFormat::Github] {
        match run_diff(request, format) {
            Ok(diffed) => out.push_str(&format!(
                "--- {format:?} (exit {}) ---\n{}\n",
                diffed.exit, diffed.stdout
            )),
            Err(e) => out.push_str(&format!("--- {format:?} (usage error) ---\n{}\n", e)),
        }
    }
    out
}

fn in_fixtures(old: &str, new: &str) -> DiffRequest {
    let mut request = DiffRequest::new(
        support::canonical_root().join("testdata/diff-cli"),
        vec![PathBuf::from(old), PathBuf::from(new)],
    );
    request.source.partition = vec!["event_time".to_string()];
    request
}

#[test]
fn schema_against_schema() {
    insta::assert_snapshot!(check(&in_fixtures("event-v1.json", "event-v2.json")));
}

/// With the record format not known, the text gives both verdicts of every change, but the GSR
/// records' reason, the same for every change, is said once in the file's block; JSON keeps it
/// on every change, for tools.
#[test]
fn the_gsr_reason_is_said_once_in_the_text() {
    let request = in_fixtures("event-v1.json", "event-v2.json");
    let text = run_diff(&request, DiffFormat::Text).unwrap().stdout;
    let gsr = "every record names the schema version it was produced with, and the channel accepts only the version it was created on";
    let changes = text.matches("\n    table: ").count();
    assert!(changes > 1, "{text}");
    assert_eq!(text.matches(gsr).count(), 1, "{text}");
    assert_eq!(
        text.matches("JSON_SCHEMA_GSR records: all to the dead-letter queue (why: as for `")
            .count(),
        changes - 1,
        "{text}"
    );
    let json = run_diff(&request, DiffFormat::Json).unwrap().stdout;
    assert_eq!(json.matches(gsr).count(), changes, "{json}");
}

/// Keywords on the root are compared like a struct's, and shown as `(root)` in every format.
#[test]
fn root_keywords_are_compared() {
    let mut request = DiffRequest::new(
        support::canonical_root().join("testdata/diff/root-constraint-tightened"),
        vec![PathBuf::from("old.json"), PathBuf::from("new.json")],
    );
    request.source.partition = Vec::new();
    insta::assert_snapshot!(check(&request));
}

/// A change of the root's `required` points at the keyword in NEW, not at the top of the file.
#[test]
fn root_required_points_at_the_keyword() {
    let request = DiffRequest::new(
        support::canonical_root().join("testdata/diff/root-required-changed"),
        vec![PathBuf::from("old.json"), PathBuf::from("new.json")],
    );
    insta::assert_snapshot!(check(&request));
}

/// `schema2iceberg.toml` names each schema's channel configuration, and the record format is
/// read from it: Kinesis `RecordFormatType` `JSON` here, so the verdicts say what plain JSON
/// records produced under the new schema meet at the channel, which validates them against
/// the old one.
#[test]
fn json_records_from_the_kinesis_channel_configuration() {
    let request = DiffRequest::new(
        support::canonical_root().join("testdata/diff-cli/channel-repo"),
        vec![
            PathBuf::from("schemas/orders-v1.json"),
            PathBuf::from("schemas/orders-v2.json"),
        ],
    );
    insta::assert_snapshot!(check(&request));
}

/// MSK `ValueConverter` `JSON_SCHEMA_GSR`: every record names its schema version, so even a doc
/// change, registered as a new version, sends the records produced with it to the dead-letter
/// queue.
#[test]
fn gsr_records_from_the_msk_channel_configuration() {
    let request = DiffRequest::new(
        support::canonical_root().join("testdata/diff-cli/channel-repo"),
        vec![
            PathBuf::from("schemas/payments-v1.json"),
            PathBuf::from("schemas/payments-v2.json"),
        ],
    );
    insta::assert_snapshot!(check(&request));
}

/// With no channel configuration, `--record-format` decides; a configuration that names one
/// wins over the flag, and the report says so.
#[test]
fn the_flag_sets_the_record_format_where_no_configuration_does() {
    let mut flagged = in_fixtures("event-v1.json", "event-v2.json");
    flagged.record_format = Some(RecordFormat::GsrJson);
    let mut overridden = DiffRequest::new(
        support::canonical_root().join("testdata/diff-cli/channel-repo"),
        vec![
            PathBuf::from("schemas/orders-v1.json"),
            PathBuf::from("schemas/orders-v2.json"),
        ],
    );
    overridden.record_format = Some(RecordFormat::GsrJson);
    overridden.fail_on = FailOn::DeadLetter;
    let text = |request: &DiffRequest| run_diff(request, DiffFormat::Text).unwrap();
    let (a, b) = (text(&flagged), text(&overridden));
    insta::assert_snapshot!(format!(
        "--- event, --record-format gsr-json (exit {}) ---\n{}\n--- orders, --record-format gsr-json --fail-on dead-letter (exit {}) ---\n{}",
        a.exit, a.stdout, b.exit, b.stdout
    ));
}

/// A side that does not compile: the report says the pair could not be compared, and why, in
/// every format, instead of counting zero changes.
#[test]
fn a_side_that_does_not_compile_is_not_compared() {
    let request = DiffRequest::new(
        support::canonical_root().join("testdata/diff-cli"),
        vec![PathBuf::from("event-v1.json"), PathBuf::from("broken.json")],
    );
    insta::assert_snapshot!(check(&request));
}

/// `--git` outside a repository: one line, not git's usage text.
#[test]
fn git_mode_outside_a_repository_says_so_in_one_line() {
    let dir =
        std::env::temp_dir().join(format!("schema2iceberg-diff-no-git-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // GIT_CEILING_DIRECTORIES would be needed if the temporary folder were inside a repository.
    let mut request = DiffRequest::new(&dir, Vec::new());
    request.git = Some("HEAD".to_string());
    let message = run_diff(&request, DiffFormat::Text)
        .unwrap_err()
        .to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    let shown = message.replace(&dir.display().to_string(), "<tmp>");
    insta::assert_snapshot!(shown);
}

#[test]
fn live_table_metadata_against_schema() {
    insta::assert_snapshot!(check(&in_fixtures(
        "live-table-metadata.json",
        "event-v2.json"
    )));
}

#[test]
fn live_iceberg_schema_against_schema() {
    insta::assert_snapshot!(check(&in_fixtures(
        "live-iceberg-schema.json",
        "event-v1.json"
    )));
}

#[test]
fn fail_on_levels_set_the_exit_code() {
    let mut exits = Vec::new();
    for level in [
        FailOn::TableChange,
        FailOn::IcebergIncompatible,
        FailOn::Never,
    ] {
        let mut request = in_fixtures("event-v1.json", "event-v2.json");
        request.fail_on = level;
        exits.push((level, run_diff(&request, DiffFormat::Text).unwrap().exit));
        let mut same = in_fixtures("event-v1.json", "event-v1.json");
        same.fail_on = level;
        assert_eq!(
            run_diff(&same, DiffFormat::Text).unwrap().exit,
            0,
            "no change never fails"
        );
    }
    insta::assert_debug_snapshot!(exits);
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

#[test]
fn git_mode_compares_the_working_tree_with_a_revision() {
    let dir = std::env::temp_dir().join(format!("schema2iceberg-diff-git-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("schemas")).unwrap();
    let fixtures = support::canonical_root().join("testdata/diff-cli");
    std::fs::copy(
        fixtures.join("event-v1.json"),
        dir.join("schemas/event.json"),
    )
    .unwrap();
    std::fs::copy(
        fixtures.join("event-v1.json"),
        dir.join("schemas/gone.json"),
    )
    .unwrap();
    std::fs::copy(
        fixtures.join("event-v1.json"),
        dir.join("schemas/same.json"),
    )
    .unwrap();
    std::fs::write(
        dir.join("schema2iceberg.toml"),
        "[[schemas]]\nfiles = \"schemas/*.json\"\npartition = \"event_time\"\n",
    )
    .unwrap();
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "v1"]);
    std::fs::copy(
        fixtures.join("event-v2.json"),
        dir.join("schemas/event.json"),
    )
    .unwrap();
    std::fs::remove_file(dir.join("schemas/gone.json")).unwrap();
    std::fs::copy(fixtures.join("event-v2.json"), dir.join("schemas/new.json")).unwrap();
    let mut request = DiffRequest::new(&dir, vec![PathBuf::from("schemas")]);
    request.git = Some("HEAD".to_string());
    let out = check(&request);
    std::fs::remove_dir_all(&dir).unwrap();
    insta::assert_snapshot!(out);
}

/// SchemaVer is MODEL-REVISION-ADDITION. An ADDITION bump promises that data valid under the old
/// version stays valid; for the table that should mean no Iceberg-incompatible change.
#[test]
fn snowplow_version_histories() {
    let Some(iglu) = support::corpus_dir(
        support::canonical_root().join("../shared/corpus/snowplow-iglu-central"),
        "snowplow_version_histories",
    ) else {
        return;
    };
    let mut series: Vec<PathBuf> = walkdir::WalkDir::new(&iglu)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir() && e.file_name() == "jsonschema")
        .map(|e| e.path().to_path_buf())
        .collect();
    series.sort();
    let mut table = String::new();
    let mut addition_pairs = 0;
    let mut addition_breaking = 0;
    let mut not_compiled = 0;
    for dir in series {
        let mut versions: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str().map(str::to_string))
            .filter(|n| n.ends_with(".json"))
            .collect();
        versions.sort_by_key(|v| {
            v.trim_end_matches(".json")
                .split('-')
                .map(|p| p.parse::<u32>().unwrap_or(0))
                .collect::<Vec<_>>()
        });
        for pair in versions.windows(2) {
            let (old, new) = (&pair[0], &pair[1]);
            let bump = schemaver_bump(old, new);
            let mut request = DiffRequest::new(&dir, vec![PathBuf::from(old), PathBuf::from(new)]);
            request.source.draft = Some(Draft::Draft04);
            request.fail_on = FailOn::IcebergIncompatible;
            let diffed = run_diff(&request, DiffFormat::Json).unwrap();
            let file = &diffed.files[0];
            let incompatible = file.changes.iter().any(|c| {
                c.change.iceberg == schema2iceberg_mapper::diff::IcebergVerdict::Incompatible
            });
            not_compiled += usize::from(file.status == "not-compiled");
            if bump == "ADDITION" {
                addition_pairs += 1;
                addition_breaking += usize::from(incompatible);
            }
            let name = dir
                .strip_prefix(&iglu)
                .unwrap()
                .parent()
                .unwrap()
                .display()
                .to_string();
            let mut counts: std::collections::BTreeMap<String, usize> =
                std::collections::BTreeMap::new();
            for c in &file.changes {
                let kind = serde_json::to_value(c.change.kind).unwrap();
                *counts
                    .entry(kind.as_str().unwrap().to_string())
                    .or_default() += 1;
            }
            let kinds: Vec<String> = counts
                .iter()
                .map(|(k, n)| {
                    if *n == 1 {
                        k.clone()
                    } else {
                        format!("{k} ×{n}")
                    }
                })
                .collect();
            table.push_str(&format!(
                "{name} {old} → {new} [{bump}] {}: {}\n",
                if file.status == "not-compiled" {
                    "not compiled"
                } else if incompatible {
                    "ICEBERG-INCOMPATIBLE"
                } else {
                    "compatible"
                },
                if kinds.is_empty() {
                    "no change".to_string()
                } else {
                    kinds.join(", ")
                }
            ));
        }
    }
    table.push_str(&format!(
        "\nADDITION bumps: {addition_pairs}, of which Iceberg-incompatible: {addition_breaking}\npairs where a side does not compile: {not_compiled}\n"
    ));
    insta::assert_snapshot!(table);
}

fn schemaver_bump(old: &str, new: &str) -> &'static str {
    let parts = |v: &str| {
        v.trim_end_matches(".json")
            .split('-')
            .map(|p| p.parse::<u32>().unwrap_or(0))
            .collect::<Vec<_>>()
    };
    let (o, n) = (parts(old), parts(new));
    if o.first() != n.first() {
        "MODEL"
    } else if o.get(1) != n.get(1) {
        "REVISION"
    } else {
        "ADDITION"
    }
}

/// The table metadata that `compile --channel-config` writes is the table of the schema that
/// `schema2iceberg.toml` pairs with that configuration: `diff` takes the partition from the
/// configuration's `SourceName`, as `check` does, and finds no change. A `--partition` that
/// contradicts it is noted, and the channel's is used.
#[test]
fn the_partition_comes_from_the_channel_configuration() {
    let repo = support::canonical_root().join("testdata/diff-cli/source-name-repo");
    let out = tempfile::tempdir().unwrap();
    let metadata = out.path().join("orders.metadata.json");
    let compiled = Command::new(env!("CARGO_BIN_EXE_schema2iceberg"))
        .args([
            "compile",
            "schemas/orders.json",
            "--channel-config",
            "channels/orders.json",
            "--format",
            "table-metadata",
        ])
        .current_dir(&repo)
        .output()
        .unwrap();
    assert_eq!(compiled.status.code(), Some(0));
    std::fs::write(&metadata, &compiled.stdout).unwrap();

    let mut request = DiffRequest::new(
        repo,
        vec![metadata.clone(), PathBuf::from("schemas/orders.json")],
    );
    let diffed = run_diff(&request, DiffFormat::Json).unwrap();
    let report: serde_json::Value = serde_json::from_str(&diffed.stdout).unwrap();
    assert_eq!(diffed.exit, 0, "{}", diffed.stdout);
    assert_eq!(report["files"][0]["changes"], serde_json::json!([]));

    request.source.partition = vec!["created_at".to_string()];
    let diffed = run_diff(&request, DiffFormat::Json).unwrap();
    let report: serde_json::Value = serde_json::from_str(&diffed.stdout).unwrap();
    assert_eq!(diffed.exit, 0, "{}", diffed.stdout);
    assert_eq!(report["files"][0]["changes"], serde_json::json!([]));
    assert_eq!(
        report["files"][0]["notes"],
        serde_json::json!([
            "the channel configuration partitions on `event_time`, but `created_at` was given for this schema; the channel's `SourceName` is used"
        ])
    );
}

/// Schemas that `$ref` shared definitions outside their repository compile only with
/// `--ref-root`: without it both sides stop at `ref-outside-root` and nothing is compared; with
/// it, files mode and `--git` mode both find the new column.
#[test]
fn ref_root_widens_where_file_refs_may_read() {
    let fixtures = support::canonical_root().join("testdata/diff-cli/shared-refs");
    let mut request = DiffRequest::new(
        fixtures.join("repo"),
        vec![
            PathBuf::from("schemas/order-v1.json"),
            PathBuf::from("schemas/order-v2.json"),
        ],
    );
    let mut out = String::from("===== without --ref-root =====\n");
    out.push_str(&check(&request));
    request.source.ref_root = Some(PathBuf::from(".."));
    out.push_str("===== --ref-root .. =====\n");
    out.push_str(&check(&request));
    insta::assert_snapshot!(out);

    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(dir.path().join("common")).unwrap();
    std::fs::create_dir_all(repo.join("schemas")).unwrap();
    std::fs::copy(
        fixtures.join("common/money.json"),
        dir.path().join("common/money.json"),
    )
    .unwrap();
    std::fs::copy(
        fixtures.join("repo/schema2iceberg.toml"),
        repo.join("schema2iceberg.toml"),
    )
    .unwrap();
    let order = repo.join("schemas/order.json");
    std::fs::copy(fixtures.join("repo/schemas/order-v1.json"), &order).unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "v1"]);
    std::fs::copy(fixtures.join("repo/schemas/order-v2.json"), &order).unwrap();
    let mut request = DiffRequest::new(&repo, Vec::new());
    request.git = Some("HEAD".to_string());
    let report = |request: &DiffRequest| -> serde_json::Value {
        let diffed = run_diff(request, DiffFormat::Json).unwrap();
        assert_eq!(diffed.exit, 1, "{}", diffed.stdout);
        serde_json::from_str(&diffed.stdout).unwrap()
    };
    let without = report(&request);
    assert_eq!(without["files"][0]["changes"], serde_json::json!([]));
    assert!(
        without["files"][0]["problem"]
            .as_str()
            .is_some_and(|s| s.contains("does not compile")),
        "{without}"
    );
    request.source.ref_root = Some(PathBuf::from(".."));
    let with = report(&request);
    let kinds: Vec<(&str, &str)> = with["files"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["kind"].as_str().unwrap(), c["path"].as_str().unwrap()))
        .collect();
    assert_eq!(kinds, [("column-added", "tax")], "{with}");
}
