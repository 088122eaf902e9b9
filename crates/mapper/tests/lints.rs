//! Fixture tests for the lints: each `testdata/lint/*.json` is compiled with lints on, and every
//! diagnostic it gets (lints and compiler codes alike) makes one snapshot.
//!
//! A fixture passes options in a root `"$comment": "args: --partition ts"`.

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::fmt::Write as _;
use std::path::Path;

use schema2iceberg_mapper::{compile_source, CompileOptions};
use support::fixture_args;

mod support;

/// Compiles one fixture with lints on and renders its diagnostics, one block each.
fn check(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("fixture is UTF-8 text");
    let args = fixture_args(text.as_bytes());
    let mut options = CompileOptions {
        lints: true,
        ..CompileOptions::default()
    };
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let value = rest.next().expect("every fixture flag takes a value");
        match flag.as_str() {
            "--partition" => options.partition.push(value.clone()),
            other => panic!("unknown fixture flag {other}"),
        }
    }
    let name = format!(
        "testdata/lint/{}",
        path.file_name().expect("fixture file").to_string_lossy()
    );
    let compiled = compile_source(&name, &text, &options);
    let mut out = format!(
        "args: {}\nschema: {}\n",
        args.join(" "),
        if compiled.schema.is_some() {
            "built"
        } else {
            "none"
        }
    );
    for d in &compiled.diagnostics {
        let l = &d.location;
        write!(
            out,
            "\n{}[{}] {}:{}:{} pointer={:?}",
            d.severity, d.code, l.file, l.line, l.column, l.pointer
        )
        .unwrap();
        if let Some(field) = &d.field {
            write!(out, " field={field:?}").unwrap();
        }
        write!(out, "\n  {}\n", d.message).unwrap();
        if let Some(help) = &d.help {
            writeln!(out, "  help: {help}").unwrap();
        }
    }
    out
}

#[test]
fn lint_fixtures() {
    insta::glob!("../../../testdata/lint", "*.json", |path| {
        insta::assert_snapshot!(check(path));
    });
}
