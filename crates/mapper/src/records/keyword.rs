//! The help of a `schema-violation`: what the failing keyword asks of the value, in its own terms
//! (the allowed values of an `enum`, the step of a `multipleOf`, the shape of a `format`), where
//! the reason's one line for every keyword would say less.

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

/// How many of an `enum`'s values the help lists; a longer list is cut with a count and where
/// the rest are.
pub(crate) const MAX_ENUM_VALUES: usize = 20;

/// The help of a validation failure of `kind`; `None` where the reason's help says as much.
pub(crate) fn help(kind: &ValidationErrorKind) -> Option<Box<str>> {
    let keyword = kind.keyword();
    let text = match kind {
        ValidationErrorKind::Format { format } => format_help(format),
        ValidationErrorKind::Enum { options } => enum_help(options),
        ValidationErrorKind::Constant { expected_value } => {
            format!("send exactly {}", compact(expected_value))
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("send a multiple of {multiple_of} (the step of `multipleOf`)")
        }
        ValidationErrorKind::Minimum { limit } => format!("send a number of at least {limit}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("send a number greater than {limit}")
        }
        ValidationErrorKind::Maximum { limit } => format!("send a number of at most {limit}"),
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("send a number less than {limit}")
        }
        ValidationErrorKind::MinLength { limit } => {
            format!("send a string of at least {limit} characters")
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("send a string of at most {limit} characters")
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!("send a string that the regular expression `{pattern}` matches")
        }
        ValidationErrorKind::MinItems { limit } => {
            format!("send an array of at least {limit} items")
        }
        ValidationErrorKind::MaxItems { limit } => format!("send an array of at most {limit} items"),
        ValidationErrorKind::UniqueItems => "send an array whose items are all different".into(),
        ValidationErrorKind::AdditionalProperties { unexpected } => format!(
            "send only the properties the schema lists (not {}), or allow others with `additionalProperties`",
            unexpected
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => return None,
    };
    Some(format!("{text}; or loosen `{keyword}` in the schema").into_boxed_str())
}

/// What a string of `format` looks like, with an example.
fn format_help(format: &str) -> String {
    match format {
        "date-time" => "send an RFC 3339 date-time, with `T` and an offset, e.g. `2024-05-01T12:30:00Z` or `2024-05-01T14:30:00+02:00`".to_string(),
        "date" => "send an RFC 3339 full date, e.g. `2024-05-01`".to_string(),
        "time" => "send an RFC 3339 time with an offset, e.g. `12:30:00Z` or `14:30:00.5+02:00`".to_string(),
        "uuid" => "send a UUID: 32 hex digits in groups of 8-4-4-4-12, e.g. `123e4567-e89b-12d3-a456-426614174000`".to_string(),
        "email" => "send an email address, e.g. `user@example.com`".to_string(),
        "ipv4" => "send an IPv4 address in dotted decimal, e.g. `192.0.2.1`".to_string(),
        "ipv6" => "send an IPv6 address, e.g. `2001:db8::1`".to_string(),
        "uri" => "send an absolute URI, with its scheme, e.g. `https://example.com/a`".to_string(),
        "hostname" => "send a host name, e.g. `example.com`".to_string(),
        other => format!("send a string in the `{other}` format"),
    }
}

/// Every allowed value, up to [`MAX_ENUM_VALUES`].
fn enum_help(options: &Value) -> String {
    let values = options.as_array().map(Vec::as_slice).unwrap_or_default();
    let shown: Vec<String> = values.iter().take(MAX_ENUM_VALUES).map(compact).collect();
    let rest = values.len().saturating_sub(MAX_ENUM_VALUES);
    match (values.len(), rest) {
        (1, _) => format!("send the one allowed value, {}", shown.join("")),
        (count, 0) => format!(
            "send one of the {count} allowed values: {}",
            shown.join(", ")
        ),
        (count, rest) => format!(
            "send one of the {count} allowed values: {}, and {rest} more",
            shown.join(", ")
        ),
    }
}

/// A value as compact JSON.
fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
