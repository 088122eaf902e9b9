//! JSONTestSuite (`../shared/json-test-suite/test_parsing/`, beside the repository; see its
//! SOURCE.md) through the parser's JSON reader and serde_json: every `y_` file accepted, every
//! `n_` file rejected with a diagnostic, every `i_` file either way without a crash, and the same
//! value as serde_json wherever both accept. The folder is the list of cases; one snapshot
//! records the count per verdict and the choice made on each `i_` file.

// A test should stop loudly; the no-panic rule is for code that reads input.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use support::oracle::{compare, Verdict};

/// The suite's folder, beside the repository.
fn suite_path() -> PathBuf {
    support::workspace_root().join("../shared/json-test-suite/test_parsing")
}

/// `dir` when it is a folder; when it is missing, a failure under CI (so that CI never passes
/// having checked nothing), otherwise a notice on `out` and `None`.
fn suite_dir(dir: PathBuf, ci: bool, out: &mut impl std::io::Write) -> Option<PathBuf> {
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        !ci,
        "{} is missing, and CI=true: JSONTestSuite must run in CI",
        dir.display()
    );
    let _ = writeln!(
        out,
        "note: json_test_suite checked nothing: {} is missing (under CI=true this fails)",
        dir.display()
    );
    None
}

/// What one file must give, by its name's prefix.
fn check(name: &str, verdict: &Verdict) -> Result<(), String> {
    match verdict {
        Verdict::ValuesDiffer { .. } | Verdict::RejectedSilently => {
            return Err(format!("{name}: {verdict:?}"))
        }
        // On y_ and n_ files serde_json must agree with the suite too, or the oracle is wrong.
        Verdict::OnlyParser { .. } | Verdict::OnlySerde { .. } if !name.starts_with("i_") => {
            return Err(format!("{name}: {verdict:?}"))
        }
        _ => {}
    }
    match &name[..2] {
        "y_" if !verdict.parser_accepts() => Err(format!("{name} must be accepted: {verdict:?}")),
        "n_" if verdict.parser_accepts() => Err(format!("{name} must be rejected: {verdict:?}")),
        "y_" | "n_" | "i_" => Ok(()),
        _ => Err(format!("{name}: not a y_, n_ or i_ file")),
    }
}

fn label(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::BothAccept => "both accept, same value",
        Verdict::BothReject => "both reject",
        Verdict::ParserTooDeep {
            serde_accepts: true,
        } => "parser stops at its nesting cap, serde_json accepts",
        Verdict::ParserTooDeep {
            serde_accepts: false,
        } => "parser stops at its nesting cap, serde_json rejects",
        Verdict::ValuesDiffer { .. } => "both accept, VALUES DIFFER",
        Verdict::OnlyParser { .. } => "only the parser accepts",
        Verdict::OnlySerde { .. } => "only serde_json accepts",
        Verdict::RejectedSilently => "parser rejects WITHOUT A DIAGNOSTIC",
    }
}

#[test]
fn json_test_suite() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    // Written to the handle, not with `eprintln!`, which libtest captures from passing tests.
    let Some(dir) = suite_dir(suite_path(), ci, &mut std::io::stderr()) else {
        return;
    };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("the suite folder is readable")
        .map(|entry| {
            entry
                .expect("folder entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".json"))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "{} holds no .json file", dir.display());
    let mut counts: BTreeMap<(String, &str), usize> = BTreeMap::new();
    let mut choices = String::new();
    let mut failures = Vec::new();
    for name in &names {
        let bytes = std::fs::read(dir.join(name)).expect("suite file is readable");
        let verdict = compare(&bytes);
        *counts
            .entry((name[..2].to_string(), label(&verdict)))
            .or_default() += 1;
        if name.starts_with("i_") || !matches!(verdict, Verdict::BothAccept | Verdict::BothReject) {
            writeln!(choices, "{name}: {}", label(&verdict)).unwrap();
        }
        if let Err(failure) = check(name, &verdict) {
            failures.push(failure);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let mut summary = String::new();
    for ((prefix, label), count) in &counts {
        writeln!(summary, "{prefix} {label}: {count}").unwrap();
    }
    insta::assert_snapshot!(format!("{summary}\n{choices}"));
}

#[test]
fn a_missing_suite_is_a_notice_outside_ci_and_a_failure_under_ci() {
    let missing = suite_path().join("no-such-folder");
    let mut notice = Vec::new();
    assert_eq!(suite_dir(missing.clone(), false, &mut notice), None);
    assert!(String::from_utf8_lossy(&notice).contains("checked nothing"));
    let under_ci = std::panic::catch_unwind(|| suite_dir(missing, true, &mut Vec::new()));
    assert!(under_ci.is_err(), "a missing suite must fail under CI");
}
