//! A delivered record's row: the values as the table stores them, and their JSON form, each
//! value in Iceberg's single-value JSON serialization.

use iceberg::spec::{Literal, PrimitiveLiteral, PrimitiveType, Type};
use serde_json::{Map, Value};

use super::plan::{Plan, StructPlan};
use super::values::{decimal_text, timestamptz_text};

/// One value of a row, as the column's Iceberg type stores it.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// No value (an optional column, element or map value).
    Null,
    /// boolean
    Bool(bool),
    /// int
    Int(i32),
    /// long
    Long(i64),
    /// double
    Double(f64),
    /// decimal(38, scale): the unscaled value.
    Decimal {
        /// The value times 10^scale.
        unscaled: i128,
        /// The column's scale.
        scale: u32,
    },
    /// string
    String(String),
    /// date: days since 1970-01-01.
    Date(i32),
    /// time: microseconds since midnight.
    Time(i64),
    /// timestamptz: microseconds since 1970-01-01T00:00:00Z.
    Timestamptz(i64),
    /// uuid
    Uuid([u8; 16]),
    /// binary
    Binary(Vec<u8>),
    /// struct: one cell per field, in table order.
    Struct(Vec<Cell>),
    /// list
    List(Vec<Cell>),
    /// map with string keys, in the record's order.
    Map(Vec<(String, Cell)>),
}

/// The JSON of a row: an object keyed by column name, lists as arrays, maps as objects, and
/// every primitive in Iceberg's single-value serialization: written by the `iceberg` crate, but
/// for decimals, which it formats through a 28-digit type that cannot hold decimal(38, s), and
/// timestamptz, which it cannot write before 1970 (see [`timestamptz_text`]).
pub(crate) fn row_json(plan: &StructPlan, cells: &[Cell]) -> Value {
    let mut object = Map::with_capacity(plan.fields.len());
    for (field, cell) in plan.fields.iter().zip(cells) {
        object.insert(field.name.clone(), cell_json(&field.plan, cell));
    }
    Value::Object(object)
}

// The recursion follows the table's nesting, which the mapper has capped at 16 levels.
fn cell_json(plan: &Plan, cell: &Cell) -> Value {
    let primitive = |literal: PrimitiveLiteral, ty: PrimitiveType| {
        Literal::Primitive(literal)
            .try_into_json(&Type::Primitive(ty))
            .unwrap_or(Value::Null)
    };
    match (plan, cell) {
        (_, Cell::Null) => Value::Null,
        (_, Cell::Bool(b)) => Value::Bool(*b),
        (_, Cell::Int(i)) => Value::from(*i),
        (_, Cell::Long(l)) => Value::from(*l),
        (_, Cell::Double(d)) => {
            primitive(PrimitiveLiteral::Double((*d).into()), PrimitiveType::Double)
        }
        (_, Cell::Decimal { unscaled, scale }) => Value::String(decimal_text(*unscaled, *scale)),
        (_, Cell::String(s)) => Value::String(s.clone()),
        (_, Cell::Date(d)) => primitive(PrimitiveLiteral::Int(*d), PrimitiveType::Date),
        (_, Cell::Time(t)) => primitive(PrimitiveLiteral::Long(*t), PrimitiveType::Time),
        (_, Cell::Timestamptz(t)) => Value::String(timestamptz_text(*t)),
        (_, Cell::Uuid(u)) => primitive(
            PrimitiveLiteral::UInt128(u128::from_be_bytes(*u)),
            PrimitiveType::Uuid,
        ),
        (_, Cell::Binary(b)) => {
            primitive(PrimitiveLiteral::Binary(b.clone()), PrimitiveType::Binary)
        }
        (Plan::Struct(s), Cell::Struct(cells)) => row_json(s, cells),
        (Plan::List { element, .. }, Cell::List(items)) => {
            Value::Array(items.iter().map(|c| cell_json(element, c)).collect())
        }
        (Plan::Map { value, .. }, Cell::Map(entries)) => Value::Object(
            entries
                .iter()
                .map(|(k, c)| (k.clone(), cell_json(value, c)))
                .collect(),
        ),
        // A conversion builds cells from the same plan, so the shapes always agree.
        (_, Cell::Struct(_) | Cell::List(_) | Cell::Map(_)) => Value::Null,
    }
}
