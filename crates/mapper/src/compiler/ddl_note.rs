//! The `ddl-cannot-create` note: a column whose type some dialect's `CREATE TABLE` cannot create,
//! said when the schema compiles rather than only when `--format ddl` refuses it. The dialects
//! are those for which [`ddl::can_create`] says no, the rule the DDL itself follows.

use iceberg::spec::PrimitiveType;
use schema2iceberg_parser::{Diagnostic, Workspace};

use crate::compiler::codes;
use crate::compiler::model::{Column, Ty};
use crate::compiler::MAX_NESTING;
use crate::formats::ddl::{self, Dialect};

/// Adds a note for every named column whose type, or the type of a list element or map value it
/// holds, some dialect cannot create. Paths are joined only for the columns reported, so a wide
/// table costs one match a column.
pub(crate) fn report(ws: &Workspace, columns: &[Column], diagnostics: &mut Vec<Diagnostic>) {
    let mut path = Vec::new();
    for column in columns {
        visit(ws, column, &mut path, diagnostics);
    }
}

fn visit<'c>(
    ws: &Workspace,
    column: &'c Column,
    path: &mut Vec<&'c str>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    path.push(&column.name);
    // The column's own type, or the primitive its lists and maps end in.
    let mut ty = &column.ty;
    let mut slots = Vec::new();
    while let Ty::List(slot) | Ty::Map(slot) = ty {
        slots.push(if matches!(ty, Ty::List(_)) {
            "element"
        } else {
            "value"
        });
        ty = &slot.ty;
    }
    match ty {
        Ty::Primitive(primitive) => {
            let path = path
                .iter()
                .chain(slots.iter())
                .copied()
                .collect::<Vec<_>>()
                .join(".");
            note(ws, column, primitive, &path, diagnostics);
        }
        // The mapper refuses deeper tables, and a table with an error has no DDL to refuse.
        Ty::Struct(_) if path.len() + slots.len() > MAX_NESTING => {}
        Ty::Struct(fields) => {
            // A struct inside a list or map: its fields are reached through the slots.
            let depth = path.len();
            path.extend(slots.iter().copied());
            for field in fields {
                visit(ws, field, path, diagnostics);
            }
            path.truncate(depth);
        }
        Ty::List(_) | Ty::Map(_) => {}
    }
    path.pop();
}

/// The note for a column of `primitive`, when some dialect cannot create it.
fn note(
    ws: &Workspace,
    column: &Column,
    primitive: &PrimitiveType,
    path: &str,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let cannot: Vec<&str> = Dialect::ALL
        .into_iter()
        .filter(|dialect| !ddl::can_create(primitive, *dialect))
        .map(Dialect::title)
        .collect();
    if cannot.is_empty() {
        return;
    }
    let flags: Vec<&str> = Dialect::ALL
        .into_iter()
        .filter(|dialect| !ddl::can_create(primitive, *dialect))
        .map(Dialect::name)
        .collect();
    diagnostics.push(
        Diagnostic::new(
            &codes::DDL_CANNOT_CREATE,
            ws.locate(column.location),
            format!(
                "`{path}` is a {primitive} column, which the channel's table holds but {}'s CREATE TABLE cannot create, so `--format ddl --dialect {}` refuses the table",
                cannot.join(" and "),
                flags.join("|")
            ),
        )
        .with_field(path)
        .with_help(ddl::way_out(primitive)),
    );
}
