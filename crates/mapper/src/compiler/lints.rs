//! Lints for the `check` gate: problems the channel does not reject, but that make the table
//! hard to use. They run only when [`super::CompileOptions::lints`] is set.

// Lookups only (never iterated into output), so a fast non-random hasher is safe.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use iceberg::spec::PrimitiveType;
use schema2iceberg_parser::{Diagnostic, Location, Span, Workspace};

use crate::compiler::codes;
use crate::compiler::map::MAX_NESTING;
use crate::compiler::model::{walk, Column, Ty};

schema2iceberg_parser::code_table! {
    NO_PARTITION_CANDIDATE = "no-partition-candidate", Warning, rule [] section "lints",
        "No partition was given, and no column can be the channel's partition source: none is a timestamptz column, reached through structs only, whose path `SourceName` can name.",
        "Add a required property `{\"type\": \"string\", \"format\": \"date-time\"}` with a name of letters, digits and `_`, outside lists and maps.",
        r#"{"properties": {"id": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string", "format": "date-time"}}}}"#;
    SOURCE_NAME_UNREACHABLE = "source-name-unreachable", Warning, rule [] section "lints",
        "A timestamptz column's dotted path has characters outside `[a-zA-Z0-9._]`, or more than 255 of them, so a channel's `SourceName` can never name it as the partition source.",
        "Rename the columns on its path with letters, digits and `_` only.",
        r#"{"properties": {"event-time": {"type": "string", "format": "date-time"}}}"#;
    DOTTED_COLUMN_NAME = "dotted-column-name", Warning, rule [] section "lints",
        "A column name contains `.`, so a dotted path (a `SourceName`, an Iceberg full column name) cannot tell it from a field of a struct.",
        "Rename the property without dots, for example with `_`.",
        r#"{"properties": {"event.time": {"type": "string", "format": "date-time"}}}"#;
    METADATA_COLUMN_NAME = "metadata-column-name", Warning, rule [] section "lints",
        "A top-level column has the name of an Iceberg metadata column (`_file`, `_pos`, `_partition`, …); format v2 creates the table, but engines that expose metadata columns by name hide one of the two.",
        "Rename the column, for example without the leading underscore.",
        r#"{"properties": {"_file": {"type": "string"}}}"#;
    DOC_TOO_LONG = "doc-too-long", Warning, rule [] section "lints",
        "A top-level column's doc (its `description`) is longer than 255 characters, the most a Glue Data Catalog column comment holds.",
        "Shorten the `description` to 255 characters or fewer.",
        r#"{"properties": {"a": {"type": "string", "description": "… 256 characters …"}}}"#;
    NESTING_NEAR_LIMIT = "nesting-near-limit", Warning, rule [] section "lints",
        "Structs, lists and maps are nested 14 or more levels deep, close to the channel's limit of 16, and how the channel counts levels is undocumented.",
        "Flatten the schema, or store the deepest part as a JSON string.",
        r#"{"properties": {"a": {"properties": {"b": … 14 levels …}}}}"#;
}

/// A struct, list or map at this level or deeper is close enough to [`MAX_NESTING`] to warn.
const NEAR_NESTING: usize = 14;

/// Glue's `Column.Comment` holds at most this many characters.
const MAX_DOC_CHARS: usize = 255;

/// `PartitionField.SourceName` is 1–255 characters.
const MAX_SOURCE_NAME: usize = 255;

/// Iceberg's reserved metadata column names (Java `MetadataColumns`, with the changelog columns).
const METADATA_COLUMNS: &[&str] = &[
    "_file",
    "_pos",
    "_deleted",
    "_spec_id",
    "_partition",
    "_row_id",
    "_last_updated_sequence_number",
    "_change_type",
    "_change_ordinal",
    "_commit_snapshot_id",
];

/// One named column of the table, at any depth.
struct Seen<'c> {
    column: &'c Column,
    /// The dotted Iceberg path, with `element` and `value` inside lists and maps.
    path: String,
    /// The nesting level of the column's type: 1 for a top-level column.
    level: usize,
    /// Whether the root reaches it through structs only, as a partition source must be.
    via_structs: bool,
}

/// One struct, list or map, with the named column whose type holds it.
struct Complex<'c> {
    /// The index of the top-level column it belongs to.
    top: usize,
    level: usize,
    path: String,
    owner: &'c Column,
}

#[derive(Default)]
struct Tree<'c> {
    columns: Vec<Seen<'c>>,
    complex: Vec<Complex<'c>>,
}

