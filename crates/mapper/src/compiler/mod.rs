//! The compiler: maps the main schema of a [`Workspace`] to the Iceberg schema and hour
//! partition spec a channel creates, with every diagnostic. [`map`] walks the schema (`map/`,
//! one file per group of rules) and runs the passes on the finished column tree (`partition`,
//! `nullability`, `ddl_note`, `lints`); [`Mapped::build`] asks the `iceberg` crate for the
//! table. `model` is the column tree, `ids` numbers it, `keywords` is the table of JSON Schema
//! keywords and what the walk does with each, `codes` the compiler's diagnostic codes.

pub mod codes;
mod ddl_note;
mod ids;
pub mod keywords;
pub mod lints;
mod map;
pub(crate) mod model;
mod nullability;
mod partition;

use std::sync::Arc;

// Lookups only (never iterated into output), so a fast non-random hasher is safe.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use iceberg::spec::{PartitionSpec, Schema, Transform};
use schema2iceberg_parser::{Diagnostic, LoadOptions, Location, Severity, Url, Workspace};

pub(crate) use map::MAX_NESTING;

/// What to compile besides the schema.
#[derive(Debug, Clone, Default)]
pub struct CompileOptions {
    /// The hour-partition source fields; the channel takes exactly one.
    pub partition: Vec<String>,
    /// Where the partition field was named, when not on the command line (a channel
    /// configuration's `SourceName`, say): partition errors point there.
    pub partition_origin: Option<Location>,
    /// Also run the lints of [`lints`], which go beyond what the channel rejects.
    pub lints: bool,
    /// Also fill [`Compiled::columns`]: each column's place and validation keywords, which
    /// [`crate::diff`] compares. Off by default, since it costs a pointer, a line and column and
    /// the keywords' text for every column.
    pub column_sources: bool,
}

/// Where one column comes from: for tools that point from the table back into the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSource {
    /// The dotted Iceberg path (`element` and `value` inside lists and maps).
    pub path: String,
    /// Where the property is written; for list elements and map values, their column's place.
    pub location: Option<Location>,
    /// Keywords that constrain records without shaping the column (`pattern`, `maxLength`,
    /// `enum`, …), as compact JSON. A change here keeps the table but may reject old records.
    pub constraints: std::collections::BTreeMap<String, String>,
    /// Where each of those keywords is written, for the root schema's own keywords: a change to
    /// the root's `required` points there, since the root has no property name to point at.
    pub keyword_locations: std::collections::BTreeMap<String, Location>,
}

/// The table, or the reasons there is none.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The Iceberg schema (schema-id 0), when there are no errors.
    pub schema: Option<Schema>,
    /// The partition spec (spec-id 0; unpartitioned when no field was given), when there are no
    /// errors.
    pub partition_spec: Option<PartitionSpec>,
    /// Every diagnostic, sorted by file and position.
    pub diagnostics: Vec<Diagnostic>,
    /// Every column's source, in table order, after one for the root (the table itself) with
    /// the empty path; empty when there is no table or [`CompileOptions::column_sources`] is
    /// off.
    pub columns: Vec<ColumnSource>,
}

