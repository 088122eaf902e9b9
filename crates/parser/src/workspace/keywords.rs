//! The schema table built from JSON: one [`Schema`] node per schema value, and its keywords read
//! into [`Keywords`], one function per keyword group. A keyword of the wrong shape is a problem
//! of its node, not an error of the workspace.

use std::sync::Arc;

use url::Url;

use super::Workspace;
use crate::codes;
use crate::diagnostic::{Diagnostic, Location};
use crate::draft::Draft;
use crate::json::{JsonDoc, JsonId, JsonValue, Member};
use crate::schema::{
    keyword_name, DocId, Exclusive, Items, Keyword, Keywords, Property, Reference, Schema,
    SchemaId, SchemaKind, TypeList, TypeName,
};
use crate::suggest::suggest_type;

impl Workspace {
    /// Builds (once) the schema node for the JSON value `at`, and every subschema below it.
    pub(super) fn build(&mut self, doc: DocId, at: JsonId, base: &Arc<Url>) -> SchemaId {
        if let Some(id) = self.by_json.get(&(doc, at)) {
            return *id;
        }
        let id = SchemaId(u32::try_from(self.schemas.len()).unwrap_or(u32::MAX));
        self.by_json.insert((doc, at), id);
        self.schemas.push(Schema {
            doc,
            at,
            kind: SchemaKind::Invalid,
            problems: Vec::new(),
        });
        self.bases.push(Arc::clone(base));
        let draft = self
            .document(doc)
            .map(|d| d.draft)
            .unwrap_or(Draft::Draft07);
        let json = self.shared_json(doc);
        let mut problems = Vec::new();
        let kind = match json.value(at) {
            JsonValue::Bool(b) => SchemaKind::Bool(*b),
            JsonValue::Object(members) => {
                let base = self.enter_resource(id, doc, members, draft, base);
                if let Some(b) = self.bases.get_mut(id.index()) {
                    *b = Arc::clone(&base);
                }
                let keywords = self.read_keywords(doc, &json, members, &base, &mut problems);
                if keywords.reference.is_some() {
                    self.pending_refs.push(id);
                }
                SchemaKind::Object(Box::new(keywords))
            }
            _ => {
                problems.push(Diagnostic::new(
                    &codes::INVALID_KEYWORD,
                    self.location(doc, at),
                    "a schema must be an object or a boolean",
                ));
                SchemaKind::Invalid
            }
        };
        if let Some(schema) = self.schemas.get_mut(id.index()) {
            schema.kind = kind;
            schema.problems = problems;
        }
        id
    }

    /// Reads an object schema's members into [`Keywords`], building the subschemas they hold.
    fn read_keywords(
        &mut self,
        doc: DocId,
        json: &JsonDoc,
        members: &[Member],
        base: &Arc<Url>,
        problems: &mut Vec<Diagnostic>,
    ) -> Keywords {
        let mut k = Keywords {
            keys: members
                .iter()
                .map(|m| (keyword_name(&m.key), m.value))
                .collect(),
            ..Keywords::default()
        };
        for member in members {
            let read = Read {
                doc,
                json,
                member,
                value: json.value(member.value),
                base,
            };
            match member.key.as_str() {
                "$ref" => self.read_reference(&read, &mut k, problems),
                "type" => self.read_type(&read, &mut k, problems),
                "format" | "contentEncoding" | "encoding" | "description" => {
                    self.read_text(&read, &mut k, problems)
                }
                "enum" | "const" => self.read_values(&read, &mut k, problems),
                "multipleOf" | "maximum" | "minimum" | "exclusiveMaximum" | "exclusiveMinimum" => {
                    self.read_bound(&read, &mut k, problems)
                }
                "properties"
                | "required"
                | "additionalProperties"
                | "patternProperties"
                | "definitions"
                | "$defs"
                | "dependencies" => self.read_object_keyword(&read, &mut k, problems),
                "items" => self.read_items(&read, &mut k, problems),
                "allOf" | "anyOf" | "oneOf" => self.read_combinator(&read, &mut k, problems),
                "not" | "if" | "then" | "else" | "additionalItems" | "contains"
                | "propertyNames" => {
                    self.subschema(doc, member.value, base, problems, &member.key);
                }
                _ => {}
            }
        }
        k
    }

    /// The diagnostic for a keyword whose value is not `expected`.
    fn invalid(&self, read: &Read<'_>, expected: &str) -> Diagnostic {
        Diagnostic::new(
            &codes::INVALID_KEYWORD,
            self.location(read.doc, read.member.value),
            format!("`{}` must be {expected}", read.member.key),
        )
    }