impl<'c> Tree<'c> {
    /// The named columns and every struct, list and map of the table, in table order. Nothing
    /// below a type at a level beyond [`MAX_NESTING`] is taken (the mapper already refused
    /// deeper types).
    fn new(columns: &'c [Column]) -> Tree<'c> {
        let mut tree = Tree::default();
        for place in walk(columns).filter(|place| place.level <= MAX_NESTING + 1) {
            if !matches!(place.ty(), Ty::Primitive(_)) {
                tree.complex.push(Complex {
                    top: place.top,
                    level: place.level,
                    path: place.path.clone(),
                    owner: place.column,
                });
            }
            if place.slot.is_none() {
                tree.columns.push(Seen {
                    column: place.column,
                    path: place.path,
                    level: place.level,
                    via_structs: place.via_structs,
                });
            }
        }
        tree
    }
}

/// Runs every lint over the table's columns. `requested` says whether any partition field was
/// asked for; `partition` is the source path, when one was given and found.
pub(crate) fn run(
    ws: &Workspace,
    columns: &[Column],
    requested: bool,
    partition: Option<&str>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let tree = Tree::new(columns);
    let too_deep: Vec<&str> = diagnostics
        .iter()
        .filter(|d| d.code == codes::NESTING_TOO_DEEP.name)
        .filter_map(|d| d.field.as_deref())
        .collect();
    let mut found = Vec::new();
    for seen in &tree.columns {
        names(ws, seen, &mut found);
    }
    partition_source(ws, &tree, partition, requested, &mut found);
    nesting(ws, columns, &tree, &too_deep, &mut found);
    diagnostics.append(&mut found);
}

fn names(ws: &Workspace, seen: &Seen<'_>, out: &mut Vec<Diagnostic>) {
    let column = seen.column;
    let name = column.name.as_str();
    if name.contains('.') {
        out.push(
            Diagnostic::new(
                &DOTTED_COLUMN_NAME,
                ws.locate(column.location),
                format!("column name `{name}` contains `.`, so a dotted path such as a partition `SourceName` cannot tell it from a field of a struct"),
            )
            .with_field(seen.path.as_str())
            .with_help(format!("rename it to `{}`", name.replace('.', "_"))),
        );
    }
    // Metadata columns are pseudo-columns of the table itself, named bare at the top level; a
    // nested field is always written with its struct's name in front, so it cannot collide.
    if seen.level == 1 {
        if let Some(reserved) = METADATA_COLUMNS
            .iter()
            .find(|m| m.eq_ignore_ascii_case(name))
        {
            let how = if *reserved == name {
                String::new()
            } else {
                " when case is ignored, as Spark does by default".to_string()
            };
            out.push(
                Diagnostic::new(
                    &METADATA_COLUMN_NAME,
                    ws.locate(column.location),
                    format!("column `{name}` has the name of Iceberg's `{reserved}` metadata column{how}; engines that expose metadata columns by name (Spark, for one) show only one of the two"),
                )
                .with_field(seen.path.as_str())
                .with_help(format!("rename it, for example to `{}`", reserved.trim_start_matches('_'))),
            );
        }
        // Glue keeps a comment only on a top-level column; nested fields live in the column's
        // type string, which has no comments.
        if let Some(doc) = &column.doc {
            let chars = doc.chars().count();
            if chars > MAX_DOC_CHARS {
                out.push(
                    Diagnostic::new(
                        &DOC_TOO_LONG,
                        ws.locate(column.location),
                        format!("the doc of `{name}` is {chars} characters long, but a Glue Data Catalog column comment holds at most {MAX_DOC_CHARS}; what the channel does with a longer one is undocumented"),
                    )
                    .with_field(seen.path.as_str())
                    .with_help(format!("shorten its `description` to {MAX_DOC_CHARS} characters or fewer")),
                );
            }
        }
    }
}

/// Why `SourceName` cannot name `path`, if it cannot, and what to do about it.
fn source_name_problem(path: &str) -> Option<(String, &'static str)> {
    // A few examples say enough, and the cap keeps the scan linear on a huge name.
    const SHOWN: usize = 5;
    let mut bad: Vec<char> = Vec::new();
    let mut more = false;
    for c in path.chars() {
        let allowed = c.is_ascii_alphanumeric() || c == '.' || c == '_';
        if allowed || bad.contains(&c) {
            continue;
        }
        if bad.len() == SHOWN {
            more = true;
            break;
        }
        bad.push(c);
    }
    if !bad.is_empty() {
        let mut list = bad
            .iter()
            .map(|c| format!("{c:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        if more {
            list.push_str(" and more");
        }
        return Some((
            format!("its path has {list}, and `SourceName` allows only `[a-zA-Z0-9._]`"),
            "rename the columns on its path with letters, digits and `_` only",
        ));
    }
    let chars = path.chars().count();
    if chars > MAX_SOURCE_NAME {
        return Some((
            format!("its path is {chars} characters long, and `SourceName` allows at most {MAX_SOURCE_NAME}"),
            "shorten the names of the columns on its path",
        ));
    }
    None
}

fn partition_source(
    ws: &Workspace,
    tree: &Tree<'_>,
    partition: Option<&str>,
    requested: bool,
    out: &mut Vec<Diagnostic>,
) {
    let mut nameable = 0usize;
    let mut unnameable = Vec::new();
    for seen in &tree.columns {
        if !seen.via_structs || !matches!(seen.column.ty, Ty::Primitive(PrimitiveType::Timestamptz))
        {
            continue;
        }
        let Some((problem, help)) = source_name_problem(&seen.path) else {
            nameable += 1;
            continue;
        };
        unnameable.push(format!("`{}`", seen.path));
        let message = match partition {
            Some(source) if source == seen.path => format!(
                "partition field `{}` cannot be named in a channel configuration: {problem}",
                seen.path
            ),
            // Once another column is the source, this one will not be named anywhere.
            Some(_) => continue,
            None => format!(
                "timestamptz column `{}` can never be the channel's partition source: {problem}",
                seen.path
            ),
        };
        out.push(
            Diagnostic::new(
                &SOURCE_NAME_UNREACHABLE,
                ws.locate(seen.column.location),
                message,
            )
            .with_field(seen.path.as_str())
            .with_help(help),
        );
    }
    if requested || nameable > 0 {
        return;
    }
    let message = match unnameable.as_slice() {
        [] => "no column can be the channel's partition source: the hour partition needs a timestamptz column (a string with `format: date-time`) reached through structs only, and there is none".to_string(),
        [one] => format!("no column can be the channel's partition source: the only timestamptz column, {one}, has a path that `SourceName` cannot name"),
        many => format!(
            "no column can be the channel's partition source: the timestamptz columns {} have paths that `SourceName` cannot name",
            many.join(", ")
        ),
    };
    out.push(
        Diagnostic::new(&NO_PARTITION_CANDIDATE, root_location(ws), message).with_help(
            "add a required property such as `\"event_time\": {\"type\": \"string\", \"format\": \"date-time\"}` outside lists and maps",
        ),
    );
}

/// The root schema's first byte, as the partition diagnostics point at it.
fn root_location(ws: &Workspace) -> Location {
    let location = ws.root().map(|r| ws.schema_location(r)).unwrap_or_default();
    Location {
        span: Span::new(location.span.start(), location.span.start() + 1),
        ..location
    }
}

/// One warning per top-level column, at its deepest struct, list or map, so that a deep
/// subtree is reported once and not at every level past [`NEAR_NESTING`].
fn nesting(
    ws: &Workspace,
    columns: &[Column],
    tree: &Tree<'_>,
    too_deep: &[&str],
    out: &mut Vec<Diagnostic>,
) {
    let tops: HashMap<&str, usize> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    // `nesting-too-deep` already says it, as an error. A top-level name may itself contain
    // dots, so every dotted prefix of the error's field is tried.
    let mut reported = HashSet::default();
    for field in too_deep {
        let ends = field
            .char_indices()
            .filter(|(_, c)| *c == '.')
            .map(|(i, _)| i)
            .chain([field.len()]);
        for end in ends {
            if let Some(top) = field.get(..end).and_then(|p| tops.get(p)) {
                reported.insert(*top);
            }
        }
    }
    let mut deepest: Vec<Option<&Complex<'_>>> = vec![None; columns.len()];
    for complex in &tree.complex {
        if let Some(slot) = deepest.get_mut(complex.top) {
            if slot.is_none_or(|d| complex.level > d.level) {
                *slot = Some(complex);
            }
        }
    }
    for (top, deepest) in deepest.into_iter().enumerate() {
        let Some(deepest) = deepest.filter(|d| d.level >= NEAR_NESTING) else {
            continue;
        };
        if reported.contains(&top) {
            continue;
        }
        out.push(
            Diagnostic::new(
                &NESTING_NEAR_LIMIT,
                ws.locate(deepest.owner.location),
                format!(
                    "structs, lists and maps are nested {} levels deep at `{}`; the channel accepts at most {MAX_NESTING}, and how it counts levels is undocumented",
                    deepest.level, deepest.path
                ),
            )
            .with_field(deepest.path.as_str())
            .with_help("flatten the schema, or store the deepest part as a JSON string"),
        );
    }
}
