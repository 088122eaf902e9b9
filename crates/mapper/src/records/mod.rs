//! Whether a streaming-tables channel delivers one record or sends it to the dead-letter queue,
//! and the row it writes: the steps of docs/records.md, with no I/O.
//!
//! 1. framing ([`RecordFormat`]): plain JSON, or the Glue Schema Registry header;
//! 2. JSON: the record must be one JSON value (`malformed-json`);
//! 3. the partition source must be present and not null (`missing-partition`);
//! 4. JSON Schema validation with the `jsonschema` crate (`missing-required`,
//!    `schema-violation`);
//! 5. conversion to the table's types (`out-of-range`, `invalid-value`); fields the table has no
//!    column for are dropped.
//!
//! ```
//! use schema2iceberg_mapper::records::{RecordChecker, RecordOptions, Verdict};
//! use schema2iceberg_mapper::CompileOptions;
//! use schema2iceberg_parser::{LoadOptions, Url, Workspace};
//!
//! let schema = br#"{"type": "object", "properties": {
//!   "id": {"type": "integer", "maximum": 10},
//!   "ts": {"type": "string", "format": "date-time"}}, "required": ["id"]}"#;
//! let base = Url::parse("file:///schemas/event.json").unwrap();
//! let ws = Workspace::from_bytes("event.json", schema.to_vec(), base, LoadOptions::default());
//! let options = CompileOptions { partition: vec!["ts".into()], ..CompileOptions::default() };
//! let checker = RecordChecker::new(&ws, &options, RecordOptions::default()).unwrap();
//! let record = br#"{"id": 3, "ts": "2026-07-09T22:00:00+02:00", "extra": 1}"#;
//! let Verdict::Delivered(delivered) = checker.check(record, true) else { panic!() };
//! assert_eq!(delivered.row.unwrap()["ts"], "2026-07-09T20:00:00+00:00");
//! assert_eq!(delivered.dropped, ["/extra"]);
//! let Verdict::Dlq(failure) = checker.check(br#"{"id": 3}"#, false) else { panic!() };
//! assert_eq!(failure.reason.code(), "missing-partition");
//! ```

mod convert;
mod framing;
mod instance;
mod keyword;
mod plan;
mod reason;
mod row;
mod validate;
mod values;

use schema2iceberg_parser::json::{JsonDoc, JsonValue};
use schema2iceberg_parser::{pointer, Workspace};
use serde_json::Value;

pub use framing::{format_uuid, parse_uuid, MAX_INFLATED};
pub use reason::{reason_table, with_reason_table, Reason};
pub use row::Cell;
pub use values::{decimal_text, timestamptz_micros, timestamptz_text};

use crate::compiler::{compile, CompileOptions, Compiled};

/// How the channel reads a record's bytes (`RecordFormatType` of an MSK channel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecordFormat {
    /// `JSON`: the bytes are the JSON text.
    #[default]
    Json,
    /// `JSON_SCHEMA_GSR`: an 18-byte Glue Schema Registry header, then the JSON text, zlib
    /// compressed when the header says so.
    GsrJson,
}

// The channel configuration's name for the same two formats.
impl From<crate::channel::RecordFormat> for RecordFormat {
    fn from(format: crate::channel::RecordFormat) -> Self {
        match format {
            crate::channel::RecordFormat::Json => RecordFormat::Json,
            crate::channel::RecordFormat::GsrJson => RecordFormat::GsrJson,
        }
    }
}

impl From<RecordFormat> for crate::channel::RecordFormat {
    fn from(format: RecordFormat) -> Self {
        match format {
            RecordFormat::Json => crate::channel::RecordFormat::Json,
            RecordFormat::GsrJson => crate::channel::RecordFormat::GsrJson,
        }
    }
}

