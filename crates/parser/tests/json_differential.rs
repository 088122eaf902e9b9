//! The parser's JSON reader and serde_json fed the same bytes: they must agree on whether the
//! bytes are JSON and, when they are, on the value (numbers as exact text). The bytes are JSON
//! texts built from a grammar that reaches the corners (number forms, escapes, surrogates,
//! duplicate keys, whitespace), then often broken by one edit. The `json_differential` fuzz
//! target holds the same rule on any bytes.

// A test should stop loudly; the no-panic rule is for code that reads input.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use proptest::prelude::*;
use support::oracle::{compare, Verdict};

/// Number text, valid and not: leading zeros, a bare `.`, a lone sign or exponent.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{1,24})?([eE][+-]?[0-9]{1,5})?",
        1 => "[-+]?[0-9]{0,3}\\.?[0-9]{0,3}([eE][+-]?[0-9]{0,2})?",
    ]
}

/// String text with its quotes: plain characters, every short escape, `\u` escapes around the
/// surrogates, raw control characters and non-ASCII.
fn string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[ -!#-\\[\\]-~]{1,4}",
        1 => "\\\\[\"\\\\/bfnrt]",
        1 => "\\\\u[0-9a-fA-F]{4}",
        1 => "\\\\u[dD][89abAB][0-9a-fA-F]{2}(\\\\u[dD][c-fC-F][0-9a-fA-F]{2})?",
        1 => "\\\\u[dD][c-fC-F][0-9a-fA-F]{2}",
        1 => "[\u{0}-\u{1f}\u{7f}é€😀]",
        1 => "\\\\[^\"\\\\/bfnrtu]",
    ];
    prop::collection::vec(piece, 0..4).prop_map(|pieces| format!("\"{}\"", pieces.concat()))
}

/// Whitespace, including characters JSON does not allow as whitespace.
fn space() -> impl Strategy<Value = String> {
    prop_oneof![6 => Just(String::new()), 3 => "[ \t\n\r]{1,2}", 1 => "[\u{0b}\u{0c}\u{a0}]"]
}

/// A JSON text: scalars, arrays and objects (with duplicate keys from a small key set).
fn text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        number(),
        string(),
    ];
    leaf.prop_recursive(4, 48, 5, |inner| {
        let item = (space(), inner, space())
            .prop_map(|(a, v, b)| format!("{a}{v}{b}"))
            .boxed();
        let key = prop_oneof![3 => "\"[a-c]\"", 1 => string()];
        prop_oneof![
            prop::collection::vec(item.clone(), 0..5)
                .prop_map(|items| format!("[{}]", items.join(","))),
            prop::collection::vec((key, space(), item), 0..5).prop_map(|members| {
                let members: Vec<String> = members
                    .into_iter()
                    .map(|(k, s, v)| format!("{k}{s}:{v}"))
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

/// One edit that usually breaks a text: a byte deleted, replaced or inserted.
#[derive(Debug, Clone)]
enum Edit {
    None,
    Delete(usize),
    Replace(usize, u8),
    Insert(usize, u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    let byte = prop_oneof![
        prop::sample::select(b"{}[]\":,\\ 0-.eE+tfnu\x00\x80\xff".to_vec()),
        any::<u8>()
    ];
    prop_oneof![
        2 => Just(Edit::None),
        1 => any::<usize>().prop_map(Edit::Delete),
        1 => (any::<usize>(), byte.clone()).prop_map(|(at, b)| Edit::Replace(at, b)),
        1 => (any::<usize>(), byte).prop_map(|(at, b)| Edit::Insert(at, b)),
    ]
}

fn apply(text: &str, edit: &Edit) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    let len = bytes.len();
    match *edit {
        Edit::None => {}
        Edit::Delete(at) if len > 0 => {
            bytes.remove(at % len);
        }
        Edit::Replace(at, b) if len > 0 => bytes[at % len] = b,
        Edit::Insert(at, b) => bytes.insert(at % (len + 1), b),
        _ => {}
    }
    bytes
}

fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let verdict = compare(bytes);
    prop_assert!(
        verdict.agrees(),
        "the readers disagree on {:?}: {verdict:?}",
        String::from_utf8_lossy(bytes)
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn the_reader_agrees_with_serde_json((text, edit) in (text(), edit())) {
        check(&apply(&text, &edit))?;
    }
}

/// The strategy reaches both outcomes; otherwise the property above could pass having compared
/// nothing.
#[test]
fn the_inputs_reach_acceptance_and_rejection() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = (text(), edit());
    let (mut accepted, mut rejected) = (0, 0);
    for _ in 0..512 {
        let (text, edit) = strategy.new_tree(&mut runner).unwrap().current();
        match compare(&apply(&text, &edit)) {
            Verdict::BothAccept => accepted += 1,
            Verdict::BothReject => rejected += 1,
            _ => {}
        }
    }
    assert!(
        accepted > 64 && rejected > 64,
        "accepted {accepted}, rejected {rejected}"
    );
}
