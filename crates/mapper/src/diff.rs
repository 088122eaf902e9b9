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

use std::cmp::Ordering;
// Lookups only (never iterated into output), so a fast non-random hasher is safe.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use iceberg::spec::{NestedFieldRef, PartitionSpec, PrimitiveType, Schema, Type};
use schema2iceberg_parser::{Location, Number};

use crate::channel::RecordFormat;
use crate::compiler::keywords::{self, Loosening};
use crate::compiler::model::join;
use crate::compiler::{ColumnSource, MAX_NESTING};

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

/// How deep the walk goes. A compiled table nests at most [`MAX_NESTING`] levels and the walk
/// only descends where both sides have the same container, so the guard only matters for two
/// Iceberg tables; below it, children are not compared.
const MAX_DEPTH: usize = MAX_NESTING + 1;

/// The first source of each path; a later one can only come from a name with a dot in it.
fn index(columns: &[ColumnSource]) -> HashMap<&str, &ColumnSource> {
    let mut map = HashMap::default();
    for c in columns {
        map.entry(c.path.as_str()).or_insert(c);
    }
    map
}

/// Where a column stands among its siblings, before and after.
struct Moved {
    old: String,
    new: String,
}

/// Which slot of its parent a field is; a map key has its own Iceberg rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Field,
    MapKey,
    Other,
}

struct Walk<'a> {
    old: HashMap<&'a str, &'a ColumnSource>,
    new: HashMap<&'a str, &'a ColumnSource>,
    formats: &'a [RecordFormat],
    out: Vec<Change>,
}

/// A change before its channel verdicts are worked out.
struct Found {
    kind: ChangeKind,
    old: Option<String>,
    new: Option<String>,
    location: Option<Location>,
    table: TableVerdict,
    json: Fate,
    iceberg: IcebergVerdict,
    reason: String,
    note: Option<String>,
}

