//! The walk over two tables' struct fields, matched by name: columns added, removed, moved,
//! made required or optional, and their docs; each column present on both sides is then
//! compared by its type (`types`), its keywords (`constraints`) and what it contains.

// Lookups only (never iterated into output), so a fast non-random hasher is safe.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use iceberg::spec::{NestedFieldRef, Type};
use schema2iceberg_parser::Location;

use super::constraints::names_in;
use super::types::render;
use super::{
    verdicts, Change, ChangeKind, Fate, IcebergVerdict, Records, TableVerdict, NEW_TABLE,
    SAME_TABLE,
};
use crate::channel::RecordFormat;
use crate::compiler::model::join;
use crate::compiler::{ColumnSource, MAX_NESTING};

/// How deep the walk goes. A compiled table nests at most [`MAX_NESTING`] levels and the walk
/// only descends where both sides have the same container, so the guard only matters for two
/// Iceberg tables; below it, children are not compared.
pub(super) const MAX_DEPTH: usize = MAX_NESTING + 1;

/// The first source of each path; a later one can only come from a name with a dot in it.
pub(super) fn index(columns: &[ColumnSource]) -> HashMap<&str, &ColumnSource> {
    let mut map = HashMap::default();
    for c in columns {
        map.entry(c.path.as_str()).or_insert(c);
    }
    map
}

/// Where a column stands among its siblings, before and after.
pub(super) struct Moved {
    pub(super) old: String,
    pub(super) new: String,
}

/// Which slot of its parent a field is; a map key has its own Iceberg rules.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    Field,
    MapKey,
    Other,
}

// Not iceberg's `SchemaVisitor`: the walk goes down two tables at once, matching fields by name.
pub(super) struct Walk<'a> {
    pub(super) old: HashMap<&'a str, &'a ColumnSource>,
    pub(super) new: HashMap<&'a str, &'a ColumnSource>,
    pub(super) formats: &'a [RecordFormat],
    pub(super) out: Vec<Change>,
}

/// A change before its channel verdicts are worked out.
pub(super) struct Found {
    pub(super) kind: ChangeKind,
    pub(super) old: Option<String>,
    pub(super) new: Option<String>,
    pub(super) location: Option<Location>,
    pub(super) table: TableVerdict,
    pub(super) json: Fate,
    pub(super) iceberg: IcebergVerdict,
    pub(super) reason: String,
    pub(super) note: Option<String>,
}

impl Walk<'_> {
    pub(super) fn record(&mut self, path: &str, found: Found) {
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
    pub(super) fn parent_constraint(
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
    pub(super) fn listed_required(
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
    pub(super) fn fields(
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
    pub(super) fn column(
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
    pub(super) fn nullability_changed(
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
    pub(super) fn column_moved(&mut self, path: &str, moved: Moved) {
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
    pub(super) fn doc_changed(&mut self, path: &str, old: &NestedFieldRef, new: &NestedFieldRef) {
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
    pub(super) fn contents(
        &mut self,
        path: &str,
        old: &NestedFieldRef,
        new: &NestedFieldRef,
        depth: usize,
    ) {
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

    pub(super) fn added(&mut self, prefix: &str, field: &NestedFieldRef) {
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

    pub(super) fn removed(&mut self, prefix: &str, field: &NestedFieldRef) {
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

    pub(super) fn new_location(&self, path: &str) -> Option<Location> {
        self.new.get(path).and_then(|c| c.location.clone())
    }
}

/// The largest set of common columns that kept their relative order (a longest increasing
/// subsequence of their old positions, taken in NEW's order); the others moved. Patience
/// sorting keeps this O(n log n) for wide structs.
pub(super) fn longest_increasing(seq: &[usize]) -> Vec<usize> {
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
pub(super) fn position(fields: &[NestedFieldRef], i: usize) -> String {
    match i.checked_sub(1).and_then(|p| fields.get(p)) {
        Some(before) => format!("{} (after `{}`)", i + 1, before.name),
        None => format!("{} (first)", i + 1),
    }
}

pub(super) fn requirement(required: bool) -> &'static str {
    if required {
        "required"
    } else {
        "optional"
    }
}

/// `optional string`, `required struct<a: int>`.
pub(super) fn described(field: &NestedFieldRef) -> String {
    format!(
        "{} {}",
        requirement(field.required),
        render(&field.field_type, 0)
    )
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
}
