//! `diff --git REV`: the changed schemas under the given paths, found with the `git` command,
//! and each one's pair (its text at REV and in the working tree).

use std::path::{Path, PathBuf};
use std::process::Command;

use schema2iceberg_parser::absolute_path;

use crate::project::config::Config;

use super::load::{load, SideOptions};
use super::{pair, DiffError, DiffRequest, FileDiff};

/// A file that changed between REV and the working tree: (status letter, path).
pub(super) struct GitEntry {
    status: char,
    path: PathBuf,
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, DiffError> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(DiffError::GitNotRun)?;
    if !output.status.success() {
        // git's first line says what went wrong; what follows is usage text.
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("no message");
        return Err(DiffError::GitFailed {
            args: args.join(" "),
            first: first.to_string(),
        });
    }
    Ok(output.stdout)
}

/// `--git` needs a repository: say so in one line, before git prints its usage.
fn inside_repository(dir: &Path) -> Result<(), DiffError> {
    let inside = Command::new("git")
        .args(["rev-parse", "--is-inside-work-tree"])
        .current_dir(dir)
        .output()
        .map_err(DiffError::GitNotRun)?;
    if inside.status.success() && String::from_utf8_lossy(&inside.stdout).trim() == "true" {
        Ok(())
    } else {
        Err(DiffError::NotARepository(absolute_path(dir)))
    }
}

/// Every `*.json` file under `paths` that differs between REV and the working tree, untracked
/// new files included; channel configurations and skipped files are left out.
pub(super) fn git_changes(
    dir: &Path,
    rev: &str,
    paths: &[PathBuf],
    config: &Config,
) -> Result<Vec<GitEntry>, DiffError> {
    inside_repository(dir)?;
    let mut spec: Vec<String> = vec!["--".to_string()];
    spec.extend(paths.iter().map(|p| p.display().to_string()));
    let mut args: Vec<&str> = vec!["diff", "--name-status", "--no-renames", rev];
    args.extend(spec.iter().map(String::as_str));
    let changed = String::from_utf8_lossy(&git(dir, &args)?).into_owned();
    let mut args: Vec<&str> = vec!["ls-files", "--others", "--exclude-standard"];
    args.extend(spec.iter().map(String::as_str));
    let untracked = String::from_utf8_lossy(&git(dir, &args)?).into_owned();
    let prefix = String::from_utf8_lossy(&git(dir, &["rev-parse", "--show-prefix"])?)
        .trim()
        .to_string();
    let mut entries: Vec<GitEntry> = changed
        .lines()
        .filter_map(|line| {
            let (status, path) = line.split_once('\t')?;
            let relative = path.strip_prefix(prefix.as_str()).unwrap_or(path);
            Some(GitEntry {
                status: status.chars().next()?,
                path: PathBuf::from(relative),
            })
        })
        .chain(untracked.lines().map(|path| GitEntry {
            status: 'A',
            path: PathBuf::from(path),
        }))
        .filter(|e| e.path.extension().is_some_and(|x| x == "json"))
        .collect();
    let channel_configs: Vec<PathBuf> = config
        .channel_config_paths()
        .into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    entries.retain(|e| {
        let full = dir.join(&e.path);
        !config.settings_for(&full).skip
            && !full
                .canonicalize()
                .is_ok_and(|c| channel_configs.contains(&c))
    });
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    entries.dedup_by(|a, b| a.path == b.path);
    Ok(entries)
}

pub(super) fn git_pair(
    request: &DiffRequest,
    config: &Config,
    rev: &str,
    entry: GitEntry,
    not_compiled: &mut String,
) -> Result<FileDiff, DiffError> {
    let display = entry.path.display().to_string();
    let full = request.dir.join(&entry.path);
    let (options, choice) = SideOptions::for_new(request, config, &full);
    let old_display = format!("{display}@{rev}");
    let unpaired = |old: Option<String>, new: Option<String>, status: &str| FileDiff {
        old,
        new,
        status: status.to_string(),
        record_format: None,
        record_format_from: None,
        old_kind: None,
        changes: Vec::new(),
        problem: None,
        errors: Vec::new(),
        notes: Vec::new(),
    };
    match entry.status {
        'A' => Ok(unpaired(None, Some(display), "added")),
        'D' => Ok(unpaired(Some(old_display), None, "removed")),
        _ => {
            let spec = format!("{rev}:./{display}");
            let old_bytes = git(&request.dir, &["show", &spec])?;
            let new_bytes = std::fs::read(&full).map_err(|source| DiffError::Read {
                shown: display.clone(),
                source,
            })?;
            let old = load(&old_display, &full, old_bytes, &options);
            let new = load(&display, &full, new_bytes, &options);
            Ok(pair(old, new, choice, not_compiled))
        }
    }
}
