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

/// A JSON file that `check` found has the shape of a channel configuration that the config does not name.
pub const UNNAMED_CHANNEL_CONFIG: Code = Code {
    name: "unnamed-channel-config",
    severity: Severity::Warning,
    summary: "A JSON file that `check` found has the shape of a Kinesis or MSK channel configuration, but no `channel-config` key of `schema2iceberg.toml` names it; it is neither compiled as a schema nor validated with one.",
    fix: "Name it in `channel-config` of the `[[schemas]]` entry whose schemas its channel reads, or list it under `skip`.",
    example: r#"channels/orders.json: {"DataFreshnessInSeconds": 300, "S3TablesConfigurationList": […]}"#,
};

/// A JSON file that `check` found has no JSON Schema keyword at its root.
pub const NOT_A_SCHEMA: Code = Code {
    name: "not-a-schema",
    severity: Severity::Warning,
    summary: "A JSON file that `check` found has no JSON Schema keyword at its root (package.json, a sample record), so it is not compiled.",
    fix: "List it under `skip` in `schema2iceberg.toml`; if it is a schema, give it `$schema` or `type`.",
    example: r#"package.json: {"name": "app", "dependencies": {"left-pad": "^1.3.0"}}"#,
};

/// A JSON file that `check` found holds only definitions for other schemas' `$ref`s.
pub const DEFINITIONS_ONLY: Code = Code {
    name: "definitions-only",
    severity: Severity::Note,
    summary: "A JSON file that `check` found has only `definitions` or `$defs` (with `$schema`, `$id`) at its root: shared definitions, not a table. It is not compiled on its own; each definition is checked in the schemas whose `$ref` uses it.",
    fix: "Nothing to fix; list it under `skip` to drop the note, or give its root a `type` if it is a table.",
    example: r#"common/money.json: {"definitions": {"money": {"type": "object", …}}}"#,
};

/// Every code of this crate.
pub const ALL: &[Code] = &[
    CONFIG_INVALID,
    PARTITION_MISMATCH,
    UNNAMED_CHANNEL_CONFIG,
    NOT_A_SCHEMA,
    DEFINITIONS_ONLY,
];

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
