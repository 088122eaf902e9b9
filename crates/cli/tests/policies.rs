//! `schema2iceberg policies` and the policy documents in `check`: the generated documents for a
//! Kinesis and an MSK channel, the round trip (`policies --out`, then `check` with the files
//! written, for every channel fixture that `check` accepts), and a repository whose
//! `schema2iceberg.toml` names a channel's documents under `[[channels]]`.

// A test should stop loudly; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

use schema2iceberg::check::{ChannelPolicies, CheckFormat, CheckRequest};
use schema2iceberg::policies::{generate_for, text, write_out, Generated};
use schema2iceberg_mapper::policies::GenerateOptions;

mod support;
use support::run_check;

const BIN: &str = env!("CARGO_BIN_EXE_schema2iceberg");
const DLQ_KEY: &str = "arn:aws:kms:us-east-1:123456789012:key/0a1b2c3d-0000-4000-8000-00000000d1a0";

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(support::canonical_root())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn kinesis_documents() {
    let (code, stdout, stderr) = run(&[
        "policies",
        "--channel-config",
        "testdata/channel/kinesis/combined-valid.json",
        "--dlq-kms-key",
        DLQ_KEY,
        "--query-role",
        "arn:aws:iam::123456789012:role/analyst",
    ]);
    assert_eq!(code, 0, "{stderr}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn msk_documents_as_json() {
    let (code, stdout, stderr) = run(&[
        "policies",
        "--channel-config",
        "testdata/channel/msk/msk-request-valid.json",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "role-policy",
            "trust-policy",
            "table-key-policy-statement",
            "table-bucket-policy"
        ]
    );
    insta::assert_snapshot!(stdout);
}

#[test]
fn a_configuration_with_errors_generates_nothing() {
    let (code, stdout, stderr) = run(&[
        "policies",
        "--channel-config",
        "testdata/channel/kinesis/table-bucket-arn-s3.json",
    ]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(stderr.contains("channel-arn"), "{stderr}");
}

#[test]
fn usage_errors() {
    let (code, _, stderr) = run(&["policies"]);
    assert_eq!(code, 2, "{stderr}");
    let (code, _, stderr) = run(&[
        "policies",
        "--channel-config",
        "testdata/channel/kinesis/combined-valid.json",
        "--dlq-kms-key",
        "alias/my-key",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--dlq-kms-key `alias/my-key` is not a KMS key ARN"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&[
        "policies",
        "--channel-config",
        "testdata/channel/multi/kinesis-split-valid/stream-config.json",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("names no table bucket"), "{stderr}");
    let (code, _, stderr) = run(&[
        "check",
        "--channel-config",
        "testdata/channel/kinesis/combined-valid.json",
        "--dlq-kms-key",
        "arn:aws:kms:us-east-1:123456789012:alias/dlq",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("is not a KMS key ARN"), "{stderr}");
    let (code, _, stderr) = run(&["check", "--role-policy", "x.json"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("give its --channel-config"), "{stderr}");
}

#[test]
fn help_teaches_with_examples() {
    let (code, stdout, _) = run(&["policies", "--help"]);
    assert_eq!(code, 0);
    for needle in [
        "Examples:",
        "--out iam/",
        "table-key-policy-statement",
        "docs/policies.md",
    ] {
        assert!(stdout.contains(needle), "policies --help mentions {needle}");
    }
    let (_, stdout, _) = run(&["check", "--help"]);
    assert!(stdout.contains("--role-policy"));
    assert!(stdout.contains("--role-policy iam/role.json"));
}

/// The channel fixtures that `check` accepts, as lists of files (a folder of `multi/` is one
/// channel split over its files).
fn accepted_channels() -> Vec<Vec<PathBuf>> {
    let base = support::canonical_root().join("testdata/channel");
    let mut out = Vec::new();
    for folder in ["kinesis", "msk", "multi"] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(base.join(folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let files = if path.is_dir() {
                let mut files: Vec<PathBuf> = std::fs::read_dir(&path)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .filter(|p| p.extension().is_some_and(|e| e == "json"))
                    .collect();
                files.sort();
                files
            } else {
                vec![path]
            };
            let options = GenerateOptions::default();
            if let Ok(Generated::Documents(..)) = generate_for(&files, &options) {
                out.push(files);
            }
        }
    }
    out
}

/// For every accepted channel: `policies --out DIR`, then `check` with the files written passes
/// (no errors, no warnings but the Kinesis cross-account one); then with the role policy's first
/// statement removed, `check` fails.
#[test]
fn policies_out_then_check_passes_for_every_accepted_channel() {
    let channels = accepted_channels();
    assert!(channels.len() >= 20, "only {} channels", channels.len());
    for files in channels {
        let dir = tempfile::tempdir().unwrap();
        let options = GenerateOptions {
            dlq_kms_key: Some(DLQ_KEY.to_string()),
            query_role: None,
        };
        let Ok(Generated::Documents(documents, _)) = generate_for(&files, &options) else {
            panic!("{files:?} generates")
        };
        let written = write_out(dir.path(), &documents).unwrap();
        let file = |name: &str| {
            written
                .iter()
                .any(|w| w == name)
                .then(|| dir.path().join(name))
        };
        let mut request = CheckRequest::new(dir.path());
        request.paths = files.clone();
        request.channel_configs = files.clone();
        request.policies = ChannelPolicies {
            configs: Vec::new(),
            role: vec![dir.path().join("role-policy.json")],
            trust: file("trust-policy.json"),
            table_key: file("table-key-policy.json"),
            table_bucket: file("table-bucket-policy.json"),
            dlq_kms_key: Some(DLQ_KEY.to_string()),
        };
        request.allow = vec![
            "policy-suggested".to_string(),
            "policy-cross-account-kinesis".to_string(),
        ];
        let checked = run_check(&request, CheckFormat::Text).unwrap();
        // The configuration's own warnings (table creation off, say) are not the documents'.
        let policy_findings = checked
            .report
            .files
            .iter()
            .flat_map(|f| f.diagnostics.iter())
            .filter(|d| d.code.starts_with("policy-"))
            .count();
        assert_eq!(
            (checked.exit, checked.report.summary.errors, policy_findings),
            (0, 0, 0),
            "{files:?}:\n{}",
            checked.stdout
        );
        // One statement fewer in the role policy fails the check.
        let role = dir.path().join("role-policy.json");
        let mut value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&role).unwrap()).unwrap();
        value["Statement"].as_array_mut().unwrap().remove(0);
        std::fs::write(&role, value.to_string()).unwrap();
        let checked = run_check(&request, CheckFormat::Text).unwrap();
        assert_eq!(checked.exit, 1, "{files:?}: removing S3TablesAccess passes");
        assert!(checked.stdout.contains("error[policy-role-permission]"));
    }
}

#[test]
fn the_text_format_heads_each_document() {
    let files =
        vec![support::canonical_root().join("testdata/channel/msk/msk-destination-valid.json")];
    let Ok(Generated::Documents(documents, _)) = generate_for(&files, &GenerateOptions::default())
    else {
        panic!("generates")
    };
    let shown = text(&documents);
    assert!(shown.contains(
        "## table-key-policy-statement\n# None: the table uses no customer managed key.\nnull\n"
    ));
    assert!(shown.contains("## trust-policy\n"));
}

/// `check` in the repository of `testdata/check/policies-repo`, in every format.
fn check_repo(paths: &[&str]) -> String {
    let mut request =
        CheckRequest::new(support::canonical_root().join("testdata/check/policies-repo"));
    request.paths = paths.iter().map(PathBuf::from).collect();
    let mut out = String::new();
    for format in [
        CheckFormat::Text,
        CheckFormat::Json,
        CheckFormat::Github,
        CheckFormat::Sarif,
    ] {
        let checked = run_check(&request, format).unwrap();
        out.push_str(&format!(
            "--- {format:?} (exit {}) ---\n{}\n",
            checked.exit, checked.stdout
        ));
    }
    out
}

#[test]
fn a_repository_with_channels_and_their_documents() {
    insta::assert_snapshot!(check_repo(&[]));
}

#[test]
fn a_changed_role_policy_brings_its_channel_into_the_check() {
    let text = check_repo(&["iam/orders-role.json"]);
    assert!(text.contains("iam/orders-role.json: 1 error"), "{text}");
    assert!(text.contains("s3tables:PutTableEncryption"), "{text}");
    // The policy document is not compiled as a schema.
    assert!(!text.contains("not-a-schema"), "{text}");
}

#[test]
fn channels_entries_with_mistakes_are_config_errors_at_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("schema2iceberg.toml"),
        "[[channels]]\nconfig = \"channels/missing.json\"\ndlq-kms-key = \"alias/dlq\"\nrole = \"iam/role.json\"\n",
    )
    .unwrap();
    let checked = run_check(&CheckRequest::new(dir.path()), CheckFormat::Text).unwrap();
    assert_eq!(checked.exit, 2, "{}", checked.stdout);
    assert!(
        checked.stdout.contains("config-invalid"),
        "{}",
        checked.stdout
    );
    assert!(
        checked.stdout.contains("unknown field `role`"),
        "{}",
        checked.stdout
    );
    std::fs::write(
        dir.path().join("schema2iceberg.toml"),
        "[[channels]]\nconfig = \"channels/missing.json\"\ndlq-kms-key = \"alias/dlq\"\n",
    )
    .unwrap();
    let checked = run_check(&CheckRequest::new(dir.path()), CheckFormat::Text).unwrap();
    assert_eq!(checked.exit, 2, "{}", checked.stdout);
    assert!(
        checked
            .stdout
            .contains("`channels/missing.json` does not exist"),
        "{}",
        checked.stdout
    );
    assert!(
        checked.stdout.contains("`alias/dlq` is not a KMS key ARN"),
        "{}",
        checked.stdout
    );
}
