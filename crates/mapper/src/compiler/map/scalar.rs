//! Strings, integers, numbers, booleans and `enum`/`const` (rules 3–6 and 9 of
//! docs/mapping.md): the `format`s that give a type, int or long from `maximum`, decimal from
//! `multipleOf`, and the range checks of each.

use iceberg::spec::PrimitiveType;
use schema2iceberg_parser::json::JsonValue;
use schema2iceberg_parser::{
    suggest, CompactString, Draft, Exclusive, Keyword, Keywords, Number, SchemaId, Site,
};

use super::all_of::first;
use super::Mapper;
use crate::compiler::codes;
use crate::compiler::model::Ty;

/// The first integer that does not fit in int32.
const TWO_POW_31: &str = "2147483648";

/// −2^31 − 1, the first integer below the int32 range.
const BELOW_INT32_MIN: &str = "-2147483649";

/// 2^63, the first integer above the long range.
const ABOVE_LONG_MAX: &str = "9223372036854775808";

/// −2^63 − 1, the first integer below the long range.
const BELOW_LONG_MIN: &str = "-9223372036854775809";

/// Largest decimal scale with Iceberg's maximum precision of 38.
const MAX_SCALE: u64 = 38;

/// A number for a message: as written, or cut short when it is longer than a line.
pub(super) fn shown(n: &Number) -> String {
    let text = n.as_str();
    if text.chars().count() <= 40 {
        text.to_string()
    } else {
        let head: String = text.chars().take(24).collect();
        format!("{head}… ({} characters)", text.chars().count())
    }
}

pub(super) fn is_null(value: &JsonValue) -> bool {
    matches!(value, JsonValue::Null)
}

pub(super) fn short_json(value: &JsonValue) -> String {
    match value {
        JsonValue::Null => "null".to_string(),
        JsonValue::Bool(b) => b.to_string(),
        JsonValue::Number(n) => shown(n),
        JsonValue::String(s) => format!("{s:?}"),
        JsonValue::Array(_) => "[…]".to_string(),
        JsonValue::Object(_) => "{…}".to_string(),
    }
}

/// Values for a message: one as it is written, several as a list cut after three.
pub(super) fn shown_values<'v>(values: impl ExactSizeIterator<Item = &'v JsonValue>) -> String {
    let count = values.len();
    let mut shown: Vec<String> = values.take(3).map(short_json).collect();
    if count == 1 {
        return shown.pop().unwrap_or_default();
    }
    if count > 3 {
        shown.push("…".to_string());
    }
    format!("[{}]", shown.join(", "))
}

