//! Step 5: a valid record's values converted to the table's types, following docs/mapping.md:
//! the row the channel writes, the fields it drops, or the value that does not fit
//! (`out-of-range`) or does not convert (`invalid-value`).

use schema2iceberg_parser::json::{JsonDoc, JsonId, JsonValue, Member};

use super::plan::{Plan, StructPlan};
use super::row::Cell;
use super::values::{self, NumberMisfit};
use super::{Failure, Reason};

/// What converting a record gives: its row's cells (one per top-level column) and the pointers
/// of the fields the table has no column for.
pub(crate) struct Converted {
    pub cells: Vec<Cell>,
    pub dropped: Vec<String>,
}

/// Converts the record at the root of `doc` to the table's row.
/// Without `keep_values`, every value is still converted (that is what finds the failures), but
/// text values are not kept in the cells, which are then only placeholders. With it, the cells
/// take their text (strings and map keys) out of `doc` instead of copying it: the document is
/// not needed after its conversion, and the copies were a measurable part of `deliver`.
pub(crate) fn convert_record(
    plan: &StructPlan,
    doc: &mut JsonDoc,
    keep_values: bool,
) -> Result<Converted, Failure> {
    let root = doc.root();
    let mut converter = Converter {
        doc,
        dropped: Vec::new(),
        keep_values,
    };
    let cells = converter.struct_cells(plan, root)?;
    Ok(Converted {
        cells,
        dropped: converter.dropped,
    })
}

struct Converter<'d> {
    /// Text is taken out of a value once it is converted, and out of a map key once its value
    /// is: so the pointers of later failures, which only pass through members not yet
    /// converted, keep their keys.
    doc: &'d mut JsonDoc,
    dropped: Vec<String>,
    keep_values: bool,
}

