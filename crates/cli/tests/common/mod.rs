//! What the fixture tests share: the command-line options a fixture asks for.

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

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

/// The `--partition` a fixture names anywhere in its root `$comment` (the compile fixtures write
/// `args: --partition x`, the hand-on fixtures say it in a sentence).
pub fn comment_partition(bytes: &[u8]) -> Option<String> {
    let value = serde_json::from_slice::<serde_json::Value>(bytes).ok()?;
    let comment = value.get("$comment")?.as_str()?;
    let mut words = comment.split_whitespace();
    words.find(|w| *w == "--partition")?;
    words.next().map(str::to_string)
}