impl Mapper<'_> {
    /// The column of `enum`/`const` in part `sid` (rule 9): always a string, whatever the
    /// values, with whether a value is null (which makes it nullable). `implied`: no part has a
    /// `type`, so the note says that the values give it.
    pub(super) fn enum_type(
        &mut self,
        sid: SchemaId,
        k: &Keywords,
        implied: bool,
        location: Site,
        field: &str,
    ) -> Option<(Ty, bool)> {
        let ws = self.ws;
        let (keyword, values): (&str, Vec<schema2iceberg_parser::json::JsonId>) =
            match (k.enum_values(), k.const_value()) {
                (Some(e), _) => ("enum", e.value.clone()),
                (None, Some(c)) => ("const", vec![c.value]),
                (None, None) => ("enum", Vec::new()),
            };
        let doc_id = ws.schema(sid).map(|s| s.doc)?;
        let null_value = values.iter().any(|v| is_null(ws.json_value(doc_id, *v)));
        let non_null: Vec<_> = values
            .iter()
            .filter(|v| !is_null(ws.json_value(doc_id, **v)))
            .collect();
        if non_null.is_empty() {
            let at = self.at(sid, k.key(keyword).unwrap_or(ws.schema(sid)?.at));
            self.emit(
                &codes::NULL_TYPE,
                at,
                format!("`{keyword}` admits only null, and Iceberg has no null type"),
                field,
            );
            return None;
        }
        if let Some(bad) = non_null
            .iter()
            .find(|v| !matches!(ws.json_value(doc_id, ***v), JsonValue::String(_)))
        {
            let at = self.at(sid, **bad);
            let shown = short_json(ws.json_value(doc_id, **bad));
            self.emit(
                &codes::ENUM_NOT_STRING,
                at,
                format!("`{keyword}` value {shown} is not a string, but `{keyword}` maps to a string column, which holds it as text"),
                field,
            );
        }
        if implied {
            self.emit(
                &codes::TYPE_IMPLIED,
                location,
                format!(
                    "no `type`: `{keyword}` {} makes the column a string, as `enum` and `const` map to string whatever their values (the channel stores enum values as strings)",
                    shown_values(values.iter().map(|v| ws.json_value(doc_id, *v)))
                ),
                field,
            );
        }
        Some((Ty::Primitive(PrimitiveType::String), null_value))
    }

    pub(super) fn integer_type(
        &mut self,
        kws: &[(SchemaId, &Keywords)],
        field: &str,
    ) -> PrimitiveType {
        let limit = Number::from_json_text(TWO_POW_31);
        let maximum = first(kws, |k| k.maximum());
        let exclusive = first(kws, |k| k.exclusive_maximum());
        let at_most = |n: &Number| n.cmp_exact(&limit).is_le();
        let by_exclusive = matches!(exclusive, Some((_, Keyword { value: Exclusive::Bound(b), .. })) if at_most(b));
        let by_maximum = maximum.is_some_and(|(_, m)| at_most(&m.value));
        if !(by_exclusive || by_maximum) {
            self.warn_long_range(kws, field);
            return PrimitiveType::Long;
        }
        let exclusive_flag = flag_set(exclusive);
        if let Some((sid, m)) = maximum {
            if !by_exclusive && !exclusive_flag && m.value.cmp_exact(&limit).is_eq() {
                let draft = self
                    .ws
                    .schema(sid)
                    .and_then(|s| self.ws.document(s.doc))
                    .map_or(Draft::Draft07, |d| d.draft);
                let location = self.at(sid, m.at);
                self.emit(
                    &codes::INT_RANGE,
                    location,
                    "`maximum` 2147483648 (2^31) makes the column int, but 2147483648 itself does not fit in int32".to_string(),
                    field,
                )
                .help = Some(if draft == Draft::Draft04 {
                    "use `\"maximum\": 2147483647`, or add `\"exclusiveMaximum\": true`".to_string()
                } else {
                    "use `\"maximum\": 2147483647`, or `\"exclusiveMaximum\": 2147483648`".to_string()
                });
            }
        }
        // The lowest allowed integer is below −2^31 when the lower bounds let in −2^31 − 1.
        let low = bound_past(kws, Side::Lower, &Number::from_json_text(BELOW_INT32_MIN));
        if let Some(Bound {
            schema, at, text, ..
        }) = low
        {
            let location = self.at(schema, at);
            self.emit(
                &codes::INT_RANGE,
                location,
                format!("the column is int (from `maximum`), but the lower bound {text} lets in values below −2^31 that do not fit in int32"),
                field,
            )
            .help = Some("raise the minimum to -2147483648, or raise `maximum` above 2^31 to get long".to_string());
        }
        PrimitiveType::Int
    }

    /// Warns when a string's `format` is not one that gives a type but is close to one
    /// (`datetime`, `Date`, `UUID`): the column silently stays a string otherwise.
    pub(super) fn warn_format_typo(&mut self, kws: &[(SchemaId, &Keywords)], field: &str) {
        let Some((sid, format)) = first(kws, |k| k.format.as_ref()) else {
            return;
        };
        let names: Vec<&str> = TYPE_GIVING_FORMATS.iter().map(|(f, _)| *f).collect();
        let Some(meant) = suggest::closest(&format.value, &names) else {
            return;
        };
        let ty = TYPE_GIVING_FORMATS
            .iter()
            .find(|(f, _)| *f == meant)
            .map_or_else(String::new, |(_, t)| format!(" It makes the column {t}."));
        let location = self.at(sid, format.at);
        self.emit(
            &codes::FORMAT_TYPO,
            location,
            format!(
                "`format` {:?} is not one the channel maps, so the column is string; formats are matched exactly",
                format.value
            ),
            field,
        )
        .help = Some(format!("did you mean `{meant}`?{ty}"));
    }

    /// Warns when the bounds of a long column let in integers beyond the 64-bit range.
    fn warn_long_range(&mut self, kws: &[(SchemaId, &Keywords)], field: &str) {
        let sides = [
            (
                Side::Upper,
                ABOVE_LONG_MAX,
                "above 9223372036854775807 (2^63 − 1)",
            ),
            (
                Side::Lower,
                BELOW_LONG_MIN,
                "below −9223372036854775808 (−2^63)",
            ),
        ];
        for (side, outside, beyond) in sides {
            let Some(bound) = bound_past(kws, side, &Number::from_json_text(outside)) else {
                continue;
            };
            let location = self.at(bound.schema, bound.at);
            self.emit(
                &codes::LONG_RANGE,
                location,
                format!("the column is long, but `{}` {} lets in integers {beyond}, which long cannot hold: records with such values go to the dead-letter queue", bound.keyword, bound.text),
                field,
            )
            .help = Some("Iceberg has no wider integer: keep the bound within the long range, or, for larger values, use `\"type\": \"number\", \"multipleOf\": 1`, which is decimal(38, 0)".to_string());
        }
    }

    /// Warns when the bounds of a decimal(38, `scale`) column let in values that need more than
    /// 38 digits at that scale, that is values of magnitude 10^(38 − scale) or more.
    fn warn_decimal_range(&mut self, kws: &[(SchemaId, &Keywords)], scale: u64, field: &str) {
        let digits = MAX_SCALE.saturating_sub(scale);
        for (side, sign, beyond) in [(Side::Upper, "", "or more"), (Side::Lower, "-", "or less")] {
            let outside = Number::from_json_text(format!("{sign}1e{digits}"));
            let Some(bound) = bound_past(kws, side, &outside) else {
                continue;
            };
            let location = self.at(bound.schema, bound.at);
            self.emit(
                &codes::DECIMAL_RANGE,
                location,
                format!("the column is decimal(38, {scale}), which holds {digits} digits before the point, but `{}` {} lets in values of {sign}10^{digits} {beyond}: records with such values go to the dead-letter queue", bound.keyword, bound.text),
                field,
            )
            .help = Some(format!("keep the bound below 10^{digits} in magnitude, or use a coarser `multipleOf`: decimal(38, s) has 38 digits, s of them after the point"));
        }
    }

    /// `multipleOf` must be greater than 0 for any type (it only shapes the column for numbers).
    pub(super) fn positive_multiple_of(
        &mut self,
        kws: &[(SchemaId, &Keywords)],
        field: &str,
    ) -> Option<()> {
        let Some((sid, multiple_of)) = first(kws, |k| k.multiple_of()) else {
            return Some(());
        };
        if multiple_of.value.is_positive() {
            return Some(());
        }
        let location = self.at(sid, multiple_of.at);
        self.emit(
            &codes::INVALID_MULTIPLE_OF,
            location,
            format!(
                "`multipleOf` is {}, but it must be greater than 0",
                shown(&multiple_of.value)
            ),
            field,
        );
        None
    }

    pub(super) fn number_type(
        &mut self,
        kws: &[(SchemaId, &Keywords)],
        field: &str,
    ) -> Option<PrimitiveType> {
        let Some((sid, multiple_of)) = first(kws, |k| k.multiple_of()) else {
            return Some(PrimitiveType::Double);
        };
        let location = self.at(sid, multiple_of.at);
        let text = shown(&multiple_of.value);
        if !multiple_of.value.is_positive() {
            self.emit(
                &codes::INVALID_MULTIPLE_OF,
                location,
                format!("`multipleOf` is {text}, but it must be greater than 0"),
                field,
            );
            return None;
        }
        let scale = multiple_of.value.scale();
        if scale > MAX_SCALE {
            self.emit(
                &codes::INVALID_MULTIPLE_OF,
                location,
                format!("`multipleOf` {text} needs a scale of {scale} digits, but decimal(38, s) allows at most 38"),
                field,
            );
            return None;
        }
        self.warn_decimal_range(kws, scale, field);
        let scale = u32::try_from(scale).unwrap_or(38);
        Some(PrimitiveType::Decimal {
            precision: 38,
            scale,
        })
    }
}

