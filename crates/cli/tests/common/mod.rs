//! What the fixture tests share: the command-line options a fixture asks for.

/// The options a fixture asks for in its root `$comment`.
pub fn fixture_args(bytes: &[u8]) -> Vec<String> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return Vec::new();
    };
    value
        .get("$comment")
        .and_then(|c| c.as_str())
        .and_then(|c| c.strip_prefix("args:"))
        .map(|args| args.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}