impl Walk<'_> {
    fn record(&mut self, path: &str, found: Found) {
        self.out.push(Change {
            kind: found.kind,
            path: path.to_string(),
            old: found.old,
            new: found.new,
            location: found.location,
            table: found.table,
            channel: verdicts(self.formats, found.kind, found.json),
            iceberg: found.iceberg,
            reason: found.reason,
            note: found.note,
        });
    }

    /// The constraints of the struct that holds `path` (the root for a top-level column).
    fn parent_constraint(
        &self,
        side: &HashMap<&str, &ColumnSource>,
        path: &str,
        key: &str,
    ) -> Option<String> {
        let parent = path.rsplit_once('.').map_or("", |(p, _)| p);
        side.get(parent)
            .and_then(|c| c.constraints.get(key).cloned())
    }

    /// Whether the struct holding `path` lists `name` in its `required`, on that side; `None`
    /// when the side is an Iceberg table.
    fn listed_required(
        &self,
        side: &HashMap<&str, &ColumnSource>,
        path: &str,
        name: &str,
    ) -> Option<bool> {
        if side.is_empty() {
            return None;
        }
        Some(
            self.parent_constraint(side, path, "required")
                .is_some_and(|list| names_in(&list).iter().any(|n| n == name)),
        )
    }

    /// Compares the fields of two structs at `prefix`.
    fn fields(
        &mut self,
        prefix: &str,
        old: &[NestedFieldRef],
        new: &[NestedFieldRef],
        depth: usize,
    ) {
        let old_at: HashMap<&str, usize> = old
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.as_str(), i))
            .collect();
        let new_names: HashSet<&str> = new.iter().map(|f| f.name.as_str()).collect();
        // Old positions of the common fields, in NEW's order.
        let common: Vec<usize> = new
            .iter()
            .filter_map(|f| old_at.get(f.name.as_str()).copied())
            .collect();
        let stays = longest_increasing(&common);
        // Each removed field is reported after the last field before it in OLD that kept its
        // place; a field that moved away says nothing about where the removed one stood.
        let mut anchor: Option<usize> = None;
        let mut removed_after: HashMap<Option<usize>, Vec<&NestedFieldRef>> = HashMap::default();
        for (i, f) in old.iter().enumerate() {
            if !new_names.contains(f.name.as_str()) {
                removed_after.entry(anchor).or_default().push(f);
            } else if stays.binary_search(&i).is_ok() {
                anchor = Some(i);
            }
        }
        for f in removed_after.get(&None).into_iter().flatten() {
            self.removed(prefix, f);
        }
        for (j, nf) in new.iter().enumerate() {
            let Some(&i) = old_at.get(nf.name.as_str()) else {
                self.added(prefix, nf);
                continue;
            };
            let Some(of) = old.get(i) else { continue };
            let moved = stays.binary_search(&i).is_err().then(|| Moved {
                old: position(old, i),
                new: position(new, j),
            });
            self.column(&join(prefix, &nf.name), of, nf, moved, Slot::Field, depth);
            for f in removed_after.get(&Some(i)).into_iter().flatten() {
                self.removed(prefix, f);
            }
        }
    }

    /// Compares one column present on both sides, then what it contains.
    fn column(
        &mut self,
        path: &str,
        old: &NestedFieldRef,
        new: &NestedFieldRef,
        moved: Option<Moved>,
        slot: Slot,
        depth: usize,
    ) {
        let type_changed = match (old.field_type.as_ref(), new.field_type.as_ref()) {
            (Type::Primitive(a), Type::Primitive(b)) => a != b,
            (Type::Struct(_), Type::Struct(_))
            | (Type::List(_), Type::List(_))
            | (Type::Map(_), Type::Map(_)) => false,
            _ => true,
        };
        if type_changed {
            self.type_changed(path, old, new, slot);
        }
        if old.required != new.required {
            self.nullability_changed(path, old, new, slot);
        }
        if let Some(moved) = moved {
            self.column_moved(path, moved);
        }
        if old.doc != new.doc {
            self.doc_changed(path, old, new);
        }
        if !type_changed {
            // A map's `additionalProperties` is its value schema, compared as `value`.
            let skip = match new.field_type.as_ref() {
                Type::Map(_) => Some("additionalProperties"),
                _ => None,
            };
            self.constraints(path, skip);
        }
        if type_changed || depth >= MAX_DEPTH {
            return;
        }
        self.contents(path, old, new, depth);
    }

    /// A column that became required or optional.
    fn nullability_changed(
        &mut self,
        path: &str,
        old: &NestedFieldRef,
        new: &NestedFieldRef,
        slot: Slot,
    ) {
        let (iceberg, why) = if slot == Slot::MapKey {
            (
                IcebergVerdict::Incompatible,
                "Iceberg cannot change a map key",
            )
        } else if new.required {
            (
                IcebergVerdict::Incompatible,
                "Iceberg cannot make an optional column required, since existing rows may hold nulls",
            )
        } else {
            (
                IcebergVerdict::Allowed,
                "Iceberg can make a required column optional",
            )
        };
        let json = if new.required {
            Fate::new(
                Records::Delivered,
                format!("records produced under the new schema always give `{path}` a value, which the old schema also accepts: they are delivered into the old table"),
            )
        } else {
            Fate::new(
                Records::SomeToDeadLetter,
                format!("the old schema requires `{path}` and does not admit null: records produced under the new schema that leave it out or give null fail it and go to the dead-letter queue"),
            )
        };
        let location = self.new_location(path);
        self.record(
            path,
            Found {
                kind: ChangeKind::NullabilityChanged,
                old: Some(requirement(old.required).to_string()),
                new: Some(requirement(new.required).to_string()),
                location,
                table: TableVerdict::Changed,
                json,
                iceberg,
                reason: format!("{NEW_TABLE}; {why}"),
                note: None,
            },
        );
    }

    /// A column written at another place among its siblings.
    fn column_moved(&mut self, path: &str, moved: Moved) {
        let location = self.new_location(path);
        self.record(
            path,
            Found {
                kind: ChangeKind::ColumnMoved,
                old: Some(moved.old),
                new: Some(moved.new),
                location,
                table: TableVerdict::Changed,
                json: Fate::new(
                    Records::Unaffected,
                    "the order of properties means nothing in a JSON record: records are validated and delivered as before, in the old table's column order",
                ),
                iceberg: IcebergVerdict::Allowed,
                reason: format!("{NEW_TABLE}; Iceberg can reorder columns, since it reads them by id"),
                note: None,
            },
        );
    }

    /// A column whose doc (its `description`) changed.
    fn doc_changed(&mut self, path: &str, old: &NestedFieldRef, new: &NestedFieldRef) {
        let location = self.new_location(path);
        self.record(
            path,
            Found {
                kind: ChangeKind::DocChanged,
                old: old.doc.clone(),
                new: new.doc.clone(),
                location,
                table: TableVerdict::Unchanged,
                json: Fate::new(
                    Records::Unaffected,
                    "only a doc changes: records are validated and delivered as before",
                ),
                iceberg: IcebergVerdict::Allowed,
                reason: format!("{SAME_TABLE} but for a column doc, which the running table keeps as it was; Iceberg can change a doc"),
                note: None,
            },
        );
    }

    /// Compares what a struct, list or map of the same kind on both sides contains.
    fn contents(&mut self, path: &str, old: &NestedFieldRef, new: &NestedFieldRef, depth: usize) {
        match (old.field_type.as_ref(), new.field_type.as_ref()) {
            (Type::Struct(a), Type::Struct(b)) => {
                self.fields(path, a.fields(), b.fields(), depth + 1)
            }
            (Type::List(a), Type::List(b)) => self.column(
                &join(path, "element"),
                &a.element_field,
                &b.element_field,
                None,
                Slot::Other,
                depth + 1,
            ),
            (Type::Map(a), Type::Map(b)) => {
                self.column(
                    &join(path, "key"),
                    &a.key_field,
                    &b.key_field,
                    None,
                    Slot::MapKey,
                    depth + 1,
                );
                self.column(
                    &join(path, "value"),
                    &a.value_field,
                    &b.value_field,
                    None,
                    Slot::Other,
                    depth + 1,
                );
            }
            _ => {}
        }
    }

    fn type_changed(&mut self, path: &str, old: &NestedFieldRef, new: &NestedFieldRef, slot: Slot) {
        let (iceberg, why) = match (old.field_type.as_ref(), new.field_type.as_ref()) {
            _ if slot == Slot::MapKey => (IcebergVerdict::Incompatible, "Iceberg cannot change a map key".to_string()),
            (Type::Primitive(a), Type::Primitive(b)) if promotes(a, b) => (
                IcebergVerdict::Allowed,
                format!("Iceberg can promote {a} to {b}"),
            ),
            _ => (
                IcebergVerdict::Incompatible,
                "Iceberg allows no type change other than int → long, float → double and a wider decimal precision".to_string(),
            ),
        };
        let old_source = self.old.get(path).copied();
        let new_source = self.new.get(path).copied();
        let note = match (old.field_type.as_ref(), new.field_type.as_ref()) {
            (Type::Primitive(a), Type::Primitive(b)) => type_note(a, b, old_source, new_source),
            _ => None,
        };
        let old_type = render(&old.field_type, 0);
        let new_type = render(&new.field_type, 0);
        let json = type_fate(
            path,
            (old, old_source, &old_type),
            (new, new_source, &new_type),
            note.is_some(),
        );
        let location = self.new_location(path);
        self.record(
            path,
            Found {
                kind: ChangeKind::TypeChanged,
                old: Some(old_type),
                new: Some(new_type),
                location,
                table: TableVerdict::Changed,
                json,
                iceberg,
                reason: format!("{NEW_TABLE}; {why}"),
                note,
            },
        );
    }

    /// One change per validation keyword that differs, when both sides know their keywords.
    fn constraints(&mut self, path: &str, skip: Option<&str>) {
        let (Some(old), Some(new)) = (self.old.get(path).copied(), self.new.get(path).copied())
        else {
            return;
        };
        let keys = old.constraints.keys().chain(
            new.constraints
                .keys()
                .filter(|k| !old.constraints.contains_key(*k)),
        );
        let mut keys: Vec<&String> = keys.collect();
        keys.sort();
        let shown = if path.is_empty() {
            "the root".to_string()
        } else {
            format!("`{path}`")
        };
        for key in keys {
            let before = old.constraints.get(key);
            let after = new.constraints.get(key);
            if before == after || skip == Some(key.as_str()) {
                continue;
            }
            let json = if narrows(key, before, after) {
                Fate::new(
                    Records::Delivered,
                    format!("the change to `{key}` of {shown} only narrows what the new schema accepts: records produced under it pass the old schema and are delivered"),
                )
            } else {
                Fate::new(
                    Records::SomeToDeadLetter,
                    format!("the channel validates against the old `{key}` of {shown}, which records produced under the new schema can fail: those go to the dead-letter queue"),
                )
            };
            let location = new
                .keyword_locations
                .get(key)
                .or(new.location.as_ref())
                .cloned();
            self.record(
                path,
                Found {
                    kind: ChangeKind::ConstraintChanged,
                    old: before.map(|v| format!("\"{key}\": {v}")),
                    new: after.map(|v| format!("\"{key}\": {v}")),
                    location,
                    table: TableVerdict::Unchanged,
                    json,
                    iceberg: IcebergVerdict::Allowed,
                    reason: format!("{SAME_TABLE}: `{key}` only validates records; Iceberg does not see validation keywords"),
                    note: None,
                },
            );
        }
    }

    fn added(&mut self, prefix: &str, field: &NestedFieldRef) {
        let path = join(prefix, &field.name);
        let (iceberg, why) = if field.required {
            (
                IcebergVerdict::Incompatible,
                "Iceberg cannot add a required column, since existing rows have no value for it (format v2 has no defaults)",
            )
        } else {
            (
                IcebergVerdict::Allowed,
                "Iceberg can add an optional column, which existing rows read as null",
            )
        };
        let closed = self
            .parent_constraint(&self.old, &path, "additionalProperties")
            .is_some_and(|v| v == "false");
        let always = self
            .listed_required(&self.new, &path, &field.name)
            .unwrap_or(field.required);
        let json = match (closed, always) {
            (true, true) => Fate::new(
                Records::AllToDeadLetter,
                format!("the old schema has `additionalProperties: false` where `{path}` is added, and every record produced under the new schema carries it: they all fail the old schema and go to the dead-letter queue"),
            ),
            (true, false) => Fate::new(
                Records::SomeToDeadLetter,
                format!("the old schema has `additionalProperties: false` where `{path}` is added: records produced under the new schema that carry it fail the old schema and go to the dead-letter queue"),
            ),
            (false, _) => Fate::new(
                Records::PropertyDropped,
                format!("the old table has no column for `{path}`: records produced under the new schema are delivered without it, and its values are lost"),
            ),
        };
        let location = self.new_location(&path);
        self.record(
            &path,
            Found {
                kind: ChangeKind::ColumnAdded,
                old: None,
                new: Some(described(field)),
                location,
                table: TableVerdict::Changed,
                json,
                iceberg,
                reason: format!("{NEW_TABLE}; {why}"),
                note: None,
            },
        );
    }

    fn removed(&mut self, prefix: &str, field: &NestedFieldRef) {
        let path = join(prefix, &field.name);
        let location = self.old.get(path.as_str()).and_then(|c| c.location.clone());
        let required = self
            .listed_required(&self.old, &path, &field.name)
            .unwrap_or(field.required);
        let json = if required {
            Fate::new(
                Records::AllToDeadLetter,
                format!("the old schema requires `{path}`, which records produced under the new schema leave out: they all fail it and go to the dead-letter queue"),
            )
        } else {
            Fate::new(
                Records::Delivered,
                format!("the old schema lets records leave out `{path}`: records produced under the new schema are delivered, with the old column left null"),
            )
        };
        self.record(
            &path,
            Found {
                kind: ChangeKind::ColumnRemoved,
                old: Some(described(field)),
                new: None,
                location,
                table: TableVerdict::Changed,
                json,
                iceberg: IcebergVerdict::Allowed,
                reason: format!("{NEW_TABLE}; Iceberg can drop a column"),
                note: None,
            },
        );
    }

    fn new_location(&self, path: &str) -> Option<Location> {
        self.new.get(path).and_then(|c| c.location.clone())
    }
}

