//! What a run that stopped part-way left behind, found and removed by the next run under the
//! warehouse lock, before it writes anything: the spill folder, dead-letter files of cycles
//! that never committed, half-written `.partial` files, and the data and metadata files that
//! `deliver` wrote and that no snapshot and no metadata-log entry references.
//!
//! What is `deliver`'s is known by name: data files `data-*.parquet` (the prefix of every data
//! file a cycle writes), the `iceberg` crate's metadata files (`*.metadata.json`, manifest lists
//! `snap-*.avro`, manifests `*-m<N>.avro`), dead-letter files `cycle-<N>.ndjson` and their
//! `.cycle-<N>.ndjson.partial`. Nothing else in the warehouse is touched.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use iceberg::table::Table;

use super::hours::SPILL_FOLDER;
use super::progress::Progress;

/// The table's manifests, which tell what no commit lists, cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the table's manifests to find files no commit lists: {0}")]
pub(crate) struct RecoverError(#[source] Box<iceberg::Error>);

/// What the clean-up did.
#[derive(Debug, Default)]
pub(crate) struct Recovered {
    /// The files (and folders) removed.
    pub(crate) removed: Vec<String>,
    /// The files that could not be removed, each with why.
    pub(crate) left: Vec<String>,
}

impl Recovered {
    fn remove(&mut self, path: &Path) {
        let removed = if path.is_dir() && !path.is_symlink() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
        match removed {
            Ok(()) => self.removed.push(path.display().to_string()),
            Err(e) => self.left.push(format!("{}: {e}", path.display())),
        }
    }
}

/// Removes what no commit of `table` lists; `progress` is the table's committed progress.
pub(crate) async fn clean_up(
    warehouse: &Path,
    table: &Table,
    progress: &Progress,
    dlq_dir: &Path,
) -> Result<Recovered, RecoverError> {
    let mut recovered = Recovered::default();
    let spill = warehouse.join(SPILL_FOLDER);
    if spill.symlink_metadata().is_ok() {
        recovered.remove(&spill);
    }
    for (path, name) in plain_files(dlq_dir) {
        let uncommitted = match dead_letter_cycle(&name) {
            Some(cycle) => cycle > progress.cycles,
            None => name.starts_with(".cycle-") && name.ends_with(".ndjson.partial"),
        };
        if uncommitted {
            recovered.remove(&path);
        }
    }
    let location = table_folder(table);
    let on_disk = TableFiles::of(&location);
    if on_disk.is_empty() {
        return Ok(recovered);
    }
    let references = referenced(table, &on_disk).await?;
    let orphans: Vec<&PathBuf> = on_disk
        .all()
        .filter(|path| references.orphan(path, &on_disk))
        .collect();
    for path in orphans {
        recovered.remove(path);
    }
    Ok(recovered)
}

/// The cycle of a committed-looking dead-letter file name, `cycle-<N>.ndjson`.
fn dead_letter_cycle(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("cycle-")?.strip_suffix(".ndjson")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The regular files directly in `dir` (no links followed), with their names, sorted.
fn plain_files(dir: &Path) -> Vec<(PathBuf, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(PathBuf, String)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| (e.path(), e.file_name().to_string_lossy().to_string()))
        .collect();
    files.sort();
    files
}

/// The table's folder on this machine.
pub(crate) fn table_folder(table: &Table) -> PathBuf {
    let location = table.metadata().location();
    PathBuf::from(location.strip_prefix("file://").unwrap_or(location))
}

/// `deliver`'s files in a table's folder, by kind.
#[derive(Debug, Default)]
struct TableFiles {
    data: Vec<PathBuf>,
    metadata: Vec<PathBuf>,
    manifest_lists: Vec<PathBuf>,
    manifests: Vec<PathBuf>,
}

impl TableFiles {
    fn of(location: &Path) -> Self {
        let mut files = TableFiles::default();
        let mut data = Vec::new();
        data_files(&location.join("data"), "data-", &mut data, 0);
        files.data = data;
        for (path, name) in plain_files(&location.join("metadata")) {
            if name.ends_with(".metadata.json") {
                files.metadata.push(path);
            } else if name.starts_with("snap-") && name.ends_with(".avro") {
                files.manifest_lists.push(path);
            } else if is_manifest_name(&name) {
                files.manifests.push(path);
            }
        }
        files
    }

    fn is_empty(&self) -> bool {
        self.data.is_empty()
            && self.metadata.is_empty()
            && self.manifest_lists.is_empty()
            && self.manifests.is_empty()
    }

    fn all(&self) -> impl Iterator<Item = &PathBuf> {
        self.data
            .iter()
            .chain(&self.metadata)
            .chain(&self.manifest_lists)
            .chain(&self.manifests)
    }
}

/// A manifest's name as the `iceberg` crate writes it: `<uuid>-m<N>.avro`.
fn is_manifest_name(name: &str) -> bool {
    name.strip_suffix(".avro")
        .and_then(|stem| stem.rsplit_once("-m"))
        .is_some_and(|(uuid, n)| {
            uuid.len() == 36 && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
        })
}

/// The `<prefix>*.parquet` files under `dir` (partition folders included; links not
/// followed), in name order.
pub(crate) fn data_files(dir: &Path, prefix: &str, found: &mut Vec<PathBuf>, depth: usize) {
    // Data folders are one partition level deep; the bound only guards against odd trees.
    if depth > 8 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name().to_string_lossy().to_string();
        if kind.is_dir() {
            data_files(&entry.path(), prefix, found, depth + 1);
        } else if kind.is_file() && name.starts_with(prefix) && name.ends_with(".parquet") {
            found.push(entry.path());
        }
    }
}

