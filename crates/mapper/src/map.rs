//! The walk from schema nodes to column types: `$ref`, `allOf`, nullability, and the type rules
//! of docs/mapping.md.

// Lookups only (never iterated into output), so a fast non-random hasher is safe.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use iceberg::spec::PrimitiveType;
use schema2iceberg_parser::json::JsonValue;
use schema2iceberg_parser::{
    suggest, Code, Diagnostic, Draft, Exclusive, Items, Keyword, Keywords, Number, Property,
    SchemaId, SchemaKind, Site, TypeName, Workspace,
};

use crate::codes;
use crate::keywords::{self, Role};
use crate::model::{join, Column, Constraints, Slot, Ty};

/// Deepest nesting of structs, lists and maps that the channel accepts.
pub const MAX_NESTING: usize = 16;
/// Most columns (struct fields, list elements and map values) one compile may produce.
pub const MAX_COLUMNS: usize = 100_000;
/// Deepest chain of `$ref`/`allOf` steps the walk follows.
const MAX_FRAMES: usize = 200;
/// The first integer that does not fit in int32.
const TWO_POW_31: &str = "2147483648";
/// −2^31 − 1, the first integer below the int32 range.
const BELOW_INT32_MIN: &str = "-2147483649";
/// 2^63, the first integer above the long range.
const ABOVE_LONG_MAX: &str = "9223372036854775808";
/// −2^63 − 1, the first integer below the long range.
const BELOW_LONG_MIN: &str = "-9223372036854775809";
/// Largest decimal scale with Iceberg's maximum precision of 38.
const MAX_SCALE: u64 = 38;

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

/// A number for a message: as written, or cut short when it is longer than a line.
fn shown(n: &Number) -> String {
    let text = n.as_str();
    if text.chars().count() <= 40 {
        text.to_string()
    } else {
        let head: String = text.chars().take(24).collect();
        format!("{head}… ({} characters)", text.chars().count())
    }
}

fn is_null(value: &JsonValue) -> bool {
    matches!(value, JsonValue::Null)
}

fn short_json(value: &JsonValue) -> String {
    match value {
        JsonValue::Null => "null".to_string(),
        JsonValue::Bool(b) => b.to_string(),
        JsonValue::Number(n) => shown(n),
        JsonValue::String(s) => format!("{s:?}"),
        JsonValue::Array(_) => "[…]".to_string(),
        JsonValue::Object(_) => "{…}".to_string(),
    }
}

/// Values for a message: one as it is written, several as a list cut after three.
fn shown_values<'v>(values: impl ExactSizeIterator<Item = &'v JsonValue>) -> String {
    let count = values.len();
    let mut shown: Vec<String> = values.take(3).map(short_json).collect();
    if count == 1 {
        return shown.pop().unwrap_or_default();
    }
    if count > 3 {
        shown.push("…".to_string());
    }
    format!("[{}]", shown.join(", "))
}