    /// `$ref`, resolved later (it may name a file not read yet).
    fn read_reference(&self, read: &Read<'_>, k: &mut Keywords, problems: &mut Vec<Diagnostic>) {
        let at = read.member.value;
        match read.value {
            JsonValue::String(text) => {
                k.reference = Some(Keyword {
                    value: Reference {
                        text: text.clone(),
                        // Every `$ref` is resolved once the documents are read
                        // (`resolve_pending`), which replaces this placeholder.
                        target: Err(Box::new(Diagnostic::new(
                            &codes::REF_DANGLING,
                            Location::default(),
                            "the reference was not resolved",
                        ))),
                    },
                    at,
                });
            }
            _ => problems.push(self.invalid(read, "a string")),
        }
    }

    /// `type`: one name or a list of names, each a JSON Schema type; repeats are dropped.
    fn read_type(&self, read: &Read<'_>, k: &mut Keywords, problems: &mut Vec<Diagnostic>) {
        let (doc, at, value) = (read.doc, read.member.value, read.value);
        let mut types = TypeList::new();
        let mut add = |name: &JsonValue, name_at: JsonId, problems: &mut Vec<Diagnostic>| match name
        {
            JsonValue::String(s) => match TypeName::parse(s) {
                Some(t) => types.insert(t),
                None => problems.push(
                    Diagnostic::new(
                        &codes::UNKNOWN_TYPE,
                        self.location(doc, name_at),
                        format!("`{s}` is not a JSON Schema type"),
                    )
                    .with_help(suggest_type(s)),
                ),
            },
            _ => problems.push(self.invalid(read, "a string or an array of strings")),
        };
        match value {
            JsonValue::String(_) => add(value, at, problems),
            JsonValue::Array(items) => {
                for &item in items {
                    add(self.json_value(doc, item), item, problems);
                }
            }
            _ => {
                problems.push(self.invalid(read, "a string or an array of strings"));
                return;
            }
        }
        k.types = Some(Keyword { value: types, at });
    }

    /// The keywords whose value is a string: `format`, `contentEncoding`, `encoding` and
    /// `description`.
    fn read_text(&self, read: &Read<'_>, k: &mut Keywords, problems: &mut Vec<Diagnostic>) {
        let at = read.member.value;
        match read.value {
            JsonValue::String(text) => {
                let keyword = Some(Keyword {
                    value: text.clone(),
                    at,
                });
                match read.member.key.as_str() {
                    "format" => k.format = keyword,
                    "contentEncoding" => k.rare_mut().content_encoding = keyword,
                    "encoding" => k.rare_mut().encoding = keyword,
                    _ => k.description = keyword,
                }
            }
            _ => problems.push(self.invalid(read, "a string")),
        }
    }

    /// `enum` and `const`, kept as JSON values.
    fn read_values(&self, read: &Read<'_>, k: &mut Keywords, problems: &mut Vec<Diagnostic>) {
        let at = read.member.value;
        if read.member.key == "const" {
            k.rare_mut().const_value = Some(Keyword { value: at, at });
            return;
        }
        match read.value {
            JsonValue::Array(items) => {
                k.rare_mut().enum_values = Some(Keyword {
                    value: items.clone(),
                    at,
                })
            }
            _ => problems.push(self.invalid(read, "an array")),
        }
    }

    /// The numeric bounds: `multipleOf`, `maximum`, `minimum`, and `exclusiveMaximum` and
    /// `exclusiveMinimum` in both their draft-04 (flag) and draft-06/07 (bound) forms.
    fn read_bound(&self, read: &Read<'_>, k: &mut Keywords, problems: &mut Vec<Diagnostic>) {
        let at = read.member.value;
        match read.member.key.as_str() {
            "multipleOf" | "maximum" | "minimum" => match read.value {
                JsonValue::Number(n) => {
                    let keyword = Some(Keyword {
                        value: n.clone(),
                        at,
                    });
                    match read.member.key.as_str() {
                        "multipleOf" => k.rare_mut().multiple_of = keyword,
                        "maximum" => k.rare_mut().maximum = keyword,
                        _ => k.rare_mut().minimum = keyword,
                    }
                }
                _ => problems.push(self.invalid(read, "a number")),
            },
            _ => {
                let exclusive = match read.value {
                    JsonValue::Bool(b) => Exclusive::Flag(*b),
                    JsonValue::Number(n) => Exclusive::Bound(n.clone()),
                    _ => {
                        problems.push(
                            self.invalid(read, "a number (draft-06/07) or a boolean (draft-04)"),
                        );
                        return;
                    }
                };
                let keyword = Some(Keyword {
                    value: exclusive,
                    at,
                });
                if read.member.key == "exclusiveMaximum" {
                    k.rare_mut().exclusive_maximum = keyword;
                } else {
                    k.rare_mut().exclusive_minimum = keyword;
                }
            }
        }
    }