/// What the channel is set up with, besides the table.
#[derive(Debug, Clone, Default)]
pub struct RecordOptions {
    /// The record format.
    pub format: RecordFormat,
    /// The schema version the channel resolves. A GSR record that names another goes to the
    /// dead-letter queue; `None` accepts any.
    pub schema_version_id: Option<[u8; 16]>,
}

/// What happens to one record.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The channel writes it to the table.
    Delivered(Delivered),
    /// The channel sends it to the dead-letter queue.
    Dlq(Failure),
}

/// A delivered record.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivered {
    /// The row as JSON: an object keyed by column name, each value in Iceberg's single-value
    /// serialization. Only when asked for.
    pub row: Option<Value>,
    /// The row's values, one per top-level column. Only when asked for.
    pub cells: Option<Vec<Cell>>,
    /// JSON Pointers of the fields the table has no column for, which the channel drops.
    pub dropped: Vec<String>,
}

/// Why a record goes to the dead-letter queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The stable reason.
    pub reason: Reason,
    /// A JSON Pointer into the record; `""` for the whole record.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
    /// The JSON Schema keyword that failed, for validation failures.
    pub keyword: Option<String>,
    /// What to do about this failure in particular (the failing keyword's own rule), where it
    /// says more than the reason's help; [`Failure::help`] gives one or the other. Boxed, to
    /// keep the failure small.
    pub help: Option<Box<str>>,
    /// The byte range in the record's JSON text that the failure is about (for a GSR record,
    /// in the payload after the header); `None` when there is no JSON text to point into.
    pub span: Option<(usize, usize)>,
}

impl Failure {
    fn whole(reason: Reason, message: String) -> Failure {
        Failure {
            reason,
            pointer: String::new(),
            message,
            keyword: None,
            help: None,
            span: None,
        }
    }

    /// What to do about it: the failing keyword's own help where there is one, else the
    /// reason's.
    pub fn help(&self) -> &str {
        self.help.as_deref().unwrap_or(self.reason.help())
    }
}

/// Why records cannot be checked at all.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The schema does not compile to a table; the diagnostics say why.
    #[error(
        "the schema does not compile to a table ({} errors)",
        .0.count(schema2iceberg_parser::Severity::Error)
    )]
    Schema(Box<Compiled>),
    /// The `jsonschema` crate cannot build a validator from the schema.
    #[error("the JSON Schema validator cannot read the schema: {0}")]
    Validator(String),
    /// The compiled table is not one this checker can read (a bug: please report it).
    #[error("cannot read the compiled table: {0}")]
    Table(String),
}

/// Checks records against one compiled table. Build it once; [`RecordChecker::check`] takes
/// `&self` and may run on many threads at once.
#[derive(Debug)]
pub struct RecordChecker {
    compiled: Compiled,
    validator: validate::SchemaValidator,
    plan: plan::StructPlan,
    partition: Option<Vec<String>>,
    options: RecordOptions,
}

impl RecordChecker {
    /// Compiles the main schema of `ws` and builds its validator.
    pub fn new(
        ws: &Workspace,
        compile_options: &CompileOptions,
        options: RecordOptions,
    ) -> Result<RecordChecker, SetupError> {
        let compile_options = CompileOptions {
            column_sources: true,
            ..compile_options.clone()
        };
        let compiled = compile(ws, &compile_options);
        let (Some(schema), Some(spec)) = (&compiled.schema, &compiled.partition_spec) else {
            return Err(SetupError::Schema(Box::new(compiled)));
        };
        let source_id = spec.fields().first().map(|f| f.source_id);
        let (plan, partition) = plan::table_plan(schema, &compiled.columns, source_id)?;
        let validator = validate::SchemaValidator::new(ws)?;
        Ok(RecordChecker {
            compiled,
            validator,
            plan,
            partition,
            options,
        })
    }

    /// The compiled table, with its warnings.
    pub fn compiled(&self) -> &Compiled {
        &self.compiled
    }

    /// The dotted path of the partition source, when the table is partitioned.
    pub fn partition_source(&self) -> Option<String> {
        self.partition.as_ref().map(|names| names.join("."))
    }

