//! The command line's own diagnostic codes, and the table of every code the tool can emit.

use schema2iceberg_parser::{Code, Severity};

/// `schema2iceberg.toml` has a mistake.
pub const CONFIG_INVALID: Code = Code {
    name: "config-invalid",
    severity: Severity::Error,
    summary:
        "`schema2iceberg.toml` is not valid TOML, has an unknown key, or a value of the wrong kind.",
    fix: "Fix the key at the marked line; docs/ci.md lists every key.",
    example: "partition = 5",
};

/// The command line and a channel configuration name different partition fields.
pub const PARTITION_MISMATCH: Code = Code {
    name: "partition-mismatch",
    severity: Severity::Error,
    summary: "`--partition` (or the repository config) and the channel configuration's `SourceName` name different partition fields.",
    fix: "Make them agree; the channel partitions on its `SourceName`.",
    example: "--partition event_time with SourceName created_at",
};

/// Every code of this crate.
pub const ALL: &[Code] = &[CONFIG_INVALID, PARTITION_MISMATCH];

/// Every code the tool can emit, grouped by where it comes from, in documentation order.
pub fn every_code() -> Vec<(&'static str, &'static [Code])> {
    vec![
        ("Reading the schema", schema2iceberg_parser::codes::ALL),
        ("Mapping to Iceberg", schema2iceberg_mapper::codes::ALL),
        ("Lints (check only)", schema2iceberg_mapper::lints::ALL),
        (
            "Channel configuration (check only)",
            schema2iceberg_mapper::channel::ALL,
        ),
        ("The check command", ALL),
    ]
}

/// Looks a code up by name.
pub fn find(name: &str) -> Option<&'static Code> {
    every_code()
        .into_iter()
        .flat_map(|(_, codes)| codes.iter())
        .find(|c| c.name == name)
}
