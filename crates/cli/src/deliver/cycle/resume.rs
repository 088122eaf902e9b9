//! The resume checks: that an input a rerun is given is the one the table was filled from, and
//! that an input new to the table is not content already delivered under another name.

use super::super::check::Checked;
use super::super::progress::fingerprint_text;
use super::{CycleError, Driver};

impl Driver<'_> {
    /// A record an earlier run did: at the last of them, the records so far (`chained`) must be
    /// the ones that run did, or the input is not the one the table was filled from.
    pub(super) fn check_resumed(
        &self,
        name: &str,
        record: &Checked,
        chained: u64,
    ) -> Result<(), CycleError> {
        let Some(done) = self.progress.of_input(name) else {
            return Ok(());
        };
        if record.position != done.records {
            return Ok(());
        }
        let same_sequence =
            done.sequence_number.is_none() || done.sequence_number == record.sequence_number;
        if fingerprint_text(chained) == done.fingerprint && same_sequence {
            return Ok(());
        }
        Err(CycleError::NotTheInput {
            name: name.to_string(),
            table: self.table.identifier().clone(),
            records: record.position,
        })
    }

    /// The first record of an input new to the table: an input delivered under another name
    /// (by an earlier run, or earlier in this one) must not start with the same record, or the
    /// same content would be delivered twice (a copy, a renamed file, a second spelling).
    pub(super) fn check_not_delivered_elsewhere(
        &self,
        input: usize,
        name: &str,
        first: u64,
    ) -> Result<(), CycleError> {
        if self.settings.allow_duplicate_content {
            return Ok(());
        }
        let first_text = fingerprint_text(first);
        let earlier = self
            .progress
            .inputs
            .iter()
            .find(|p| p.input != name && p.first.as_deref() == Some(first_text.as_str()))
            .map(|p| (p.input.as_str(), "was delivered"))
            .or_else(|| {
                self.firsts
                    .iter()
                    .zip(self.settings.keys)
                    .take(input)
                    .find(|(f, key)| **f == Some(first) && key.as_str() != name)
                    .map(|(_, key)| (key.as_str(), "is delivered in this run"))
            });
        match earlier {
            None => Ok(()),
            Some((other, when)) => Err(CycleError::SameContent {
                name: name.to_string(),
                other: other.to_string(),
                when,
                table: self.table.identifier().clone(),
            }),
        }
    }

    /// At the end of the input: no input may have fewer records than the table holds of an
    /// input of its name (a shorter file is not the one the table was filled from).
    pub(super) fn check_read_to_end(&self) -> Result<(), CycleError> {
        for (index, name) in self.settings.keys.iter().enumerate() {
            let seen = self.seen.get(index).copied().unwrap_or(0);
            if let Some(done) = self.progress.of_input(name).filter(|d| d.records > seen) {
                return Err(CycleError::Shorter {
                    name: name.to_string(),
                    seen,
                    table: self.table.identifier().clone(),
                    held: done.records,
                });
            }
        }
        Ok(())
    }
}
