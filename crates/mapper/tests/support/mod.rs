//! What the mapper's fixture tests share: the workspace root, and diagnostics rendered for a
//! snapshot, one per line with severity, code, place, pointer, message and help.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use schema2iceberg_parser::Diagnostic;

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root exists")
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
