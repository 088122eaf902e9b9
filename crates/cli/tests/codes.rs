//! The code tables against the docs and the fixtures: the code index of docs/mapping.md is
//! generated from the tables, every rule a code names is a section of docs/mapping.md, and every
//! code is produced by at least one fixture's snapshot.

// A test should stop loudly; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::indexing_slicing)]

use std::collections::BTreeSet;

use schema2iceberg::codes::{with_code_index, TABLES};

mod support;

fn read(relative: &str) -> String {
    std::fs::read_to_string(support::root().join(relative)).unwrap_or_default()
}

/// Snapshots whose output comes from `../shared` (the corpus, Mozilla's schemas) rather than
/// from a fixture in testdata/: they do not count, since a missing corpus would leave a code
/// untested while the snapshot still names it.
const NOT_FIXTURES: &[&str] = &["check__corpus.snap", "corpus__", "mozilla_bq__"];

/// Every code that some fixture's snapshot shows as emitted, in any of the shapes the tests
/// print a diagnostic: `error[code]` (text), `"code": "code"` (JSON) and `error code 1:2`
/// (the hostile tests' summary lines).
fn produced_codes() -> BTreeSet<String> {
    let mut produced = BTreeSet::new();
    for dir in [
        "crates/cli/tests/snapshots",
        "crates/mapper/tests/snapshots",
    ] {
        for entry in std::fs::read_dir(support::root().join(dir)).expect("snapshot folder") {
            let path = entry.expect("snapshot entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if NOT_FIXTURES.iter().any(|prefix| name.starts_with(prefix)) {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("snapshot is text");
            for table in TABLES {
                for code in table.codes {
                    // `check` can change a severity, so any severity counts.
                    let shown = ["error", "warning", "note"].iter().any(|severity| {
                        text.contains(&format!("{severity}[{}]", code.name))
                            || text.contains(&format!("\n{severity} {} ", code.name))
                    }) || text.contains(&format!("\"code\": \"{}\"", code.name));
                    if shown {
                        produced.insert(code.name.to_string());
                    }
                }
            }
        }
    }
    produced
}

#[test]
fn every_code_is_produced_by_a_fixture() {
    let produced = produced_codes();
    let missing: Vec<&str> = TABLES
        .iter()
        .flat_map(|table| table.codes.iter())
        .map(|code| code.name)
        .filter(|name| !produced.contains(*name))
        .collect();
    assert!(
        missing.is_empty(),
        "no fixture snapshot produces these codes; add a fixture in testdata/ for each: {}",
        missing.join(", ")
    );
}

#[test]
fn the_code_index_is_current() {
    let published = read("docs/mapping.md");
    let current = with_code_index(&published).expect("docs/mapping.md has the code index markers");
    assert!(
        published == current,
        "the code index in docs/mapping.md is stale: run `cargo xtask codegen`"
    );
}

#[test]
fn every_code_names_a_rule_or_a_section_that_exists() {
    let mapping = read("docs/mapping.md");
    for code in TABLES.iter().flat_map(|table| table.codes.iter()) {
        assert!(
            !code.rules.is_empty() || code.section.is_some(),
            "`{}` names neither a rule nor a section",
            code.name
        );
        for rule in code.rules {
            assert!(
                mapping.contains(&format!("\n### {rule}. ")),
                "`{}` names rule {rule}, which docs/mapping.md does not have",
                code.name
            );
        }
    }
}

#[test]
fn every_table_is_declared_in_the_file_it_names() {
    for table in TABLES {
        let source = read(table.file);
        for code in table.codes {
            assert!(
                source.contains(&format!("\"{}\"", code.name)),
                "`{}` is not declared in {}",
                code.name,
                table.file
            );
        }
    }
}

/// The codes that some fixture's snapshot shows without a help line: a text block
/// (`severity[code]: …` up to its blank line) with no `= help:`, or a JSON diagnostic whose
/// `"help"` is null.
fn codes_shown_without_help() -> BTreeSet<String> {
    let names: BTreeSet<&str> = TABLES
        .iter()
        .flat_map(|table| table.codes.iter())
        .map(|code| code.name)
        .collect();
    let mut without = BTreeSet::new();
    for dir in [
        "crates/cli/tests/snapshots",
        "crates/mapper/tests/snapshots",
    ] {
        for entry in std::fs::read_dir(support::root().join(dir)).expect("snapshot folder") {
            let text = std::fs::read_to_string(entry.expect("snapshot entry").path())
                .expect("snapshot is text");
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                let Some(code) = ["error[", "warning[", "note["]
                    .iter()
                    .find_map(|open| line.strip_prefix(open))
                    .and_then(|rest| rest.split_once("]:"))
                    .map(|(code, _)| code)
                else {
                    continue;
                };
                let helped = lines[i + 1..]
                    .iter()
                    .take_while(|l| !l.is_empty())
                    .any(|l| l.trim_start().starts_with("= help:"));
                if names.contains(code) && !helped {
                    without.insert(code.to_string());
                }
            }
            for (at, _) in text.match_indices("\"code\": \"") {
                let rest = &text[at + 9..];
                let Some(code) = rest.split('"').next() else {
                    continue;
                };
                // The help of this diagnostic: the next `"help"`, unless another `"code"` comes first.
                let help = rest.find("\"help\": ");
                let next_code = rest.find("\"code\": ").unwrap_or(usize::MAX);
                if let Some(help) = help.filter(|h| *h < next_code) {
                    if rest[help..].starts_with("\"help\": null") && names.contains(code) {
                        without.insert(code.to_string());
                    }
                }
            }
        }
    }
    without
}

/// Every code says what to do about it: its table has a fix, and every diagnostic a fixture
/// shows, in text or JSON, carries a help line.
#[test]
fn every_code_has_help() {
    for code in TABLES.iter().flat_map(|table| table.codes.iter()) {
        assert!(
            !code.fix.trim().is_empty(),
            "`{}` has no fix in its table",
            code.name
        );
    }
    let without = codes_shown_without_help();
    assert!(
        without.is_empty(),
        "these codes are shown without a help line in a fixture's snapshot: {}",
        without.into_iter().collect::<Vec<_>>().join(", ")
    );
}
