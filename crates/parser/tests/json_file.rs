//! `JsonFile::parse` on each `testdata/json-file/*.json`: what the JSON reader reports becomes
//! diagnostics in one place, for schema documents and other JSON files (channel configurations)
//! alike. One snapshot holds every file's diagnostics.

// A test should stop loudly; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::fmt::Write as _;

use schema2iceberg_parser::JsonFile;

mod support;

/// One file's diagnostics, one line each (and its help below it).
fn check(name: &str, bytes: Vec<u8>) -> String {
    let (file, diagnostics) = JsonFile::parse(name, bytes);
    let mut out = format!(
        "{name}: {}\n",
        if file.json.is_some() {
            "JSON"
        } else {
            "not JSON"
        }
    );
    for d in &diagnostics {
        writeln!(
            out,
            "  {}[{}] {}:{} {:?} {}",
            d.severity, d.code, d.location.line, d.location.column, d.location.pointer, d.message
        )
        .unwrap();
        if let Some(help) = &d.help {
            writeln!(out, "    help: {help}").unwrap();
        }
    }
    out
}

#[test]
fn json_file_fixtures() {
    let dir = support::workspace_root().join("testdata/json-file");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("testdata/json-file is readable")
        .map(|entry| entry.expect("folder entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no fixture in {}", dir.display());
    let mut out = String::new();
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        out.push_str(&check(
            &name,
            std::fs::read(path).expect("fixture is readable"),
        ));
    }
    insta::assert_snapshot!(out);
}
