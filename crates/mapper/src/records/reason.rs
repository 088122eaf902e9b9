//! The reasons a record goes to the dead-letter queue: one stable code each, with what it means
//! and what fixes it. docs/records.md is generated from [`Reason::ALL`].

use std::fmt;

/// Why the channel would send a record to the dead-letter queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// The record (or a GSR record's payload) is not one JSON value.
    MalformedJson,
    /// Plain bytes sent to a channel that reads GSR-framed records (`JSON_SCHEMA_GSR`).
    GsrNotFramed,
    /// GSR-framed bytes sent to a channel that reads plain JSON.
    GsrFramed,
    /// A GSR header that cannot be read: a short header, a header version other than 3, a
    /// compression byte other than 0 and 5, or a payload that does not inflate.
    GsrHeader,
    /// The GSR header names a schema version other than the one the channel resolves.
    GsrSchemaVersion,
    /// A property listed in `required` is absent.
    MissingRequired,
    /// The partition source field is absent or null.
    MissingPartition,
    /// Any other failure of JSON Schema validation.
    SchemaViolation,
    /// A value that validates but does not fit its column.
    OutOfRange,
    /// A value that validates but does not convert to its column's type.
    InvalidValue,
}

impl Reason {
    /// Every reason, in the order of the steps that find them.
    pub const ALL: [Reason; 10] = [
        Reason::GsrNotFramed,
        Reason::GsrFramed,
        Reason::GsrHeader,
        Reason::GsrSchemaVersion,
        Reason::MalformedJson,
        Reason::MissingPartition,
        Reason::MissingRequired,
        Reason::SchemaViolation,
        Reason::OutOfRange,
        Reason::InvalidValue,
    ];

    /// The stable code, as `--format json` and `ndjson` print it.
    pub fn code(self) -> &'static str {
        match self {
            Reason::MalformedJson => "malformed-json",
            Reason::GsrNotFramed => "gsr-not-framed",
            Reason::GsrFramed => "gsr-framed",
            Reason::GsrHeader => "gsr-header",
            Reason::GsrSchemaVersion => "gsr-schema-version",
            Reason::MissingRequired => "missing-required",
            Reason::MissingPartition => "missing-partition",
            Reason::SchemaViolation => "schema-violation",
            Reason::OutOfRange => "out-of-range",
            Reason::InvalidValue => "invalid-value",
        }
    }

    /// The reason whose code is `code`.
    pub fn from_code(code: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.code() == code)
    }

    /// One line on what the reason means.
    pub fn summary(self) -> &'static str {
        match self {
            Reason::MalformedJson => "the record is not one JSON value (for GSR records: the payload after the header)",
            Reason::GsrNotFramed => "the channel reads GSR records (`JSON_SCHEMA_GSR`), but the record has no GSR header; the reference calls this INVALID_SCHEMA",
            Reason::GsrFramed => "the channel reads plain JSON, but the record starts with a GSR header; the reference calls this DESERIALIZATION_ERROR",
            Reason::GsrHeader => "the GSR header cannot be read: shorter than 18 bytes, a header version other than 3, a compression byte other than 0 (none) and 5 (zlib), or a payload that does not inflate",
            Reason::GsrSchemaVersion => "the GSR header names a schema version other than the one the channel resolves",
            Reason::MissingRequired => "a property listed in `required` is absent",
            Reason::MissingPartition => "the partition source field is absent or null",
            Reason::SchemaViolation => "the record fails JSON Schema validation (type, enum, pattern, bounds, lengths, additionalProperties, oneOf, formats, …)",
            Reason::OutOfRange => "the value validates but does not fit its column: an int or long beyond its bits, a decimal that needs more than 38 digits or more digits after the point than the column's scale, a double beyond its range",
            Reason::InvalidValue => "the value validates but does not convert: a date-time, date, time, uuid or base64 string that does not parse, or a value of a kind the column cannot hold",
        }
    }

    /// What the producer can do about it.
    pub fn help(self) -> &'static str {
        match self {
            Reason::MalformedJson => "produce one complete JSON value per record, in UTF-8",
            Reason::GsrNotFramed => "produce with the Glue Schema Registry serializer, or create the channel with the record format JSON",
            Reason::GsrFramed => "produce plain JSON, or create the channel with the record format JSON_SCHEMA_GSR",
            Reason::GsrHeader => "produce with the Glue Schema Registry serializer, which writes header version 3 and compression 0 or 5",
            Reason::GsrSchemaVersion => "produce with the schema version the channel was created on; the table cannot evolve",
            Reason::MissingRequired => "send the field in every record, or remove it from `required` (the column becomes optional)",
            Reason::MissingPartition => "send the partition field as a date-time string in every record",
            Reason::SchemaViolation => "fix the value in the producer, or loosen the keyword that rejects it",
            Reason::OutOfRange => "send values the column can hold, or widen the column (a `maximum` above 2^31 gives long; `\"type\": \"number\", \"multipleOf\": 1` gives decimal(38, 0))",
            Reason::InvalidValue => "send the value in the column's format (RFC 3339 date-times with an offset, ISO dates, uuids, standard base64)",
        }
    }
}

/// The line before the generated reason table in docs/records.md.
pub const TABLE_BEGIN: &str =
    "<!-- BEGIN reasons: generated by `cargo xtask codegen` from crates/mapper/src/records/reason.rs; do not edit. -->";
/// The line after it.
pub const TABLE_END: &str = "<!-- END reasons -->";

/// The reasons as a Markdown table, in the order of the steps that find them.
pub fn reason_table() -> String {
    let mut out = String::from("| reason | meaning | what to do |\n|---|---|---|\n");
    for reason in Reason::ALL {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            reason.code(),
            reason.summary().replace('|', "\\|"),
            reason.help().replace('|', "\\|")
        ));
    }
    out
}

/// `document` (docs/records.md) with the current reason table between its markers; `None` when
/// the markers are missing.
pub fn with_reason_table(document: &str) -> Option<String> {
    crate::generated::splice(document, TABLE_BEGIN, TABLE_END, &reason_table())
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_round_trip() {
        for reason in Reason::ALL {
            assert_eq!(Reason::from_code(reason.code()), Some(reason));
        }
    }

    #[test]
    fn docs_records_md_has_the_current_reason_table() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/records.md");
        let published = std::fs::read_to_string(path).unwrap_or_default();
        assert_eq!(
            with_reason_table(&published).as_deref(),
            Some(published.as_str()),
            "the reason table in docs/records.md is stale: run `cargo xtask codegen`"
        );
    }
}
