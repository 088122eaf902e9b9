//! What a generated record must look like, read once from the compiled table: each column's
//! type, the values and bounds its schema's keywords allow, and whether the field may be absent
//! or null. A keyword the generator cannot satisfy is an error that names the column, rather
//! than records that the channel would send to the dead-letter queue.

use std::collections::BTreeMap;

use iceberg::spec::{NestedFieldRef, PrimitiveType, Type};
use schema2iceberg_mapper::ColumnSource;
use schema2iceberg_parser::{pointer, Location, Workspace};

use super::decimal::Decimal;

/// How to write one value.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Bool,
    /// int or long: a whole number in `low..=high`.
    Whole {
        low: i128,
        high: i128,
    },
    Double {
        low: f64,
        high: f64,
    },
    /// A multiple of `step` in `low..=high`, all three unscaled at `scale`.
    Decimal {
        scale: u32,
        step: i128,
        low: i128,
        high: i128,
    },
    Text {
        min_chars: usize,
        max_chars: usize,
        format: TextFormat,
    },
    /// `enum` or `const`: one of these JSON texts, written as they are.
    Choice(Vec<String>),
    Date,
    Time,
    Timestamptz,
    /// The partition source of a stream (`gen-records --stream`): this instant, in microseconds
    /// since the epoch, which the generator sets before each record.
    Instant(i64),
    Uuid,
    Binary,
    Struct(StructShape),
    List {
        element: Box<Shape>,
        min_items: usize,
        max_items: usize,
    },
    Map {
        value: Box<Shape>,
        min_entries: usize,
        max_entries: usize,
    },
}

/// The string formats that leave a string column and that the generator can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    Plain,
    Email,
    Hostname,
    Ipv4,
    Uri,
}

/// A struct's fields in table order, and whether fields the table drops may be added.
#[derive(Debug, Clone, PartialEq)]
pub struct StructShape {
    pub fields: Vec<Field>,
    pub extras: bool,
}

/// One field of a struct.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    /// The dotted Iceberg path, for messages and the tests' coverage count.
    pub path: String,
    pub shape: Shape,
    /// In `required`, a required column, or the partition source: never left out.
    pub always: bool,
    /// The schema admits `null` here (a `type` list with `"null"`, or `null` in the `enum`).
    pub nullable: bool,
}

/// Reads the table's shape. `partition`: the dotted path of the partition source, which every
/// record must carry.
pub fn table_shape(
    ws: &Workspace,
    fields: &[NestedFieldRef],
    columns: &[ColumnSource],
    partition: Option<&str>,
) -> Result<StructShape, String> {
    let reader = Reader {
        ws,
        sources: columns.iter().map(|c| (c.path.as_str(), c)).collect(),
        partition,
    };
    reader.struct_shape(fields, "")
}

struct Reader<'a> {
    ws: &'a Workspace,
    sources: BTreeMap<&'a str, &'a ColumnSource>,
    partition: Option<&'a str>,
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// A keyword's compact JSON text read back as JSON.
fn parse(path: &str, keyword: &str, text: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(text).map_err(|_| {
        format!("column `{path}`: cannot read `{keyword}` ({text}); gen-records reads one value per keyword, not `allOf` parts that each set it")
    })
}

fn count(path: &str, keyword: &str, text: &str) -> Result<usize, String> {
    parse(path, keyword, text)?
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| format!("column `{path}`: `{keyword}` is {text}, not a count"))
}

