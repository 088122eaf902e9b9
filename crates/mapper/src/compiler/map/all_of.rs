//! `allOf` (rule 12 of docs/mapping.md): collecting a schema and its branches into parts, and
//! merging the parts. As typify's `merge` does, the merge of each keyword is a function of the
//! parts alone (the type intersection, first-wins single-valued keywords, the validation
//! keywords); the walk turns a conflict into a diagnostic.

// Lookups only (never iterated into output), so a fast non-random hasher is safe.
use rustc_hash::FxHashMap as HashMap;

use schema2iceberg_parser::json::JsonId;
use schema2iceberg_parser::{
    CompactString, Keyword, Keywords, Property, SchemaId, SchemaKind, Site, TypeName,
};

use super::Mapper;
use super::MAX_FRAMES;
use crate::compiler::codes;
use crate::compiler::keywords;
use crate::compiler::model::Constraints;

impl Mapper<'_> {
    /// The schema and its `allOf` branches (recursively, after `$ref`), in order: the parts whose
    /// keywords are merged into one column.
    pub(super) fn flatten(&mut self, id: SchemaId, field: &str) -> Option<Vec<SchemaId>> {
        let mut parts = Vec::new();
        let mut path = Vec::new();
        let mut ok = true;
        self.collect_parts(id, field, &mut parts, &mut path, &mut ok);
        ok.then_some(parts)
    }

    /// Adds `id` and its branches to `parts`. `path` holds the schemas whose branches are being
    /// collected (the ancestors): including one of them again is a cycle, while a schema
    /// already among the parts through another branch (a shared base, a diamond) is merged once.
    fn collect_parts(
        &mut self,
        id: SchemaId,
        field: &str,
        parts: &mut Vec<SchemaId>,
        path: &mut Vec<SchemaId>,
        ok: &mut bool,
    ) {
        let level = path.len();
        if path.contains(&id) || self.ref_stack.iter().any(|(t, _)| *t == id) && level > 0 {
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
        if level > MAX_FRAMES {
            let location = self.ws.schema_site(id);
            self.emit(
                &codes::SCHEMA_TOO_DEEP,
                location,
                format!("`allOf` here nests more than {MAX_FRAMES} levels deep"),
                field,
            );
            *ok = false;
            return;
        }
        if parts.contains(&id) {
            return;
        }
        let ws = self.ws;
        match ws.schema(id).map(|s| &s.kind) {
            Some(SchemaKind::Object(k)) => {
                parts.push(id);
                path.push(id);
                if let Some(all_of) = k.all_of() {
                    for branch in &all_of.value {
                        match self.resolve_chain(*branch, field) {
                            Some(resolved) => self.collect_parts(resolved, field, parts, path, ok),
                            None => *ok = false,
                        }
                    }
                }
                path.pop();
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

    /// The validation keywords of the merged parts; a keyword written in several `allOf` parts
    /// keeps each value.
    pub(super) fn constraints(&self, kws: &[(SchemaId, &Keywords)]) -> Constraints {
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
                    out.entry(name.to_string())
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

    /// The `type`s all parts agree on, with the first part's `type` to point at; `None` when a
    /// `type` names no known type (`unknown-type` already says so) or the parts disagree,
    /// which is an `allof-conflict` error.
    pub(super) fn declared_types(
        &mut self,
        kws: &[(SchemaId, &Keywords)],
        field: &str,
    ) -> Option<Option<(Site, Vec<TypeName>)>> {
        match merge_types(kws) {
            TypeMerge::Agreed(None) => Some(None),
            TypeMerge::Agreed(Some(((sid, at), types))) => Some(Some((self.at(sid, at), types))),
            TypeMerge::Unknown => None,
            TypeMerge::Conflict {
                first: (first_sid, first_at),
                later: (sid, at),
                written,
                allowed,
            } => {
                let first_location = self.at(first_sid, first_at);
                let location = self.at(sid, at);
                let first_pointer = self.ws.locate(first_location).pointer;
                self.emit(
                    &codes::ALLOF_CONFLICT,
                    location,
                    format!(
                        "`allOf` branches disagree on the type: {} here, {} at {}",
                        written
                            .iter()
                            .map(|t| t.as_str())
                            .collect::<Vec<_>>()
                            .join("/"),
                        allowed
                            .iter()
                            .map(|t| t.as_str())
                            .collect::<Vec<_>>()
                            .join("/"),
                        first_pointer
                    ),
                    field,
                );
                None
            }
        }
    }
}

/// The first part that has a keyword, and the keyword: `allOf` takes single-valued keywords from
/// the first branch that writes them.
pub(super) fn first<'k, T>(
    kws: &[(SchemaId, &'k Keywords)],
    get: fn(&Keywords) -> Option<&Keyword<T>>,
) -> Option<(SchemaId, &'k Keyword<T>)> {
    kws.iter().find_map(|(s, k)| get(k).map(|kw| (*s, kw)))
}

/// Where a keyword is written: its part, and its JSON value.
type Written = (SchemaId, JsonId);

/// What the parts' `type`s merge to.
pub(super) enum TypeMerge<'k> {
    /// The types every typed part allows, with where the first `type` is written; `None` when
    /// no part has a `type`.
    Agreed(Option<(Written, Vec<TypeName>)>),
    /// A `type` names no type that JSON Schema knows.
    Unknown,
    /// The `type` at `later` (which allows `written`) shares no type with what the parts
    /// before it allow (`allowed`, from the `type` at `first` on).
    Conflict {
        first: Written,
        later: Written,
        written: &'k [TypeName],
        allowed: Vec<TypeName>,
    },
}

/// The intersection of the parts' `type`s (rule 12), in the order of the first: `integer` is
/// a kind of `number`, so the two meet in `integer`. A part without `type` does not restrict it.
pub(super) fn merge_types<'k>(kws: &[(SchemaId, &'k Keywords)]) -> TypeMerge<'k> {
    let mut result: Option<(Written, Vec<TypeName>)> = None;
    for (sid, k) in kws {
        let Some(types) = &k.types else { continue };
        let location = (*sid, types.at);
        if types.value.is_empty() {
            // Every name was unknown; `unknown-type` already says so.
            return TypeMerge::Unknown;
        }
        result = match result {
            None => Some((location, types.value.to_vec())),
            Some((first_location, current)) => {
                let merged: Vec<TypeName> = current
                    .iter()
                    .filter_map(|t| {
                        if types.value.contains(t) {
                            Some(*t)
                        } else if (*t == TypeName::Number
                            && types.value.contains(&TypeName::Integer))
                            || (*t == TypeName::Integer && types.value.contains(&TypeName::Number))
                        {
                            Some(TypeName::Integer)
                        } else {
                            None
                        }
                    })
                    .collect();
                if merged.is_empty() {
                    return TypeMerge::Conflict {
                        first: first_location,
                        later: location,
                        written: &types.value,
                        allowed: current,
                    };
                }
                Some((first_location, merged))
            }
        };
    }
    TypeMerge::Agreed(result)
}

/// One definition of a property: the part that writes it, and the property.
pub(super) type Definition<'p> = (SchemaId, &'p Property);

/// The parts' `properties` merged in order (rule 12): a name keeps the place of its first
/// definition.
pub(super) struct MergedProperties<'p> {
    /// Each name with its first definition, and the rest (from other `allOf` parts), which
    /// most names do not have and so cost no allocation.
    pub names: Vec<(&'p str, Definition<'p>, Vec<Definition<'p>>)>,
    /// Where each name is in `names`.
    pub index: HashMap<&'p str, usize>,
}

/// The parts' `properties`, merged (rule 12).
pub(super) fn merge_properties<'p>(kws: &[(SchemaId, &'p Keywords)]) -> MergedProperties<'p> {
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
    MergedProperties { names, index }
}

/// The parts' `required` lists, united in order (rule 12), each name with its part.
pub(super) fn merge_required<'k>(
    kws: &[(SchemaId, &'k Keywords)],
) -> Vec<(SchemaId, &'k Keyword<CompactString>)> {
    kws.iter()
        .filter_map(|(s, k)| Some((*s, k.required.as_ref()?)))
        .flat_map(|(s, r)| r.value.iter().map(move |n| (s, n)))
        .collect()
}
