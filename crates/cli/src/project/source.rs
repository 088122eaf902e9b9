//! The one way every command that reads a schema turns its bytes into a `Workspace`: the name
//! diagnostics show, the base URL its relative `$ref`s resolve against, the reference root and
//! the draft. It sits on the parser's `Workspace::from_bytes`; the commands differ only in the
//! `SchemaSource` they pass.

use std::io::Read;
use std::path::{Path, PathBuf};

use schema2iceberg_parser::{absolute_path, default_ref_root, Draft, LoadOptions, Url, Workspace};

use super::error::ProjectError;

/// What every command that reads a schema takes from `--draft`, `--ref-root`, `--partition` and
/// `--color`: one struct in the requests of `compile`, `check`, `diff` and `bundle`, and what
/// `records` and `deliver` read their schema with (`RecordSourceArgs::source_options`). On the
/// command line the four flags stay where each command's `--help` lists them (`--partition`
/// first, `--color` last): `--partition` is a list in `compile`, one value in `check`, `diff`,
/// `records` and `deliver`, and absent from `bundle`.
#[derive(Debug, Clone, Default)]
pub struct SourceOptions {
    /// The draft override (`--draft`).
    pub draft: Option<Draft>,
    /// The folder that file `$ref`s may read from (`--ref-root`); `None` for rule 17's default.
    pub ref_root: Option<PathBuf>,
    /// The partition fields (`--partition`): at most one but in `compile`, none in `bundle`.
    pub partition: Vec<String>,
    /// Whether to color what the command renders (`--color`, decided for the stream it goes to).
    pub color: bool,
}

/// Where a schema's text comes from, and how to read it.
#[derive(Debug, Clone)]
pub(crate) struct SchemaSource<'a> {
    /// The name diagnostics show.
    pub display: &'a str,
    /// The file the text was read from: the base URL and the default reference root come from
    /// it. `None` for standard input, which resolves against the current directory.
    pub path: Option<&'a Path>,
    /// The reference root; `None` for rule 17's default: the parser's `default_ref_root` of
    /// `path`, or the current directory for standard input.
    pub ref_root: Option<PathBuf>,
    /// The draft override.
    pub draft: Option<Draft>,
}

/// Builds the workspace of one schema from its bytes, reading every file its `$ref`s reach
/// inside the reference root.
pub(crate) fn workspace(source: &SchemaSource<'_>, bytes: Vec<u8>) -> Workspace {
    let cwd = || std::env::current_dir().unwrap_or_default();
    // `.` and `..` removed by their text, as URLs resolve them: a base URL that kept a `..`
    // segment would have a `$ref`'s own `..` cancel it instead of the folder above.
    let absolute = source
        .path
        .map_or_else(|| cwd().join("<stdin>"), absolute_path);
    let ref_root = source
        .ref_root
        .clone()
        .unwrap_or_else(|| source.path.map_or_else(cwd, default_ref_root));
    // A path that is not absolute has no file URL; its relative references then resolve
    // against a stand-in, and file references fail as outside the root.
    let base = Url::from_file_path(&absolute).unwrap_or_else(|()| fallback_base());
    let options = LoadOptions {
        draft: source.draft,
        ref_root: Some(ref_root),
    };
    Workspace::from_bytes(source.display, bytes, base, options)
}

/// `--ref-root`, when given, must be a folder (`compile` and `bundle` refuse anything else).
pub(crate) fn ref_root_is_dir(ref_root: Option<&Path>) -> Result<(), ProjectError> {
    match ref_root {
        Some(root) if !root.is_dir() => Err(ProjectError::RefRootNotDir(root.to_path_buf())),
        _ => Ok(()),
    }
}

fn fallback_base() -> Url {
    match Url::parse("file:///schema.json") {
        Ok(url) => url,
        Err(_) => fallback_base(),
    }
}

/// The schema's bytes, from the file or (`from_stdin`) standard input; the error says which
/// could not be read. `compile` and `records` read their schema through it.
pub(crate) fn read_schema(path: &Path, from_stdin: bool) -> Result<Vec<u8>, ProjectError> {
    if from_stdin {
        let mut buffer = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buffer)
            .map_err(ProjectError::Stdin)?;
        Ok(buffer)
    } else {
        std::fs::read(path).map_err(|source| ProjectError::Read {
            shown: path.display().to_string(),
            source,
        })
    }
}
