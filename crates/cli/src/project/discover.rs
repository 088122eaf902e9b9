//! Which files `check` reads: files, directories searched recursively for `*.json`, and globs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use schema2iceberg_parser::absolute_path;

/// A path or glob that finds nothing, or does not parse.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    /// A glob that matches no JSON file.
    #[error("`{0}` matches no JSON file")]
    NoMatch(String),
    /// A path that is neither a file, a folder nor a glob.
    #[error("`{0}` does not exist")]
    Missing(String),
    /// A glob that does not parse.
    #[error("`{text}` is not a valid glob: {source}")]
    BadGlob {
        text: String,
        source: globset::Error,
    },
    /// Globs that cannot be built into one set.
    #[error("{0}")]
    GlobSet(globset::Error),
}

/// Expands the command-line paths into a sorted list of files. A path that is neither a file, a
/// directory nor a glob matching something is an error, named as the user wrote it (`shown`).
pub fn expand(
    paths: &[(String, PathBuf)],
    skip: &GlobSet,
    base: &Path,
) -> Result<Vec<PathBuf>, DiscoverError> {
    let mut found = BTreeSet::new();
    for (shown, path) in paths {
        let text = path.to_string_lossy();
        if path.is_file() {
            found.insert(path.clone());
        } else if path.is_dir() {
            walk(path, &mut found, skip, base);
        } else if text.contains(['*', '?', '[', '{']) {
            let glob = path_glob(&text)?.compile_matcher();
            let root = glob_root(&text);
            let mut walked = BTreeSet::new();
            walk(&root, &mut walked, skip, base);
            let matched: Vec<PathBuf> = walked.into_iter().filter(|p| glob.is_match(p)).collect();
            if matched.is_empty() {
                return Err(DiscoverError::NoMatch(shown.clone()));
            }
            found.extend(matched);
        } else {
            return Err(DiscoverError::Missing(shown.clone()));
        }
    }
    Ok(found.into_iter().collect())
}

/// A file's identity (device and inode), to know a path for the file another handle has open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId {
    device: u64,
    inode: u64,
}

impl FileId {
    /// The regular file standard output writes into, if it is one. Only Unix says which file a
    /// handle has open; elsewhere this is `None`, and nothing is skipped.
    pub fn of_stdout() -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            let handle = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
            let metadata = std::fs::File::from(handle).metadata().ok()?;
            metadata.is_file().then(|| FileId::of_metadata(&metadata))
        }
        #[cfg(not(unix))]
        {
            None
        }
    }

    /// The identity of the file at `path`.
    pub fn of_path(path: &Path) -> Option<FileId> {
        #[cfg(unix)]
        {
            Some(FileId::of_metadata(&std::fs::metadata(path).ok()?))
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }

    #[cfg(unix)]
    fn of_metadata(metadata: &std::fs::Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId {
            device: metadata.dev(),
            inode: metadata.ino(),
        }
    }
}

/// The directory part of a glob before its first wildcard.
fn glob_root(glob: &str) -> PathBuf {
    let literal: Vec<&str> = glob
        .split('/')
        .take_while(|part| !part.contains(['*', '?', '[', '{']))
        .collect();
    if literal.is_empty() {
        PathBuf::from(".")
    } else {
        PathBuf::from(literal.join("/"))
    }
}

/// The `*.json` files under `dir`: not hidden ones, not in `target` or `node_modules`, not what
/// the repository's `.gitignore` files and `.git/info/exclude` ignore (inside a git repository,
/// as ripgrep reads them; a user's global excludes file is not read, so that every machine
/// checks the same files), and not in a `deliver` warehouse (a folder holding `catalog.db` and
/// `deliver.lock`), whose metadata files are JSON but no schemas.
fn walk(dir: &Path, found: &mut BTreeSet<PathBuf>, skip: &GlobSet, base: &Path) {
    let skip = skip.clone();
    let base = base.to_path_buf();
    let entries = ignore::WalkBuilder::new(dir)
        .follow_links(false)
        .hidden(true)
        .git_global(false)
        .git_ignore(true)
        .git_exclude(true)
        .parents(true)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            !is_skipped(e.path(), &skip, &base) && !is_build_folder(e) && !is_warehouse(e)
        })
        .build();
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if entry.file_type().is_some_and(|t| t.is_file())
            && path.extension().is_some_and(|e| e == "json")
        {
            found.insert(path.to_path_buf());
        }
    }
}

fn is_build_folder(entry: &ignore::DirEntry) -> bool {
    entry.depth() > 0
        && entry
            .file_name()
            .to_str()
            .is_some_and(|n| n == "target" || n == "node_modules")
}

/// A folder that `deliver` wrote: its catalog and its lock are there.
fn is_warehouse(entry: &ignore::DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_dir())
        && entry.path().join("catalog.db").is_file()
        && entry.path().join("deliver.lock").is_file()
}

/// Whether `path` matches a skip glob, tried both as given and relative to `base` (the folder
/// of the repository config).
pub fn is_skipped(path: &Path, skip: &GlobSet, base: &Path) -> bool {
    matches_any(path, skip, base)
}

/// Whether `path` matches `set`, as given or relative to `base`.
pub fn matches_any(path: &Path, set: &GlobSet, base: &Path) -> bool {
    let cleaned = path.strip_prefix("./").unwrap_or(path);
    if set.is_match(cleaned) {
        return true;
    }
    // `..` removed by its text, so that `schemas/../schemas/a.json` matches `schemas/*.json`.
    absolute_path(path)
        .strip_prefix(absolute_path(base))
        .is_ok_and(|relative| set.is_match(relative))
}

/// A glob with shell semantics for paths: `*` stays within one folder, `**` crosses folders.
fn path_glob(text: &str) -> Result<Glob, DiscoverError> {
    GlobBuilder::new(text)
        .literal_separator(true)
        .build()
        .map_err(|source| DiscoverError::BadGlob {
            text: text.to_string(),
            source,
        })
}

/// Builds a glob set; an invalid glob is reported by its text.
pub fn glob_set<'a>(globs: impl IntoIterator<Item = &'a str>) -> Result<GlobSet, DiscoverError> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(path_glob(glob)?);
    }
    builder.build().map_err(DiscoverError::GlobSet)
}