    /// The keywords of objects: `properties`, `required`, `additionalProperties`, and the maps of
    /// schemas (`patternProperties`, `definitions`, `$defs`, `dependencies`), whose schemas are
    /// built so that a `$ref` can reach them.
    fn read_object_keyword(
        &mut self,
        read: &Read<'_>,
        k: &mut Keywords,
        problems: &mut Vec<Diagnostic>,
    ) {
        let (doc, at, base, member) = (read.doc, read.member.value, read.base, read.member);
        match member.key.as_str() {
            "properties" => match read.value {
                JsonValue::Object(props) => {
                    let mut list = Vec::with_capacity(props.len());
                    for p in props {
                        let schema = self.build(doc, p.value, base);
                        list.push(Property {
                            name: p.key.clone(),
                            name_span: p.key_span,
                            schema,
                        });
                    }
                    k.properties = Some(Keyword { value: list, at });
                }
                _ => problems.push(self.invalid(read, "an object")),
            },
            "required" => self.read_required(read, k, problems),
            "additionalProperties" => {
                let schema = self.subschema(doc, at, base, problems, &member.key);
                k.rare_mut().additional_properties = schema.map(|s| Keyword { value: s, at });
            }
            _ => {
                if let JsonValue::Object(entries) = read.value {
                    let mut list = Vec::new();
                    for e in entries {
                        let is_schema = matches!(
                            self.json_value(doc, e.value),
                            JsonValue::Object(_) | JsonValue::Bool(_)
                        );
                        if is_schema {
                            list.push(self.build(doc, e.value, base));
                        }
                    }
                    if member.key == "patternProperties" {
                        k.rare_mut().pattern_properties = Some(Keyword { value: list, at });
                    }
                } else if member.key != "dependencies" {
                    problems.push(self.invalid(read, "an object"));
                }
            }
        }
    }

    /// `required`: the property names, each with its place.
    fn read_required(&self, read: &Read<'_>, k: &mut Keywords, problems: &mut Vec<Diagnostic>) {
        let (doc, at) = (read.doc, read.member.value);
        match read.value {
            JsonValue::Array(items) => {
                let mut names = Vec::new();
                for &item in items {
                    match read.json.value(item) {
                        JsonValue::String(s) => names.push(Keyword {
                            value: s.clone(),
                            at: item,
                        }),
                        _ => problems.push(Diagnostic::new(
                            &codes::INVALID_KEYWORD,
                            self.location(doc, item),
                            "`required` must list property names as strings",
                        )),
                    }
                }
                k.required = Some(Keyword { value: names, at });
            }
            // draft-03's boolean `required` inside a property is a common leftover.
            JsonValue::Bool(_) => problems.push(self.invalid(
                read,
                "an array of property names (the boolean form is draft-03)",
            )),
            _ => problems.push(self.invalid(read, "an array of property names")),
        }
    }

    /// `items`: one schema for every item, or a tuple of schemas.
    fn read_items(&mut self, read: &Read<'_>, k: &mut Keywords, problems: &mut Vec<Diagnostic>) {
        let (doc, at, base) = (read.doc, read.member.value, read.base);
        match read.value {
            JsonValue::Array(items) => {
                let list = items.iter().map(|i| self.build(doc, *i, base)).collect();
                k.items = Some(Keyword {
                    value: Items::Tuple(list),
                    at,
                });
            }
            _ => {
                let schema = self.subschema(doc, at, base, problems, &read.member.key);
                k.items = schema.map(|s| Keyword {
                    value: Items::Single(s),
                    at,
                });
            }
        }
    }

    /// `allOf`, `anyOf` and `oneOf`: a non-empty list of schemas.
    fn read_combinator(
        &mut self,
        read: &Read<'_>,
        k: &mut Keywords,
        problems: &mut Vec<Diagnostic>,
    ) {
        let (doc, at, base) = (read.doc, read.member.value, read.base);
        match read.value {
            JsonValue::Array(items) if !items.is_empty() => {
                let list: Vec<SchemaId> = items.iter().map(|i| self.build(doc, *i, base)).collect();
                let keyword = Some(Keyword { value: list, at });
                match read.member.key.as_str() {
                    "allOf" => k.rare_mut().all_of = keyword,
                    "anyOf" => k.rare_mut().any_of = keyword,
                    _ => k.rare_mut().one_of = keyword,
                }
            }
            _ => problems.push(self.invalid(read, "a non-empty array of schemas")),
        }
    }

    fn subschema(
        &mut self,
        doc: DocId,
        at: JsonId,
        base: &Arc<Url>,
        problems: &mut Vec<Diagnostic>,
        keyword: &str,
    ) -> Option<SchemaId> {
        match self.json_value(doc, at) {
            JsonValue::Object(_) | JsonValue::Bool(_) => Some(self.build(doc, at, base)),
            _ => {
                problems.push(Diagnostic::new(
                    &codes::INVALID_KEYWORD,
                    self.location(doc, at),
                    format!("`{keyword}` must be a schema (an object or a boolean)"),
                ));
                None
            }
        }
    }
}

/// One member of an object schema being read as a keyword.
struct Read<'a> {
    doc: DocId,
    json: &'a JsonDoc,
    member: &'a Member,
    /// The member's value.
    value: &'a JsonValue,
    /// The base URI for the subschemas it holds.
    base: &'a Arc<Url>,
}
