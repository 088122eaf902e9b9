//! Policy fixtures and the round trip of the generator and the checker.
//!
//! Each folder of `testdata/policies/` is one channel with its documents: `channel*.json` (the
//! configuration, split or whole), `role*.json` (policies attached to the role), `trust.json`,
//! `table-key.json`, `table-bucket.json` and `dlq-kms-key.txt`, each where the case needs it.
//! The diagnostics make one snapshot per folder.
//!
//! The round trip: for every channel fixture of `testdata/channel/` that the configuration check
//! accepts, the generated documents pass the check, and removing any one statement, action or
//! condition key from them makes the check report a diagnostic that names what was removed.

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use schema2iceberg_mapper::channel::check_channel_configs;
use schema2iceberg_mapper::policies::{
    channel_facts, check_policies, generate, ChannelFacts, GenerateOptions, PolicyFiles,
};
use schema2iceberg_parser::{Diagnostic, JsonFile, Severity};
use serde_json::Value;
use support::{render_diagnostics, workspace_root};

mod support;

fn json_file(path: &Path) -> JsonFile {
    let root = workspace_root();
    let name = path
        .strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string();
    JsonFile::parse(name, std::fs::read(path).expect("fixture is readable")).0
}

fn sorted_files(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("fixture folder is readable")
        .map(|e| e.expect("entry").path())
        .collect();
    paths.sort();
    paths
}

/// Checks one fixture folder.
fn check_fixture(dir: &Path) -> String {
    let mut configs = Vec::new();
    let mut files = PolicyFiles::default();
    let mut listing = String::new();
    for path in sorted_files(dir) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        writeln!(listing, "file: {name}").unwrap();
        if name == "dlq-kms-key.txt" {
            files.dlq_kms_key = Some(std::fs::read_to_string(&path).unwrap().trim().to_string());
            continue;
        }
        let (file, parse) =
            JsonFile::parse(json_file(&path).display, std::fs::read(&path).unwrap());
        if name.starts_with("channel") {
            assert!(parse.is_empty(), "{name}: {parse:?}");
            configs.push(file);
            continue;
        }
        // A policy file that is not JSON is part of the cases: its diagnostics are shown.
        for d in parse {
            writeln!(listing, "parse: {}[{}] {}", d.severity, d.code, d.message).unwrap();
        }
        match name.as_str() {
            n if n.starts_with("role") => files.role.push(file),
            "trust.json" => files.trust = Some(file),
            "table-key.json" => files.table_key = Some(file),
            "table-bucket.json" => files.table_bucket = Some(file),
            other => panic!("unexpected fixture file {other}"),
        }
    }
    let configuration = check_channel_configs(&configs);
    assert!(
        configuration
            .diagnostics
            .iter()
            .all(|d| d.severity != Severity::Error),
        "{}: the channel configuration has errors: {:?}",
        dir.display(),
        configuration.diagnostics
    );
    let facts = channel_facts(&configs).expect("the configuration names a table bucket");
    format!(
        "{listing}\n{}",
        render_diagnostics(&check_policies(&facts, &files))
    )
}

#[test]
fn fixtures() {
    insta::glob!("../../../testdata/policies", "*", |path| {
        if path.is_dir() && path.parent().is_some_and(|p| p.ends_with("policies")) {
            insta::assert_snapshot!(check_fixture(path));
        }
    });
}

/// The configurations of `testdata/channel/` that the configuration check accepts: each file
/// of `kinesis/` and `msk/`, and each folder of `multi/`, with a table bucket.
fn accepted_channels() -> Vec<(String, Vec<JsonFile>)> {
    let base = workspace_root().join("testdata/channel");
    let mut out = Vec::new();
    for folder in ["kinesis", "msk", "multi"] {
        for path in sorted_files(&base.join(folder)) {
            let files: Vec<JsonFile> = if path.is_dir() {
                sorted_files(&path)
                    .iter()
                    .filter(|p| p.extension().is_some_and(|e| e == "json"))
                    .map(|p| json_file(p))
                    .collect()
            } else {
                vec![json_file(&path)]
            };
            let checked = check_channel_configs(&files);
            let clean = files.iter().all(|f| f.json.is_some())
                && checked
                    .diagnostics
                    .iter()
                    .all(|d| d.severity != Severity::Error);
            if clean && channel_facts(&files).is_ok() {
                out.push((path.display().to_string(), files));
            }
        }
    }
    out
}

fn file_of(name: &str, value: &Value) -> JsonFile {
    JsonFile::parse(name, format!("{value:#}").into_bytes()).0
}

/// The four documents as files: the role policy, the trust policy, the whole key policy and
/// the bucket policy.
fn files_of(documents: &[(&str, Option<Value>)], dlq_kms_key: Option<&str>) -> PolicyFiles {
    let get = |name: &str| {
        documents
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(n, v)| v.as_ref().map(|v| file_of(n, v)))
    };
    PolicyFiles {
        role: get("role-policy.json").into_iter().collect(),
        trust: get("trust-policy.json"),
        table_key: get("table-key-policy.json"),
        table_bucket: get("table-bucket-policy.json"),
        dlq_kms_key: dlq_kms_key.map(str::to_string),
    }
}

