//! The walk from schema nodes to column types: the walk's state, [`Mapper::map_schema`] (one
//! schema node, with the walk-depth limit), the dispatch of merged parts to the rules, and
//! emitting diagnostics. The rules of docs/mapping.md live in the submodules, one file per
//! group of rules: `refs` (17–19), `all_of` (12), `types` (10–11), `scalar` (3–6, 9),
//! `object` (7, 15, 21), `array` (8, 16) and `budget` (22). Rule 14's not-enforced note is
//! emitted here, from the keyword table.

mod all_of;
mod array;
mod budget;
mod object;
mod refs;
mod scalar;
mod types;

use std::ops::ControlFlow;

// Lookups only (never iterated into output), so a fast non-random hasher is safe.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use iceberg::spec::PrimitiveType;
use schema2iceberg_parser::{
    Code, Diagnostic, Keywords, SchemaId, SchemaKind, Site, TypeName, Workspace,
};

use crate::compiler::codes;
use crate::compiler::keywords::{self, Role};
use crate::compiler::model::{Constraints, Ty};
use scalar::string_type;

/// Deepest chain of `$ref`/`allOf` steps the walk follows.
pub(super) const MAX_FRAMES: usize = 200;

/// What one schema node maps to.
#[derive(Clone)]
pub(crate) struct Mapped {
    pub ty: Ty,
    pub nullable: bool,
    pub doc: Option<String>,
    pub constraints: Constraints,
}

pub(crate) struct Mapper<'w> {
    ws: &'w Workspace,
    pub diagnostics: Vec<Diagnostic>,
    reported: HashSet<SchemaId>,
    reported_docs: HashSet<schema2iceberg_parser::DocId>,
    /// `$ref`s already reported as cycles: one report each, whichever path reached them first.
    reported_cycles: HashSet<SchemaId>,
    /// `$ref` targets being expanded on the current path, with the schema holding each `$ref`.
    ref_stack: Vec<(SchemaId, SchemaId)>,
    frames: usize,
    columns: usize,
    halted: bool,
    /// Whether to record each column's validation keywords (only `diff` reads them).
    with_constraints: bool,
    /// `$ref` targets already mapped, by target and nesting depth, with the number of columns
    /// each adds. Rule 19 gives every use of a definition its own columns, but those columns are
    /// the same each time, so a definition used from many places is mapped once per depth.
    ///
    /// Only expansions that met no cycle are reused: where a cycle is cut, and so which `$ref`
    /// is reported, depends on the path that reached the target. A target whose expansion met
    /// no cycle reaches nothing that is being expanded around it, from whichever path. A reused
    /// result costs no walk steps: the 200-step limit guards the stack, and reuse does not
    /// recurse.
    mapped_refs: HashMap<(SchemaId, usize), (Option<Mapped>, usize)>,
    /// Property names reported as uppercase.
    reported_names: HashSet<Site>,
    /// Holders of `$ref`s whose ignored siblings were reported: one warning each.
    reported_siblings: HashSet<SchemaId>,
    /// Holders of file `$ref`s already warned about: one warning each.
    reported_file_refs: HashSet<SchemaId>,
    /// How many times a `$ref` or an `allOf` was found to lead back into itself, reported or not.
    cycles_met: usize,
}

impl<'w> Mapper<'w> {
    pub fn new(ws: &'w Workspace, with_constraints: bool) -> Self {
        Mapper {
            ws,
            diagnostics: Vec::new(),
            reported: HashSet::default(),
            reported_docs: HashSet::default(),
            reported_cycles: HashSet::default(),
            ref_stack: Vec::new(),
            frames: 0,
            columns: 0,
            halted: false,
            with_constraints,
            mapped_refs: HashMap::default(),
            reported_siblings: HashSet::default(),
            reported_file_refs: HashSet::default(),
            reported_names: HashSet::default(),
            cycles_met: 0,
        }
    }

    fn emit(&mut self, code: &Code, site: Site, message: String, field: &str) -> &mut Diagnostic {
        let location = self.ws.locate(site);
        self.diagnostics
            .push(Diagnostic::new(code, location, message).with_field(field));
        let last = self.diagnostics.len() - 1;
        #[allow(clippy::indexing_slicing)] // pushed on the line above
        &mut self.diagnostics[last]
    }

    fn at(&self, schema: SchemaId, at: schema2iceberg_parser::json::JsonId) -> Site {
        self.ws.keyword_site(schema, at)
    }

    fn report_problems(&mut self, id: SchemaId, field: &str) {
        if self.reported.insert(id) {
            if let Some(schema) = self.ws.schema(id) {
                self.diagnostics
                    .extend(schema.problems.iter().map(|p| p.clone().with_field(field)));
                if self.reported_docs.insert(schema.doc) {
                    self.diagnostics
                        .extend(self.ws.document_diagnostics(schema.doc).iter().cloned());
                }
            }
        }
    }

    /// Maps the schema `id` for the column at `field`, whose type sits at nesting level `depth`.
    /// `None` means the column has no type; the reason is already a diagnostic.
    pub fn map_schema(&mut self, id: SchemaId, field: &str, depth: usize) -> Option<Mapped> {
        if self.halted {
            return None;
        }
        self.frames += 1;
        let result = if self.frames > MAX_FRAMES {
            self.halted = true;
            let location = self.ws.schema_site(id);
            self.emit(
                &codes::SCHEMA_TOO_DEEP,
                location,
                format!("`$ref` and `allOf` chains here go more than {MAX_FRAMES} steps deep"),
                field,
            );
            None
        } else {
            self.map_schema_inner(id, field, depth)
        };
        self.frames -= 1;
        result
    }