/// Which end of a column's range a bound limits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Upper,
    Lower,
}

/// A bound that lets in values outside a column's range, for the message.
struct Bound {
    schema: SchemaId,
    at: schema2iceberg_parser::json::JsonId,
    keyword: &'static str,
    text: String,
}

/// The bound on `side` that lets in `outside`, the first value past the column's range on that
/// side, if one does: an inclusive bound that reaches it, or an exclusive one (a number, or
/// draft-04's `true` flag on the inclusive bound) beyond it. With both forms written, the
/// tighter decides, so both must let it in. No bound on that side lets in nothing here: an
/// unbounded column is the documented default, not an overflow. Compared exactly, never as f64.
fn bound_past(kws: &[(SchemaId, &Keywords)], side: Side, outside: &Number) -> Option<Bound> {
    let (inclusive, exclusive, names) = match side {
        Side::Upper => (
            first(kws, |k| k.maximum()),
            first(kws, |k| k.exclusive_maximum()),
            ("maximum", "exclusiveMaximum"),
        ),
        Side::Lower => (
            first(kws, |k| k.minimum()),
            first(kws, |k| k.exclusive_minimum()),
            ("minimum", "exclusiveMinimum"),
        ),
    };
    let beyond = if side == Side::Upper {
        std::cmp::Ordering::Greater
    } else {
        std::cmp::Ordering::Less
    };
    let lets_in = |n: &Number, strictly: bool| {
        let order = n.cmp_exact(outside);
        order == beyond || (!strictly && order.is_eq())
    };
    let flag = flag_set(exclusive);
    let by_inclusive = inclusive
        .filter(|(_, m)| lets_in(&m.value, flag))
        .map(|(schema, m)| Bound {
            schema,
            at: m.at,
            keyword: names.0,
            text: shown(&m.value),
        });
    let numeric = exclusive.and_then(|(schema, k)| match &k.value {
        Exclusive::Bound(b) => Some((schema, k.at, b)),
        Exclusive::Flag(_) => None,
    });
    let by_exclusive = numeric
        .filter(|(_, _, b)| lets_in(b, true))
        .map(|(schema, at, b)| Bound {
            schema,
            at,
            keyword: names.1,
            text: shown(b),
        });
    match (inclusive.is_some(), numeric.is_some()) {
        (true, true) => by_inclusive.filter(|_| by_exclusive.is_some()),
        _ => by_inclusive.or(by_exclusive),
    }
}

