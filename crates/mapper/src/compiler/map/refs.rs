//! `$ref` (rules 17–19 of docs/mapping.md): following a reference and reusing what its target
//! mapped to, the keywords beside it that drafts 04–07 ignore (18), reference cycles (19), and
//! the warning for a reference into another file, which the registry cannot resolve.

use schema2iceberg_parser::{Keywords, SchemaId};

use super::MAX_FRAMES;
use super::{Mapped, Mapper};
use crate::compiler::codes;
use crate::compiler::keywords::{self};

/// Whether a keyword beside `$ref` would change the column or which records are valid if it
/// were not ignored: what gives a type, and what validates.
fn changes_column(name: &str) -> bool {
    let role = keywords::role(name);
    (role.gives_type() && name != "$ref") || role.validates()
}

impl Mapper<'_> {
    /// Resolves `id`'s `$ref` and returns the target, reporting dangling references and cycles.
    fn ref_target(&mut self, id: SchemaId, k: &Keywords, field: &str) -> Option<SchemaId> {
        let reference = k.reference.as_ref()?;
        self.warn_file_ref(id, k, field);
        match &reference.value.target {
            Err(d) => {
                self.diagnostics.push((**d).clone().with_field(field));
                None
            }
            Ok(target) => {
                if let Some(start) = self.ref_stack.iter().position(|(t, _)| t == target) {
                    self.cycles_met += 1;
                    if !self.reported_cycles.insert(id) {
                        return None;
                    }
                    let mut chain: Vec<String> = self
                        .ref_stack
                        .get(start..)
                        .unwrap_or_default()
                        .iter()
                        .map(|(t, _)| self.describe_schema(*t))
                        .collect();
                    chain.push(self.describe_schema(*target));
                    let location = self.at(id, reference.at);
                    self.emit(
                        &codes::REF_CYCLE,
                        location,
                        format!(
                            "`$ref` \"{}\" leads back into itself: {}; Iceberg has no recursive types",
                            reference.value.text,
                            chain.join(" → ")
                        ),
                        field,
                    )
                    .help = Some("stop the recursion at a fixed depth, or store the recursive part as a JSON string".to_string());
                    return None;
                }
                Some(*target)
            }
        }
    }

    /// Warns at a `$ref` whose target is in another document than the one it is written in:
    /// the registry stores one document, so it cannot resolve the reference.
    fn warn_file_ref(&mut self, id: SchemaId, k: &Keywords, field: &str) {
        let ws = self.ws;
        let (Some(reference), Some(holder)) = (k.reference.as_ref(), ws.schema(id)) else {
            return;
        };
        let Ok(target) = &reference.value.target else {
            return;
        };
        let Some(target_doc) = ws.schema(*target).map(|t| t.doc) else {
            return;
        };
        if target_doc == holder.doc || !self.reported_file_refs.insert(id) {
            return;
        }
        let file = ws.document(target_doc).map_or("", |d| d.display.as_str());
        let main = ws
            .documents()
            .first()
            .map_or("SCHEMA", |d| d.display.as_str());
        let location = self.at(id, reference.at);
        self.emit(
            &codes::FILE_REF,
            location,
            format!(
                "`$ref` \"{}\" reads the file `{file}`: the Glue Schema Registry stores one document and cannot resolve it, so creating the channel fails",
                reference.value.text
            ),
            field,
        )
        .help = Some(format!(
            "register the one document that `schema2iceberg bundle {main}` prints, with every file reference inlined"
        ));
    }

    pub(super) fn describe_schema(&self, id: SchemaId) -> String {
        let location = self.ws.schema_location(id);
        let main = self.ws.documents().first().map(|d| d.display.as_str());
        if Some(&*location.file) == main {
            format!("#{}", location.pointer)
        } else {
            format!("{}#{}", location.file, location.pointer)
        }
    }

    pub(super) fn follow_ref(
        &mut self,
        id: SchemaId,
        k: &Keywords,
        field: &str,
        depth: usize,
    ) -> Option<Mapped> {
        self.warn_ref_siblings(id, k, field);
        let target = self.ref_target(id, k, field)?;
        if let Some((mapped, columns)) = self.mapped_refs.get(&(target, depth)) {
            let (mapped, columns) = (mapped.clone(), *columns);
            return if self.add_columns(columns, id, field) {
                mapped
            } else {
                None
            };
        }
        let (columns_before, diagnostics_before, cycles_before) =
            (self.columns, self.diagnostics.len(), self.cycles_met);
        self.ref_stack.push((target, id));
        let mapped = self.map_schema(target, field, depth);
        self.ref_stack.pop();
        // Reuse needs the same result for the same key. The column budget and the frame limit
        // (`halted`) depend on everything mapped before, and `nesting-too-deep` diagnostics carry
        // the column path that the lints read, so those expansions are never reused.
        let reusable = !self.halted
            && self.cycles_met == cycles_before
            && self
                .diagnostics
                .get(diagnostics_before..)
                .unwrap_or_default()
                .iter()
                .all(|d| d.code != codes::NESTING_TOO_DEEP.name);
        if reusable {
            let entry = (mapped.clone(), self.columns - columns_before);
            self.mapped_refs.insert((target, depth), entry);
        }
        mapped
    }

    /// Reports the keywords beside `$ref` that drafts 04–07 ignore: a warning for those that
    /// would change the column or the validation, a note for a `description`, which loses only
    /// the column's doc. `title`, `$comment` and `examples` reach no table, `$ref` or not.
    fn warn_ref_siblings(&mut self, id: SchemaId, k: &Keywords, field: &str) {
        let Some(reference) = k.reference.as_ref() else {
            return;
        };
        let siblings: Vec<&str> = k
            .keys
            .iter()
            .map(|(name, _)| name.as_ref())
            .filter(|name| changes_column(name))
            .collect();
        let doc = k.description.is_some();
        if (siblings.is_empty() && !doc) || !self.reported_siblings.insert(id) {
            return;
        }
        let location = self.at(id, reference.at);
        let target = &reference.value.text;
        if !siblings.is_empty() {
            let names = siblings
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ");
            self.emit(
                &codes::REF_SIBLING_IGNORED,
                location,
                format!("{names} beside `$ref` {} ignored: drafts 04–07 ignore keywords next to `$ref`, so the column and its validation come from \"{target}\" alone",
                    if siblings.len() == 1 { "is" } else { "are" }),
                field,
            )
            .help = Some("move the keyword into the referenced schema, or write `\"allOf\": [{\"$ref\": …}, {…}]`".to_string());
        }
        if doc {
            self.emit(
                &codes::REF_SIBLING_DOC_IGNORED,
                location,
                format!("`description` beside `$ref` is ignored, as drafts 04–07 ignore keywords next to `$ref`: the column's doc comes from \"{target}\", and nothing else is lost"),
                field,
            )
            .help = Some("to keep this doc, write `\"allOf\": [{\"$ref\": …}]` beside the `description`".to_string());
        }
    }

    /// Follows `$ref`s from `id` to a schema without one (for `allOf`/`anyOf` branches).
    pub(super) fn resolve_chain(&mut self, id: SchemaId, field: &str) -> Option<SchemaId> {
        let mut at = id;
        let mut seen = vec![id];
        loop {
            self.report_problems(at, field);
            let ws = self.ws;
            let Some(k) = ws.keywords(at) else {
                return Some(at);
            };
            if k.reference.is_none() {
                return Some(at);
            }
            self.warn_ref_siblings(at, k, field);
            let target = self.ref_target(at, k, field)?;
            if seen.len() > MAX_FRAMES {
                let location = ws.schema_site(at);
                self.emit(
                    &codes::SCHEMA_TOO_DEEP,
                    location,
                    format!("this chain of `$ref`s is more than {MAX_FRAMES} steps long"),
                    field,
                );
                return None;
            }
            if seen.contains(&target) {
                let location = ws.schema_site(at);
                self.emit(
                    &codes::REF_CYCLE,
                    location,
                    "this chain of `$ref`s loops without reaching a schema".to_string(),
                    field,
                );
                return None;
            }
            seen.push(target);
            at = target;
        }
    }
}
