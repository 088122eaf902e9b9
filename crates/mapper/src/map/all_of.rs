//! `allOf` (rule 12 of docs/mapping.md): collecting a schema and its branches into parts, and
//! merging the parts. As typify's `merge` does, the merge of each keyword is a function of the
//! parts alone (the type intersection, first-wins single-valued keywords, the validation
//! keywords); the walk turns a conflict into a diagnostic.

use schema2iceberg_parser::{Keyword, Keywords, SchemaId, SchemaKind, Site, TypeName};

use super::Mapper;
use super::MAX_FRAMES;
use crate::codes;
use crate::keywords::{self};
use crate::model::Constraints;

impl Mapper<'_> {
    /// The schema and its `allOf` branches (recursively, after `$ref`), in order: the parts whose
    /// keywords are merged into one column.
    pub(super) fn flatten(&mut self, id: SchemaId, field: &str) -> Option<Vec<SchemaId>> {
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
    pub(super) fn declared_types(
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
}

/// The first part that has a keyword, and the keyword: `allOf` takes single-valued keywords from
/// the first branch that writes them.
pub(super) fn first<'k, T>(
    kws: &[(SchemaId, &'k Keywords)],
    get: fn(&Keywords) -> Option<&Keyword<T>>,
) -> Option<(SchemaId, &'k Keyword<T>)> {
    kws.iter().find_map(|(s, k)| get(k).map(|kw| (*s, kw)))
}
