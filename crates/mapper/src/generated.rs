//! Splices text generated from the code between two marker lines of a hand-written document
//! (docs/mapping.md), so that `cargo xtask codegen` and the staleness tests share one rule.

/// `document` with everything between the `begin` and `end` marker lines replaced by `body`;
/// both markers and the text around them are kept. `None` when a marker is missing or the two
/// are out of order.
pub fn splice(document: &str, begin: &str, end: &str, body: &str) -> Option<String> {
    let after_begin = document.find(begin)? + begin.len();
    let end_at = after_begin + document.get(after_begin..)?.find(end)?;
    Some(format!(
        "{}\n{body}{}",
        document.get(..after_begin)?,
        document.get(end_at..)?
    ))
}

#[cfg(test)]
mod tests {
    use super::splice;

    #[test]
    fn replaces_only_the_text_between_the_markers() {
        let document = "intro\n<!-- b -->\nold\n<!-- e -->\nafter\n";
        assert_eq!(
            splice(document, "<!-- b -->", "<!-- e -->", "new\n").as_deref(),
            Some("intro\n<!-- b -->\nnew\n<!-- e -->\nafter\n")
        );
    }

    #[test]
    fn a_missing_or_misplaced_marker_is_none() {
        assert_eq!(splice("<!-- b -->\n", "<!-- b -->", "<!-- e -->", ""), None);
        assert_eq!(
            splice("<!-- e -->\n<!-- b -->\n", "<!-- b -->", "<!-- e -->", ""),
            None
        );
    }
}
