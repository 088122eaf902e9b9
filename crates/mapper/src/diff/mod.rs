//! Compares two tables and says what each difference does to a live channel and to Iceberg
//! schema evolution: the core of `schema2iceberg diff`.
//!
//! Columns are matched by their full path: struct fields by name at each level, list `element`,
//! map `key` and `value`. Field ids play no part, since each compile numbers its table afresh.
//!
//! A channel keeps the table and the schema version it was created with: AWS documents no
//! schema evolution ("Delivery stopped after a schema change: schema evolution is unsupported,
//! new-version records fail validation; revert the producer schema, or delete and recreate the
//! channel on the new schema"). So each change gets a table verdict (does the table differ: only
//! a new channel creates the new one) and, per record format, what the records produced under
//! the new schema meet at the running channel: with GSR-framed records every new version is
//! refused; with plain JSON records they are validated against the old schema.
//!
//! The comparison is split by what it compares: `columns` walks the struct fields (columns
//! added, removed, moved, made required or optional, their docs), `types` judges a column's
//! type, `constraints` its validation keywords, and `partition` the partition spec.

mod columns;
mod constraints;
mod partition;
mod types;

use iceberg::spec::{PartitionSpec, Schema};
use schema2iceberg_parser::Location;

use crate::channel::RecordFormat;
use crate::compiler::ColumnSource;
use columns::{index, Walk};
use partition::partition_change;

/// One side of a comparison: a compiled schema, or a table that already exists.
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    /// The table's schema.
    pub schema: &'a Schema,
    /// The table's partition spec.
    pub partition_spec: &'a PartitionSpec,
    /// Where each column comes from; empty when the side is an Iceberg table, not a JSON Schema.
    pub columns: &'a [ColumnSource],
}

/// What changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    /// A column is only in the new table.
    ColumnAdded,
    /// A column is only in the old table.
    ColumnRemoved,
    /// A primitive type changed, or a struct, list, map or primitive became another of these.
    TypeChanged,
    /// A column became required or optional.
    NullabilityChanged,
    /// A column's doc changed, was added or was removed.
    DocChanged,
    /// A column's place among its siblings changed.
    ColumnMoved,
    /// The partition spec has another source column or transform, or was added or removed.
    PartitionChanged,
    /// A validation keyword changed while the column's type stayed the same.
    ConstraintChanged,
}

/// Whether the change alters the table that a channel creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TableVerdict {
    /// The new schema gives the same table.
    Unchanged,
    /// The new schema gives another table. A channel keeps the table it created, so the new
    /// table exists only once the channel is deleted and recreated on the new schema.
    Changed,
}

/// What the records produced under the new schema meet at a channel created on the old one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Records {
    /// Nothing about them changes (a doc, the order of properties, the partition spec).
    Unaffected,
    /// They still pass the old schema and are delivered into the old table.
    Delivered,
    /// They are delivered, but a property they carry has no column in the old table and is
    /// dropped.
    PropertyDropped,
    /// Some of them can fail the old schema; those go to the dead-letter queue.
    SomeToDeadLetter,
    /// Every one of them goes to the dead-letter queue.
    AllToDeadLetter,
}

impl Records {
    /// Whether records can end in the dead-letter queue.
    pub fn reach_dead_letter(self) -> bool {
        matches!(self, Records::SomeToDeadLetter | Records::AllToDeadLetter)
    }
}

/// What a change does at a running channel that reads one record format.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct ChannelVerdict {
    /// The record format this verdict is for.
    pub record_format: RecordFormat,
    /// What the records produced under the new schema meet.
    pub records: Records,
    /// One sentence: why, and what to do.
    pub reason: String,
}

/// Whether Iceberg's schema evolution rules allow the change, for teams that evolve the table
/// themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IcebergVerdict {
    /// Iceberg can evolve the table this way.
    Allowed,
    /// Iceberg's rules forbid it.
    Incompatible,
}

/// One difference between the two sides, with its verdicts.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Change {
    /// What changed.
    pub kind: ChangeKind,
    /// The dotted column path; `""` for the partition spec.
    pub path: String,
    /// The old value, for humans: a type, `required`/`optional`, a doc, a position, a partition
    /// field such as `hour(event_time)`, or a keyword such as `"maxLength": 10`.
    pub old: Option<String>,
    /// The new value, rendered like `old`.
    pub new: Option<String>,
    /// Where the column is written in NEW, or in OLD for a removal; `None` for a side that is an
    /// Iceberg table.
    #[serde(skip)]
    pub location: Option<Location>,
    /// Whether the table differs.
    pub table: TableVerdict,
    /// What the change does at a running channel, for each record format asked about.
    pub channel: Vec<ChannelVerdict>,
    /// What Iceberg's evolution rules say.
    pub iceberg: IcebergVerdict,
    /// One sentence: why the table and Iceberg verdicts.
    pub reason: String,
    /// What a reviewer would not see in the JSON diff, such as a type chosen by `maximum`.
    pub note: Option<String>,
}

/// When `diff` should fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailOn {
    /// On any change to the table (only a new channel creates the new table).
    TableChange,
    /// On any change that can send records produced under the new schema to the dead-letter
    /// queue, for any record format asked about.
    DeadLetter,
    /// Only on changes that Iceberg's evolution rules forbid.
    IcebergIncompatible,
    /// Never.
    Never,
}