impl Reader<'_> {
    fn source(&self, path: &str) -> Result<&ColumnSource, String> {
        self.sources
            .get(path)
            .copied()
            .ok_or_else(|| format!("the compiled table has no column source for `{path}`"))
    }

    fn struct_shape(&self, fields: &[NestedFieldRef], path: &str) -> Result<StructShape, String> {
        let source = self.source(path)?;
        let mut required: Vec<String> = Vec::new();
        let mut extras = true;
        for (keyword, text) in &source.constraints {
            match keyword.as_str() {
                "required" => {
                    required = serde_json::from_value(parse(path, keyword, text)?)
                        .map_err(|e| format!("column `{path}`: `required`: {e}"))?;
                }
                // Any other value is a schema that extra fields would have to satisfy.
                "additionalProperties" => extras = text == "true",
                "patternProperties" => extras = false,
                "format" | "enum" | "const" => {}
                other => return Err(unsupported(path, other, text)),
            }
        }
        let mut shaped = Vec::with_capacity(fields.len());
        for field in fields {
            let field_path = join(path, &field.name);
            let (shape, enum_null) = self.shape(&field.field_type, &field_path)?;
            let location = self.source(&field_path)?.location.as_ref();
            let nullable = !field.required
                && self.partition != Some(field_path.as_str())
                && (enum_null || self.admits_null(location));
            shaped.push(Field {
                name: field.name.clone(),
                always: field.required
                    || required.contains(&field.name)
                    || self.partition == Some(field_path.as_str()),
                nullable,
                shape,
                path: field_path,
            });
        }
        Ok(StructShape {
            fields: shaped,
            extras,
        })
    }

    /// The column's shape, and whether its `enum` lists `null`.
    fn shape(&self, ty: &Type, path: &str) -> Result<(Shape, bool), String> {
        let constraints = &self.source(path)?.constraints;
        if let Some((keyword, text)) = constraints
            .get_key_value("enum")
            .or_else(|| constraints.get_key_value("const"))
        {
            return choice(path, keyword, text);
        }
        let shape = match ty {
            Type::Primitive(p) => self.primitive(p, path, constraints)?,
            Type::Struct(s) => Shape::Struct(self.struct_shape(s.fields(), path)?),
            Type::List(list) => {
                let (min_items, max_items) =
                    sizes(path, constraints, "minItems", "maxItems", &["uniqueItems"])?;
                let element_path = join(path, "element");
                Shape::List {
                    element: Box::new(self.shape(&list.element_field.field_type, &element_path)?.0),
                    min_items,
                    max_items,
                }
            }
            Type::Map(map) => {
                let (min_entries, max_entries) = sizes(
                    path,
                    constraints,
                    "minProperties",
                    "maxProperties",
                    &["additionalProperties"],
                )?;
                let value_path = join(path, "value");
                Shape::Map {
                    value: Box::new(self.shape(&map.value_field.field_type, &value_path)?.0),
                    min_entries,
                    max_entries,
                }
            }
        };
        Ok((shape, false))
    }

    fn primitive(
        &self,
        ty: &PrimitiveType,
        path: &str,
        constraints: &BTreeMap<String, String>,
    ) -> Result<Shape, String> {
        let only_format = |shape: Shape| match constraints.iter().find(|(k, _)| *k != "format") {
            Some((keyword, text)) => Err(unsupported(path, keyword, text)),
            None => Ok(shape),
        };
        match ty {
            PrimitiveType::Boolean => only_format(Shape::Bool),
            PrimitiveType::Int => whole(
                path,
                constraints,
                i128::from(i32::MIN),
                i128::from(i32::MAX),
            ),
            PrimitiveType::Long => whole(
                path,
                constraints,
                i128::from(i64::MIN),
                i128::from(i64::MAX),
            ),
            PrimitiveType::Double => double(path, constraints),
            PrimitiveType::Decimal { scale, .. } => decimal(path, constraints, *scale),
            PrimitiveType::String => text(path, constraints),
            PrimitiveType::Date => only_format(Shape::Date),
            PrimitiveType::Time => only_format(Shape::Time),
            PrimitiveType::Timestamptz => only_format(Shape::Timestamptz),
            PrimitiveType::Uuid => only_format(Shape::Uuid),
            PrimitiveType::Binary => only_format(Shape::Binary),
            other => Err(format!(
                "column `{path}`: the mapper never makes a {other} column"
            )),
        }
    }

    /// The compact JSON text of `keyword` in the property's own schema (at `location`, not
    /// through a `$ref`), or `None` when the schema is not there to see or lacks it.
    fn own_keyword(&self, location: Option<&Location>, keyword: &str) -> Option<String> {
        let location = location?;
        let doc = self
            .ws
            .documents()
            .iter()
            .find(|d| d.display == *location.file)
            .and_then(|d| d.json.as_deref())?;
        let mut at = doc.root();
        for token in pointer::decode(&location.pointer)? {
            at = doc.member(at, &token)?.value;
        }
        Some(doc.compact(doc.member(at, keyword)?.value))
    }

    /// Whether the property's own schema has `"null"` in its `type` list. Only then does the
    /// generator write `null`: `false` for a schema it cannot see only means fewer nulls, never
    /// a record the channel refuses.
    fn admits_null(&self, location: Option<&Location>) -> bool {
        let types = self.own_keyword(location, "type").unwrap_or_default();
        match serde_json::from_str::<serde_json::Value>(&types) {
            Ok(serde_json::Value::Array(types)) => types.iter().any(|t| t == "null"),
            _ => false,
        }
    }
}

