//! Fixture tests for the table comparison: each `testdata/diff/<case>/` holds `old.json` and
//! `new.json`, both are compiled, and every change with its verdicts (the channel's for both
//! record formats) makes one snapshot.
//!
//! An optional `args` file holds `--partition F` (both sides), `--old-partition F` or
//! `--new-partition F` (one side).

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::fmt::Write as _;
use std::path::Path;

use schema2iceberg_mapper::channel::RecordFormat;
use schema2iceberg_mapper::diff::{diff, fails, FailOn, Side};
use schema2iceberg_mapper::{compile_source, CompileOptions, Compiled};

/// Compiles both sides of one fixture folder and renders the changes, then the fail levels.
fn check(dir: &Path) -> String {
    let args = std::fs::read_to_string(dir.join("args")).unwrap_or_default();
    let sources = CompileOptions {
        column_sources: true,
        ..CompileOptions::default()
    };
    let mut old_options = sources.clone();
    let mut new_options = sources;
    let words: Vec<&str> = args.split_whitespace().collect();
    for pair in words.chunks(2) {
        let [flag, value] = pair else {
            panic!("every fixture flag takes a value: {args:?}");
        };
        let value = (*value).to_string();
        match *flag {
            "--partition" => {
                old_options.partition.push(value.clone());
                new_options.partition.push(value);
            }
            "--old-partition" => old_options.partition.push(value),
            "--new-partition" => new_options.partition.push(value),
            other => panic!("unknown fixture flag {other}"),
        }
    }
    let compile = |name: &str, options: &CompileOptions| -> Compiled {
        let text = std::fs::read_to_string(dir.join(name)).expect("fixture side is UTF-8 text");
        let compiled = compile_source(name, &text, options);
        assert!(
            !compiled.has_errors(),
            "{name} must compile: {:#?}",
            compiled.diagnostics
        );
        compiled
    };
    let old = compile("old.json", &old_options);
    let new = compile("new.json", &new_options);
    let side = |c: &Compiled| -> (iceberg::spec::Schema, iceberg::spec::PartitionSpec) {
        (
            c.schema.clone().expect("a compiled schema"),
            c.partition_spec.clone().expect("a compiled partition spec"),
        )
    };
    let (old_schema, old_spec) = side(&old);
    let (new_schema, new_spec) = side(&new);
    let changes = diff(
        &Side {
            schema: &old_schema,
            partition_spec: &old_spec,
            columns: &old.columns,
        },
        &Side {
            schema: &new_schema,
            partition_spec: &new_spec,
            columns: &new.columns,
        },
        &[RecordFormat::Json, RecordFormat::GsrJson],
    );
    let name = |v: serde_json::Value| v.as_str().expect("a kebab-case name").to_string();
    let mut out = format!("args: {}\n", words.join(" "));
    if changes.is_empty() {
        out.push_str("\nno changes\n");
    }
    for c in &changes {
        let kind = name(serde_json::to_value(c.kind).unwrap());
        let table = name(serde_json::to_value(c.table).unwrap());
        let iceberg = name(serde_json::to_value(c.iceberg).unwrap());
        let value = |v: &Option<String>| {
            v.as_deref()
                .map_or("none".to_string(), |s| format!("{s:?}"))
        };
        write!(
            out,
            "\n{kind} `{}`: {} → {}\n",
            c.path,
            value(&c.old),
            value(&c.new)
        )
        .unwrap();
        match &c.location {
            Some(l) => writeln!(
                out,
                "  at {}:{}:{} {:?}",
                l.file, l.line, l.column, l.pointer
            ),
            None => writeln!(out, "  at nowhere"),
        }
        .unwrap();
        writeln!(out, "  table: {table}").unwrap();
        for verdict in &c.channel {
            writeln!(
                out,
                "  channel ({}): {}: {}",
                name(serde_json::to_value(verdict.record_format).unwrap()),
                name(serde_json::to_value(verdict.records).unwrap()),
                verdict.reason
            )
            .unwrap();
        }
        writeln!(out, "  iceberg: {iceberg}\n  reason: {}", c.reason).unwrap();
        if let Some(note) = &c.note {
            writeln!(out, "  note: {note}").unwrap();
        }
    }
    write!(
        out,
        "\nfails(table-change)={}, fails(dead-letter)={}, fails(iceberg-incompatible)={}, fails(never)={}\n",
        fails(&changes, FailOn::TableChange),
        fails(&changes, FailOn::DeadLetter),
        fails(&changes, FailOn::IcebergIncompatible),
        fails(&changes, FailOn::Never)
    )
    .unwrap();
    // The JSON form is what `diff --format json` prints for each change (the CLI adds the place).
    write!(
        out,
        "\n--- json ---\n{}\n",
        serde_json::to_string_pretty(&changes).unwrap()
    )
    .unwrap();
    out
}

#[test]
fn diff_fixtures() {
    // `?*` matches the case folders only (`*` would match the base folder too), so each snapshot is named after its case.
    insta::glob!("../../../testdata/diff", "?*", |dir| {
        insta::assert_snapshot!(check(dir));
    });
}