/// The largest set of common columns that kept their relative order (a longest increasing
/// subsequence of their old positions, taken in NEW's order); the others moved. Patience
/// sorting keeps this O(n log n) for wide structs.
fn longest_increasing(seq: &[usize]) -> Vec<usize> {
    // tails[k]: index into `seq` of the smallest tail of an increasing run of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut previous: Vec<Option<usize>> = Vec::with_capacity(seq.len());
    for (i, value) in seq.iter().enumerate() {
        let k = tails.partition_point(|&t| seq.get(t).is_some_and(|v| v < value));
        previous.push(k.checked_sub(1).and_then(|p| tails.get(p).copied()));
        if k == tails.len() {
            tails.push(i);
        } else if let Some(slot) = tails.get_mut(k) {
            *slot = i;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(i) = at {
        if let Some(v) = seq.get(i) {
            out.push(*v);
        }
        at = previous.get(i).copied().flatten();
    }
    out.sort_unstable();
    out
}

/// `2 (after `a`)`, or `1 (first)`: the 1-based place among the siblings.
fn position(fields: &[NestedFieldRef], i: usize) -> String {
    match i.checked_sub(1).and_then(|p| fields.get(p)) {
        Some(before) => format!("{} (after `{}`)", i + 1, before.name),
        None => format!("{} (first)", i + 1),
    }
}

fn requirement(required: bool) -> &'static str {
    if required {
        "required"
    } else {
        "optional"
    }
}

/// `optional string`, `required struct<a: int>`.
fn described(field: &NestedFieldRef) -> String {
    format!(
        "{} {}",
        requirement(field.required),
        render(&field.field_type, 0)
    )
}

/// `int`, `decimal(38, 2)`, `struct<a: int, b: list<string>>`, `map<string, long>`; `…` below
/// the nesting guard.
fn render(ty: &Type, depth: usize) -> String {
    if depth > MAX_DEPTH {
        return "…".to_string();
    }
    match ty {
        Type::Primitive(p) => p.to_string(),
        Type::Struct(s) => {
            let fields: Vec<String> = s
                .fields()
                .iter()
                .map(|f| format!("{}: {}", f.name, render(&f.field_type, depth + 1)))
                .collect();
            format!("struct<{}>", fields.join(", "))
        }
        Type::List(l) => format!("list<{}>", render(&l.element_field.field_type, depth + 1)),
        Type::Map(m) => format!(
            "map<{}, {}>",
            render(&m.key_field.field_type, depth + 1),
            render(&m.value_field.field_type, depth + 1)
        ),
    }
}

/// Iceberg's allowed type promotions (format v2).
fn promotes(old: &PrimitiveType, new: &PrimitiveType) -> bool {
    match (old, new) {
        (PrimitiveType::Int, PrimitiveType::Long)
        | (PrimitiveType::Float, PrimitiveType::Double) => true,
        (
            PrimitiveType::Decimal {
                precision: p,
                scale: s,
            },
            PrimitiveType::Decimal {
                precision: q,
                scale: t,
            },
        ) => s == t && q >= p,
        _ => false,
    }
}

fn is_string_family(p: &PrimitiveType) -> bool {
    matches!(
        p,
        PrimitiveType::String
            | PrimitiveType::Timestamptz
            | PrimitiveType::Date
            | PrimitiveType::Time
            | PrimitiveType::Uuid
            | PrimitiveType::Binary
    )
}

/// Names the keyword that chose the type when a reviewer could not tell from the JSON diff: a
/// bound for int and long, `multipleOf` for a decimal, `format` for a string.
fn type_note(
    old: &PrimitiveType,
    new: &PrimitiveType,
    old_source: Option<&ColumnSource>,
    new_source: Option<&ColumnSource>,
) -> Option<String> {
    use PrimitiveType::{Decimal, Double, Int, Long};
    let (intro, keywords): (&str, &[&str]) = match (old, new) {
        (Int, Long) | (Long, Int) => (
            "int and long are chosen by `maximum` or `exclusiveMaximum` (int up to 2^31)",
            &["maximum", "exclusiveMaximum"],
        ),
        (Decimal { scale: a, .. }, Decimal { scale: b, .. }) if a != b => {
            ("the decimal scale comes from `multipleOf`", &["multipleOf"])
        }
        (Double, Decimal { .. }) | (Decimal { .. }, Double) => (
            "a number is a decimal only with `multipleOf`, and a double without it",
            &["multipleOf"],
        ),
        (a, b) if is_string_family(a) && is_string_family(b) => (
            "a string's column type comes from `format` (or a base64 `contentEncoding`)",
            &["format"],
        ),
        _ => return None,
    };
    let (Some(o), Some(n)) = (old_source, new_source) else {
        return Some(intro.to_string());
    };
    let changed: Vec<String> = keywords
        .iter()
        .filter_map(|k| {
            let a = o.constraints.get(*k);
            let b = n.constraints.get(*k);
            (a != b).then(|| {
                format!(
                    "`{k}` {} → {}",
                    a.map_or("absent", String::as_str),
                    b.map_or("absent", String::as_str)
                )
            })
        })
        .collect();
    if changed.is_empty() {
        Some(intro.to_string())
    } else {
        Some(format!(
            "{intro}: this change comes from {}",
            changed.join(" and ")
        ))
    }
}

/// Whether every record that the new value of `key` accepts, the old one accepts too: a keyword
/// added, or changed to a narrower value. A removed keyword accepts more.
fn narrows(key: &str, old: Option<&String>, new: Option<&String>) -> bool {
    match (old, new) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(a), Some(b)) => loosens(key, b, a),
    }
}