fn unsupported(path: &str, keyword: &str, text: &str) -> String {
    format!("column `{path}`: gen-records cannot write values that satisfy `{keyword}`: {text}")
}

/// `enum` or `const`: the non-null values' JSON texts, and whether `null` is among them.
fn choice(path: &str, keyword: &str, text: &str) -> Result<(Shape, bool), String> {
    let values = match parse(path, keyword, text)? {
        serde_json::Value::Array(values) if keyword == "enum" => values,
        value if keyword == "const" => vec![value],
        _ => return Err(format!("column `{path}`: `enum` is {text}, not an array")),
    };
    let has_null = values.iter().any(serde_json::Value::is_null);
    let texts: Vec<String> = values
        .iter()
        .filter(|v| !v.is_null())
        .map(serde_json::Value::to_string)
        .collect();
    if texts.is_empty() {
        return Err(format!(
            "column `{path}`: `{keyword}` allows no value but null"
        ));
    }
    Ok((Shape::Choice(texts), has_null))
}

/// A list's or map's size bounds; `ignored`: keywords that need nothing of the generator when
/// their value is `false` (or, for a map's `additionalProperties`, the value schema itself).
fn sizes(
    path: &str,
    constraints: &BTreeMap<String, String>,
    min_keyword: &str,
    max_keyword: &str,
    ignored: &[&str],
) -> Result<(usize, usize), String> {
    let mut min = 0;
    let mut max = None;
    for (keyword, text) in constraints {
        match keyword.as_str() {
            k if k == min_keyword => min = count(path, k, text)?,
            k if k == max_keyword => max = Some(count(path, k, text)?),
            "additionalProperties" if ignored.contains(&"additionalProperties") => {}
            k if ignored.contains(&k) && text == "false" => {}
            "format" => {}
            other => return Err(unsupported(path, other, text)),
        }
    }
    let max = max.unwrap_or(min + 4);
    if max < min {
        return Err(format!(
            "column `{path}`: {max_keyword} {max} is below {min_keyword} {min}"
        ));
    }
    Ok((min, max))
}

/// The bounds of an int or long column, exact, from the keywords' decimal text. Draft-04's
/// boolean `exclusiveMinimum`/`exclusiveMaximum` make `minimum`/`maximum` exclusive.
fn whole(
    path: &str,
    constraints: &BTreeMap<String, String>,
    mut low: i128,
    mut high: i128,
) -> Result<Shape, String> {
    let (lower, upper) = bounds(path, constraints, &[])?;
    if let Some((bound, exclusive)) = lower {
        let at = bound.ceil_at(0);
        low = low.max(if exclusive && bound.floor_at(0) == at {
            at + 1
        } else {
            at
        });
    }
    if let Some((bound, exclusive)) = upper {
        let at = bound.floor_at(0);
        high = high.min(if exclusive && bound.ceil_at(0) == at {
            at - 1
        } else {
            at
        });
    }
    if low > high {
        return Err(format!(
            "column `{path}`: no whole number lies within its bounds"
        ));
    }
    Ok(Shape::Whole { low, high })
}

fn decimal(
    path: &str,
    constraints: &BTreeMap<String, String>,
    scale: u32,
) -> Result<Shape, String> {
    let (lower, upper) = bounds(path, constraints, &["multipleOf"])?;
    let step_text = constraints
        .get("multipleOf")
        .ok_or_else(|| format!("column `{path}` is decimal but has no `multipleOf`"))?;
    let step = Decimal::parse(step_text)
        .and_then(|d| d.exact_at(scale))
        .filter(|s| *s > 0)
        .ok_or_else(|| {
            format!("column `{path}`: cannot read `multipleOf` {step_text} at scale {scale}")
        })?;
    // Iceberg's decimal(38, s) holds magnitudes below 10^(38 - s).
    let limit = 10i128.pow(38) - 1;
    let mut low = -limit;
    let mut high = limit;
    if let Some((bound, exclusive)) = lower {
        let at = bound.ceil_at(scale);
        low = low.max(if exclusive && bound.floor_at(scale) == at {
            at + 1
        } else {
            at
        });
    }
    if let Some((bound, exclusive)) = upper {
        let at = bound.floor_at(scale);
        high = high.min(if exclusive && bound.ceil_at(scale) == at {
            at - 1
        } else {
            at
        });
    }
    if low.div_euclid(step) + i128::from(low.rem_euclid(step) != 0) > high.div_euclid(step) {
        return Err(format!(
            "column `{path}`: no multiple of {step_text} lies within its bounds"
        ));
    }
    Ok(Shape::Decimal {
        scale,
        step,
        low,
        high,
    })
}

