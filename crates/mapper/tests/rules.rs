//! The mapping rules of docs/mapping.md, tested where they live: each `testdata/compile/*.json`
//! is compiled through the mapper's own API, and the Iceberg schema and partition spec (in
//! Iceberg's JSON) and every diagnostic make one snapshot. The cli's `compile_fixtures` test
//! keeps the snapshots of what `schema2iceberg compile` renders from the same fixtures.
//!
//! A fixture passes options in a root `"$comment": "args: --partition ts"`.

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;

use schema2iceberg_mapper::compile;
use schema2iceberg_parser::{Url, Workspace};
use support::{fixture_args, fixture_options, render_diagnostics, workspace_root};

/// Compiles one fixture as the mapper's API does and renders the table and its diagnostics.
fn check(path: &Path) -> String {
    let root = workspace_root();
    let bytes = std::fs::read(path).expect("fixture is readable");
    let args = fixture_args(&bytes);
    let (options, load) = fixture_options(&args, &root.join("testdata/compile"));
    let name = path
        .strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string();
    let base = Url::from_file_path(path).expect("the fixture path is absolute");
    let ws = Workspace::from_bytes(&name, bytes, base, load);
    let compiled = compile(&ws, &options);
    let pretty = |value: Option<String>| value.unwrap_or_else(|| "none".to_string());
    let schema = compiled
        .schema
        .as_ref()
        .map(|s| serde_json::to_string_pretty(s).expect("the schema writes as JSON"));
    let spec = compiled
        .partition_spec
        .as_ref()
        .map(|s| serde_json::to_string_pretty(s).expect("the spec writes as JSON"));
    format!(
        "args: {}\n\n--- schema ---\n{}\n--- partition spec ---\n{}\n--- {}",
        args.join(" "),
        pretty(schema),
        pretty(spec),
        render_diagnostics(&compiled.diagnostics)
    )
}

#[test]
fn rule_fixtures() {
    insta::glob!("../../../testdata/compile", "*.json", |path| {
        let path = path.canonicalize().expect("fixture path");
        insta::assert_snapshot!(check(&path));
    });
}
