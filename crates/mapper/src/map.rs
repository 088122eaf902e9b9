//! The walk from schema nodes to column types: `$ref`, `allOf`, nullability, and the type rules
//! of docs/mapping.md.

// Lookups only (never iterated into output), so a fast non-random hasher is safe.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use iceberg::spec::PrimitiveType;
use schema2iceberg_parser::json::JsonValue;
use schema2iceberg_parser::{
    Code, Diagnostic, Draft, Exclusive, Items, Keyword, Keywords, Number, Property, SchemaId,
    SchemaKind, Site, TypeName, Workspace,
};

use crate::codes;
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

/// Keywords that decide which records are valid without shaping the column. A change to one of
/// them keeps the table but may send records that were valid before to the dead-letter queue.
const CONSTRAINT_KEYWORDS: &[&str] = &[
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "enum",
    "const",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minProperties",
    "maxProperties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "dependencies",
    "not",
    "if",
    "then",
    "else",
];

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

/// Keywords that give a column its type. An `anyOf`/`oneOf` whose branches have none of them
/// only validates records.
const TYPE_GIVING_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "properties",
    "additionalProperties",
    "patternProperties",
    "items",
    "enum",
    "const",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "multipleOf",
    "contentEncoding",
    "encoding",
    "allOf",
    "anyOf",
    "oneOf",
    "$ref",
];

/// Whether a keyword beside `$ref` would change the column if it were not ignored: what gives a
/// type (rule 7 ignores `patternProperties` anyway), and `required` and `description`.
fn changes_column(name: &str) -> bool {
    (TYPE_GIVING_KEYWORDS.contains(&name) && !matches!(name, "$ref" | "patternProperties"))
        || matches!(name, "required" | "description")
}

const UNENFORCED: &[&str] = &["not", "if", "then", "else", "dependencies"];

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
        if !siblings.is_empty() && self.reported_siblings.insert(id) {
            let location = self.at(id, reference.at);
            let names = siblings
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ");
            self.emit(
                &codes::REF_SIBLING_IGNORED,
                location,
                format!("{names} beside `$ref` {} ignored: drafts 04–07 ignore keywords next to `$ref`, so the column comes from \"{}\" alone",
                    if siblings.len() == 1 { "is" } else { "are" },
                    reference.value.text),
                field,
            )
            .help = Some("move the keyword into the referenced schema, or write `\"allOf\": [{\"$ref\": …}, {…}]`".to_string());
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
                if UNENFORCED.contains(&name.as_str()) {
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
        if let Some((sid, k)) = kws
            .iter()
            .find(|(_, k)| k.any_of.is_some() && k.one_of.is_some())
        {
            let at = k.key("oneOf").unwrap_or(ws.schema(*sid)?.at);
            let location = self.at(*sid, at);
            self.emit(
                &codes::UNSUPPORTED_COMPOSITION,
                location,
                "`anyOf` and `oneOf` in one schema have no Iceberg type".to_string(),
                field,
            );
            return None;
        }
        let composition = kws.iter().find_map(|(sid, k)| {
            k.any_of
                .as_ref()
                .map(|c| (*sid, "anyOf", c))
                .or_else(|| k.one_of.as_ref().map(|c| (*sid, "oneOf", c)))
        });
        if let Some((sid, name, branches)) = composition {
            let mut mapped = self.map_nullable_union(sid, name, branches, &kws, field, depth)?;
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
                    format!("no `type`: string is implied by `{keyword}`"),
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
                TypeName::String => Ty::Primitive(string_type(&kws)),
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
                if CONSTRAINT_KEYWORDS.contains(&name.as_str()) {
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

    fn map_nullable_union(
        &mut self,
        sid: SchemaId,
        keyword: &str,
        branches: &Keyword<Vec<SchemaId>>,
        kws: &[(SchemaId, &Keywords)],
        field: &str,
        depth: usize,
    ) -> Option<Mapped> {
        let ws = self.ws;
        let location = self.at(sid, branches.at);
        let mut resolved = Vec::new();
        for branch in &branches.value {
            resolved.push((*branch, self.resolve_chain(*branch, field)?));
        }
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
                            !k.keys
                                .iter()
                                .any(|(n, _)| TYPE_GIVING_KEYWORDS.contains(&n.as_str()))
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
        let minimum = first(kws, |k| k.minimum.as_ref());
        let exclusive_min = first(kws, |k| k.exclusive_minimum.as_ref());
        let min_flag = flag_set(exclusive_min);
        // The lowest allowed integer is below −2^31 when: an inclusive minimum m ≤ −2^31 − 1;
        // a draft-04 exclusive minimum m < −2^31 − 1; a numeric exclusiveMinimum x < −2^31 − 1.
        // With both bounds, the tighter one decides, so both must be too low.
        let below = Number::from_json_text(BELOW_INT32_MIN);
        let low_minimum = minimum.filter(|(_, m)| {
            let order = m.value.cmp_exact(&below);
            if min_flag {
                order.is_lt()
            } else {
                order.is_le()
            }
        });
        let low_exclusive = exclusive_min.and_then(|(s, k)| match &k.value {
            Exclusive::Bound(b) if b.cmp_exact(&below).is_lt() => Some((s, k.at, shown(b))),
            _ => None,
        });
        let has_bound_exclusive = matches!(
            exclusive_min,
            Some((
                _,
                Keyword {
                    value: Exclusive::Bound(_),
                    ..
                }
            ))
        );
        let low = match (minimum.is_some(), has_bound_exclusive) {
            (true, true) => low_minimum
                .filter(|_| low_exclusive.is_some())
                .map(|(s, m)| (s, m.at, shown(&m.value))),
            _ => low_minimum
                .map(|(s, m)| (s, m.at, shown(&m.value)))
                .or(low_exclusive),
        };
        if let Some((sid, at, text)) = low {
            let location = self.at(sid, at);
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
                    .help = Some(format!("rename it to `{}`", snake_case(name)));
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
                let listed = required_names.contains(name);
                if listed && mapped.nullable {
                    self.emit(
                        &codes::REQUIRED_BUT_NULLABLE,
                        location,
                        format!("`{name}` is in `required`, but its schema admits null, so the column is optional"),
                        &column_field,
                    );
                }
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

/// Whether a draft-04 `exclusiveMaximum`/`exclusiveMinimum` is `true`.
fn flag_set(exclusive: Option<(SchemaId, &Keyword<Exclusive>)>) -> bool {
    exclusive.is_some_and(|(_, k)| k.value == Exclusive::Flag(true))
}

fn string_type(kws: &[(SchemaId, &Keywords)]) -> PrimitiveType {
    let text = |f: fn(&Keywords) -> Option<&Keyword<String>>| {
        kws.iter().find_map(|(_, k)| f(k)).map(|k| k.value.as_str())
    };
    match text(|k| k.format.as_ref()) {
        Some("date-time") => return PrimitiveType::Timestamptz,
        Some("date") => return PrimitiveType::Date,
        Some("time") => return PrimitiveType::Time,
        Some("uuid") => return PrimitiveType::Uuid,
        Some("byte") => return PrimitiveType::Binary,
        _ => {}
    }
    if text(|k| k.content_encoding.as_ref()) == Some("base64") {
        return PrimitiveType::Binary;
    }
    if matches!(text(|k| k.encoding.as_ref()), Some("byte" | "base64")) {
        return PrimitiveType::Binary;
    }
    PrimitiveType::String
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
