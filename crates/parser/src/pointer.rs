//! RFC 6901 JSON Pointers: escaping tokens, and decoding the fragment of a `$ref`.

/// Escapes one reference token (`~` → `~0`, `/` → `~1`).
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Splits a JSON Pointer into its unescaped tokens. `""` is the root and has none.
/// Returns `None` when the text is not a pointer (it does not start with `/`), or an
/// escape is invalid.
pub fn decode(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/').map(unescape_token).collect()
}

fn unescape_token(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Percent-decodes a URI fragment (`%25` → `%`). Invalid UTF-8 after decoding gives `None`.
pub(crate) fn percent_decode(fragment: &str) -> Option<String> {
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_escapes() {
        assert_eq!(escape_token("a/b~c"), "a~1b~0c");
        assert_eq!(
            decode("/definitions/a~1b~0c"),
            Some(vec!["definitions".to_string(), "a/b~c".to_string()])
        );
        assert_eq!(decode("no-slash"), None);
        assert_eq!(decode("/bad~2"), None);
        assert_eq!(percent_decode("/a%20b%25"), Some("/a b%".to_string()));
    }
}
