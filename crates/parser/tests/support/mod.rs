//! What the parser's test files share: the workspace root and the serde_json oracle.

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

pub mod oracle;

use std::path::{Path, PathBuf};

/// The workspace root, as the path up from this crate's folder.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}
