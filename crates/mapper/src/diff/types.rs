//! A column whose type changed: what Iceberg's promotion rules allow, what plain JSON records
//! produced under the new type meet, and which keyword chose the type.

use iceberg::spec::{NestedFieldRef, PrimitiveType, Type};

use super::columns::{Found, Slot, Walk, MAX_DEPTH};
use super::constraints::narrows;
use super::{ChangeKind, Fate, IcebergVerdict, Records, TableVerdict, NEW_TABLE};
use crate::compiler::ColumnSource;

impl Walk<'_> {
    pub(super) fn type_changed(
        &mut self,
        path: &str,
        old: &NestedFieldRef,
        new: &NestedFieldRef,
        slot: Slot,
    ) {
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
}

/// `int`, `decimal(38, 2)`, `struct<a: int, b: list<string>>`, `map<string, long>`; `…` below
/// the nesting guard.
// Not iceberg's `SchemaVisitor`: below `MAX_DEPTH` this writes `…`; `visit_schema` goes on.
pub(super) fn render(ty: &Type, depth: usize) -> String {
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
pub(super) fn promotes(old: &PrimitiveType, new: &PrimitiveType) -> bool {
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

pub(super) fn is_string_family(p: &PrimitiveType) -> bool {
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
pub(super) fn type_note(
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

/// Whether every value of `new` is a value of `old`, judged by the column types alone: a
/// bound added (long → int), a `format` added to a string, a `multipleOf` added or made
/// coarser.
pub(super) fn type_narrows(old: &PrimitiveType, new: &PrimitiveType) -> bool {
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
pub(super) type TypedSide<'a> = (&'a NestedFieldRef, Option<&'a ColumnSource>, &'a str);

/// What plain JSON records produced under the new schema meet when a column's type changed:
/// they are delivered when the new schema accepts only values the old one accepts (by the types
/// and by every keyword of the column that changed), and otherwise some can fail the old schema.
/// `by_keyword`: the type follows from a keyword (`maximum`, `multipleOf`, `format`), which
/// then explains the change better than the types do.
pub(super) fn type_fate(
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