impl Converter<'_> {
    fn fail(&self, reason: Reason, at: JsonId, message: String) -> Failure {
        let span = self.doc.span(at);
        Failure {
            reason,
            pointer: self.doc.pointer(at),
            message,
            keyword: None,
            help: None,
            span: Some((span.start(), span.end())),
        }
    }

    fn struct_cells(&mut self, plan: &StructPlan, at: JsonId) -> Result<Vec<Cell>, Failure> {
        let JsonValue::Object(members) = self.doc.value(at) else {
            return Err(self.fail(
                Reason::InvalidValue,
                at,
                format!("{} where the table has a struct", self.doc.value(at).kind()),
            ));
        };
        let count = members.len();
        let mut cells = vec![Cell::Null; plan.fields.len()];
        for index in 0..count {
            let Some((column, value)) = self
                .member(at, index)
                .map(|m| (plan.by_name.get(m.key.as_str()).copied(), m.value))
            else {
                continue;
            };
            let slot = column.and_then(|i| Some((plan.fields.get(i)?, cells.get_mut(i)?)));
            match slot {
                Some((field, cell)) => {
                    *cell = self.cell(&field.plan, field.required, value)?;
                }
                None => self.dropped.push(self.doc.pointer(value)),
            }
        }
        for (field, cell) in plan.fields.iter().zip(&cells) {
            if field.required && *cell == Cell::Null {
                // Validation has already failed a record that misses a `required` property;
                // this is the column that the partition made required, or one whose schema
                // says nothing that validation checks.
                let mut failure = self.fail(
                    Reason::MissingRequired,
                    at,
                    format!("required column `{}` has no value", field.name),
                );
                failure.pointer = format!(
                    "{}/{}",
                    failure.pointer,
                    schema2iceberg_parser::pointer::escape_token(&field.name)
                );
                return Err(failure);
            }
        }
        Ok(cells)
    }

    // The recursion follows the table's nesting (at most 16 levels), not the record's.
    fn cell(&mut self, plan: &Plan, required: bool, at: JsonId) -> Result<Cell, Failure> {
        let value = self.doc.value(at);
        if let JsonValue::Null = value {
            if required {
                return Err(self.fail(
                    Reason::InvalidValue,
                    at,
                    "null where the column is required".to_string(),
                ));
            }
            return Ok(Cell::Null);
        }
        match plan {
            Plan::Struct(s) => Ok(Cell::Struct(self.struct_cells(s, at)?)),
            Plan::List { element, required } => {
                let JsonValue::Array(items) = value else {
                    return Err(self.mismatch(value, "list", at));
                };
                let count = items.len();
                let mut cells = Vec::with_capacity(count);
                for index in 0..count {
                    let item = match self.doc.value(at) {
                        JsonValue::Array(items) => items.get(index).copied(),
                        _ => None,
                    };
                    if let Some(item) = item {
                        cells.push(self.cell(element, *required, item)?);
                    }
                }
                Ok(Cell::List(cells))
            }
            Plan::Map {
                value: value_plan,
                required,
            } => {
                let JsonValue::Object(members) = value else {
                    return Err(self.mismatch(value, "map", at));
                };
                let count = members.len();
                let mut entries = Vec::with_capacity(count);
                for index in 0..count {
                    let Some(member_value) = self.member(at, index).map(|m| m.value) else {
                        continue;
                    };
                    let cell = self.cell(value_plan, *required, member_value)?;
                    let key = if self.keep_values {
                        self.doc.take_key(at, index).unwrap_or_default()
                    } else {
                        String::new()
                    };
                    entries.push((key, cell));
                }
                Ok(Cell::Map(entries))
            }
            primitive => self.primitive(primitive, at),
        }
    }

    /// Member `index` of the object at `at`. Members are looked up by index, as the document
    /// cannot stay borrowed while their values' text is taken out of it.
    fn member(&self, at: JsonId, index: usize) -> Option<&Member> {
        match self.doc.value(at) {
            JsonValue::Object(members) => members.get(index),
            _ => None,
        }
    }

    fn primitive(&mut self, plan: &Plan, at: JsonId) -> Result<Cell, Failure> {
        let value = self.doc.value(at);
        let invalid = |what: &str| {
            self.fail(
                Reason::InvalidValue,
                at,
                format!("{} is not a valid {what}", self.doc.compact(at)),
            )
        };
        match (plan, value) {
            (Plan::Bool, JsonValue::Bool(b)) => Ok(Cell::Bool(*b)),
            (Plan::Int | Plan::Long | Plan::Double | Plan::Decimal { .. }, _) => {
                self.number(plan, value, at)
            }
            (Plan::String { .. }, JsonValue::String(_)) => Ok(Cell::String(if self.keep_values {
                self.doc.take_string(at).unwrap_or_default()
            } else {
                String::new()
            })),
            (Plan::String { any_json: true }, _) => Ok(Cell::String(if self.keep_values {
                self.doc.compact(at)
            } else {
                String::new()
            })),
            (Plan::Date, JsonValue::String(s)) => values::date_days(s)
                .map(Cell::Date)
                .ok_or_else(|| invalid("date (YYYY-MM-DD)")),
            (Plan::Time, JsonValue::String(s)) => {
                values::time_micros(s).map(Cell::Time).ok_or_else(|| {
                    invalid("time (HH:MM:SS, optionally with a fraction and an offset)")
                })
            }
            (Plan::Timestamptz, JsonValue::String(s)) => values::timestamptz_micros(s)
                .map(Cell::Timestamptz)
                .ok_or_else(|| invalid("date-time (RFC 3339, with an offset)")),
            (Plan::Uuid, JsonValue::String(s)) => values::uuid_bytes(s)
                .map(Cell::Uuid)
                .ok_or_else(|| invalid("uuid (8-4-4-4-12 hex digits)")),
            (Plan::Binary, JsonValue::String(s)) => values::base64_bytes(s)
                .map(Cell::Binary)
                .ok_or_else(|| invalid("base64 string (standard alphabet, padding optional)")),
            (plan, value) => Err(self.mismatch(value, column_kind(plan), at)),
        }
    }

    /// A number for a numeric column: whole and in range for int and long, finite for double,
    /// and exact at the column's scale for a decimal.
    fn number(&self, plan: &Plan, value: &JsonValue, at: JsonId) -> Result<Cell, Failure> {
        match (plan, value) {
            (Plan::Int, JsonValue::Number(n)) => {
                let whole = self.integer(n.as_str(), at, "int")?;
                i32::try_from(whole).map(Cell::Int).map_err(|_| {
                    self.fail(
                        Reason::OutOfRange,
                        at,
                        format!(
                            "{} does not fit an int column (32 bits: -2147483648 to 2147483647)",
                            n.as_str()
                        ),
                    )
                })
            }
            (Plan::Long, JsonValue::Number(n)) => {
                let whole = self.integer(n.as_str(), at, "long")?;
                i64::try_from(whole).map(Cell::Long).map_err(|_| {
                    self.fail(
                        Reason::OutOfRange,
                        at,
                        format!("{} does not fit a long column (64 bits)", n.as_str()),
                    )
                })
            }
            (Plan::Double, JsonValue::Number(n)) => match n.as_str().parse::<f64>() {
                Ok(d) if d.is_finite() => Ok(Cell::Double(d)),
                _ => Err(self.fail(
                    Reason::OutOfRange,
                    at,
                    format!("{} is beyond the range of a double", n.as_str()),
                )),
            },
            (Plan::Decimal { scale }, JsonValue::Number(n)) => {
                match values::unscaled(n.as_str(), *scale) {
                    Ok(unscaled) => Ok(Cell::Decimal {
                        unscaled,
                        scale: *scale,
                    }),
                    Err(misfit) => Err(self.fail(
                        Reason::OutOfRange,
                        at,
                        decimal_misfit(n.as_str(), *scale, misfit),
                    )),
                }
            }
            (plan, value) => Err(self.mismatch(value, column_kind(plan), at)),
        }
    }

    /// The exact integer that `text` writes (`3`, `3.0`, `3e2`), or why it is not one.
    fn integer(&self, text: &str, at: JsonId, column: &str) -> Result<i128, Failure> {
        values::unscaled(text, 0).map_err(|misfit| match misfit {
            NumberMisfit::Scale => self.fail(
                Reason::InvalidValue,
                at,
                format!("{text} is not a whole number, and the column is {column}"),
            ),
            NumberMisfit::Digits => self.fail(
                Reason::OutOfRange,
                at,
                format!("{text} does not fit a {column} column"),
            ),
        })
    }

    fn mismatch(&self, value: &JsonValue, column: &str, at: JsonId) -> Failure {
        self.fail(
            Reason::InvalidValue,
            at,
            format!("{} where the column is {column}", value.kind()),
        )
    }
}

fn decimal_misfit(text: &str, scale: u32, misfit: NumberMisfit) -> String {
    match misfit {
        NumberMisfit::Scale => format!(
            "{text} has more digits after the point than the column's scale ({scale}) keeps"
        ),
        NumberMisfit::Digits => format!(
            "{text} needs more than 38 digits at scale {scale} (decimal(38, {scale}) holds magnitudes below 10^{})",
            38 - scale.min(38)
        ),
    }
}

fn column_kind(plan: &Plan) -> &'static str {
    match plan {
        Plan::Bool => "boolean",
        Plan::Int => "int",
        Plan::Long => "long",
        Plan::Double => "double",
        Plan::Decimal { .. } => "decimal",
        Plan::String { .. } => "string",
        Plan::Date => "date",
        Plan::Time => "time",
        Plan::Timestamptz => "timestamptz",
        Plan::Uuid => "uuid",
        Plan::Binary => "binary",
        Plan::Struct(_) => "struct",
        Plan::List { .. } => "list",
        Plan::Map { .. } => "map",
    }
}
