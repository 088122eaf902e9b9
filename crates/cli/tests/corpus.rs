//! The corpus run over `../shared/corpus`: its per-source summary is a snapshot, so any change in
//! behaviour on real-world schemas shows up in review, and two runs are byte-identical.

// A test should stop loudly; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use schema2iceberg::corpus::{run_check, summarize, summary, CorpusRequest};

mod support;

/// The request for the whole corpus, or `None` (with a notice; a failure under CI) when the
/// corpus is not there.
fn corpus_request(test: &str) -> Option<CorpusRequest> {
    let request = CorpusRequest::for_repository(&support::canonical_root());
    support::corpus_dir(request.corpus.clone(), test)?;
    Some(request)
}

/// `cargo xtask corpus` prints exactly this; docs/dev/corpus.md quotes it.
///
/// One source alone gives the same rows as in the whole run: `check` runs in the corpus root
/// either way, so paths, the reference root and the config's globs do not change.
#[test]
fn corpus_summary() {
    let Some(mut request) = corpus_request("corpus_summary") else {
        return;
    };
    let whole = summary(&request).expect("the corpus run runs");
    insta::assert_snapshot!(whole.to_markdown());
    let markdown = whole.to_markdown();
    // docs/dev/corpus.md quotes the first table, the summary over all sources.
    let table = markdown.split("\n\n").next().unwrap_or_default();
    let page =
        std::fs::read_to_string(support::root().join("docs/dev/corpus.md")).unwrap_or_default();
    assert!(
        page.contains(table),
        "docs/dev/corpus.md's summary table is not the corpus run's: copy the first table of \
         `cargo xtask corpus` there"
    );

    request.source = Some("cloudevents-spec".to_string());
    let one = summary(&request).expect("the one-source run runs");
    assert_eq!(one.sources.len(), 1);
    assert_eq!(
        one.sources.first(),
        whole.sources.iter().find(|s| s.name == "cloudevents-spec")
    );
}

/// The check report and the summary of two runs are byte-identical, although `check` compiles on
/// all cores in whatever order the threads take the files.
#[test]
fn two_runs_are_byte_identical() {
    let Some(request) = corpus_request("two_runs_are_byte_identical") else {
        return;
    };
    let (first, first_json) = run_check(&request).expect("the first run runs");
    let (second, second_json) = run_check(&request).expect("the second run runs");
    assert!(
        first_json == second_json,
        "check's JSON report differs between two runs"
    );
    assert_eq!(
        summarize(&first.report).to_markdown(),
        summarize(&second.report).to_markdown(),
        "the summary differs between two runs"
    );
}
