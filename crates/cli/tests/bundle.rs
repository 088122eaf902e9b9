//! Fixture tests for `schema2iceberg bundle`: each `testdata/bundle/<case>/schema.json`, and
//! each `testdata/compile` fixture that uses file references, is bundled into one snapshot
//! (exit code, diagnostics, document). Where it bundles, the bundle must read no other file and
//! compile to the same table and the same diagnostics as the files it came from (but for the
//! places of diagnostics and the `file-ref` warnings). A compile fixture without file
//! references must bundle to its own text, byte for byte.

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(
    clippy::expect_used,
    clippy::panic,
    clippy::unwrap_used,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};

use schema2iceberg::bundle::{Bundle, BundleRequest};
use schema2iceberg::{run_captured, SourceOptions};
use schema2iceberg_mapper::{compile, formats::report, CompileOptions};
use schema2iceberg_parser::{Draft, LoadOptions, Url, Workspace};

mod support;
use support::fixture_args;

/// The fixture's options: its partition fields, draft and reference root.
fn options(path: &Path, default_root: &Path) -> (Vec<String>, Option<Draft>, PathBuf) {
    let bytes = std::fs::read(path).expect("fixture is readable");
    let (mut partition, mut draft, mut root) = (Vec::new(), None, default_root.to_path_buf());
    let args = fixture_args(&bytes);
    for pair in args.chunks(2) {
        let [flag, value] = pair else {
            panic!("every fixture flag takes a value")
        };
        match flag.as_str() {
            "--partition" => partition.push(value.clone()),
            "--draft" => draft = Some(Draft::from_flag(value).expect("valid draft")),
            "--ref-root" => root = support::root().join(value),
            other => panic!("unknown fixture flag {other}"),
        }
    }
    (partition, draft, root)
}

/// The JSON report of one compile with the places of the diagnostics and the `file-ref`
/// warnings left out: what a bundle must reproduce.
fn compiled(ws: &Workspace, partition: &[String]) -> serde_json::Value {
    let compiled = compile(
        ws,
        &CompileOptions {
            partition: partition.to_vec(),
            ..CompileOptions::default()
        },
    );
    let mut json = report::to_json(&compiled);
    let mut kept: Vec<String> = json["diagnostics"]
        .as_array()
        .expect("diagnostics are a list")
        .iter()
        .filter(|d| d["code"] != "file-ref")
        .map(|d| format!("{} {} {}", d["severity"], d["code"], d["field"]))
        .collect();
    kept.sort();
    json["diagnostics"] = serde_json::json!(kept);
    json
}

/// What `bundle` printed: the exit code, standard error (a usage error as the binary renders
/// it) and the document.
struct Bundled {
    exit: u8,
    stderr: String,
    document: String,
}

fn bundled(schema: PathBuf, draft: Option<Draft>, ref_root: PathBuf) -> Bundled {
    let request = BundleRequest {
        schema,
        source: SourceOptions {
            draft,
            ref_root: Some(ref_root),
            ..SourceOptions::default()
        },
        output: None,
    };
    match run_captured::<Bundle>(&request) {
        Ok((outcome, document)) => Bundled {
            exit: outcome.exit,
            stderr: outcome.stderr,
            document,
        },
        Err(e) => Bundled {
            exit: 2,
            stderr: format!("error: {e}\n"),
            document: String::new(),
        },
    }
}

/// Bundles one schema, checks the bundle against the original, and renders the snapshot.
fn check(relative: &Path, default_root: &Path) -> String {
    let absolute = support::root().join(relative);
    let (partition, draft, root) = options(&absolute, default_root);
    // Relative to the package, which is where cargo runs the tests: stable names in snapshots.
    let shown = Path::new("../..").join(relative);
    let outcome = bundled(shown.clone(), draft, root.clone());
    if outcome.exit == 0 {
        let original = Workspace::open(
            &shown,
            LoadOptions {
                draft,
                ref_root: Some(root),
            },
        )
        .expect("the fixture opens");
        // No reference root: a file reference left in the bundle would be an error.
        let base = Url::from_file_path(absolute.canonicalize().unwrap()).unwrap();
        let bundled = Workspace::from_bytes(
            "bundle.json",
            outcome.document.clone().into_bytes(),
            base,
            LoadOptions {
                draft,
                ref_root: None,
            },
        );
        assert_eq!(
            bundled.documents().len(),
            1,
            "the bundle reads no other file"
        );
        assert_eq!(
            compiled(&bundled, &partition),
            compiled(&original, &partition),
            "the bundle of {} compiles as the original does",
            relative.display()
        );
    }
    format!(
        "exit: {}\n--- stderr ---\n{}--- bundle ---\n{}",
        outcome.exit, outcome.stderr, outcome.document
    )
}

#[test]
fn bundle_fixtures() {
    let root = support::root().canonicalize().expect("root exists");
    insta::glob!("../../../testdata/bundle", "*/schema.json", |path| {
        let relative = path.strip_prefix(&root).expect("inside the repository");
        let case_dir = path.parent().expect("a case folder");
        insta::assert_snapshot!(check(relative, case_dir));
    });
}

/// Every compile fixture: the ones with file references get a snapshot, the others must come
/// back unchanged.
#[test]
fn compile_fixtures_bundle() {
    let root = support::root().canonicalize().expect("root exists");
    let refs_root = support::root().join("testdata/compile");
    insta::glob!("../../../testdata/compile", "*.json", |path| {
        let relative = path.strip_prefix(&root).expect("inside the repository");
        let bytes = std::fs::read(path).expect("fixture is readable");
        let value: Option<serde_json::Value> = serde_json::from_slice(&bytes).ok();
        let mut refs = Vec::new();
        if let Some(value) = &value {
            collect_refs(value, &mut refs);
        }
        if refs.iter().any(|r| !r.starts_with('#')) {
            insta::assert_snapshot!(check(relative, &refs_root));
        } else {
            let outcome = bundled(Path::new("../..").join(relative), None, refs_root.clone());
            if outcome.exit == 0 {
                assert_eq!(
                    outcome.document.as_bytes(),
                    bytes,
                    "{} is unchanged",
                    relative.display()
                );
            }
        }
    });
}

fn collect_refs(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, item) in map {
                match (key.as_str(), item) {
                    ("$ref", serde_json::Value::String(text)) => out.push(text.clone()),
                    _ => collect_refs(item, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|i| collect_refs(i, out)),
        _ => {}
    }
}
