//! A cycle's commit (its data files in one append, the progress in the table's properties and
//! the snapshot's summary), and what becomes of an abandoned cycle's files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use iceberg::spec::DataFile;
use iceberg::table::Table;
use iceberg::transaction::{ApplyTransactionAction, Transaction};
use iceberg::Catalog;

use super::super::fault::{self, Step};
use super::super::progress::{fingerprint_text, InputProgress, Progress, PROGRESS_PROPERTY};
use super::super::recover::{data_files, table_folder};
use super::{CycleError, Driver, OpenCycle};

impl Driver<'_> {
    /// Commits cycle `number`: its data files in one append, and the progress (which names the
    /// dead-letter file) in the table's properties and the snapshot's summary. Returns the
    /// snapshot made; none when every record went to the dead-letter queue.
    pub(super) fn commit(
        &mut self,
        number: u64,
        data_files: Vec<DataFile>,
        dead_letter_file: Option<&Path>,
    ) -> Result<Option<i64>, CycleError> {
        let mut progress = self.progress.clone();
        let inputs = self
            .settings
            .keys
            .iter()
            .zip(&self.reached)
            .zip(&self.firsts);
        for ((key, reached), first) in inputs {
            if let Some(reached) = reached {
                let earlier = progress.of_input(key).map_or(0, |p| p.dead_letters);
                progress.advance(InputProgress {
                    input: key.clone(),
                    records: reached.records,
                    fingerprint: fingerprint_text(reached.chain),
                    sequence_number: reached.sequence_number.clone(),
                    first: first.map(fingerprint_text),
                    dead_letters: earlier + reached.dead_letters,
                });
            }
        }
        progress.cycles = number;
        progress.dead_letter_file = dead_letter_file.map(|file| {
            file.strip_prefix(&self.settings.warehouse)
                .unwrap_or(file)
                .display()
                .to_string()
        });
        // The progress goes into the table's properties with every commit, and into the
        // snapshot summary of a cycle with rows. fast_append refuses an empty append, so a cycle
        // whose records all went to the dead-letter queue commits the properties alone.
        let text = progress.to_property()?;
        let transaction = Transaction::new(&self.table);
        let properties = transaction
            .update_table_properties()
            .set(PROGRESS_PROPERTY.to_string(), text.clone());
        let prepare = |e| CycleError::Prepare(Box::new(e));
        let mut transaction = properties.apply(transaction).map_err(prepare)?;
        let appends = !data_files.is_empty();
        if appends {
            let append = transaction
                .fast_append()
                .add_data_files(data_files)
                .set_snapshot_properties(HashMap::from([(PROGRESS_PROPERTY.to_string(), text)]));
            transaction = append.apply(transaction).map_err(prepare)?;
        }
        fault::point(Step::BeforeCommit, self.cycles_this_run + 1);
        if fault::commit_fails(self.cycles_this_run + 1) {
            return Err(CycleError::CommitHook { cycle: number });
        }
        let committed = match self.runtime.block_on(transaction.commit(self.catalog)) {
            Ok(table) => table,
            Err(e) => self
                .committed_after_all(number)
                .ok_or_else(|| CycleError::Commit {
                    cycle: number,
                    source: Box::new(e),
                })?,
        };
        self.table = committed;
        self.progress = progress;
        for reached in &mut self.reached {
            *reached = None;
        }
        Ok(if appends {
            self.table.metadata().current_snapshot_id()
        } else {
            None
        })
    }

    /// After a commit reported an error: the table as the catalog has it, when it holds cycle
    /// `number` all the same (the error came after the catalog took the commit), so that its
    /// files are not removed from under it.
    fn committed_after_all(&self, number: u64) -> Option<Table> {
        let table = self
            .runtime
            .block_on(self.catalog.load_table(self.table.identifier()))
            .ok()?;
        let progress = Progress::of_table(&table).ok()?;
        (progress.cycles == number).then_some(table)
    }

    /// `error`, followed, when a cycle was open, by what became of its data files.
    pub(super) fn abandoned(&self, open: Option<OpenCycle>, error: CycleError) -> CycleError {
        let Some(cycle) = open else {
            return error;
        };
        // A writer still closing could write its file after the files were removed.
        self.runtime.block_on(cycle.files.abandon());
        self.abandoned_files(&cycle.file_prefix, None, error)
    }

    /// `error`, followed by what became of an abandoned cycle's files (its data files, and
    /// its dead-letter file when one was written): removed, or named when they could not be.
    pub(super) fn abandoned_files(
        &self,
        file_prefix: &str,
        dead_letter_file: Option<&Path>,
        error: CycleError,
    ) -> CycleError {
        let mut found = Vec::new();
        data_files(
            &table_folder(&self.table).join("data"),
            file_prefix,
            &mut found,
            0,
        );
        found.extend(dead_letter_file.map(Path::to_path_buf));
        let mut left = Vec::new();
        for path in &found {
            if let Err(e) = std::fs::remove_file(path) {
                left.push((path.clone(), e));
            }
        }
        CycleError::Abandoned {
            source: Box::new(error),
            snapshot: self.table.metadata().current_snapshot_id(),
            found: found.len(),
            left,
        }
    }
}

/// What an abandoned cycle's table keeps, in [`CycleError::Abandoned`]'s message.
pub(super) fn kept(snapshot: Option<i64>) -> String {
    match snapshot {
        Some(id) => format!("its last commit, snapshot {id}"),
        None => "no snapshot, as before".to_string(),
    }
}

/// What became of an abandoned cycle's `found` files, after the table's snapshot in
/// [`CycleError::Abandoned`]'s message: all removed, or those `left` named with why.
pub(super) fn fate(found: usize, left: &[(PathBuf, std::io::Error)]) -> String {
    if left.is_empty() {
        return if found == 0 {
            String::new()
        } else {
            format!(", and the cycle's {found} file(s) were removed")
        };
    }
    let left: Vec<String> = left
        .iter()
        .map(|(path, e)| format!("{} ({e})", path.display()))
        .collect();
    format!(
        "; these files of the cycle could not be removed and belong to no commit (the next run removes them): {}",
        left.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use std::io::{Error, ErrorKind};
    use std::path::PathBuf;

    use super::super::CycleError;

    /// The error that stopped the cycle, then the snapshot the table keeps, then the files.
    #[test]
    fn an_abandoned_cycle_says_what_became_of_its_files() {
        let abandoned = |snapshot, found, left| CycleError::Abandoned {
            source: Box::new(CycleError::CommitHook { cycle: 3 }),
            snapshot,
            found,
            left,
        };
        let keeps = "the commit of cycle 3 failed: the test hook failed it\nThe unfinished cycle was not committed: the table keeps";
        assert_eq!(
            abandoned(None, 0, Vec::new()).to_string(),
            format!("{keeps} no snapshot, as before")
        );
        assert_eq!(
            abandoned(Some(7), 2, Vec::new()).to_string(),
            format!("{keeps} its last commit, snapshot 7, and the cycle's 2 file(s) were removed")
        );
        let left = vec![
            (
                PathBuf::from("/w/a.parquet"),
                Error::from(ErrorKind::PermissionDenied),
            ),
            (
                PathBuf::from("/w/b.parquet"),
                Error::from(ErrorKind::NotFound),
            ),
        ];
        assert_eq!(
            abandoned(Some(7), 2, left).to_string(),
            format!("{keeps} its last commit, snapshot 7; these files of the cycle could not be removed and belong to no commit (the next run removes them): /w/a.parquet (permission denied), /w/b.parquet (entity not found)")
        );
    }
}