/// Whether a draft-04 `exclusiveMaximum`/`exclusiveMinimum` is `true`.
fn flag_set(exclusive: Option<(SchemaId, &Keyword<Exclusive>)>) -> bool {
    exclusive.is_some_and(|(_, k)| k.value == Exclusive::Flag(true))
}

/// The `format`s that give a string column another type (rule 3), matched exactly.
pub(super) const TYPE_GIVING_FORMATS: &[(&str, PrimitiveType)] = &[
    ("date-time", PrimitiveType::Timestamptz),
    ("date", PrimitiveType::Date),
    ("time", PrimitiveType::Time),
    ("uuid", PrimitiveType::Uuid),
    ("byte", PrimitiveType::Binary),
];

pub(super) fn string_type(kws: &[(SchemaId, &Keywords)]) -> PrimitiveType {
    let text = |f: fn(&Keywords) -> Option<&Keyword<CompactString>>| {
        kws.iter().find_map(|(_, k)| f(k)).map(|k| k.value.as_str())
    };
    if let Some((_, ty)) = text(|k| k.format.as_ref())
        .and_then(|format| TYPE_GIVING_FORMATS.iter().find(|(f, _)| *f == format))
    {
        return ty.clone();
    }
    if text(|k| k.content_encoding()) == Some("base64") {
        return PrimitiveType::Binary;
    }
    if matches!(text(|k| k.encoding()), Some("byte" | "base64")) {
        return PrimitiveType::Binary;
    }
    PrimitiveType::String
}