/// The names in a `required` constraint, one list or several merged from `allOf` parts.
fn names_in(required: &str) -> Vec<String> {
    required
        .split(" & ")
        .filter_map(|part| serde_json::from_str::<Vec<String>>(part).ok())
        .flatten()
        .collect()
}

/// Whether every value of `new` is a value of `old`, judged by the column types alone: a
/// bound added (long → int), a `format` added to a string, a `multipleOf` added or made
/// coarser.
fn type_narrows(old: &PrimitiveType, new: &PrimitiveType) -> bool {
    use PrimitiveType::{Date, Decimal, Double, Int, Long, String, Time, Timestamptz, Uuid};
    match (old, new) {
        (Long, Int) | (Double, Decimal { .. }) => true,
        (String, Timestamptz | Date | Time | Uuid) => true,
        (Decimal { scale: s, .. }, Decimal { scale: t, .. }) => t < s,
        _ => false,
    }
}

/// One side of a changed column: its field, its keywords when the side is a JSON Schema, and
/// its rendered type.
type TypedSide<'a> = (&'a NestedFieldRef, Option<&'a ColumnSource>, &'a str);

/// What plain JSON records produced under the new schema meet when a column's type changed:
/// they are delivered when the new schema accepts only values the old one accepts (by the types
/// and by every keyword of the column that changed), and otherwise some can fail the old schema.
/// `by_keyword`: the type follows from a keyword (`maximum`, `multipleOf`, `format`), which
/// then explains the change better than the types do.
fn type_fate(
    path: &str,
    (old, old_source, old_type): TypedSide<'_>,
    (new, new_source, new_type): TypedSide<'_>,
    by_keyword: bool,
) -> Fate {
    let by_type = match (old.field_type.as_ref(), new.field_type.as_ref()) {
        (Type::Primitive(a), Type::Primitive(b)) => type_narrows(a, b),
        _ => false,
    };
    let widening: Vec<String> = match (old_source, new_source) {
        (Some(o), Some(n)) => {
            let mut keys: Vec<&String> = o.constraints.keys().chain(n.constraints.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .filter(|k| {
                    let (a, b) = (o.constraints.get(*k), n.constraints.get(*k));
                    a != b && !narrows(k, a, b)
                })
                .map(|k| {
                    format!(
                        "`{k}` {} → {}",
                        o.constraints.get(k).map_or("absent", String::as_str),
                        n.constraints.get(k).map_or("absent", String::as_str)
                    )
                })
                .collect()
        }
        _ => Vec::new(),
    };
    if by_type && widening.is_empty() {
        return Fate::new(
            Records::Delivered,
            format!("every `{path}` that the new schema accepts, the old one accepts too: records produced under it are delivered into the old {old_type} column"),
        );
    }
    let types = format!("a {new_type} where the old schema has {old_type}");
    let why = match (widening.is_empty(), by_keyword) {
        (true, _) => types,
        (false, true) => widening.join(" and "),
        (false, false) => format!("{types}; {}", widening.join(" and ")),
    };
    Fate::new(
        Records::SomeToDeadLetter,
        format!("the channel validates against the old schema, and records produced under the new one can give `{path}` values that it rejects ({why}): those go to the dead-letter queue"),
    )
}

/// Whether changing `key` from `old` to `new` only accepts more records. Anything this cannot
/// tell (a keyword merged from several `allOf` parts, `pattern`, `format`) counts as tightening.
fn loosens(key: &str, old: &str, new: &str) -> bool {
    let (Ok(a), Ok(b)) = (
        serde_json::from_str::<serde_json::Value>(old),
        serde_json::from_str::<serde_json::Value>(new),
    ) else {
        return false;
    };
    let number =
        |v: &serde_json::Value, text: &str| v.is_number().then(|| Number::from_json_text(text));
    let loosening = keywords::entry(key).map_or(Loosening::Never, |e| e.loosening);
    match loosening {
        Loosening::UpperBound | Loosening::LowerBound => {
            if let (Some(x), Some(y)) = (number(&a, old), number(&b, new)) {
                let wider = if loosening == Loosening::UpperBound {
                    Ordering::Greater
                } else {
                    Ordering::Less
                };
                let order = y.cmp_exact(&x);
                order == wider || order == Ordering::Equal
            } else {
                // Draft-04's boolean form: dropping exclusivity admits the bound itself.
                a == serde_json::Value::Bool(true) && b == serde_json::Value::Bool(false)
            }
        }
        Loosening::MoreValues => match (a.as_array(), b.as_array()) {
            (Some(x), Some(y)) => x.iter().all(|v| y.contains(v)),
            _ => false,
        },
        Loosening::FewerNames => match (a.as_array(), b.as_array()) {
            (Some(x), Some(y)) => y.iter().all(|v| x.contains(v)),
            _ => false,
        },
        Loosening::FlagOff => {
            a == serde_json::Value::Bool(true) && b == serde_json::Value::Bool(false)
        }
        // Every multiple of the old value is a multiple of the new one when the old value is.
        Loosening::Divisor => is_multiple(old, new).unwrap_or(false),
        Loosening::Never => false,
    }
}

/// Whether the positive decimal `a` is a whole multiple of `b`, exactly; `None` for a value
/// that is not a plain positive number or too long to compare in 128 bits.
fn is_multiple(a: &str, b: &str) -> Option<bool> {
    let (ma, ea) = decimal(a)?;
    let (mb, eb) = decimal(b)?;
    if mb == 0 {
        return None;
    }
    let e = ea.min(eb);
    let scale = |m: u128, by: i64| -> Option<u128> {
        10u128
            .checked_pow(u32::try_from(by).ok()?)
            .and_then(|p| m.checked_mul(p))
    };
    let x = scale(ma, ea - e)?;
    let y = scale(mb, eb - e)?;
    Some(x % y == 0)
}

/// A JSON number as mantissa and power of ten (`0.05` is 5 and -2); `None` for a negative or
/// an oversized value.
fn decimal(text: &str) -> Option<(u128, i64)> {
    let (number, exponent) = match text.split_once(['e', 'E']) {
        Some((n, e)) => (n, e.trim_start_matches('+').parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if !whole
        .bytes()
        .chain(fraction.bytes())
        .all(|c| c.is_ascii_digit())
        || whole.is_empty()
    {
        return None;
    }
    let digits = format!("{whole}{fraction}");
    let mantissa = digits.trim_start_matches('0');
    let mantissa = if mantissa.is_empty() {
        0
    } else {
        mantissa.parse::<u128>().ok()?
    };
    let places = i64::try_from(fraction.len()).ok()?;
    Some((mantissa, exponent.checked_sub(places)?))
}

/// `hour(event_time)`, one per partition field; empty when unpartitioned.
fn partition_fields(side: &Side<'_>) -> Vec<String> {
    side.partition_spec
        .fields()
        .iter()
        .map(|f| {
            let source = side
                .schema
                .name_by_field_id(f.source_id)
                .map_or_else(|| format!("field {}", f.source_id), str::to_string);
            format!("{}({source})", f.transform)
        })
        .collect()
}

/// The partition spec compared by source column path and transform; partition field names and
/// ids are the channel's own and differ between tables without changing the layout.
fn partition_change(old: &Side<'_>, new: &Side<'_>, formats: &[RecordFormat]) -> Option<Change> {
    let before = partition_fields(old);
    let after = partition_fields(new);
    if before == after {
        return None;
    }
    let source_location = |side: &Side<'_>| {
        side.partition_spec.fields().iter().find_map(|f| {
            let name = side.schema.name_by_field_id(f.source_id)?;
            side.columns
                .iter()
                .find(|c| c.path == name)
                .and_then(|c| c.location.clone())
        })
    };
    let rendered = |fields: Vec<String>| (!fields.is_empty()).then(|| fields.join(", "));
    Some(Change {
        kind: ChangeKind::PartitionChanged,
        path: String::new(),
        old: rendered(before),
        new: rendered(after),
        location: source_location(new).or_else(|| source_location(old)),
        table: TableVerdict::Changed,
        channel: verdicts(
            formats,
            ChangeKind::PartitionChanged,
            Fate::new(Records::Unaffected, PARTITION_RECORDS),
        ),
        iceberg: IcebergVerdict::Allowed,
        reason: format!("{NEW_TABLE}; Iceberg can evolve a partition spec, and data already written keeps its old layout"),
        note: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_increasing_keeps_the_most_columns_in_place() {
        assert_eq!(longest_increasing(&[0, 1, 2]), vec![0, 1, 2]);
        assert_eq!(longest_increasing(&[2, 0, 1]), vec![0, 1]);
        assert_eq!(longest_increasing(&[1, 0]), vec![0]);
        assert_eq!(longest_increasing(&[3, 0, 1, 4, 2]), vec![0, 1, 2]);
        assert_eq!(longest_increasing(&[]), Vec::<usize>::new());
    }

    #[test]
    fn promotions_follow_the_iceberg_spec() {
        use PrimitiveType::{Decimal, Double, Float, Int, Long};
        let decimal = |precision, scale| Decimal { precision, scale };
        assert!(promotes(&Int, &Long));
        assert!(promotes(&Float, &Double));
        assert!(promotes(&decimal(10, 2), &decimal(12, 2)));
        assert!(!promotes(&decimal(12, 2), &decimal(10, 2)));
        assert!(!promotes(&decimal(38, 2), &decimal(38, 3)));
        assert!(!promotes(&Long, &Int));
        assert!(!promotes(&Int, &Double));
    }

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

    #[test]
    fn loosening_is_told_apart_from_tightening() {
        assert!(loosens("maxLength", "10", "20"));
        assert!(!loosens("maxLength", "20", "10"));
        assert!(loosens("minimum", "1e2", "99.5"));
        assert!(!loosens("minimum", "0", "1"));
        assert!(loosens("exclusiveMaximum", "true", "false"));
        assert!(loosens("enum", r#"["a","b"]"#, r#"["b","a","c"]"#));
        assert!(!loosens("enum", r#"["a","b"]"#, r#"["a"]"#));
        assert!(loosens("required", r#"["a","b"]"#, r#"["a"]"#));
        assert!(!loosens("pattern", r#""^a""#, r#""^a|b""#));
        assert!(!loosens("maximum", "5 & 6", "7"));
        assert!(loosens("multipleOf", "0.01", "0.001"));
        assert!(!loosens("multipleOf", "0.001", "0.01"));
        assert!(loosens("multipleOf", "1e-1", "0.05"));
        assert!(!loosens("multipleOf", "0.05", "0.1"));
        assert!(!loosens("multipleOf", "-1", "1"));
    }
}
