//! The channel's one hourly partition: finding its source column, and making it required.

use iceberg::spec::PrimitiveType;
use schema2iceberg_parser::{Diagnostic, Location, Workspace};

use crate::compiler::codes;
use crate::compiler::model::{join, walk, Column, Ty};

/// Finds `path` (dotted, through structs only) among `columns`. A column whose whole name is
/// `path` wins; otherwise each struct whose name is a dotted prefix is tried in turn.
fn find<'c>(columns: &'c mut [Column], path: &str) -> Option<&'c mut Column> {
    let route = locate(columns, path)?;
    let mut current = columns;
    let (last, steps) = route.split_last()?;
    for step in steps {
        match current.get_mut(*step).map(|c| &mut c.ty) {
            Some(Ty::Struct(children)) => current = children,
            _ => return None,
        }
    }
    current.get_mut(*last)
}

/// The indexes that lead to `path`, searched without borrowing mutably.
fn locate(columns: &[Column], path: &str) -> Option<Vec<usize>> {
    if let Some(i) = columns.iter().position(|c| c.name == path) {
        return Some(vec![i]);
    }
    columns.iter().enumerate().find_map(|(i, c)| {
        let rest = path.strip_prefix(c.name.as_str())?.strip_prefix('.')?;
        let Ty::Struct(children) = &c.ty else {
            return None;
        };
        let mut route = locate(children, rest)?;
        route.insert(0, i);
        Some(route)
    })
}

/// Every timestamptz column reachable through structs, as dotted paths.
fn candidates(columns: &[Column]) -> Vec<String> {
    walk(columns)
        .filter(|place| {
            place.slot.is_none()
                && place.via_structs
                && matches!(place.ty(), Ty::Primitive(PrimitiveType::Timestamptz))
        })
        .map(|place| place.path)
        .collect()
}

fn usable(columns: &[Column]) -> String {
    let found = candidates(columns);
    if found.is_empty() {
        "no column can be used: none is a string with `format: date-time` outside lists and maps"
            .to_string()
    } else {
        format!(
            "columns that can be used: {}",
            found
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Checks the requested partition fields against the columns, makes the source required, and
/// returns the source path to partition on.
pub(crate) fn apply(
    ws: &Workspace,
    columns: &mut [Column],
    requested: &[String],
    origin: Option<&Location>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<String> {
    let root_location = request_location(ws, origin);
    let [path] = requested else {
        if requested.len() > 1 {
            diagnostics.push(Diagnostic::new(
                &codes::MULTIPLE_PARTITIONS,
                root_location,
                format!(
                    "{} partition fields were given ({}), but the channel supports exactly one",
                    requested.len(),
                    requested
                        .iter()
                        .map(|r| format!("`{r}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
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
    let location = ws.locate(column.location);
    if !matches!(column.ty, Ty::Primitive(PrimitiveType::Timestamptz)) {
        let location = origin.cloned().unwrap_or(location);
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
        diagnostics.push(made_required(column, path, location));
    }
    report_optional_parents(ws, columns, path, diagnostics);
    Some(path.clone())
}

/// Where a problem with the requested partition is reported: the `--partition` flag or config
/// key it came from, else the root schema's first character.
fn request_location(ws: &Workspace, origin: Option<&Location>) -> Location {
    if let Some(origin) = origin {
        return origin.clone();
    }
    let root_location = ws.root().map(|r| ws.schema_location(r)).unwrap_or_default();
    Location {
        span: schema2iceberg_parser::Span::new(
            root_location.span.start(),
            root_location.span.start() + 1,
        ),
        ..root_location
    }
}

/// `partition-made-required`, worded for a source that is listed in `required` but admits null,
/// or one that is not listed.
fn made_required(column: &Column, path: &str, location: Location) -> Diagnostic {
    Diagnostic::new(
        &codes::PARTITION_MADE_REQUIRED,
        location,
        if column.listed_required {
            format!("partition field `{path}` is in `required` but its schema admits null, and the channel makes it required: records where it is null go to the dead-letter queue")
        } else {
            format!("partition field `{path}` is optional in the schema, but the channel makes it required: records without it go to the dead-letter queue")
        },
    )
    .with_field(path)
    .with_help(if column.listed_required {
        "remove `null` from its type, so the schema says what the channel does".to_string()
    } else {
        format!("add \"{}\" to `required`, so the schema says what the channel does", column.name)
    })
}

/// `partition-parent-optional` when structs that enclose the source are optional.
fn report_optional_parents(
    ws: &Workspace,
    columns: &mut [Column],
    path: &str,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let optional_parents = optional_parents(columns, path);
    if !optional_parents.is_empty() {
        let location = find(columns, path)
            .map(|c| ws.locate(c.location))
            .unwrap_or_default();
        diagnostics.push(
            Diagnostic::new(
                &codes::PARTITION_PARENT_OPTIONAL,
                location,
                format!(
                    "partition field `{path}` is inside the optional struct {}: records without it have no partition value and go to the dead-letter queue",
                    optional_parents.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
                ),
            )
            .with_field(path)
            .with_help("list each enclosing struct in its parent's `required`"),
        );
    }
}

/// The dotted paths of the optional structs that enclose `path`.
fn optional_parents(columns: &[Column], path: &str) -> Vec<String> {
    let Some(route) = locate(columns, path) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut current = columns;
    let mut prefix = String::new();
    for step in route.iter().take(route.len().saturating_sub(1)) {
        let Some(column) = current.get(*step) else {
            break;
        };
        prefix = join(&prefix, &column.name);
        if !column.required {
            found.push(prefix.clone());
        }
        match &column.ty {
            Ty::Struct(children) => current = children,
            _ => break,
        }
    }
    found
}
