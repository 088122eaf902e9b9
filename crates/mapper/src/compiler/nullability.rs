//! Messages about a column that `required` lists but that stays optional. They read the finished
//! tree, after the partition has made its source required, so that no message contradicts it.

// Lookups only (never iterated into output), so a fast non-random hasher is safe.
use rustc_hash::FxHashSet as HashSet;

use schema2iceberg_parser::{Diagnostic, Workspace};

use crate::compiler::codes;
use crate::compiler::model::{walk, Column};

/// Adds a `required-but-nullable` note for every column that its parent's `required` lists but
/// that is optional in `columns`. A definition used by several columns is reported once.
pub(crate) fn report(ws: &Workspace, columns: &[Column], diagnostics: &mut Vec<Diagnostic>) {
    let mut reported = HashSet::default();
    for place in walk(columns).filter(|place| place.slot.is_none()) {
        let column = place.column;
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
                .with_field(place.path),
            );
        }
    }
}
