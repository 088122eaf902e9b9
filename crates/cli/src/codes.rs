//! The command line's own diagnostic codes, and the table of every code the tool can emit.

use schema2iceberg_parser::Code;

schema2iceberg_parser::code_table! {
    CONFIG_INVALID = "config-invalid", Error, rule [] section "the repository config (docs/ci.md)",
        "`schema2iceberg.toml` is not valid TOML, has an unknown key, or a value of the wrong kind.",
        "Fix the key at the marked line; docs/ci.md lists every key.",
        "partition = 5";
    PARTITION_MISMATCH = "partition-mismatch", Error, rule [] section "channel configurations (docs/ci.md)",
        "`--partition` (or the repository config) and the channel configuration's `SourceName` name different partition fields.",
        "Make them agree; the channel partitions on its `SourceName`.",
        "--partition event_time with SourceName created_at";
    UNNAMED_CHANNEL_CONFIG = "unnamed-channel-config", Warning, rule [] section "files that are not schemas (docs/ci.md)",
        "A JSON file that `check` found has the shape of a Kinesis or MSK channel configuration, but no `channel-config` key of `schema2iceberg.toml` names it; it is neither compiled as a schema nor validated with one.",
        "Name it in `channel-config` of the `[[schemas]]` entry whose schemas its channel reads, or list it under `skip`.",
        r#"channels/orders.json: {"DataFreshnessInSeconds": 300, "S3TablesConfigurationList": […]}"#;
    UNNAMED_POLICY = "unnamed-policy", Note, rule [] section "files that are not schemas (docs/ci.md)",
        "A JSON file that `check` found has the shape of an IAM policy document (`Version` and `Statement`) or of one statement (`Effect` with `Action`, `NotAction` or `Principal`), but no `[[channels]]` entry of `schema2iceberg.toml` names it; it is not compiled as a schema, nor checked against a channel's needs.",
        "Name it in a `[[channels]]` entry (`role-policy`, `trust-policy`, `table-key-policy`, `table-bucket-policy`) to check it, or list it under `skip`; a statement that `policies --out` writes to paste into a key policy needs neither.",
        r#"iam/table-key-policy-statement.json: {"Sid": "AllowS3TablesMaintenance", "Effect": "Allow", …}"#;
    NOT_A_SCHEMA = "not-a-schema", Warning, rule [] section "files that are not schemas (docs/ci.md)",
        "A JSON file that `check` found has no JSON Schema keyword at its root (package.json, a sample record), so it is not compiled.",
        "List it under `skip` in `schema2iceberg.toml`; if it is a schema, give it `$schema` or `type`.",
        r#"package.json: {"name": "app", "dependencies": {"left-pad": "^1.3.0"}}"#;
    DEFINITIONS_ONLY = "definitions-only", Note, rule [] section "files that are not schemas (docs/ci.md)",
        "A JSON file that `check` found has only `definitions` or `$defs` (with `$schema`, `$id`) at its root: shared definitions, not a table. It is not compiled on its own; each definition is checked in the schemas whose `$ref` uses it.",
        "Nothing to fix; list it under `skip` to drop the note, or give its root a `type` if it is a table.",
        r#"common/money.json: {"definitions": {"money": {"type": "object", …}}}"#;
}

/// One table of codes: its heading in the docs, the file that declares it, and its codes.
#[derive(Debug, Clone, Copy)]
pub struct CodeTable {
    /// The heading of its group in docs/diagnostics.md and in the code index of docs/mapping.md.
    pub group: &'static str,
    /// The file that declares it, relative to the repository root.
    pub file: &'static str,
    /// Its codes, in documentation order.
    pub codes: &'static [Code],
}

/// Every table of codes, grouped by where the codes come from, in documentation order.
pub const TABLES: &[CodeTable] = &[
    CodeTable {
        group: "Reading the schema",
        file: "crates/parser/src/codes.rs",
        codes: schema2iceberg_parser::codes::ALL,
    },
    CodeTable {
        group: "Mapping to Iceberg",
        file: "crates/mapper/src/compiler/codes.rs",
        codes: schema2iceberg_mapper::compiler::codes::ALL,
    },
    CodeTable {
        group: "Lints (check only)",
        file: "crates/mapper/src/compiler/lints.rs",
        codes: schema2iceberg_mapper::compiler::lints::ALL,
    },
    CodeTable {
        group: "Channel configuration (check only)",
        file: "crates/mapper/src/channel/mod.rs",
        codes: schema2iceberg_mapper::channel::ALL,
    },
    CodeTable {
        group: "Permission policies (check only)",
        file: "crates/mapper/src/policies/mod.rs",
        codes: schema2iceberg_mapper::policies::ALL,
    },
    CodeTable {
        group: "The check command",
        file: "crates/cli/src/codes.rs",
        codes: ALL,
    },
];

/// Every code the tool can emit, grouped by where it comes from, in documentation order.
pub fn every_code() -> Vec<(&'static str, &'static [Code])> {
    TABLES
        .iter()
        .map(|table| (table.group, table.codes))
        .collect()
}

/// The line before the generated code index in docs/mapping.md.
pub const CODE_INDEX_BEGIN: &str =
    "<!-- BEGIN code index: generated by `cargo xtask codegen` from the code tables; do not edit. -->";
/// The line after it.
pub const CODE_INDEX_END: &str = "<!-- END code index -->";

/// The code index of docs/mapping.md: every code of every table, its default severity, and the
/// rules (or the unnumbered part of the docs) that decide it.
pub fn code_index_markdown() -> String {
    let mut out = String::new();
    for table in TABLES {
        out.push_str(&format!(
            "{} (`{}`):\n\n| Code | Severity | Rule |\n|---|---|---|\n",
            table.group, table.file
        ));
        for code in table.codes {
            let mut rule: Vec<String> = code.rules.iter().map(u8::to_string).collect();
            rule.extend(code.section.map(str::to_string));
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                code.name,
                code.severity,
                rule.join(", ")
            ));
        }
        out.push('\n');
    }
    out
}

/// `mapping`, the text of docs/mapping.md, with the current code index between its markers;
/// `None` when a marker is missing or they are out of order.
pub fn with_code_index(mapping: &str) -> Option<String> {
    let body = format!("\n{}", code_index_markdown());
    schema2iceberg_mapper::generated::splice(mapping, CODE_INDEX_BEGIN, CODE_INDEX_END, &body)
}

/// Looks a code up by name.
pub fn find(name: &str) -> Option<&'static Code> {
    every_code()
        .into_iter()
        .flat_map(|(_, codes)| codes.iter())
        .find(|c| c.name == name)
}
