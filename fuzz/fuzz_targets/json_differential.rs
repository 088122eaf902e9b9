//! The same bytes to the parser's JSON reader and to serde_json: they must agree on whether the
//! bytes are JSON and, when they are, on the value (numbers as exact text). The comparison is
//! the one `crates/parser/tests` uses (`tests/support/oracle.rs`, included here by path), so the
//! fuzzer and `cargo test` hold the reader to one rule.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/parser/tests/support/oracle.rs"]
mod oracle;

fuzz_target!(|data: &[u8]| {
    let verdict = oracle::compare(data);
    assert!(
        verdict.agrees(),
        "the readers disagree on {:?}: {verdict:?}",
        String::from_utf8_lossy(data)
    );
});
