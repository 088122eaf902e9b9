//! Declared types (rules 10–11 of docs/mapping.md): the nullable `anyOf`/`oneOf` union, the
//! compositions that only validate, and the one type that the parts declare or imply.

use std::ops::ControlFlow;

use schema2iceberg_parser::{Keyword, Keywords, SchemaId, Site, TypeName, Workspace};

use super::scalar::TYPE_GIVING_FORMATS;
use super::{Mapped, Mapper};
use crate::compiler::codes;
use crate::compiler::keywords;

impl Mapper<'_> {
    /// The column that the parts' `anyOf`/`oneOf` gives (rule 10): `Break` with the union's
    /// column, or `None` when it has none (already reported); `Continue` when no `anyOf`/`oneOf`
    /// gives the column its type, so the other keywords do.
    pub(super) fn map_composition(
        &mut self,
        kws: &[(SchemaId, &Keywords)],
        field: &str,
        depth: usize,
    ) -> ControlFlow<Option<Mapped>> {
        let ws = self.ws;
        // An `anyOf`/`oneOf` whose branches only validate is set aside with a warning (rule
        // 10); the others are read as before.
        let mut compositions = Vec::new();
        let declared = declared_single(kws);
        for (sid, k) in kws {
            for (name, keyword) in [("anyOf", k.any_of()), ("oneOf", k.one_of())] {
                let Some(branches) = keyword else { continue };
                let mut resolved = Vec::with_capacity(branches.value.len());
                for branch in &branches.value {
                    let Some(target) = self.resolve_chain(*branch, field) else {
                        return ControlFlow::Break(None);
                    };
                    resolved.push((*branch, target));
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
                .or_else(|| ws.schema(*sid).map(|s| s.at));
            let Some(at) = at else {
                return ControlFlow::Break(None);
            };
            let location = self.at(*sid, at);
            self.emit(
                &codes::UNSUPPORTED_COMPOSITION,
                location,
                "`anyOf` and `oneOf` in one schema have no Iceberg type".to_string(),
                field,
            );
            return ControlFlow::Break(None);
        }
        match compositions.into_iter().next() {
            Some((sid, name, branches, resolved)) => ControlFlow::Break(
                self.map_nullable_union(sid, name, branches, resolved, kws, field, depth),
            ),
            None => ControlFlow::Continue(()),
        }
    }

    /// The one non-null type of the column: the declared one, or the one that the keywords
    /// imply (rules 10–11).
    pub(super) fn single_type(
        &mut self,
        declared: Option<&(Site, Vec<TypeName>)>,
        kws: &[(SchemaId, &Keywords)],
        location: Site,
        field: &str,
    ) -> Option<TypeName> {
        match declared {
            Some((at, types)) => self.declared_one(at, types, field),
            None => self.implied_type(kws, location, field),
        }
    }

    /// The one non-null type of the parts' merged `type` (`at` is the first `type`): a type
    /// that is only `null`, or several types, has no column (rule 10).
    fn declared_one(&mut self, at: &Site, types: &[TypeName], field: &str) -> Option<TypeName> {
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
                None
            }
            [one] => Some(*one),
            many => {
                let names = many
                    .iter()
                    .map(|t| format!("`{}`", t.as_str()))
                    .collect::<Vec<_>>()
                    .join(", ");
                self.emit(
                    &codes::UNION_TYPE,
                    *at,
                    format!(
                        "the type allows several types ({names}), and Iceberg has no union type"
                    ),
                    field,
                )
                .help = Some(
                    "choose one type; to keep mixed values, store them as a string".to_string(),
                );
                None
            }
        }
    }

    /// The type that the keywords imply when no part has a `type` (rule 11), with a note; none
    /// is an `unconstrained` error.
    fn implied_type(
        &mut self,
        kws: &[(SchemaId, &Keywords)],
        location: Site,
        field: &str,
    ) -> Option<TypeName> {
        let implied = if kws
            .iter()
            .any(|(_, k)| k.properties.is_some() || k.additional_properties().is_some())
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
                Some(t)
            }
            None => {
                let empty = kws.iter().all(|(_, k)| k.keys.is_empty());
                self.emit(
                    &codes::UNCONSTRAINED,
                    location,
                    if empty {
                        "`{}` constrains nothing, so the column has no type".to_string()
                    } else {
                        "this schema has no `type`, and nothing in it implies one".to_string()
                    },
                    field,
                )
                .help = Some("give it a `type` (and a `format` where it matters)".to_string());
                None
            }
        }
    }

    /// Whether an `anyOf`/`oneOf`'s branches (each with what its `$ref` chain resolved to) only
    /// decide which records are valid: no branch is a null branch or has a keyword that would
    /// give the column a type other than the one `declared` beside the keyword gives it.
    pub(super) fn only_validates(
        &self,
        resolved: &[(SchemaId, SchemaId)],
        declared: Option<TypeName>,
    ) -> bool {
        !resolved.is_empty()
            && resolved.iter().all(|(_, r)| {
                self.ws.keywords(*r).is_some_and(|k| {
                    k.keys
                        .iter()
                        .all(|(n, _)| keeps_column(n.as_ref(), k, declared))
                })
            })
    }

    pub(super) fn warn_validation_only(
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
    pub(super) fn map_nullable_union(
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
        let is_null_branch = |id: SchemaId| is_null_branch(ws, id);
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
                || k.enum_values().is_some()
                || k.format.is_some()
        });
        match (nulls, others.as_slice()) {
            (1, [other]) if !beside => {
                let mut mapped = self.map_schema(*other, field, depth)?;
                mapped.nullable = true;
                Some(mapped)
            }
            _ => {
                self.report_unsupported_union(
                    location, keyword, &resolved, &others, nulls, beside, field,
                );
                None
            }
        }
    }

    /// The `unsupported-composition` error for an `anyOf`/`oneOf` that is not one schema plus
    /// `{"type": "null"}` (rule 10), at `location`, worded by what its branches are: `others`
    /// branches that are not null and `nulls` that are, with type keywords `beside` it or not.
    #[allow(clippy::too_many_arguments)] // the union's place, its branches sorted, the column's
    fn report_unsupported_union(
        &mut self,
        location: Site,
        keyword: &str,
        resolved: &[(SchemaId, SchemaId)],
        others: &[SchemaId],
        nulls: usize,
        beside: bool,
        field: &str,
    ) {
        let ws = self.ws;
        let is_null_branch = |id: SchemaId| is_null_branch(ws, id);
        let resolved_others: Vec<SchemaId> = resolved
            .iter()
            .filter(|(_, r)| !is_null_branch(*r))
            .map(|(_, r)| *r)
            .collect();
        let validation_only = !resolved_others.is_empty()
            && resolved_others.iter().all(|r| {
                ws.keywords(*r)
                    .is_some_and(|k| !k.keys.iter().any(|(n, _)| keywords::role(n).gives_type()))
            });
        let string_values = resolved_others.len() > 1
            && resolved_others.iter().all(|r| {
                ws.keywords(*r).is_some_and(|k| {
                    (k.const_value().is_some() || k.enum_values().is_some())
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
            return;
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
    }
}

/// The one non-null type that the parts declare, when every typed part allows it.
pub(super) fn declared_single(kws: &[(SchemaId, &Keywords)]) -> Option<TypeName> {
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

/// Whether the branch `id` is `{"type": "null"}`, with at most a description, title or comment.
fn is_null_branch(ws: &Workspace, id: SchemaId) -> bool {
    ws.keywords(id).is_some_and(|k| {
        k.types
            .as_ref()
            .is_some_and(|t| t.value == [TypeName::Null])
            && k.keys
                .iter()
                .all(|(n, _)| matches!(n.as_ref(), "type" | "description" | "title" | "$comment"))
    })
}
