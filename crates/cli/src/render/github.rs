//! Escaping for GitHub workflow commands (`::error file=…::message`), which `check` and `diff`
//! print with `--format github`.

/// Escapes a GitHub workflow command's message.
pub(crate) fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a GitHub workflow command's property (a file name or a title).
pub(crate) fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}