fn double(path: &str, constraints: &BTreeMap<String, String>) -> Result<Shape, String> {
    let (lower, upper) = bounds(path, constraints, &[])?;
    let mut low = -1e9;
    let mut high = 1e9;
    if let Some((bound, exclusive)) = lower {
        let b = bound.to_f64();
        low = if exclusive { b.next_up() } else { b };
    }
    if let Some((bound, exclusive)) = upper {
        let b = bound.to_f64();
        high = if exclusive { b.next_down() } else { b };
    }
    if low > high {
        return Err(format!("column `{path}`: no number lies within its bounds"));
    }
    Ok(Shape::Double { low, high })
}

type Bound = Option<(Decimal, bool)>;

/// `minimum`/`maximum` and both drafts' forms of `exclusiveMinimum`/`exclusiveMaximum`, as
/// (lower, upper) bounds with their exclusiveness; the tighter of two lower (upper) bounds.
fn bounds(
    path: &str,
    constraints: &BTreeMap<String, String>,
    also_allowed: &[&str],
) -> Result<(Bound, Bound), String> {
    let number = |keyword: &str, text: &str| {
        Decimal::parse(text)
            .ok_or_else(|| format!("column `{path}`: cannot read `{keyword}` {text}"))
    };
    let flag = |keyword: &str| constraints.get(keyword).map(String::as_str) == Some("true");
    let mut lower: Bound = None;
    let mut upper: Bound = None;
    for (keyword, text) in constraints {
        match keyword.as_str() {
            "minimum" => {
                lower = tighter(
                    lower,
                    (number(keyword, text)?, flag("exclusiveMinimum")),
                    true,
                )
            }
            "maximum" => {
                upper = tighter(
                    upper,
                    (number(keyword, text)?, flag("exclusiveMaximum")),
                    false,
                )
            }
            "exclusiveMinimum" | "exclusiveMaximum" if text == "true" || text == "false" => {}
            "exclusiveMinimum" => lower = tighter(lower, (number(keyword, text)?, true), true),
            "exclusiveMaximum" => upper = tighter(upper, (number(keyword, text)?, true), false),
            "format" => {}
            k if also_allowed.contains(&k) => {}
            other => return Err(unsupported(path, other, text)),
        }
    }
    Ok((lower, upper))
}

fn tighter(current: Bound, new: (Decimal, bool), lower: bool) -> Bound {
    Some(match current {
        None => new,
        Some(old) => {
            let (a, b) = (old.0.to_f64(), new.0.to_f64());
            if (lower && b > a) || (!lower && b < a) || (a == b && new.1) {
                new
            } else {
                old
            }
        }
    })
}

fn text(path: &str, constraints: &BTreeMap<String, String>) -> Result<Shape, String> {
    let mut min_chars = 0;
    let mut max_chars = None;
    let mut format = TextFormat::Plain;
    for (keyword, value) in constraints {
        match keyword.as_str() {
            "minLength" => min_chars = count(path, keyword, value)?,
            "maxLength" => max_chars = Some(count(path, keyword, value)?),
            "format" => {
                format = match parse(path, keyword, value)?.as_str() {
                    Some("email") => TextFormat::Email,
                    Some("hostname") => TextFormat::Hostname,
                    Some("ipv4") => TextFormat::Ipv4,
                    Some("uri") => TextFormat::Uri,
                    _ => return Err(unsupported(path, keyword, value)),
                }
            }
            other => return Err(unsupported(path, other, value)),
        }
    }
    if format != TextFormat::Plain && (min_chars > 0 || max_chars.is_some()) {
        return Err(format!(
            "column `{path}`: gen-records cannot write a `format` string within length bounds"
        ));
    }
    let max_chars = max_chars.unwrap_or(min_chars + 24);
    if max_chars < min_chars {
        return Err(format!(
            "column `{path}`: maxLength {max_chars} is below minLength {min_chars}"
        ));
    }
    Ok(Shape::Text {
        min_chars,
        max_chars,
        format,
    })
}