/// Whether a keyword beside `$ref` would change the column or which records are valid if it
/// were not ignored: what gives a type, and what validates.
fn changes_column(name: &str) -> bool {
    let role = keywords::role(name);
    (role.gives_type() && name != "$ref") || role.validates()
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

    fn describe_schema(&self, id: SchemaId) -> String {
        let location = self.ws.schema_location(id);
        let main = self.ws.documents().first().map(|d| d.display.as_str());
        if Some(&*location.file) == main {
            format!("#{}", location.pointer)
        } else {
            format!("{}#{}", location.file, location.pointer)
        }
    }

    fn follow_ref(
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
            .map(|(name, _)| name.as_str())
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
    fn resolve_chain(&mut self, id: SchemaId, field: &str) -> Option<SchemaId> {
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

    /// The schema and its `allOf` branches (recursively, after `$ref`), in order: the parts whose
    /// keywords are merged into one column.
    fn flatten(&mut self, id: SchemaId, field: &str) -> Option<Vec<SchemaId>> {
        let mut parts = Vec::new();
        let mut ok = true;
        self.collect_parts(id, field, &mut parts, &mut ok, 0);
        ok.then_some(parts)
    }

    fn collect_parts(
        &mut self,
        id: SchemaId,
        field: &str,
        parts: &mut Vec<SchemaId>,
        ok: &mut bool,
        level: usize,
    ) {
        if parts.contains(&id)
            || level > MAX_FRAMES
            || self.ref_stack.iter().any(|(t, _)| *t == id) && level > 0
        {
            self.cycles_met += 1;
            let location = self.ws.schema_site(id);
            self.emit(
                &codes::REF_CYCLE,
                location,
                format!(
                    "`allOf` includes {} inside itself",
                    self.describe_schema(id)
                ),
                field,
            );
            *ok = false;
            return;
        }
        let ws = self.ws;
        match ws.schema(id).map(|s| &s.kind) {
            Some(SchemaKind::Object(k)) => {
                parts.push(id);
                if let Some(all_of) = &k.all_of {
                    for branch in &all_of.value {
                        match self.resolve_chain(*branch, field) {
                            Some(resolved) => {
                                self.collect_parts(resolved, field, parts, ok, level + 1)
                            }
                            None => *ok = false,
                        }
                    }
                }
            }
            Some(SchemaKind::Bool(true)) => {}
            Some(SchemaKind::Bool(false)) => {
                let location = ws.schema_site(id);
                self.emit(
                    &codes::NEVER_VALID,
                    location,
                    "an `allOf` branch is `false`, so no value is valid".to_string(),
                    field,
                );
                *ok = false;
            }
            Some(SchemaKind::Invalid) | None => *ok = false,
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

    /// The validation keywords of the merged parts; a keyword written in several `allOf` parts
    /// keeps each value.
    fn constraints(&self, kws: &[(SchemaId, &Keywords)]) -> Constraints {
        let mut out = Constraints::new();
        if !self.with_constraints {
            return out;
        }
        for (sid, k) in kws {
            let Some(doc) = self.ws.schema(*sid).map(|s| s.doc) else {
                continue;
            };
            let Some(json) = self.ws.document(doc).and_then(|d| d.json.as_ref()) else {
                continue;
            };
            for (name, at) in &k.keys {
                if keywords::role(name).validates() {
                    let text = json.compact(*at);
                    out.entry(name.clone())
                        .and_modify(|v| {
                            v.push_str(" & ");
                            v.push_str(&text);
                        })
                        .or_insert(text);
                }
            }
        }
        out
    }

    /// The `type`s all parts agree on (the intersection; `integer` is a kind of `number`).
    fn declared_types(
        &mut self,
        kws: &[(SchemaId, &Keywords)],
        field: &str,
    ) -> Option<Option<(Site, Vec<TypeName>)>> {
        let mut result: Option<(Site, Vec<TypeName>)> = None;
        for (sid, k) in kws {
            let Some(types) = &k.types else { continue };
            let location = self.at(*sid, types.at);
            if types.value.is_empty() {
                // Every name was unknown; `unknown-type` already says so.
                return None;
            }
            result = match result {
                None => Some((location, types.value.clone())),
                Some((first_location, current)) => {
                    let merged: Vec<TypeName> = current
                        .iter()
                        .filter_map(|t| {
                            if types.value.contains(t) {
                                Some(*t)
                            } else if (*t == TypeName::Number
                                && types.value.contains(&TypeName::Integer))
                                || (*t == TypeName::Integer
                                    && types.value.contains(&TypeName::Number))
                            {
                                Some(TypeName::Integer)
                            } else {
                                None
                            }
                        })
                        .collect();
                    if merged.is_empty() {
                        let first_pointer = self.ws.locate(first_location).pointer;
                        self.emit(
                            &codes::ALLOF_CONFLICT,
                            location,
                            format!(
                                "`allOf` branches disagree on the type: {} here, {} at {}",
                                types
                                    .value
                                    .iter()
                                    .map(|t| t.as_str())
                                    .collect::<Vec<_>>()
                                    .join("/"),
                                current
                                    .iter()
                                    .map(|t| t.as_str())
                                    .collect::<Vec<_>>()
                                    .join("/"),
                                first_pointer
                            ),
                            field,
                        );
                        return None;
                    }
                    Some((first_location, merged))
                }
            };
        }
        Some(result)
    }

    /// Whether an `anyOf`/`oneOf`'s branches (each with what its `$ref` chain resolved to) only
    /// decide which records are valid: no branch is a null branch or has a keyword that would
    /// give the column a type other than the one `declared` beside the keyword gives it.
    fn only_validates(
        &self,
        resolved: &[(SchemaId, SchemaId)],
        declared: Option<TypeName>,
    ) -> bool {
        !resolved.is_empty()
            && resolved.iter().all(|(_, r)| {
                self.ws.keywords(*r).is_some_and(|k| {
                    k.keys
                        .iter()
                        .all(|(n, _)| keeps_column(n.as_str(), k, declared))
                })
            })
    }

    fn warn_validation_only(
        &mut self,
        sid: SchemaId,
        keyword: &str,
        branches: &Keyword<Vec<SchemaId>>,
        field: &str,
    ) {
        let location = self.at(sid, branches.at);
        self.emit(
            &codes::VALIDATION_ONLY_COMPOSITION,
            location,
            format!("`{keyword}` only validates records here (its branches give the column no type of their own, only keywords such as `required`, `not` or `pattern`): the table is built as if it were absent, and the registry's validator still enforces it; the channel documents `{keyword}` only as one schema plus `{{\"type\": \"null\"}}`, so this reading is ours"),
            field,
        )
        .help = Some(format!("records that fail `{keyword}` go to the dead-letter queue; to rely on no undocumented reading, remove `{keyword}` and enforce the rule in the producer"));
    }

    #[allow(clippy::too_many_arguments)] // the union's place, its branches and the column's
    fn map_nullable_union(
        &mut self,
        sid: SchemaId,
        keyword: &str,
        branches: &Keyword<Vec<SchemaId>>,
        resolved: Vec<(SchemaId, SchemaId)>,
        kws: &[(SchemaId, &Keywords)],
        field: &str,
        depth: usize,
    ) -> Option<Mapped> {
        let ws = self.ws;
        let location = self.at(sid, branches.at);
        let is_null_branch = |id: SchemaId| {
            ws.keywords(id).is_some_and(|k| {
                k.types
                    .as_ref()
                    .is_some_and(|t| t.value == [TypeName::Null])
                    && k.keys.iter().all(|(n, _)| {
                        matches!(n.as_str(), "type" | "description" | "title" | "$comment")
                    })
            })
        };
        let nulls = resolved.iter().filter(|(_, r)| is_null_branch(*r)).count();
        let others: Vec<SchemaId> = resolved
            .iter()
            .filter(|(_, r)| !is_null_branch(*r))
            .map(|(b, _)| *b)
            .collect();
        let beside = kws.iter().any(|(_, k)| {
            k.types.is_some()
                || k.properties.is_some()
                || k.items.is_some()
                || k.enum_values.is_some()
                || k.format.is_some()
        });
        match (nulls, others.as_slice()) {
            (1, [other]) if !beside => {
                let mut mapped = self.map_schema(*other, field, depth)?;
                mapped.nullable = true;
                Some(mapped)
            }
            _ => {
                let resolved_others: Vec<SchemaId> = resolved
                    .iter()
                    .filter(|(_, r)| !is_null_branch(*r))
                    .map(|(_, r)| *r)
                    .collect();
                let validation_only = !resolved_others.is_empty()
                    && resolved_others.iter().all(|r| {
                        ws.keywords(*r).is_some_and(|k| {
                            !k.keys.iter().any(|(n, _)| keywords::role(n).gives_type())
                        })
                    });
                let string_values = resolved_others.len() > 1
                    && resolved_others.iter().all(|r| {
                        ws.keywords(*r).is_some_and(|k| {
                            (k.const_value.is_some() || k.enum_values.is_some())
                                && k.types
                                    .as_ref()
                                    .is_none_or(|t| t.value == [TypeName::String])
                        })
                    });
                if validation_only {
                    self.emit(
                        &codes::UNSUPPORTED_COMPOSITION,
                        location,
                        format!("`{keyword}` only validates records here (its branches give no type, only keywords such as `required` or `not`), but the channel documents `{keyword}` only as one schema plus `{{\"type\": \"null\"}}`"),
                        field,
                    )
                    .help = Some(format!("the table would be the same without it: to register the schema for a channel, remove `{keyword}` and enforce the rule in the producer"));
                    return None;
                }
                let what = if beside {
                    format!("`{keyword}` beside `type` or other type keywords")
                } else if others.len() == 1 && nulls == 0 {
                    format!("`{keyword}` of a single schema")
                } else if string_values {
                    format!("`{keyword}` of {} string values", others.len())
                } else if nulls == 0 {
                    format!(
                        "`{keyword}` of {} schemas without `{{\"type\": \"null\"}}`",
                        others.len()
                    )
                } else {
                    format!("`{keyword}` of {} non-null schemas", others.len())
                };
                self.emit(
                    &codes::UNSUPPORTED_COMPOSITION,
                    location,
                    if (others.len() == 1 && nulls == 0 && !beside) || string_values {
                        // One type would do here; the reason is that the channel documents no
                        // such form, not that Iceberg lacks a type.
                        format!("{what} is not a form the channel documents: only `{keyword}` of one schema plus `{{\"type\": \"null\"}}` maps to a (nullable) column")
                    } else {
                        format!("{what} has no Iceberg type; only `{keyword}` of one schema plus `{{\"type\": \"null\"}}` maps to a (nullable) column")
                    },
                    field,
                )
                .help = Some(if others.len() == 1 && nulls == 0 {
                    format!("write the schema without the `{keyword}` wrapper")
                } else if string_values {
                    "every branch is a string value: list the values in one `enum` (describe them in `description`)".to_string()
                } else {
                    "replace it with one schema; to keep mixed values, store them as a string"
                        .to_string()
                });
                None
            }
        }
    }

    fn integer_type(&mut self, kws: &[(SchemaId, &Keywords)], field: &str) -> PrimitiveType {
        let limit = Number::from_json_text(TWO_POW_31);
        let maximum = first(kws, |k| k.maximum.as_ref());
        let exclusive = first(kws, |k| k.exclusive_maximum.as_ref());
        let at_most = |n: &Number| n.cmp_exact(&limit).is_le();
        let by_exclusive = matches!(exclusive, Some((_, Keyword { value: Exclusive::Bound(b), .. })) if at_most(b));
        let by_maximum = maximum.is_some_and(|(_, m)| at_most(&m.value));
        if !(by_exclusive || by_maximum) {
            self.warn_long_range(kws, field);
            return PrimitiveType::Long;
        }
        let exclusive_flag = flag_set(exclusive);
        if let Some((sid, m)) = maximum {
            if !by_exclusive && !exclusive_flag && m.value.cmp_exact(&limit).is_eq() {
                let draft = self
                    .ws
                    .schema(sid)
                    .and_then(|s| self.ws.document(s.doc))
                    .map_or(Draft::Draft07, |d| d.draft);
                let location = self.at(sid, m.at);
                self.emit(
                    &codes::INT_RANGE,
                    location,
                    "`maximum` 2147483648 (2^31) makes the column int, but 2147483648 itself does not fit in int32".to_string(),
                    field,
                )
                .help = Some(if draft == Draft::Draft04 {
                    "use `\"maximum\": 2147483647`, or add `\"exclusiveMaximum\": true`".to_string()
                } else {
                    "use `\"maximum\": 2147483647`, or `\"exclusiveMaximum\": 2147483648`".to_string()
                });
            }
        }
        // The lowest allowed integer is below −2^31 when the lower bounds let in −2^31 − 1.
        let low = bound_past(kws, Side::Lower, &Number::from_json_text(BELOW_INT32_MIN));
        if let Some(Bound {
            schema, at, text, ..
        }) = low
        {
            let location = self.at(schema, at);
            self.emit(
                &codes::INT_RANGE,
                location,
                format!("the column is int (from `maximum`), but the lower bound {text} lets in values below −2^31 that do not fit in int32"),
                field,
            )
            .help = Some("raise the minimum to -2147483648, or raise `maximum` above 2^31 to get long".to_string());
        }
        PrimitiveType::Int
    }

    /// Warns when a string's `format` is not one that gives a type but is close to one
    /// (`datetime`, `Date`, `UUID`): the column silently stays a string otherwise.
    fn warn_format_typo(&mut self, kws: &[(SchemaId, &Keywords)], field: &str) {
        let Some((sid, format)) = first(kws, |k| k.format.as_ref()) else {
            return;
        };
        let names: Vec<&str> = TYPE_GIVING_FORMATS.iter().map(|(f, _)| *f).collect();
        let Some(meant) = suggest::closest(&format.value, &names) else {
            return;
        };
        let ty = TYPE_GIVING_FORMATS
            .iter()
            .find(|(f, _)| *f == meant)
            .map_or_else(String::new, |(_, t)| format!(" It makes the column {t}."));
        let location = self.at(sid, format.at);
        self.emit(
            &codes::FORMAT_TYPO,
            location,
            format!(
                "`format` {:?} is not one the channel maps, so the column is string; formats are matched exactly",
                format.value
            ),
            field,
        )
        .help = Some(format!("did you mean `{meant}`?{ty}"));
    }

    /// Warns when the bounds of a long column let in integers beyond the 64-bit range.
    fn warn_long_range(&mut self, kws: &[(SchemaId, &Keywords)], field: &str) {
        let sides = [
            (
                Side::Upper,
                ABOVE_LONG_MAX,
                "above 9223372036854775807 (2^63 − 1)",
            ),
            (
                Side::Lower,
                BELOW_LONG_MIN,
                "below −9223372036854775808 (−2^63)",
            ),
        ];
        for (side, outside, beyond) in sides {
            let Some(bound) = bound_past(kws, side, &Number::from_json_text(outside)) else {
                continue;
            };
            let location = self.at(bound.schema, bound.at);
            self.emit(
                &codes::LONG_RANGE,
                location,
                format!("the column is long, but `{}` {} lets in integers {beyond}, which long cannot hold: records with such values go to the dead-letter queue", bound.keyword, bound.text),
                field,
            )
            .help = Some("Iceberg has no wider integer: keep the bound within the long range, or, for larger values, use `\"type\": \"number\", \"multipleOf\": 1`, which is decimal(38, 0)".to_string());
        }
    }

    /// Warns when the bounds of a decimal(38, `scale`) column let in values that need more than
    /// 38 digits at that scale, that is values of magnitude 10^(38 − scale) or more.
    fn warn_decimal_range(&mut self, kws: &[(SchemaId, &Keywords)], scale: u64, field: &str) {
        let digits = MAX_SCALE.saturating_sub(scale);
        for (side, sign, beyond) in [(Side::Upper, "", "or more"), (Side::Lower, "-", "or less")] {
            let outside = Number::from_json_text(format!("{sign}1e{digits}"));
            let Some(bound) = bound_past(kws, side, &outside) else {
                continue;
            };
            let location = self.at(bound.schema, bound.at);
            self.emit(
                &codes::DECIMAL_RANGE,
                location,
                format!("the column is decimal(38, {scale}), which holds {digits} digits before the point, but `{}` {} lets in values of {sign}10^{digits} {beyond}: records with such values go to the dead-letter queue", bound.keyword, bound.text),
                field,
            )
            .help = Some(format!("keep the bound below 10^{digits} in magnitude, or use a coarser `multipleOf`: decimal(38, s) has 38 digits, s of them after the point"));
        }
    }

    /// `multipleOf` must be greater than 0 for any type (it only shapes the column for numbers).
    fn positive_multiple_of(&mut self, kws: &[(SchemaId, &Keywords)], field: &str) -> Option<()> {
        let Some((sid, multiple_of)) = first(kws, |k| k.multiple_of.as_ref()) else {
            return Some(());
        };
        if multiple_of.value.is_positive() {
            return Some(());
        }
        let location = self.at(sid, multiple_of.at);
        self.emit(
            &codes::INVALID_MULTIPLE_OF,
            location,
            format!(
                "`multipleOf` is {}, but it must be greater than 0",
                shown(&multiple_of.value)
            ),
            field,
        );
        None
    }

    fn number_type(&mut self, kws: &[(SchemaId, &Keywords)], field: &str) -> Option<PrimitiveType> {
        let Some((sid, multiple_of)) = first(kws, |k| k.multiple_of.as_ref()) else {
            return Some(PrimitiveType::Double);
        };
        let location = self.at(sid, multiple_of.at);
        let text = shown(&multiple_of.value);
        if !multiple_of.value.is_positive() {
            self.emit(
                &codes::INVALID_MULTIPLE_OF,
                location,
                format!("`multipleOf` is {text}, but it must be greater than 0"),
                field,
            );
            return None;
        }
        let scale = multiple_of.value.scale();
        if scale > MAX_SCALE {
            self.emit(
                &codes::INVALID_MULTIPLE_OF,
                location,
                format!("`multipleOf` {text} needs a scale of {scale} digits, but decimal(38, s) allows at most 38"),
                field,
            );
            return None;
        }
        self.warn_decimal_range(kws, scale, field);
        let scale = u32::try_from(scale).unwrap_or(38);
        Some(PrimitiveType::Decimal {
            precision: 38,
            scale,
        })
    }

    fn nesting_ok(&mut self, id: SchemaId, field: &str, depth: usize) -> bool {
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

    fn count_column(&mut self, id: SchemaId, field: &str) -> bool {
        self.add_columns(1, id, field)
    }

    /// Adds `count` columns made at `id` to the budget; `false` once it is exceeded.
    fn add_columns(&mut self, count: usize, id: SchemaId, field: &str) -> bool {
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

    fn object_type(
        &mut self,
        id: SchemaId,
        kws: &[(SchemaId, &Keywords)],
        field: &str,
        depth: usize,
    ) -> Option<Ty> {
        if !self.nesting_ok(id, field, depth) {
            return None;
        }
        let ws = self.ws;
        // Each name with its first definition, and the rest (from other `allOf` parts), which
        // most names do not have and so cost no allocation.
        type Definition<'p> = (SchemaId, &'p Property);
        let mut names: Vec<(&str, Definition<'_>, Vec<Definition<'_>>)> = Vec::new();
        let written: usize = kws
            .iter()
            .filter_map(|(_, k)| Some(k.properties.as_ref()?.value.len()))
            .sum();
        let mut index: HashMap<&str, usize> =
            HashMap::with_capacity_and_hasher(written, Default::default());
        for (sid, k) in kws {
            let Some(properties) = &k.properties else {
                continue;
            };
            for property in &properties.value {
                match index.get(property.name.as_str()) {
                    Some(i) => {
                        if let Some((_, _, more)) = names.get_mut(*i) {
                            more.push((*sid, property));
                        }
                    }
                    None => {
                        index.insert(property.name.as_str(), names.len());
                        names.push((property.name.as_str(), (*sid, property), Vec::new()));
                    }
                }
            }
        }
        for (sid, k) in kws {
            if let Some(pattern) = &k.pattern_properties {
                let location = self.at(*sid, pattern.at);
                self.emit(
                    &codes::PATTERN_PROPERTIES_IGNORED,
                    location,
                    "`patternProperties` has no Iceberg equivalent and is ignored: keys that match it are dropped".to_string(),
                    field,
                );
            }
        }
        let additional = first(kws, |k| k.additional_properties.as_ref());
        let value_schema = additional.filter(|(_, a)| {
            matches!(
                ws.schema(a.value).map(|s| &s.kind),
                Some(SchemaKind::Object(_))
            )
        });
        let required: Vec<(SchemaId, &Keyword<String>)> = kws
            .iter()
            .filter_map(|(s, k)| Some((*s, k.required.as_ref()?)))
            .flat_map(|(s, r)| r.value.iter().map(move |n| (s, n)))
            .collect();

        // A set, so that a wide object with a long `required` list stays linear.
        let required_names: HashSet<&str> =
            required.iter().map(|(_, r)| r.value.as_str()).collect();
        if !names.is_empty() {
            if let Some((sid, a)) = value_schema {
                let location = self.at(sid, a.at);
                self.emit(
                    &codes::ADDITIONAL_PROPERTIES_DROPPED,
                    location,
                    "the object has `properties`, so it becomes a struct: keys matched only by `additionalProperties` are dropped".to_string(),
                    field,
                )
                .help = Some("list every key you need in `properties`, or remove `properties` to get a map".to_string());
            }
            let mut columns = Vec::with_capacity(names.len());
            // Built at the first uppercase name only: most objects have none.
            let mut renames: Option<HashMap<String, Vec<&str>>> = None;
            let mut lowercase: HashMap<String, &str> =
                HashMap::with_capacity_and_hasher(names.len(), Default::default());
            for (name, (parent, property), more) in &names {
                let column_field = join(field, name);
                let location = ws.property_site(*parent, property);
                if name.is_empty() {
                    self.emit(
                        &codes::EMPTY_NAME,
                        location,
                        "a property name is empty, and an Iceberg column needs a name".to_string(),
                        field,
                    );
                    continue;
                }
                // The warning belongs to the written name, however often a cycle's expansion
                // walks it (the other reports would be dropped as repeats).
                if name.chars().any(char::is_uppercase) && self.reported_names.insert(location) {
                    self.emit(
                        &codes::UPPERCASE_NAME,
                        location,
                        format!("column `{name}` has uppercase letters; S3 Tables needs lowercase column names, or Glue, Lake Formation and Athena cannot see the table"),
                        &column_field,
                    )
                    .help = Some(rename_help(
                        name,
                        renames.get_or_insert_with(|| lowercase_renames(&names)),
                    ));
                }
                match lowercase.entry(name.to_lowercase()) {
                    std::collections::hash_map::Entry::Occupied(other) => {
                        let message = format!("columns `{}` and `{name}` differ only in case; engines that ignore case cannot tell them apart", other.get());
                        self.emit(&codes::CASE_COLLISION, location, message, &column_field);
                    }
                    std::collections::hash_map::Entry::Vacant(slot) => {
                        slot.insert(name);
                    }
                }
                if !self.count_column(property.schema, &column_field) {
                    return None;
                }
                let mut mapped = self.map_schema(property.schema, &column_field, depth + 1);
                for (other_parent, other) in more {
                    let again = self.map_schema(other.schema, &column_field, depth + 1);
                    if let (Some(m), Some(a)) = (&mut mapped, again) {
                        if !m.ty.same_shape(&a.ty) {
                            let other_location = ws.property_site(*other_parent, other);
                            self.emit(
                                &codes::ALLOF_CONFLICT,
                                other_location,
                                format!(
                                    "`allOf` branches give `{name}` different types: {} and {}",
                                    m.ty.describe(),
                                    a.ty.describe()
                                ),
                                &column_field,
                            )
                            .help = Some(format!("each part's definition of `{name}` is mapped on its own and the results must match, so a refinement must repeat what shapes the column (`type`, `format`, `enum`, `maximum`, `multipleOf`); or define `{name}` in one part only"));
                        }
                        m.nullable &= a.nullable;
                        if m.doc.is_none() {
                            m.doc = a.doc;
                        }
                    }
                }
                let Some(mapped) = mapped else { continue };
                // Whether a listed column that admits null stays optional is said once the
                // partition is known (nullability.rs): the partition makes its source required.
                let listed = required_names.contains(name);
                columns.push(Column {
                    name: name.to_string(),
                    required: listed && !mapped.nullable,
                    doc: mapped.doc,
                    ty: mapped.ty,
                    location,
                    listed_required: listed,
                    constraints: mapped.constraints,
                });
            }
            for (sid, r) in &required {
                if !index.contains_key(r.value.as_str()) {
                    let location = self.at(*sid, r.at);
                    let close = names
                        .iter()
                        .find(|(n, _, _)| n.eq_ignore_ascii_case(&r.value))
                        .map(|(n, _, _)| *n);
                    let d = self.emit(
                        &codes::REQUIRED_NOT_A_PROPERTY,
                        location,
                        format!("`required` lists `{}`, which is not in `properties`, so it has no column", r.value),
                        field,
                    );
                    if let Some(close) = close {
                        d.help = Some(format!("did you mean `{close}`?"));
                    }
                }
            }
            return Some(Ty::Struct(columns));
        }
        if let Some((_, a)) = value_schema {
            for (sid, r) in &required {
                let location = self.at(*sid, r.at);
                self.emit(
                    &codes::REQUIRED_NOT_A_PROPERTY,
                    location,
                    format!("`required` lists `{}`, but the object is a map (it has no `properties`), so the key's presence is not enforced by the table", r.value),
                    field,
                );
            }
            let value_field = join(field, "value");
            if !self.count_column(a.value, &value_field) {
                return None;
            }
            let mapped = self.map_schema(a.value, &value_field, depth + 1)?;
            return Some(Ty::Map(Box::new(Slot {
                required: !mapped.nullable,
                ty: mapped.ty,
                constraints: mapped.constraints,
            })));
        }
        let has_properties = kws.iter().any(|(_, k)| k.properties.is_some());
        let has_patterns = kws.iter().any(|(_, k)| k.pattern_properties.is_some());
        let closed = additional.is_some_and(|(_, a)| {
            matches!(
                ws.schema(a.value).map(|s| &s.kind),
                Some(SchemaKind::Bool(false))
            )
        });
        let location = ws.schema_site(id);
        if closed && !has_patterns {
            let what = if has_properties {
                "`properties` is empty"
            } else {
                "there are no `properties`"
            };
            let help = if field.is_empty() {
                "a table needs at least one column: list the record's fields in `properties`"
            } else {
                "drop the property (its only value is `{}`), or list the fields it may hold in `properties`"
            };
            self.emit(
                &codes::EMPTY_OBJECT,
                location,
                format!("{what} and `additionalProperties` is false, so the object admits only `{{}}` and has no columns"),
                field,
            )
            .help = Some(help.to_string());
            return None;
        }
        let draft = ws
            .schema(id)
            .and_then(|s| ws.document(s.doc))
            .map_or(ws.draft(), |d| d.draft);
        let (message, help) = if has_patterns {
            (
                "`patternProperties` is ignored (it has no Iceberg equivalent), and there is no `properties` or `additionalProperties` schema, so the object has no Iceberg type",
                if draft == Draft::Draft04 {
                    "if every key's value has one schema, write it as `additionalProperties` to get map<string, V> (draft-04 has no `propertyNames`, so the key pattern would no longer be checked); or list the keys in `properties`"
                } else {
                    "if every key's value has one schema, write it as `additionalProperties` to get map<string, V>, and keep the key check as `\"propertyNames\": {\"pattern\": …}`; or list the keys in `properties`"
                },
            )
        } else if has_properties {
            (
                "`properties` is empty and there is no `additionalProperties` schema, so the object has no Iceberg type",
                "list its `properties` for a struct, or give `additionalProperties` a schema for map<string, V>; a truly free-form value can be kept as a JSON string (`\"type\": \"string\"`)",
            )
        } else {
            (
                "a free-form object (no `properties`, no `additionalProperties` schema) has no Iceberg type",
                "list its `properties` for a struct, or give `additionalProperties` a schema for map<string, V>; a truly free-form value can be kept as a JSON string (`\"type\": \"string\"`)",
            )
        };
        self.emit(
            &codes::FREE_FORM_OBJECT,
            location,
            message.to_string(),
            field,
        )
        .help = Some(help.to_string());
        None
    }

    fn array_type(
        &mut self,
        id: SchemaId,
        kws: &[(SchemaId, &Keywords)],
        field: &str,
        depth: usize,
    ) -> Option<Ty> {
        if !self.nesting_ok(id, field, depth) {
            return None;
        }
        let items = first(kws, |k| k.items.as_ref());
        match items {
            Some((
                _,
                Keyword {
                    value: Items::Single(element),
                    ..
                },
            )) => {
                let element_field = join(field, "element");
                if !self.count_column(*element, &element_field) {
                    return None;
                }
                let mapped = self.map_schema(*element, &element_field, depth + 1)?;
                Some(Ty::List(Box::new(Slot {
                    required: !mapped.nullable,
                    ty: mapped.ty,
                    constraints: mapped.constraints,
                })))
            }
            Some((sid, Keyword { at, .. })) => {
                let location = self.at(sid, *at);
                self.emit(
                    &codes::TUPLE_ITEMS,
                    location,
                    "tuple-form `items` (an array of schemas) has no Iceberg type: a list has one element type".to_string(),
                    field,
                )
                .help = Some("use one `items` schema, or turn the tuple into an object with named properties".to_string());
                None
            }
            None => {
                let location = self.ws.schema_site(id);
                self.emit(
                    &codes::ARRAY_WITHOUT_ITEMS,
                    location,
                    "an array without `items` has no element type".to_string(),
                    field,
                )
                .help = Some("add `\"items\": {…}` with the element's schema".to_string());
                None
            }
        }
    }
}

/// The first part that has a keyword, and the keyword: `allOf` takes single-valued keywords from
/// the first branch that writes them.
fn first<'k, T>(
    kws: &[(SchemaId, &'k Keywords)],
    get: fn(&Keywords) -> Option<&Keyword<T>>,
) -> Option<(SchemaId, &'k Keyword<T>)> {
    kws.iter().find_map(|(s, k)| get(k).map(|kw| (*s, kw)))
}

/// The one non-null type that the parts declare, when every typed part allows it.
fn declared_single(kws: &[(SchemaId, &Keywords)]) -> Option<TypeName> {
    let mut typed = kws.iter().filter_map(|(_, k)| k.types.as_ref());
    let mut non_null = typed.next()?.value.iter().filter(|t| **t != TypeName::Null);
    let declared = *non_null.next()?;
    if non_null.next().is_some() {
        return None;
    }
    typed
        .all(|other| other.value.contains(&declared))
        .then_some(declared)
}

/// Whether keyword `name` of an `anyOf`/`oneOf` branch `k` leaves the column as the `declared`
/// type beside the composition gives it (rules 3–5): a validation keyword, a `type` that allows
/// the declared one, or a keyword that shapes only another type's column (a `format` other
/// than the five of rule 3 on a string, `maximum` on a number).
fn keeps_column(name: &str, k: &Keywords, declared: Option<TypeName>) -> bool {
    if !keywords::role(name).gives_type() {
        return true;
    }
    let Some(declared) = declared else {
        return false;
    };
    match name {
        "type" => k.types.as_ref().is_some_and(|t| {
            t.value.contains(&declared)
                || (declared == TypeName::Integer && t.value.contains(&TypeName::Number))
        }),
        "format" => {
            declared != TypeName::String
                || k.format
                    .as_ref()
                    .is_some_and(|f| !TYPE_GIVING_FORMATS.iter().any(|(g, _)| *g == f.value))
        }
        "minimum" => true,
        "maximum" | "exclusiveMaximum" => declared != TypeName::Integer,
        "multipleOf" => declared != TypeName::Number,
        "contentEncoding" | "encoding" => declared != TypeName::String,
        _ => false,
    }
}

/// Which end of a column's range a bound limits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Upper,
    Lower,
}

/// A bound that lets in values outside a column's range, for the message.
struct Bound {
    schema: SchemaId,
    at: schema2iceberg_parser::json::JsonId,
    keyword: &'static str,
    text: String,
}

/// The bound on `side` that lets in `outside`, the first value past the column's range on that
/// side, if one does: an inclusive bound that reaches it, or an exclusive one (a number, or
/// draft-04's `true` flag on the inclusive bound) beyond it. With both forms written, the
/// tighter decides, so both must let it in. No bound on that side lets in nothing here: an
/// unbounded column is the documented default, not an overflow. Compared exactly, never as f64.
fn bound_past(kws: &[(SchemaId, &Keywords)], side: Side, outside: &Number) -> Option<Bound> {
    let (inclusive, exclusive, names) = match side {
        Side::Upper => (
            first(kws, |k| k.maximum.as_ref()),
            first(kws, |k| k.exclusive_maximum.as_ref()),
            ("maximum", "exclusiveMaximum"),
        ),
        Side::Lower => (
            first(kws, |k| k.minimum.as_ref()),
            first(kws, |k| k.exclusive_minimum.as_ref()),
            ("minimum", "exclusiveMinimum"),
        ),
    };
    let beyond = if side == Side::Upper {
        std::cmp::Ordering::Greater
    } else {
        std::cmp::Ordering::Less
    };
    let lets_in = |n: &Number, strictly: bool| {
        let order = n.cmp_exact(outside);
        order == beyond || (!strictly && order.is_eq())
    };
    let flag = flag_set(exclusive);
    let by_inclusive = inclusive
        .filter(|(_, m)| lets_in(&m.value, flag))
        .map(|(schema, m)| Bound {
            schema,
            at: m.at,
            keyword: names.0,
            text: shown(&m.value),
        });
    let numeric = exclusive.and_then(|(schema, k)| match &k.value {
        Exclusive::Bound(b) => Some((schema, k.at, b)),
        Exclusive::Flag(_) => None,
    });
    let by_exclusive = numeric
        .filter(|(_, _, b)| lets_in(b, true))
        .map(|(schema, at, b)| Bound {
            schema,
            at,
            keyword: names.1,
            text: shown(b),
        });
    match (inclusive.is_some(), numeric.is_some()) {
        (true, true) => by_inclusive.filter(|_| by_exclusive.is_some()),
        _ => by_inclusive.or(by_exclusive),
    }
}

/// Whether a draft-04 `exclusiveMaximum`/`exclusiveMinimum` is `true`.
fn flag_set(exclusive: Option<(SchemaId, &Keyword<Exclusive>)>) -> bool {
    exclusive.is_some_and(|(_, k)| k.value == Exclusive::Flag(true))
}

/// The `format`s that give a string column another type (rule 3), matched exactly.
const TYPE_GIVING_FORMATS: &[(&str, PrimitiveType)] = &[
    ("date-time", PrimitiveType::Timestamptz),
    ("date", PrimitiveType::Date),
    ("time", PrimitiveType::Time),
    ("uuid", PrimitiveType::Uuid),
    ("byte", PrimitiveType::Binary),
];

fn string_type(kws: &[(SchemaId, &Keywords)]) -> PrimitiveType {
    let text = |f: fn(&Keywords) -> Option<&Keyword<String>>| {
        kws.iter().find_map(|(_, k)| f(k)).map(|k| k.value.as_str())
    };
    if let Some((_, ty)) = text(|k| k.format.as_ref())
        .and_then(|format| TYPE_GIVING_FORMATS.iter().find(|(f, _)| *f == format))
    {
        return ty.clone();
    }
    if text(|k| k.content_encoding.as_ref()) == Some("base64") {
        return PrimitiveType::Binary;
    }
    if matches!(text(|k| k.encoding.as_ref()), Some("byte" | "base64")) {
        return PrimitiveType::Binary;
    }
    PrimitiveType::String
}

/// Each name the siblings would have in snake_case, with the siblings that would have it.
fn lowercase_renames<'n, T>(names: &[(&'n str, T, Vec<T>)]) -> HashMap<String, Vec<&'n str>> {
    let mut renames: HashMap<String, Vec<&str>> =
        HashMap::with_capacity_and_hasher(names.len(), Default::default());
    for (name, _, _) in names {
        renames.entry(snake_case(name)).or_default().push(name);
    }
    renames
}

/// The help for an uppercase name: its snake_case form, unless a sibling already has that name
/// or would get it too, since a suggestion must not lead to two columns with one name.
fn rename_help(name: &str, renames: &HashMap<String, Vec<&str>>) -> String {
    let suggestion = snake_case(name);
    let others: Vec<&str> = renames
        .get(&suggestion)
        .map(|names| names.iter().copied().filter(|n| *n != name).collect())
        .unwrap_or_default();
    if others.contains(&suggestion.as_str()) {
        format!("rename it in lowercase, but not to `{suggestion}`: a sibling already has that name, and the two columns would collide")
    } else if let Some(other) = others.first() {
        format!("rename it in lowercase, but `{name}` and `{other}` would both become `{suggestion}` and collide: give them different names")
    } else {
        format!("rename it to `{suggestion}`")
    }
}

/// `userId` → `user_id`, `HTTPStatus` → `http_status`: a suggestion, not a rename.
fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut chars = name.chars();
    let mut prev: Option<char> = None;
    let mut current = chars.next();
    while let Some(c) = current {
        let next = chars.next();
        if c.is_uppercase() {
            // A word starts here after a lowercase letter or a digit (`userId`), or where an
            // acronym ends (`HTTPStatus`). Neither follows an underscore, so none is doubled.
            let after_lower = prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit());
            let acronym_ends =
                prev.is_some_and(char::is_uppercase) && next.is_some_and(char::is_lowercase);
            if after_lower || acronym_ends {
                out.push('_');
            }
            if c.is_ascii() {
                out.push(c.to_ascii_lowercase());
            } else {
                out.extend(c.to_lowercase());
            }
        } else {
            out.push(c);
        }
        prev = Some(c);
        current = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn suggests_snake_case() {
        assert_eq!(snake_case("userId"), "user_id");
        assert_eq!(snake_case("HTTPStatus"), "http_status");
        assert_eq!(snake_case("Already_ok"), "already_ok");
        assert_eq!(snake_case("v2Name"), "v2_name");
        assert_eq!(snake_case("USE_COUNTER2_CSS_Foo"), "use_counter2_css_foo");
        assert_eq!(snake_case("a_B"), "a_b");
        assert_eq!(snake_case("ÉtéÀ"), "été_à");
    }
}
