//! Limits (rule 22 of docs/mapping.md, and the column budget of "Decisions that apply
//! everywhere"): the nesting depth the channel accepts and the number of columns one compile
//! may produce.

use schema2iceberg_parser::SchemaId;

use super::Mapper;
use crate::compiler::codes;

/// Deepest nesting of structs, lists and maps that the channel accepts.
pub const MAX_NESTING: usize = 16;

/// Most columns (struct fields, list elements and map values) one compile may produce.
pub const MAX_COLUMNS: usize = 100_000;

impl Mapper<'_> {
    pub(super) fn nesting_ok(&mut self, id: SchemaId, field: &str, depth: usize) -> bool {
        if depth <= MAX_NESTING {
            return true;
        }
        let location = self.ws.schema_site(id);
        self.emit(
            &codes::NESTING_TOO_DEEP,
            location,
            format!("structs, lists and maps are nested {depth} levels deep here; the channel accepts at most {MAX_NESTING}"),
            field,
        );
        false
    }

    pub(super) fn count_column(&mut self, id: SchemaId, field: &str) -> bool {
        self.add_columns(1, id, field)
    }

    /// Adds `count` columns made at `id` to the budget; `false` once it is exceeded.
    pub(super) fn add_columns(&mut self, count: usize, id: SchemaId, field: &str) -> bool {
        if self.halted {
            return false;
        }
        self.columns += count;
        if self.columns <= MAX_COLUMNS {
            return true;
        }
        self.halted = true;
        let location = self.ws.schema_site(id);
        self.emit(
            &codes::TOO_MANY_COLUMNS,
            location,
            format!("the schema expands to more than {MAX_COLUMNS} columns (reached here); expansion stopped"),
            field,
        );
        false
    }
}
