//! The DDL's warnings: columns the statement cannot render exactly, gathered by kind, and the
//! other warnings in the order they were found.

use super::Dialect;

/// Columns the statement cannot render exactly, gathered by kind so that each warning names
/// every column it concerns once.
#[derive(Default)]
pub(super) struct Warnings {
    pub(super) timestamptz: Vec<String>,
    pub(super) not_null: Vec<String>,
    pub(super) nested_not_null: Vec<String>,
    pub(super) nested_comments: Vec<String>,
    pub(super) uppercase: Vec<String>,
    other: Vec<String>,
}

impl Warnings {
    pub(super) fn add(&mut self, warning: String) {
        self.other.push(warning);
    }

    pub(super) fn finish(self, dialect: Dialect) -> Vec<String> {
        let title = dialect.title();
        let mut out = Vec::new();
        let list = |columns: &[String]| {
            columns
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let lost = [
            (
                &self.timestamptz,
                "'s CREATE TABLE makes `timestamp` columns without time zone, where the channel's table has timestamptz",
            ),
            (
                &self.not_null,
                "'s CREATE TABLE has no NOT NULL, so these required fields become optional",
            ),
            (
                &self.nested_not_null,
                "'s DDL cannot make these nested fields, list elements or map values required, so they become optional",
            ),
            (
                &self.nested_comments,
                "'s DDL has no comments on nested fields, so these docs are left out",
            ),
            (
                &self.uppercase,
                " lowercases column names, quoted or not, so these columns get other names than the channel's",
            ),
        ];
        for (fields, what) in lost {
            if !fields.is_empty() {
                out.push(format!("{title}{what}: {}", list(fields)));
            }
        }
        out.extend(self.other);
        out
    }
}
