//! Generated flat schemas for measuring how cost grows with the input; shared by the
//! `per_column` benchmark and `cargo xtask bench --whole-process`, so both measure the same
//! schemas.

use std::fmt::Write as _;

/// A flat schema of `n` properties: clean snake_case columns of five types, or (with
/// `uppercase`) string columns whose names each draw an `uppercase-name` warning.
pub fn generated_schema(n: usize, uppercase: bool) -> String {
    let mut text = String::from("{\n  \"$schema\": \"http://json-schema.org/draft-07/schema#\",\n  \"type\": \"object\",\n  \"properties\": {\n");
    for i in 0..n {
        let (name, schema) = if uppercase {
            (format!("Column_{i}"), "{\"type\": \"string\"}")
        } else {
            let schema = match i % 5 {
                0 => "{\"type\": \"string\"}",
                1 => "{\"type\": \"integer\", \"maximum\": 1000}",
                2 => "{\"type\": \"number\"}",
                3 => "{\"type\": \"boolean\"}",
                _ => "{\"type\": \"string\", \"format\": \"date-time\"}",
            };
            (format!("column_{i}"), schema)
        };
        let comma = if i + 1 == n { "" } else { "," };
        let _ = writeln!(text, "    \"{name}\": {schema}{comma}");
    }
    text.push_str("  }\n}\n");
    text
}
