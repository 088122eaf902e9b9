//! Lints for the `check` gate: problems the channel does not reject, but that make the table
//! hard to use. They run only when [`crate::CompileOptions::lints`] is set.

use schema2iceberg_parser::{Code, Diagnostic, Workspace};

use crate::model::Column;

/// Every lint code, in documentation order.
pub const ALL: &[Code] = &[];

/// Runs every lint over the table's columns. `partition` is the partition source path, when one
/// was given and found.
pub(crate) fn run(
    _ws: &Workspace,
    _columns: &[Column],
    _partition: Option<&str>,
    _diagnostics: &mut Vec<Diagnostic>,
) {
}
