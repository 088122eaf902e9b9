//! Validation keywords that changed on a column both sides have: whether the new value only
//! narrows what the schema accepts (records still pass the old schema) or may widen it.

use std::cmp::Ordering;

use schema2iceberg_parser::Number;

use super::columns::{Found, Walk};
use super::{ChangeKind, Fate, IcebergVerdict, Records, TableVerdict, SAME_TABLE};
use crate::compiler::keywords::{self, Loosening};

impl Walk<'_> {
    /// One change per validation keyword that differs, when both sides know their keywords.
    pub(super) fn constraints(&mut self, path: &str, skip: Option<&str>) {
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
}

/// Whether every record that the new value of `key` accepts, the old one accepts too: a keyword
/// added, or changed to a narrower value. A removed keyword accepts more.
pub(super) fn narrows(key: &str, old: Option<&String>, new: Option<&String>) -> bool {
    match (old, new) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(a), Some(b)) => loosens(key, b, a),
    }
}

/// The names in a `required` constraint, one list or several merged from `allOf` parts.
pub(super) fn names_in(required: &str) -> Vec<String> {
    required
        .split(" & ")
        .filter_map(|part| serde_json::from_str::<Vec<String>>(part).ok())
        .flatten()
        .collect()
}

/// Whether changing `key` from `old` to `new` only accepts more records. Anything this cannot
/// tell (a keyword merged from several `allOf` parts, `pattern`, `format`) counts as tightening.
pub(super) fn loosens(key: &str, old: &str, new: &str) -> bool {
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
pub(super) fn is_multiple(a: &str, b: &str) -> Option<bool> {
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
pub(super) fn decimal(text: &str) -> Option<(u128, i64)> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