impl Compiled {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// How many diagnostics have `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}

/// Compiles schema text held in memory. File references are errors, since there is no
/// reference root; use [`compile`] with a [`Workspace`] for files.
pub fn compile_source(name: &str, text: &str, options: &CompileOptions) -> Compiled {
    let base = Url::parse("file:///schema.json")
        .and_then(|b| b.join(name))
        .or_else(|_| Url::parse("file:///schema.json"));
    match base {
        Ok(base) => {
            let ws =
                Workspace::from_bytes(name, text.as_bytes().to_vec(), base, LoadOptions::default());
            compile(&ws, options)
        }
        Err(_) => Compiled {
            schema: None,
            partition_spec: None,
            diagnostics: Vec::new(),
            columns: Vec::new(),
        },
    }
}

/// Compiles the main schema of `ws` into the table a channel would create: [`map`], then
/// [`Mapped::build`].
pub fn compile(ws: &Workspace, options: &CompileOptions) -> Compiled {
    map(ws, options).build()
}

/// A schema mapped to its columns, before the Iceberg library builds the table from them. It
/// holds nothing of the workspace, so a caller that is done with the parsed documents can free
/// them first: on a large schema they are a third of the heap, and the Iceberg schema with its
/// indexes would otherwise be built on top of them.
#[derive(Debug)]
pub struct Mapped {
    /// What the Iceberg library builds, when no diagnostic is an error.
    table: Option<MappedTable>,
    diagnostics: Vec<Diagnostic>,
    sources: Vec<ColumnSource>,
    /// The documents' display names, in the workspace's order, to sort the diagnostics by.
    file_order: Vec<Arc<str>>,
}

/// Maps the main schema of `ws`: the walk, then the partition, nullability notes, column sources
/// and lints on the finished tree. [`Mapped::build`] gives the table.
pub fn map(ws: &Workspace, options: &CompileOptions) -> Mapped {
    let mut diagnostics: Vec<Diagnostic> = ws.diagnostics().to_vec();
    let mut table = None;
    let mut sources = Vec::new();
    if let Some((mut columns, root_constraints)) = map_root(ws, options, &mut diagnostics) {
        let source = partition::apply(
            ws,
            &mut columns,
            &options.partition,
            options.partition_origin.as_ref(),
            &mut diagnostics,
        );
        nullability::report(ws, &columns, &mut diagnostics);
        ddl_note::report(ws, &columns, &mut diagnostics);
        if options.column_sources {
            sources = model::sources(ws, root_constraints, &columns);
        }
        if options.lints {
            lints::run(
                ws,
                &columns,
                !options.partition.is_empty(),
                source.as_deref(),
                &mut diagnostics,
            );
        }
        // With an error there is no table to show, so the Iceberg library is not asked to build
        // one (for a schema that expands a definition many times, that is most of the time).
        if !diagnostics.iter().any(|d| d.severity == Severity::Error) {
            table = Some(MappedTable {
                columns,
                source,
                root_location: root_location(ws),
            });
        }
    }
    Mapped {
        table,
        diagnostics,
        sources,
        file_order: ws
            .documents()
            .iter()
            .map(|d| Arc::from(d.display.as_str()))
            .collect(),
    }
}

/// The columns of a schema with no errors, and what building the table from them needs.
#[derive(Debug)]
struct MappedTable {
    columns: Vec<model::Column>,
    /// The hour partition's source column, by its dotted path.
    source: Option<String>,
    /// Where an error of the Iceberg library points: the root schema.
    root_location: Location,
}

impl Mapped {
    /// The table: the Iceberg schema and hour partition spec built by the `iceberg` crate, and
    /// the diagnostics, sorted.
    pub fn build(self) -> Compiled {
        let Mapped {
            table,
            mut diagnostics,
            sources,
            file_order,
        } = self;
        let (schema, partition_spec) = match table {
            Some(table) => build_iceberg(table, &mut diagnostics),
            None => (None, None),
        };
        let diagnostics = tidy(&file_order, diagnostics);
        let failed = diagnostics.iter().any(|d| d.severity == Severity::Error);
        Compiled {
            schema: if failed { None } else { schema },
            partition_spec: if failed { None } else { partition_spec },
            diagnostics,
            columns: if failed { Vec::new() } else { sources },
        }
    }
}

/// Maps the root schema: its columns and its own validation keywords, or `None` (with a
/// diagnostic) when the root is not an object with properties.
fn map_root(
    ws: &Workspace,
    options: &CompileOptions,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<(Vec<model::Column>, model::Constraints)> {
    let mut table = None;
    if let Some(root) = ws.root() {
        let mut mapper = map::Mapper::new(ws, options.column_sources);
        let mapped = mapper.map_schema(root, "", 0);
        diagnostics.append(&mut mapper.diagnostics);
        match mapped {
            Some(m) => match m.ty {
                model::Ty::Struct(columns) => {
                    table = Some((columns, m.constraints))
                }
                other => diagnostics.push(
                    Diagnostic::new(
                        &codes::ROOT_NOT_OBJECT,
                        root_location(ws),
                        format!("the root maps to {}, but a table needs an object with `properties`, which become its columns", other.describe()),
                    )
                    .with_help("make the root `{\"type\": \"object\", \"properties\": {…}}`"),
                ),
            },
            None => {
                let root_pointer_error = diagnostics
                    .iter()
                    .any(|d| d.severity == Severity::Error && d.location.pointer.is_empty());
                if !root_pointer_error && !diagnostics.iter().any(|d| d.severity == Severity::Error) {
                    diagnostics.push(Diagnostic::new(
                        &codes::ROOT_NOT_OBJECT,
                        root_location(ws),
                        "the root schema has no columns".to_string(),
                    ));
                }
            }
        }
    }
    table
}

/// The Iceberg schema and hour partition spec of a tree with no errors, built by the `iceberg`
/// crate; what its builders refuse is an `iceberg-rejected` error.
fn build_iceberg(
    table: MappedTable,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Option<Schema>, Option<PartitionSpec>) {
    let MappedTable {
        columns,
        source,
        root_location,
    } = table;
    let built = Schema::builder()
        .with_schema_id(0)
        .with_fields(ids::build_fields(columns))
        .build();
    match built {
        Ok(s) => {
            // The spec builder needs the schema only while it binds the source column; lending
            // it through an `Arc` saves a deep copy of the schema and all its indexes.
            let s = Arc::new(s);
            let spec = match &source {
                Some(path) => PartitionSpec::builder(Arc::clone(&s))
                    .with_spec_id(0)
                    .add_partition_field(path, format!("{path}_hour"), Transform::Hour)
                    .and_then(|b| b.build()),
                None => Ok(PartitionSpec::unpartition_spec()),
            };
            let partition_spec = match spec {
                Ok(spec) => Some(spec),
                Err(e) => {
                    diagnostics.push(Diagnostic::new(
                        &codes::ICEBERG_REJECTED,
                        root_location,
                        format!(
                            "the Iceberg library rejected the partition spec: {}",
                            e.message()
                        ),
                    ));
                    None
                }
            };
            (Some(Arc::unwrap_or_clone(s)), partition_spec)
        }
        Err(e) => {
            diagnostics.push(Diagnostic::new(
                &codes::ICEBERG_REJECTED,
                root_location,
                format!("the Iceberg library rejected the schema: {}", e.message()),
            ));
            (None, None)
        }
    }
}

fn root_location(ws: &Workspace) -> Location {
    let location = ws.root().map(|r| ws.schema_location(r)).unwrap_or_default();
    Location {
        span: schema2iceberg_parser::Span::new(location.span.start(), location.span.start() + 1),
        ..location
    }
}

/// Drops repeats (a definition used by two columns reports its problems once) and sorts by
/// file, then position; the walk's order breaks ties.
fn tidy(file_order: &[Arc<str>], mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let file_order: HashMap<&str, usize> = file_order
        .iter()
        .enumerate()
        .map(|(i, name)| (&**name, i))
        .collect();
    // Decide what to keep by reference first, so that no string is copied for the check.
    let keep: Vec<bool> = {
        let mut seen = HashSet::default();
        diagnostics
            .iter()
            .map(|d| {
                seen.insert((
                    d.code,
                    &*d.location.file,
                    d.location.pointer.as_str(),
                    d.location.span,
                    d.message.as_str(),
                ))
            })
            .collect()
    };
    // `retain` visits the elements once each, in order, so the flags line up.
    let mut keep = keep.into_iter();
    diagnostics.retain(|_| keep.next().unwrap_or(true));
    diagnostics.sort_by_cached_key(|d| {
        (
            file_order
                .get(&*d.location.file)
                .copied()
                .unwrap_or(usize::MAX),
            d.location.span.start,
        )
    });
    diagnostics
}
