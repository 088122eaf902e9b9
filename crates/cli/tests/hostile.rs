//! Hostile input: every case in `testdata/hostile/` (and a 100 MB schema made on the fly) ends
//! with a clear diagnostic, never a panic, a stack overflow or an out-of-memory kill. Time and
//! memory are bounded by the budgets in docs/mapping.md; the figures are in docs/dev/performance.md.

// A test should stop loudly; the no-panic rule is for code that reads input.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fmt::Write;
use std::path::{Path, PathBuf};

use schema2iceberg::{CompileRequest, Format, SchemaInput, SourceOptions};

mod support;

fn hostile_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/hostile")
        .canonicalize()
        .unwrap()
}

/// Compiles `bytes` as `name` (in testdata/hostile, which is also the reference root) and
/// summarises the outcome: the exit code and every diagnostic, messages cut at 160 characters.
fn check(name: &str, bytes: Vec<u8>) -> String {
    let dir = hostile_dir();
    let request = CompileRequest {
        name: name.to_string(),
        path: Some(dir.join(name)),
        schema: SchemaInput::Bytes(Vec::new()),
        source: SourceOptions {
            partition: Vec::new(),
            draft: None,
            ref_root: Some(dir),
            color: false,
        },
        format: Format::Json,
        output: None,
        table: Default::default(),
    };
    let out = support::compile(&request, bytes, Format::Json);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON output");
    let mut summary = format!("exit: {}\n", out.exit);
    for d in report["diagnostics"].as_array().unwrap() {
        let message: String = d["message"].as_str().unwrap().chars().take(160).collect();
        writeln!(
            summary,
            "{} {} {}:{} {:?}: {message}",
            d["severity"].as_str().unwrap(),
            d["code"].as_str().unwrap(),
            d["line"],
            d["column"],
            d["pointer"]
                .as_str()
                .unwrap()
                .chars()
                .take(80)
                .collect::<String>(),
        )
        .unwrap();
    }
    summary
}

#[test]
fn hostile_fixtures() {
    insta::glob!("../../../testdata/hostile", "*.json", |path| {
        let name = path.file_name().unwrap().to_str().unwrap();
        if name == "outside-link.json" {
            return; // the symlink that refs-outside-root.json must not follow
        }
        let bytes = std::fs::read(path).unwrap();
        insta::assert_snapshot!(check(name, bytes));
    });
}

/// 100 MB of schema: 1.2 million properties. It is read whole, and the column budget stops the
/// expansion with `too-many-columns`.
#[test]
fn a_100_mb_schema() {
    let mut text = String::with_capacity(101 * 1024 * 1024);
    text.push_str(
        r#"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"#,
    );
    let mut i = 0;
    while text.len() < 100 * 1024 * 1024 {
        if i > 0 {
            text.push(',');
        }
        write!(
            text,
            r#""column_{i:07}_with_a_long_descriptive_name":{{"type":"string","maxLength":64}}"#
        )
        .unwrap();
        i += 1;
    }
    text.push_str("}}");
    assert!(text.len() >= 100 * 1024 * 1024);
    insta::assert_snapshot!(check("generated-100mb.json", text.into_bytes()));
}

/// A wide object whose every property is required: 200,000 of them. Looking each column up in
/// `required` used to scan the list, so this took minutes; the budget ends it with
/// `too-many-columns` in a fraction of a second (release build).
#[test]
fn a_wide_object_with_every_property_required() {
    let count = 200_000;
    let mut text = String::from(
        r#"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"#,
    );
    for i in 0..count {
        if i > 0 {
            text.push(',');
        }
        write!(text, r#""c{i}":{{"type":"string"}}"#).unwrap();
    }
    text.push_str(r#"},"required":["#);
    for i in 0..count {
        if i > 0 {
            text.push(',');
        }
        write!(text, r#""c{i}""#).unwrap();
    }
    text.push_str("]}");
    insta::assert_snapshot!(check("generated-wide-required.json", text.into_bytes()));
}
