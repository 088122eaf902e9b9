//! The test builds' fault hook: `SCHEMA2ICEBERG_TEST_FAULT=STEP@N` stops the process, as a kill
//! would (no clean-up, no output flushed beyond what was written), at STEP of the Nth cycle this
//! run closes, and `commit-error@N` makes that cycle's commit fail as a catalog error would;
//! `SCHEMA2ICEBERG_TEST_SPILL_BYTES` sets the bytes of held rows kept in memory, so that tests
//! spill with small inputs.
//!
//! Read only where debug assertions are on (the test and dev builds): a release build, which
//! users run, has no such hook, and no flag shows it.

/// A step of closing a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// The cycle's data files are written and closed; nothing else is.
    DataFiles,
    /// Its dead-letter file is written too.
    DeadLetters,
    /// Its commit is prepared, not sent.
    BeforeCommit,
    /// The catalog has the commit.
    AfterCommit,
}

impl Step {
    #[cfg(debug_assertions)]
    fn name(self) -> &'static str {
        match self {
            Step::DataFiles => "data-files",
            Step::DeadLetters => "dead-letters",
            Step::BeforeCommit => "before-commit",
            Step::AfterCommit => "after-commit",
        }
    }
}

/// Stops the process here when the test hook names this step of this cycle (`cycle`: the
/// cycles closed by this run, from 1).
pub(crate) fn point(step: Step, cycle: u64) {
    #[cfg(debug_assertions)]
    if let Ok(wanted) = std::env::var("SCHEMA2ICEBERG_TEST_FAULT") {
        if wanted == format!("{}@{cycle}", step.name()) {
            eprintln!("test fault: stopped at {wanted}");
            std::process::abort();
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = (step, cycle);
}

/// Whether the test hook makes the commit of this run's `cycle`th cycle fail.
pub(crate) fn commit_fails(cycle: u64) -> bool {
    #[cfg(debug_assertions)]
    if let Ok(wanted) = std::env::var("SCHEMA2ICEBERG_TEST_FAULT") {
        return wanted == format!("commit-error@{cycle}");
    }
    let _ = cycle;
    false
}

/// The bytes of held rows kept in memory before a spill.
pub(crate) fn spill_bytes(default: usize) -> usize {
    #[cfg(debug_assertions)]
    if let Some(bytes) = std::env::var("SCHEMA2ICEBERG_TEST_SPILL_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return bytes;
    }
    default
}
