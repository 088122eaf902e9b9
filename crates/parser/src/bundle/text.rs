//! The text the bundle writes: names for inlined entries, `$ref` fragments, JSON strings and
//! the indentation of the line being written into.

use std::fmt::Write;

use crate::workspace::Document;

/// The leading spaces and tabs of the line that holds byte `at`.
pub(super) fn line_indent(text: &str, at: usize) -> String {
    let line_start = text
        .get(..at)
        .and_then(|before| before.rfind('\n').map(|i| i + 1))
        .unwrap_or(0);
    text.get(line_start..at)
        .unwrap_or_default()
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// The entry name for a document: its file name without `.json`, in letters, digits, `_`, `-`
/// and `.`.
pub(super) fn entry_name(doc: &Document) -> String {
    let file = doc
        .url
        .path_segments()
        .and_then(|mut segments| segments.next_back())
        .unwrap_or_default();
    let file = crate::pointer::percent_decode(file).unwrap_or_else(|| file.to_string());
    let stem = file.strip_suffix(".json").unwrap_or(&file);
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() {
        "file".to_string()
    } else {
        name
    }
}

/// `name`, or `name_2`, `name_3`, … whichever is not taken yet.
pub(super) fn unique_name(name: &str, taken: &[String]) -> String {
    if !taken.iter().any(|t| t == name) {
        return name.to_string();
    }
    (2..)
        .map(|n| format!("{name}_{n}"))
        .find(|candidate| !taken.iter().any(|t| t == candidate))
        .unwrap_or_else(|| name.to_string())
}

/// Percent-encodes what a URI fragment may not hold as it is (RFC 3986: unreserved,
/// sub-delims, `:`, `@`, `/` and `?` stay). The result is ASCII, with no `"` or `\`.
pub(super) fn percent_encode_fragment(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len());
    for byte in pointer.bytes() {
        let keep = byte.is_ascii_alphanumeric()
            || matches!(
                byte,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
                    | b'/'
                    | b'?'
            );
        if keep {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// `text` as a JSON string. Only what JSON requires is escaped.
pub(super) fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_keep_pointer_characters_and_encode_the_rest() {
        assert_eq!(
            percent_encode_fragment("/definitions/a~1b/e f/100%/$defs"),
            "/definitions/a~1b/e%20f/100%25/$defs"
        );
        assert_eq!(percent_encode_fragment("/é\"\\"), "/%C3%A9%22%5C");
    }

    #[test]
    fn names_are_made_unique_in_order() {
        let taken = vec!["common".to_string(), "common_2".to_string()];
        assert_eq!(unique_name("common", &taken), "common_3");
        assert_eq!(unique_name("money", &taken), "money");
    }

    #[test]
    fn json_strings_escape_what_json_requires() {
        assert_eq!(json_string("a\"b\\c\u{1}é"), "\"a\\\"b\\\\c\\u0001é\"");
    }
}
