//! The local dead-letter folder: `<warehouse>/dlq/<ErrorOutputPrefix or the default>/`, one
//! NDJSON file per delivery cycle with a failure.
//!
//! AWS documents that the channel's dead-letter queue holds record identifiers and error
//! context, not payloads, so a line holds the record's place (input, position, line or
//! sequence number), reason, pointer, message and keyword; the payload (base64) only with
//! `--dlq-payload`. A cycle's file is named by the cycle's number and written whole (to a
//! temporary name, then renamed) before the cycle commits, and the commit names it; a file of a
//! cycle that never committed is removed by the next run ([`recover`](super::recover)), so
//! every failed record is in the folder exactly once.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use schema2iceberg_mapper::records::Verdict;
use serde_json::json;

use crate::intake::input::Record;
use crate::render::record::record_json;

/// Why the dead-letter folder cannot be used: a prefix that would leave it (a usage error), or
/// a cycle's file that cannot be written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DlqError {
    #[error("{origin} has a `{part}` part, which would leave the warehouse's dlq folder; S3 keeps it as text, but a local folder cannot")]
    LeavesFolder { origin: String, part: String },
    #[error("cannot create the dead-letter folder `{}`: {source}", .path.display())]
    CreateFolder {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write `{}`: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The prefix when the channel configuration gives no `ErrorOutputPrefix`: AWS's documented
/// default, `kinesis-channel/errors/<channelName>/<channelId>/`, with the channel name from the
/// configuration (else `<namespace>.<table>`) and `local` for the id a local channel lacks.
pub(crate) fn default_prefix(channel_name: Option<&str>, namespace: &str, table: &str) -> String {
    let name = channel_name.map_or_else(|| format!("{namespace}.{table}"), str::to_string);
    format!("kinesis-channel/errors/{name}/local/")
}

/// The folder a prefix names under the warehouse. The prefix is an S3 key prefix: `/`
/// separates folders, empty parts are dropped, and `.` or `..` parts, which would leave the
/// dead-letter folder, are refused.
/// `origin` says where the prefix came from (the `ErrorOutputPrefix`, or the `ChannelName` of
/// the default prefix), for the message.
pub(crate) fn folder(warehouse: &Path, prefix: &str, origin: &str) -> Result<PathBuf, DlqError> {
    let mut dir = warehouse.join("dlq");
    for part in prefix.split('/').filter(|p| !p.is_empty()) {
        if part == "." || part == ".." {
            return Err(DlqError::LeavesFolder {
                origin: origin.to_string(),
                part: part.to_string(),
            });
        }
        dir.push(part);
    }
    Ok(dir)
}

/// One failed record's line.
pub(crate) fn line(input: &str, record: &Record, verdict: &Verdict, payload: bool) -> String {
    let mut value = record_json(input, record, verdict);
    if let Some(object) = value.as_object_mut() {
        object.shift_remove("verdict");
        if payload {
            object.insert(
                "payload-base64".into(),
                json!(base64::engine::general_purpose::STANDARD.encode(&record.bytes)),
            );
        }
    }
    let mut text = value.to_string();
    text.push('\n');
    text
}

/// Writes cycle `cycle`'s lines as `cycle-<cycle>.ndjson` in `dir`; returns the file.
pub(crate) fn write_cycle(dir: &Path, cycle: u64, lines: &[String]) -> Result<PathBuf, DlqError> {
    std::fs::create_dir_all(dir).map_err(|source| DlqError::CreateFolder {
        path: dir.to_path_buf(),
        source,
    })?;
    let path = dir.join(format!("cycle-{cycle:06}.ndjson"));
    let partial = dir.join(format!(".cycle-{cycle:06}.ndjson.partial"));
    // A file left by a run that stopped is replaced, never written through: a link planted
    // in its place is removed, not followed.
    let written = remove_if_present(&partial)
        .and_then(|()| {
            use std::io::Write as _;
            let mut file = crate::deliver::table::create_new_no_follow(&partial)?;
            file.write_all(lines.concat().as_bytes())?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&partial, &path));
    match written {
        Ok(()) => Ok(path),
        Err(source) => Err(DlqError::Write { path, source }),
    }
}

/// Removes the file (or link) at `path`, if any.
fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_cannot_leave_the_dlq_folder() {
        let warehouse = Path::new("/w");
        assert_eq!(
            folder(warehouse, "errors//orders/", "the prefix").unwrap(),
            Path::new("/w/dlq/errors/orders")
        );
        assert!(folder(warehouse, "errors/../../etc/", "the prefix").is_err());
        assert!(folder(warehouse, "./x", "the prefix").is_err());
    }
}
