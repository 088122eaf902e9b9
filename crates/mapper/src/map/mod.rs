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

// Lookups only (never iterated into output), so a fast non-random hasher is safe.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use iceberg::spec::PrimitiveType;
use schema2iceberg_parser::json::JsonValue;
use schema2iceberg_parser::{
    Code, Diagnostic, Keywords, SchemaId, SchemaKind, Site, TypeName, Workspace,
};

use crate::codes;
use crate::keywords::{self, Role};
use crate::model::{Constraints, Ty};
use scalar::{is_null, short_json, shown_values, string_type};
use types::declared_single;

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
        for (sid, k) in &kws {
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
        let doc = kws
            .iter()
            .find_map(|(_, k)| k.description.as_ref().map(|d| d.value.clone()));
        // An `anyOf`/`oneOf` whose branches only validate is set aside with a warning (rule
        // 10); the others are read as before.
        let mut compositions = Vec::new();
        let declared = declared_single(&kws);
        for (sid, k) in &kws {
            for (name, keyword) in [("anyOf", &k.any_of), ("oneOf", &k.one_of)] {
                let Some(branches) = keyword else { continue };
                let mut resolved = Vec::with_capacity(branches.value.len());
                for branch in &branches.value {
                    resolved.push((*branch, self.resolve_chain(*branch, field)?));
                }
                if self.only_validates(&resolved, declared) {
                    self.warn_validation_only(*sid, name, branches, field);
                } else {
                    compositions.push((*sid, name, branches, resolved));
                }
            }
        }
        if let Some((sid, _, _, _)) = compositions.iter().find(|(sid, name, _, _)| {
            *name == "oneOf"
                && compositions
                    .iter()
                    .any(|(s, n, _, _)| s == sid && *n == "anyOf")
        }) {
            let at = ws
                .keywords(*sid)
                .and_then(|k| k.key("oneOf"))
                .unwrap_or(ws.schema(*sid)?.at);
            let location = self.at(*sid, at);
            self.emit(
                &codes::UNSUPPORTED_COMPOSITION,
                location,
                "`anyOf` and `oneOf` in one schema have no Iceberg type".to_string(),
                field,
            );
            return None;
        }
        if let Some((sid, name, branches, resolved)) = compositions.into_iter().next() {
            let mut mapped =
                self.map_nullable_union(sid, name, branches, resolved, &kws, field, depth)?;
            mapped.doc = doc.or(mapped.doc);
            return Some(mapped);
        }

        let declared = self.declared_types(&kws, field)?;
        let first =
            |f: fn(&Keywords) -> bool| kws.iter().find(|(_, k)| f(k)).map(|(s, k)| (*s, *k));
        let enum_part = first(|k| k.enum_values.is_some() || k.const_value.is_some());
        let mut nullable = declared
            .as_ref()
            .is_some_and(|(_, t)| t.contains(&TypeName::Null));

        let location = ws.schema_site(id);
        let ty = if let Some((sid, k)) = enum_part {
            let (keyword, values): (&str, Vec<schema2iceberg_parser::json::JsonId>) =
                match (&k.enum_values, &k.const_value) {
                    (Some(e), _) => ("enum", e.value.clone()),
                    (None, Some(c)) => ("const", vec![c.value]),
                    (None, None) => ("enum", Vec::new()),
                };
            let doc_id = ws.schema(sid).map(|s| s.doc)?;
            nullable |= values.iter().any(|v| is_null(ws.json_value(doc_id, *v)));
            let non_null: Vec<_> = values
                .iter()
                .filter(|v| !is_null(ws.json_value(doc_id, **v)))
                .collect();
            if non_null.is_empty() {
                let at = self.at(sid, k.key(keyword).unwrap_or(ws.schema(sid)?.at));
                self.emit(
                    &codes::NULL_TYPE,
                    at,
                    format!("`{keyword}` admits only null, and Iceberg has no null type"),
                    field,
                );
                return None;
            }
            if let Some(bad) = non_null
                .iter()
                .find(|v| !matches!(ws.json_value(doc_id, ***v), JsonValue::String(_)))
            {
                let at = self.at(sid, **bad);
                let shown = short_json(ws.json_value(doc_id, **bad));
                self.emit(
                    &codes::ENUM_NOT_STRING,
                    at,
                    format!("`{keyword}` value {shown} is not a string, but `{keyword}` maps to a string column, which holds it as text"),
                    field,
                );
            }
            if declared.is_none() {
                self.emit(
                    &codes::TYPE_IMPLIED,
                    location,
                    format!(
                        "no `type`: `{keyword}` {} makes the column a string, as `enum` and `const` map to string whatever their values (the channel stores enum values as strings)",
                        shown_values(values.iter().map(|v| ws.json_value(doc_id, *v)))
                    ),
                    field,
                );
            }
            Ty::Primitive(PrimitiveType::String)
        } else {
            let single = match &declared {
                Some((at, types)) => {
                    let non_null: Vec<TypeName> = types
                        .iter()
                        .copied()
                        .filter(|t| *t != TypeName::Null)
                        .collect();
                    match non_null.as_slice() {
                        [] => {
                            self.emit(
                                &codes::NULL_TYPE,
                                *at,
                                "the type is only `null`, and Iceberg has no null type".to_string(),
                                field,
                            )
                            .help = Some("give the column a real type, made nullable with `\"type\": [\"string\", \"null\"]`".to_string());
                            return None;
                        }
                        [one] => *one,
                        many => {
                            let names = many
                                .iter()
                                .map(|t| format!("`{}`", t.as_str()))
                                .collect::<Vec<_>>()
                                .join(", ");
                            self.emit(
                                &codes::UNION_TYPE,
                                *at,
                                format!("the type allows several types ({names}), and Iceberg has no union type"),
                                field,
                            )
                            .help = Some(
                                "choose one type; to keep mixed values, store them as a string"
                                    .to_string(),
                            );
                            return None;
                        }
                    }
                }
                None => {
                    let implied = if kws
                        .iter()
                        .any(|(_, k)| k.properties.is_some() || k.additional_properties.is_some())
                    {
                        Some((TypeName::Object, "`properties` or `additionalProperties`"))
                    } else if kws.iter().any(|(_, k)| k.items.is_some()) {
                        Some((TypeName::Array, "`items`"))
                    } else if kws.iter().any(|(_, k)| k.format.is_some()) {
                        Some((TypeName::String, "`format`"))
                    } else {
                        None
                    };
                    match implied {
                        Some((t, by)) => {
                            self.emit(
                                &codes::TYPE_IMPLIED,
                                location,
                                format!("no `type`: {} is implied by {by}", t.as_str()),
                                field,
                            );
                            t
                        }
                        None => {
                            let empty = kws.iter().all(|(_, k)| k.keys.is_empty());
                            self.emit(
                                &codes::UNCONSTRAINED,
                                location,
                                if empty {
                                    "`{}` constrains nothing, so the column has no type".to_string()
                                } else {
                                    "this schema has no `type`, and nothing in it implies one"
                                        .to_string()
                                },
                                field,
                            )
                            .help = Some(
                                "give it a `type` (and a `format` where it matters)".to_string(),
                            );
                            return None;
                        }
                    }
                }
            };
            match single {
                TypeName::String => {
                    self.warn_format_typo(&kws, field);
                    Ty::Primitive(string_type(&kws))
                }
                TypeName::Integer => {
                    self.positive_multiple_of(&kws, field)?;
                    Ty::Primitive(self.integer_type(&kws, field))
                }
                TypeName::Number => Ty::Primitive(self.number_type(&kws, field)?),
                TypeName::Boolean => Ty::Primitive(PrimitiveType::Boolean),
                TypeName::Object => self.object_type(id, &kws, field, depth)?,
                TypeName::Array => self.array_type(id, &kws, field, depth)?,
                TypeName::Null => return None,
            }
        };
        Some(Mapped {
            ty,
            nullable,
            doc,
            constraints: self.constraints(&kws),
        })
    }
}

pub use budget::{MAX_COLUMNS, MAX_NESTING};