    /// The JSON text the channel reads from a record's bytes: the bytes themselves for a `json`
    /// channel, the payload after the header (inflated) for `gsr-json`; `None` when the framing
    /// fails. [`Failure::span`] points into this text, so a report can show it.
    pub fn json_text<'a>(&self, bytes: &'a [u8]) -> Option<std::borrow::Cow<'a, [u8]>> {
        framing::unframe(bytes, self.options.format, self.options.schema_version_id).ok()
    }

    /// What the channel does with one record's bytes. With `want_row`, a delivered record
    /// carries its row ([`Delivered::row`] and [`Delivered::cells`]).
    pub fn check(&self, bytes: &[u8], want_row: bool) -> Verdict {
        Self::verdict(self.steps(bytes, want_row, want_row))
    }

    /// As [`RecordChecker::check`], for writing the table: a delivered record carries its
    /// [`Delivered::cells`] but not the JSON row, which writing does not need.
    pub fn check_for_table(&self, bytes: &[u8]) -> Verdict {
        Self::verdict(self.steps(bytes, true, false))
    }

    fn verdict(steps: Result<Delivered, Failure>) -> Verdict {
        match steps {
            Ok(delivered) => Verdict::Delivered(delivered),
            Err(failure) => Verdict::Dlq(failure),
        }
    }

    fn steps(&self, bytes: &[u8], want_cells: bool, want_row: bool) -> Result<Delivered, Failure> {
        let text = framing::unframe(bytes, self.options.format, self.options.schema_version_id)?;
        let mut doc = schema2iceberg_parser::json::read(&text).map_err(|error| Failure {
            reason: Reason::MalformedJson,
            pointer: String::new(),
            message: format!("{} (byte {})", error.message, error.offset + 1),
            keyword: None,
            help: None,
            span: Some((error.offset, error.offset + 1)),
        })?;
        if let Some(at) = instance::out_of_range(&doc, doc.root()) {
            let span = doc.span(at);
            return Err(Failure {
                reason: Reason::OutOfRange,
                pointer: doc.pointer(at),
                message: format!(
                    "{} is beyond the range of a double (about ±1.8e308), which is how the validator, like most JSON readers, holds numbers",
                    doc.compact(at)
                ),
                keyword: None,
                help: None,
                span: Some((span.start(), span.end())),
            });
        }
        self.check_partition(&doc)?;
        self.validator.check(&doc)?;
        let converted = convert::convert_record(&self.plan, &mut doc, want_cells)?;
        let row = want_row.then(|| row::row_json(&self.plan, &converted.cells));
        Ok(Delivered {
            row,
            cells: want_cells.then_some(converted.cells),
            dropped: converted.dropped,
        })
    }

    /// Step 3: the partition source, reached through objects, must be there and not null.
    fn check_partition(&self, doc: &JsonDoc) -> Result<(), Failure> {
        let Some(names) = &self.partition else {
            return Ok(());
        };
        let mut at = doc.root();
        for name in names {
            let next = match doc.value(at) {
                JsonValue::Object(members) => members.iter().find(|m| m.key == name),
                _ => None,
            };
            match next {
                Some(member) if *doc.value(member.value) != JsonValue::Null => at = member.value,
                found => {
                    let span = doc.span(found.map_or(at, |m| m.value));
                    let pointer: String = names
                        .iter()
                        .map(|n| format!("/{}", pointer::escape_token(n)))
                        .collect();
                    return Err(Failure {
                        reason: Reason::MissingPartition,
                        message: format!(
                            "the partition source `{}` is {}; the channel needs it in every record",
                            names.join("."),
                            if found.is_some() { "null" } else { "absent" }
                        ),
                        pointer,
                        keyword: None,
                        help: None,
                        span: Some((span.start(), span.end())),
                    });
                }
            }
        }
        Ok(())
    }
}
