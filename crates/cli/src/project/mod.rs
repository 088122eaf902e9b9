//! What several commands read about the user's project: `schema2iceberg.toml` (`config`, with
//! its globs and severity overrides), the channel configuration resolved from flags, the toml
//! and files (`channel`), how a schema and its reference root are read (`source`), and how
//! files are named in reports ([`display_of`]). No command reads these but through here.

pub(crate) mod channel;
pub(crate) mod config;
pub(crate) mod discover;
mod error;
pub(crate) mod severity;
pub(crate) mod source;

pub use error::ProjectError;

use std::path::{Path, PathBuf};

use schema2iceberg_parser::absolute_path;

/// How `check` and `diff` name every file they report, in every format: relative to the folder
/// they run in, with `../` for a file above it, so that GitHub attaches annotations to
/// repository paths.
/// Schemas, the files their `$ref`s reach, channel configurations and the config follow this one
/// rule; only a file on another drive (Windows) keeps its absolute path.
pub(crate) fn display_of(path: &Path, dir: &Path) -> String {
    let path = absolute_path(path);
    let dir = absolute_path(dir);
    let common = path
        .components()
        .zip(dir.components())
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return path.display().to_string();
    }
    let mut relative = PathBuf::new();
    for _ in common..dir.components().count() {
        relative.push("..");
    }
    relative.extend(path.components().skip(common));
    if relative.as_os_str().is_empty() {
        ".".to_string()
    } else {
        relative.display().to_string()
    }
}
