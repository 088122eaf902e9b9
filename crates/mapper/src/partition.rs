//! The channel's one hourly partition: finding its source column, and making it required.

use iceberg::spec::PrimitiveType;
use schema2iceberg_parser::{Diagnostic, Location, Workspace};

use crate::codes;
use crate::model::{Column, Ty};

/// Finds `path` (dotted, through structs only) among `columns`. Names that themselves contain
/// dots are matched whole before being split.
fn find<'c>(columns: &'c mut [Column], path: &str) -> Option<&'c mut Column> {
    let position = columns.iter().position(|c| {
        c.name == path
            || (matches!(c.ty, Ty::Struct(_))
                && path.strip_prefix(c.name.as_str()).is_some_and(|rest| rest.starts_with('.')))
    })?;
    let column = columns.get_mut(position)?;
    if column.name == path {
        return Some(column);
    }
    let rest = path.get(column.name.len() + 1..)?.to_string();
    match &mut column.ty {
        Ty::Struct(children) => find(children, &rest),
        _ => None,
    }
}

/// Every timestamptz column reachable through structs, as dotted paths.
pub(crate) fn candidates(columns: &[Column], prefix: &str, out: &mut Vec<String>) {
    for column in columns {
        let path = if prefix.is_empty() {
            column.name.clone()
        } else {
            format!("{prefix}.{}", column.name)
        };
        match &column.ty {
            Ty::Primitive(PrimitiveType::Timestamptz) => out.push(path),
            Ty::Struct(children) => candidates(children, &path, out),
            _ => {}
        }
    }
}

fn usable(columns: &[Column]) -> String {
    let mut found = Vec::new();
    candidates(columns, "", &mut found);
    if found.is_empty() {
        "no column can be used: none is a string with `format: date-time` outside lists and maps".to_string()
    } else {
        format!(
            "columns that can be used: {}",
            found.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
        )
    }
}

/// Checks the requested partition fields against the columns, makes the source required, and
/// returns the source path to partition on.
pub(crate) fn apply(
    ws: &Workspace,
    columns: &mut [Column],
    requested: &[String],
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<String> {
    let root_location = ws.root().map(|r| ws.schema_location(r)).unwrap_or_default();
    let root_location = Location {
        span: schema2iceberg_parser::Span::new(
            root_location.span.start(),
            root_location.span.start() + 1,
        ),
        ..root_location
    };
    let [path] = requested else {
        if requested.len() > 1 {
            diagnostics.push(Diagnostic::new(
                &codes::MULTIPLE_PARTITIONS,
                root_location,
                format!(
                    "{} partition fields were given ({}), but the channel supports exactly one",
                    requested.len(),
                    requested.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        return None;
    };
    let help = usable(columns);
    let Some(column) = find(columns, path) else {
        diagnostics.push(
            Diagnostic::new(
                &codes::PARTITION_NOT_FOUND,
                root_location,
                format!("partition field `{path}` is not a column reachable through structs (lists and maps cannot be partition sources)"),
            )
            .with_field(path.as_str())
            .with_help(help),
        );
        return None;
    };
    let location = ws.schema_location(column.schema);
    if !matches!(column.ty, Ty::Primitive(PrimitiveType::Timestamptz)) {
        diagnostics.push(
            Diagnostic::new(
                &codes::PARTITION_NOT_TIMESTAMPTZ,
                location,
                format!(
                    "partition field `{path}` is {}, but the hour partition needs timestamptz (a string with `format: date-time`)",
                    column.ty.describe()
                ),
            )
            .with_field(path.as_str())
            .with_help(help),
        );
        return None;
    }
    if !column.required {
        column.required = true;
        diagnostics.push(
            Diagnostic::new(
                &codes::PARTITION_MADE_REQUIRED,
                location,
                format!("partition field `{path}` is optional in the schema, but the channel makes it required: records without it go to the dead-letter queue"),
            )
            .with_field(path.as_str())
            .with_help(format!("add \"{}\" to `required` (and remove `null` from its type), so the schema says what the channel does", column.name)),
        );
    }
    Some(path.clone())
}
