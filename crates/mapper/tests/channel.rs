//! Channel-configuration fixtures: each `testdata/channel/kinesis/*.json` and
//! `testdata/channel/msk/*.json` is checked on its own, and each folder in
//! `testdata/channel/multi/` is checked as the files of one `check` run. The diagnostics and the
//! partition sources make one snapshot per fixture.

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use schema2iceberg_mapper::channel::check_channel_configs;
use schema2iceberg_parser::JsonFile;
use support::{render_diagnostics, workspace_root};

mod support;

/// Checks one fixture (a file, or a folder whose `*.json` files are given together, in name
/// order) and renders everything the check found.
fn check(path: &Path) -> String {
    let root = workspace_root();
    let paths: Vec<PathBuf> = if path.is_dir() {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(path)
            .expect("fixture folder is readable")
            .map(|entry| entry.expect("folder entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        paths.sort();
        paths
    } else {
        vec![path.to_path_buf()]
    };
    let mut out = String::new();
    let mut files = Vec::new();
    for path in &paths {
        let bytes = std::fs::read(path).expect("fixture is readable");
        let name = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        let (file, parse_diagnostics) = JsonFile::parse(name.clone(), bytes);
        writeln!(out, "file: {name}").unwrap();
        assert!(
            parse_diagnostics.is_empty(),
            "fixture {name} is not clean JSON: {parse_diagnostics:?}"
        );
        files.push(file);
    }
    let result = check_channel_configs(&files);
    out.push('\n');
    out.push_str(&render_diagnostics(&result.diagnostics));
    writeln!(
        out,
        "\npartition sources: {}",
        result.partition_sources.len()
    )
    .unwrap();
    for (name, at) in &result.partition_sources {
        writeln!(
            out,
            "{name:?} at {}:{}:{} {:?}",
            at.file, at.line, at.column, at.pointer
        )
        .unwrap();
    }
    out
}

#[test]
fn kinesis() {
    insta::glob!("../../../testdata/channel/kinesis", "*.json", |path| {
        insta::assert_snapshot!(check(path));
    });
}

#[test]
fn msk() {
    insta::glob!("../../../testdata/channel/msk", "*.json", |path| {
        insta::assert_snapshot!(check(path));
    });
}

#[test]
fn multi() {
    insta::glob!("../../../testdata/channel/multi", "*", |path| {
        // The glob also matches the folder itself; each fixture is one folder inside it.
        if path.is_dir() && path.parent().is_some_and(|p| p.ends_with("multi")) {
            insta::assert_snapshot!(check(path));
        }
    });
}

#[test]
fn every_code_has_a_failing_fixture() {
    let mut seen = std::collections::BTreeSet::new();
    for folder in ["kinesis", "msk", "multi"] {
        let dir = workspace_root().join("testdata/channel").join(folder);
        for entry in std::fs::read_dir(dir).expect("fixture folder") {
            let text = check(&entry.expect("entry").path());
            for code in schema2iceberg_mapper::channel::ALL {
                if text.contains(&format!("[{}]", code.name)) {
                    seen.insert(code.name);
                }
            }
        }
    }
    let missing: Vec<&str> = schema2iceberg_mapper::channel::ALL
        .iter()
        .map(|c| c.name)
        .filter(|n| !seen.contains(n))
        .collect();
    assert!(missing.is_empty(), "codes with no fixture: {missing:?}");
}

/// The two complete `create-channel` requests of docs/ci.md are the valid fixtures, word for
/// word, and pass every check.
#[test]
fn the_create_channel_requests_in_the_ci_docs_are_valid() {
    let root = workspace_root();
    let docs = std::fs::read_to_string(root.join("docs/ci.md")).expect("docs/ci.md");
    for (marker, fixture) in [
        ("kinesis", "testdata/channel/kinesis/combined-valid.json"),
        ("msk", "testdata/channel/msk/msk-request-valid.json"),
    ] {
        let start = docs
            .find(&format!("<!-- create-channel {marker} -->\n```json\n"))
            .unwrap_or_else(|| panic!("docs/ci.md has no {marker} create-channel request"));
        let block = &docs[start..];
        let block = &block[block.find("```json\n").unwrap() + 8..];
        let block = &block[..block.find("```").unwrap()];
        let text = std::fs::read_to_string(root.join(fixture)).expect("fixture");
        assert_eq!(
            block, text,
            "docs/ci.md's {marker} request is not {fixture}"
        );
        let (file, parse) = JsonFile::parse(fixture.to_string(), text.into_bytes());
        assert!(parse.is_empty());
        let checked = check_channel_configs(&[file]);
        assert!(
            checked.diagnostics.is_empty(),
            "{fixture}: {:?}",
            checked.diagnostics
        );
    }
}