    fn map_schema_inner(&mut self, id: SchemaId, field: &str, depth: usize) -> Option<Mapped> {
        self.report_problems(id, field);
        let ws = self.ws;
        let schema = ws.schema(id)?;
        match &schema.kind {
            SchemaKind::Invalid => None,
            SchemaKind::Bool(true) => {
                let location = ws.schema_site(id);
                self.emit(
                    &codes::UNCONSTRAINED,
                    location,
                    "`true` accepts any value, so the column has no type".to_string(),
                    field,
                )
                .help = Some("give it a `type`".to_string());
                None
            }
            SchemaKind::Bool(false) => {
                let location = ws.schema_site(id);
                self.emit(
                    &codes::NEVER_VALID,
                    location,
                    "`false` accepts no value, so the column could never hold one".to_string(),
                    field,
                );
                None
            }
            SchemaKind::Object(k) => {
                if k.reference.is_some() {
                    return self.follow_ref(id, k, field, depth);
                }
                let parts = self.flatten(id, field)?;
                // Parts reached through `allOf` count as expanded references while their
                // properties are mapped, so that recursion through `allOf` is a cycle too.
                let pushed = parts.iter().filter(|p| **p != id).count();
                self.ref_stack
                    .extend(parts.iter().filter(|p| **p != id).map(|p| (*p, id)));
                let mapped = self.map_parts(id, &parts, field, depth);
                self.ref_stack.truncate(self.ref_stack.len() - pushed);
                mapped
            }
        }
    }

    /// Maps the merged `parts` of the schema `id` (rule 12) to one column: the nullable
    /// `anyOf`/`oneOf` (rule 10) when there is one, otherwise `enum`/`const` (rule 9) or the
    /// one declared or implied type (rules 10–11) and that type's rule.
    fn map_parts(
        &mut self,
        id: SchemaId,
        parts: &[SchemaId],
        field: &str,
        depth: usize,
    ) -> Option<Mapped> {
        let ws = self.ws;
        let kws: Vec<(SchemaId, &Keywords)> = parts
            .iter()
            .filter_map(|p| Some((*p, ws.keywords(*p)?)))
            .collect();
        self.note_unenforced(&kws, field);
        let doc = kws
            .iter()
            .find_map(|(_, k)| k.description.as_ref().map(|d| d.value.to_string()));
        match self.map_composition(&kws, field, depth) {
            ControlFlow::Break(Some(mut mapped)) => {
                mapped.doc = doc.or(mapped.doc);
                return Some(mapped);
            }
            ControlFlow::Break(None) => return None,
            ControlFlow::Continue(()) => {}
        }

        let declared = self.declared_types(&kws, field)?;
        let first =
            |f: fn(&Keywords) -> bool| kws.iter().find(|(_, k)| f(k)).map(|(s, k)| (*s, *k));
        let enum_part = first(|k| k.enum_values().is_some() || k.const_value().is_some());
        let mut nullable = declared
            .as_ref()
            .is_some_and(|(_, t)| t.contains(&TypeName::Null));

        let location = ws.schema_site(id);
        let ty = if let Some((sid, k)) = enum_part {
            let (ty, null_value) = self.enum_type(sid, k, declared.is_none(), location, field)?;
            nullable |= null_value;
            ty
        } else {
            let single = self.single_type(declared.as_ref(), &kws, location, field)?;
            self.typed(single, id, &kws, field, depth)?
        };
        Some(Mapped {
            ty,
            nullable,
            doc,
            constraints: self.constraints(&kws),
        })
    }

    /// The note for each keyword of the parts that the table does not enforce (rule 14).
    fn note_unenforced(&mut self, kws: &[(SchemaId, &Keywords)], field: &str) {
        for (sid, k) in kws {
            for (name, at) in &k.keys {
                if keywords::role(name) == Role::NotEnforced {
                    let location = self.at(*sid, *at);
                    self.emit(
                        &codes::NOT_ENFORCED,
                        location,
                        format!("`{name}` constrains records, but the table does not enforce it"),
                        field,
                    );
                }
            }
        }
    }

    /// The column of the one non-null type `single`, by its type's rule.
    fn typed(
        &mut self,
        single: TypeName,
        id: SchemaId,
        kws: &[(SchemaId, &Keywords)],
        field: &str,
        depth: usize,
    ) -> Option<Ty> {
        Some(match single {
            TypeName::String => {
                self.warn_format_typo(kws, field);
                Ty::Primitive(string_type(kws))
            }
            TypeName::Integer => {
                self.positive_multiple_of(kws, field)?;
                Ty::Primitive(self.integer_type(kws, field))
            }
            TypeName::Number => Ty::Primitive(self.number_type(kws, field)?),
            TypeName::Boolean => Ty::Primitive(PrimitiveType::Boolean),
            TypeName::Object => self.object_type(id, kws, field, depth)?,
            TypeName::Array => self.array_type(id, kws, field, depth)?,
            TypeName::Null => return None,
        })
    }
}

pub(crate) use budget::MAX_NESTING;