/// Every document with one thing removed, and the words one of which the check must then say.
fn removals(document: &Value) -> Vec<(String, Value, Vec<String>)> {
    let mut out = Vec::new();
    let statements = document["Statement"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for (i, statement) in statements.iter().enumerate() {
        let sid = statement["Sid"].as_str().unwrap_or("").to_string();
        let actions: Vec<String> = statement["Action"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        // A wildcard action (the key policy's `kms:*`) is named by its service.
        let named = |action: &str| -> String { action.trim_end_matches('*').to_string() };
        let mut without = document.clone();
        without["Statement"].as_array_mut().unwrap().remove(i);
        out.push((
            format!("statement {sid}"),
            without,
            actions.iter().map(|a| named(a)).collect(),
        ));
        for (j, action) in actions.iter().enumerate() {
            let mut without = document.clone();
            without["Statement"][i]["Action"]
                .as_array_mut()
                .unwrap()
                .remove(j);
            out.push((
                format!("action {action} of {sid}"),
                without,
                vec![named(action)],
            ));
        }
        let blocks = statement["Condition"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        for (operator, keys) in &blocks {
            for key in keys.as_object().unwrap().keys() {
                let mut without = document.clone();
                let condition = without["Statement"][i]["Condition"]
                    .as_object_mut()
                    .unwrap();
                let block = condition[operator.as_str()].as_object_mut().unwrap();
                block.remove(key);
                if block.is_empty() {
                    condition.remove(operator.as_str());
                }
                if condition.is_empty() {
                    without["Statement"][i]
                        .as_object_mut()
                        .unwrap()
                        .remove("Condition");
                }
                out.push((
                    format!("condition {key} of {sid}"),
                    without,
                    vec![key.clone()],
                ));
            }
        }
    }
    out
}

/// Whether the channel's table key is in another account than its role.
fn key_in_other_account(facts: &ChannelFacts) -> bool {
    let account = |arn: &str| arn.split(':').nth(4).map(str::to_string);
    match facts.table_key.as_deref() {
        Some(key) => account(key).as_deref() != Some(facts.account.as_str()),
        None => false,
    }
}

#[test]
fn generated_documents_pass_and_every_removal_is_reported() {
    let channels = accepted_channels();
    assert!(
        channels.len() >= 20,
        "only {} accepted channel fixtures",
        channels.len()
    );
    let dlq_key = "arn:aws:kms:us-east-1:123456789012:key/0a1b2c3d-dlq0-key0-0000-000000000000";
    let mut tried = 0;
    for (name, files) in channels {
        let facts = channel_facts(&files).unwrap();
        let options = GenerateOptions {
            dlq_kms_key: facts.dlq.as_ref().map(|_| dlq_key.to_string()),
            query_role: None,
        };
        let generated = generate(&facts, &options);
        let documents = vec![
            ("role-policy.json", Some(generated.role_policy.clone())),
            ("trust-policy.json", Some(generated.trust_policy.clone())),
            ("table-key-policy.json", generated.table_key_policy.clone()),
            (
                "table-bucket-policy.json",
                generated.table_bucket_policy.clone(),
            ),
        ];
        let key = options.dlq_kms_key.as_deref();
        let diagnostics = check_policies(&facts, &files_of(&documents, key));
        let serious: Vec<&Diagnostic> = diagnostics
            .iter()
            .filter(|d| d.severity != Severity::Note && d.code != "policy-cross-account-kinesis")
            .collect();
        assert!(
            serious.is_empty(),
            "{name}: the generated documents fail: {serious:#?}"
        );
        for (d, (document, value)) in documents.iter().enumerate() {
            let Some(value) = value else { continue };
            for (what, without, words) in removals(value) {
                // A key in another account than the role: the generated key policy names the
                // role itself, so the account-root statement grants the channel nothing and
                // its removal changes no verdict.
                if *document == "table-key-policy.json"
                    && what.contains("EnableIAMUserPermissions")
                    && key_in_other_account(&facts)
                {
                    continue;
                }
                tried += 1;
                let mut changed = documents.clone();
                changed[d].1 = Some(without);
                let found = check_policies(&facts, &files_of(&changed, key));
                let named = found.iter().any(|d| {
                    d.severity != Severity::Note
                        && words
                            .iter()
                            .any(|w| !w.is_empty() && d.message.contains(w.as_str()))
                });
                assert!(
                    named,
                    "{name}: removing {what} from {document} is not reported by name: {}",
                    render_diagnostics(&found)
                );
            }
        }
    }
    assert!(tried > 500, "only {tried} removals tried");
}