impl FailOn {
    /// Every level, in the order `--fail-on` lists them.
    pub const ALL: [FailOn; 4] = [
        FailOn::TableChange,
        FailOn::DeadLetter,
        FailOn::IcebergIncompatible,
        FailOn::Never,
    ];

    /// The level's name, as `--fail-on` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::TableChange => "table-change",
            FailOn::DeadLetter => "dead-letter",
            FailOn::IcebergIncompatible => "iceberg-incompatible",
            FailOn::Never => "never",
        }
    }
}

/// Whether `changes` reach `level`.
pub fn fails(changes: &[Change], level: FailOn) -> bool {
    match level {
        FailOn::TableChange => changes.iter().any(|c| c.table == TableVerdict::Changed),
        FailOn::DeadLetter => changes
            .iter()
            .any(|c| c.channel.iter().any(|v| v.records.reach_dead_letter())),
        FailOn::IcebergIncompatible => changes
            .iter()
            .any(|c| c.iceberg == IcebergVerdict::Incompatible),
        FailOn::Never => false,
    }
}

/// Every difference between `old` and `new`: in NEW's table order, each removal where it stood
/// in OLD, and the partition spec last. Each change gets a channel verdict for each of
/// `formats`, in the order given.
pub fn diff(old: &Side<'_>, new: &Side<'_>, formats: &[RecordFormat]) -> Vec<Change> {
    let mut walk = Walk {
        old: index(old.columns),
        new: index(new.columns),
        formats,
        out: Vec::new(),
    };
    walk.constraints("", None);
    walk.fields(
        "",
        old.schema.as_struct().fields(),
        new.schema.as_struct().fields(),
        0,
    );
    let mut out = walk.out;
    if let Some(change) = partition_change(old, new, formats) {
        out.push(change);
    }
    out
}

const NEW_TABLE: &str =
    "the table changes, and a channel keeps the table it created: only a channel deleted and recreated on the new schema creates the new table";
const SAME_TABLE: &str = "the table stays as it is";

/// What plain JSON records produced under the new schema meet at a channel that validates them
/// against the old one, and why.
struct Fate {
    records: Records,
    reason: String,
}

impl Fate {
    fn new(records: Records, reason: impl Into<String>) -> Fate {
        Fate {
            records,
            reason: reason.into(),
        }
    }
}

/// The channel verdict for each record format. With GSR-framed records the verdict does not
/// depend on the change: the record names its version, and a new version is not the one the
/// channel was created on. A partition change is the channel's, not the schema's, and touches
/// no record.
fn verdicts(formats: &[RecordFormat], kind: ChangeKind, json: Fate) -> Vec<ChannelVerdict> {
    formats
        .iter()
        .map(|format| match format {
            RecordFormat::Json => ChannelVerdict {
                record_format: *format,
                records: json.records,
                reason: json.reason.clone(),
            },
            RecordFormat::GsrJson if kind == ChangeKind::PartitionChanged => ChannelVerdict {
                record_format: *format,
                records: Records::Unaffected,
                reason: PARTITION_RECORDS.to_string(),
            },
            RecordFormat::GsrJson => ChannelVerdict {
                record_format: *format,
                records: Records::AllToDeadLetter,
                reason: GSR_NEW_VERSION.to_string(),
            },
        })
        .collect()
}

/// What GSR-framed records produced with a new schema version meet, whatever the change: the
/// same sentence for every change (whether the table changes is the change's own verdict).
pub const GSR_NEW_VERSION: &str = "every record names the schema version it was produced with, and the channel accepts only the version it was created on (schema evolution is unsupported): records produced with the new version go to the dead-letter queue; keep producers on the old version, or delete the channel and recreate it on the new schema";

const PARTITION_RECORDS: &str = "the partition spec is the channel's, not the schema's: records are validated and delivered as before, and the old table keeps its partition spec";

#[cfg(test)]
mod tests {
    use super::*;

    /// An old side that is an Iceberg table has no keywords: constraints are not compared, and
    /// a note cannot name the values.
    #[test]
    fn a_table_side_without_sources_skips_constraints() {
        let compile = |text: &str| {
            let options = crate::compiler::CompileOptions {
                column_sources: true,
                ..crate::compiler::CompileOptions::default()
            };
            let c = crate::compiler::compile_source("s.json", text, &options);
            (c.schema.unwrap(), c.partition_spec.unwrap(), c.columns)
        };
        let (old_schema, old_spec, _) = compile(
            r#"{"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}, "s": {"type": "string"}}}"#,
        );
        let (new_schema, new_spec, new_columns) = compile(
            r#"{"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string", "maxLength": 3}}}"#,
        );
        let changes = diff(
            &Side {
                schema: &old_schema,
                partition_spec: &old_spec,
                columns: &[],
            },
            &Side {
                schema: &new_schema,
                partition_spec: &new_spec,
                columns: &new_columns,
            },
            &[RecordFormat::Json],
        );
        assert_eq!(changes.len(), 1, "{changes:#?}");
        let change = changes.first().unwrap();
        assert_eq!(change.kind, ChangeKind::TypeChanged);
        assert_eq!(change.iceberg, IcebergVerdict::Allowed);
        assert_eq!(
            change.note.as_deref(),
            Some("int and long are chosen by `maximum` or `exclusiveMaximum` (int up to 2^31)")
        );
        assert!(change.location.is_some());
    }
}
