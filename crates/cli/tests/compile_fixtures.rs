//! Fixture tests for `schema2iceberg compile`: each `testdata/compile/*.json` is compiled, and
//! its exit code, text output and JSON output make one snapshot.
//!
//! A fixture passes command-line options in a root `"$comment": "args: --partition ts"`.

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::panic)]

use std::path::Path;

use schema2iceberg::{CompileRequest, Format, SchemaInput, SourceOptions};
use schema2iceberg_parser::Draft;

mod support;
use support::fixture_args;

/// Compiles one fixture as the CLI would and renders everything a user sees.
fn check(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("fixture is readable");
    let args = fixture_args(&bytes);
    let mut request = CompileRequest {
        name: path
            .strip_prefix(support::root().canonicalize().expect("root exists"))
            .unwrap_or(path)
            .display()
            .to_string(),
        path: Some(path.to_path_buf()),
        schema: SchemaInput::Bytes(Vec::new()),
        source: SourceOptions {
            partition: Vec::new(),
            draft: None,
            ref_root: Some(support::root().join("testdata/compile")),
            color: false,
        },
        format: Format::Json,
        output: None,
        table: Default::default(),
    };
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let value = rest
            .next()
            .expect("every fixture flag takes a value")
            .clone();
        match flag.as_str() {
            "--partition" => request.source.partition.push(value),
            "--draft" => {
                request.source.draft = Some(Draft::from_flag(&value).expect("valid draft"))
            }
            "--ref-root" => request.source.ref_root = Some(support::root().join(value)),
            other => panic!("unknown fixture flag {other}"),
        }
    }
    let text = support::compile(&request, bytes.clone(), Format::Text);
    let json = support::compile(&request, bytes, Format::Json);
    assert_eq!(text.exit, json.exit, "both formats agree on the exit code");
    format!(
        "args: {}\nexit: {}\n\n--- text ---\n{}\n--- json ---\n{}",
        args.join(" "),
        text.exit,
        text.stdout,
        json.stdout
    )
}

#[test]
fn compile_fixtures() {
    insta::glob!("../../../testdata/compile", "*.json", |path| {
        let path = path.canonicalize().expect("fixture path");
        insta::assert_snapshot!(check(&path));
    });
}
