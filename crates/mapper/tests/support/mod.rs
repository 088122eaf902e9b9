//! What the mapper's fixture tests share: the workspace root, the options a fixture asks for in
//! its root `$comment`, and diagnostics rendered for a snapshot, one per line with severity,
//! code, place, pointer, message and help.

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use schema2iceberg_mapper::CompileOptions;
use schema2iceberg_parser::{Diagnostic, Draft, LoadOptions};

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root exists")
}

/// The options a fixture asks for in its root `"$comment": "args: --partition ts"`.
pub fn fixture_args(bytes: &[u8]) -> Vec<String> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return Vec::new();
    };
    value
        .get("$comment")
        .and_then(|c| c.as_str())
        .and_then(|c| c.strip_prefix("args:"))
        .map(|args| args.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The compile and load options of a fixture's `--partition`, `--draft` and `--ref-root`
/// (relative to the workspace root); `ref_root` when it names none.
pub fn fixture_options(args: &[String], ref_root: &Path) -> (CompileOptions, LoadOptions) {
    let mut options = CompileOptions::default();
    let mut load = LoadOptions {
        draft: None,
        ref_root: Some(ref_root.to_path_buf()),
    };
    for pair in args.chunks(2) {
        let [flag, value] = pair else {
            panic!("every fixture flag takes a value: {args:?}");
        };
        match flag.as_str() {
            "--partition" => options.partition.push(value.clone()),
            "--draft" => load.draft = Some(Draft::from_flag(value).expect("valid draft")),
            "--ref-root" => load.ref_root = Some(workspace_root().join(value)),
            other => panic!("unknown fixture flag {other}"),
        }
    }
    (options, load)
}

/// `diagnostics: N`, then each diagnostic and its help.
pub fn render_diagnostics(diagnostics: &[Diagnostic]) -> String {
    let mut out = format!("diagnostics: {}\n", diagnostics.len());
    for d in diagnostics {
        let _ = writeln!(
            out,
            "{}[{}] {}:{}:{} {:?}\n  {}",
            d.severity,
            d.code,
            d.location.file,
            d.location.line,
            d.location.column,
            d.location.pointer,
            d.message
        );
        if let Some(help) = &d.help {
            let _ = writeln!(out, "  help: {help}");
        }
    }
    out
}