/// Every file the table's metadata references (as `file://` URIs): its metadata files and each
/// snapshot's manifest list, and, unless the current snapshot accounts for exactly the
/// manifests and data files on disk (then `None`), every manifest and data file of every
/// snapshot. An append-only table's current manifest list names every manifest ever written,
/// and its summary counts every data file, so the common case reads one file.
async fn referenced(table: &Table, on_disk: &TableFiles) -> Result<References, RecoverError> {
    let metadata = table.metadata();
    let files: HashSet<String> = metadata
        .metadata_log()
        .iter()
        .map(|entry| entry.metadata_file.clone())
        .chain(table.metadata_location().map(str::to_string))
        .chain(metadata.snapshots().map(|s| s.manifest_list().to_string()))
        .collect();
    let read_error = |e: iceberg::Error| RecoverError(Box::new(e));
    if let Some(current) = metadata.current_snapshot() {
        let total_data_files = current
            .summary()
            .additional_properties
            .get("total-data-files")
            .and_then(|n| n.parse::<usize>().ok());
        let list = table
            .manifest_list_reader(current)
            .load()
            .await
            .map_err(read_error)?;
        if total_data_files == Some(on_disk.data.len())
            && list.entries().len() == on_disk.manifests.len()
        {
            return Ok(References {
                files,
                contents: None,
            });
        }
    } else if on_disk.data.is_empty() && on_disk.manifests.is_empty() {
        return Ok(References {
            files,
            contents: None,
        });
    }
    let mut contents = HashSet::new();
    for snapshot in metadata.snapshots() {
        let list = table
            .manifest_list_reader(snapshot)
            .load()
            .await
            .map_err(read_error)?;
        for manifest in list.entries() {
            if !contents.insert(manifest.manifest_path.clone()) {
                continue;
            }
            let read = manifest
                .load_manifest(table.file_io())
                .await
                .map_err(read_error)?;
            for entry in read.entries() {
                contents.insert(entry.file_path().to_string());
            }
        }
    }
    Ok(References {
        files,
        contents: Some(contents),
    })
}

/// The files a table's metadata references.
struct References {
    /// Metadata files and manifest lists.
    files: HashSet<String>,
    /// Manifests and data files; `None` when the current snapshot accounts for every one on
    /// disk, and they were not read.
    contents: Option<HashSet<String>>,
}

impl References {
    /// Whether the file at `path` (one of `deliver`'s, by name) is one no commit lists.
    fn orphan(&self, path: &Path, on_disk: &TableFiles) -> bool {
        let uri = format!("file://{}", path.display());
        let content = on_disk
            .data
            .iter()
            .chain(&on_disk.manifests)
            .any(|p| p == path);
        if content {
            self.contents.as_ref().is_some_and(|c| !c.contains(&uri))
        } else {
            !self.files.contains(&uri)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_known_exactly() {
        assert_eq!(dead_letter_cycle("cycle-000012.ndjson"), Some(12));
        assert_eq!(dead_letter_cycle("cycle-.ndjson"), None);
        assert_eq!(dead_letter_cycle("cycle-12.ndjson.bak"), None);
        assert_eq!(dead_letter_cycle("mine-000012.ndjson"), None);
        assert!(is_manifest_name(
            "0b5b4a5e-3c3e-4d4e-9f9f-0123456789ab-m0.avro"
        ));
        assert!(!is_manifest_name("snap-1-0-x.avro"));
        assert!(!is_manifest_name("notes-m0.avro"));
    }
}
