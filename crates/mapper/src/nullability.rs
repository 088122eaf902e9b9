//! Messages about a column that `required` lists but that stays optional. They read the finished
//! tree, after the partition has made its source required, so that no message contradicts it.

// Lookups only (never iterated into output), so a fast non-random hasher is safe.
use rustc_hash::FxHashSet as HashSet;

use schema2iceberg_parser::{Diagnostic, Site, Workspace};

use crate::codes;
use crate::model::{join, Column, Ty};

/// Adds a `required-but-nullable` note for every column that its parent's `required` lists but
/// that is optional in `columns`. A definition used by several columns is reported once.
pub(crate) fn report(ws: &Workspace, columns: &[Column], diagnostics: &mut Vec<Diagnostic>) {
    let mut reported = HashSet::default();
    for column in columns {
        visit(ws, column, "", &mut reported, diagnostics);
    }
}

/// Recursion follows the table's nesting, which the mapper has already capped.
fn visit(
    ws: &Workspace,
    column: &Column,
    prefix: &str,
    reported: &mut HashSet<Site>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if column.listed_required && !column.required && reported.insert(column.location) {
        diagnostics.push(
            Diagnostic::new(
                &codes::REQUIRED_BUT_NULLABLE,
                ws.locate(column.location),
                format!(
                    "`{}` is in `required`, but its schema admits null, so the column is optional",
                    column.name
                ),
            )
            .with_field(join(prefix, &column.name)),
        );
    }
    let mut ty = &column.ty;
    let mut path = join(prefix, &column.name);
    loop {
        match ty {
            Ty::Primitive(_) => return,
            Ty::Struct(children) => {
                for child in children {
                    visit(ws, child, &path, reported, diagnostics);
                }
                return;
            }
            Ty::List(slot) => {
                path = join(&path, "element");
                ty = &slot.ty;
            }
            Ty::Map(slot) => {
                path = join(&path, "value");
                ty = &slot.ty;
            }
        }
    }
}
