//! Which JSON files that `check` finds are table schemas: a file with the shape of a channel
//! configuration, with no JSON Schema keyword at its root (package.json, sample records), or
//! holding only definitions for other schemas' `$ref`s, is reported as what it is instead of
//! being compiled into type errors.

use schema2iceberg_mapper::channel::recognise;
use schema2iceberg_parser::json::{JsonDoc, JsonId, JsonValue};
use schema2iceberg_parser::{Diagnostic, JsonFile, Span};

use crate::codes;

/// What a JSON file found by `check` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// A JSON Schema (or a file that is not JSON: the compile reports that).
    Schema,
    /// A Kinesis or MSK channel configuration that `schema2iceberg.toml` does not name.
    ChannelConfig,
    /// An IAM policy document or statement that no `[[channels]]` entry names.
    Policy,
    /// JSON with no schema keyword at its root.
    NotASchema,
    /// A schema whose root gives only `definitions`/`$defs` (with `$schema`, `$id`): shared
    /// definitions that other schemas reach by `$ref`, not a table.
    DefinitionsOnly,
}

/// The keywords a file of shared definitions has at its root.
const DEFINITIONS_FILE: &[&str] = &["definitions", "$defs", "$schema", "$id"];

/// The JSON types that `type` names.
const TYPE_NAMES: &[&str] = &[
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// Keywords whose value is a map of names to schemas.
const SCHEMA_MAPS: &[&str] = &["properties", "patternProperties", "definitions", "$defs"];

/// Keywords whose value is one schema (an object or a boolean).
const ONE_SCHEMA: &[&str] = &[
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
];

/// Keywords whose value is a number.
const NUMBERS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
];

/// What the file whose JSON is `doc` holds. `text` is re-read as a [`JsonFile`] only when the
/// root has no schema keyword, to ask the channel module whether it has a channel's shape.
pub fn classify(doc: Option<&JsonDoc>, display: &str, text: &[u8]) -> Content {
    let Some(doc) = doc else {
        return Content::Schema;
    };
    let keywords = root_keywords(doc);
    if !keywords.is_empty() || matches!(doc.value(doc.root()), JsonValue::Bool(_)) {
        let keywords: Vec<&str> = keywords.iter().map(|(key, _)| *key).collect();
        let definitions_only = keywords.iter().all(|k| DEFINITIONS_FILE.contains(k))
            && keywords
                .iter()
                .any(|k| *k == "definitions" || *k == "$defs");
        return if definitions_only {
            Content::DefinitionsOnly
        } else {
            Content::Schema
        };
    }
    if is_policy_shaped(doc) {
        return Content::Policy;
    }
    let (file, _) = JsonFile::parse(display, text.to_vec());
    if recognise(&file).is_some() {
        Content::ChannelConfig
    } else {
        Content::NotASchema
    }
}

/// An IAM policy document (`Statement` holding an object or a list, beside at most `Version`
/// and `Id`), or one statement (`Effect` with `Action`, `NotAction` or `Principal`).
fn is_policy_shaped(doc: &JsonDoc) -> bool {
    let JsonValue::Object(members) = doc.value(doc.root()) else {
        return false;
    };
    let has = |key: &str| members.iter().any(|m| m.key == key);
    let document = members.iter().any(|m| {
        m.key == "Statement"
            && matches!(
                doc.value(m.value),
                JsonValue::Object(_) | JsonValue::Array(_)
            )
    }) && members
        .iter()
        .all(|m| matches!(m.key.as_str(), "Statement" | "Version" | "Id"));
    let statement = has("Effect") && (has("Action") || has("NotAction") || has("Principal"));
    document || statement
}

/// The warning for a file that is not compiled, at its first character.
pub fn diagnostic(
    content: Content,
    doc: Option<&JsonDoc>,
    display: &str,
    text: &[u8],
) -> Option<Diagnostic> {
    let (file, _) = JsonFile::parse(display, text.to_vec());
    let start = doc.map_or(0, |d| d.span(d.root()).start());
    let location = file.locate(String::new(), Span::new(start, start + 1));
    match content {
        Content::Schema => None,
        Content::ChannelConfig => Some(
            Diagnostic::new(
                &codes::UNNAMED_CHANNEL_CONFIG,
                location,
                "this file has the shape of a channel configuration, but no `channel-config` in schema2iceberg.toml names it, so it was neither compiled as a schema nor validated with one",
            )
            .with_help("name it in the `channel-config` key of the `[[schemas]]` entry for the schemas its channel reads, or list it under `skip` in schema2iceberg.toml"),
        ),
        Content::Policy => Some(
            Diagnostic::new(
                &codes::UNNAMED_POLICY,
                location,
                "this file has the shape of an IAM policy document or statement, but no `[[channels]]` entry of schema2iceberg.toml names it, so it is not checked against a channel's needs",
            )
            .with_help("name it in a `[[channels]]` entry (role-policy, trust-policy, table-key-policy or table-bucket-policy) to check it, or list it under `skip`; a statement written by `policies --out` to paste into a key policy needs neither"),
        ),
        Content::NotASchema => Some(
            Diagnostic::new(
                &codes::NOT_A_SCHEMA,
                location,
                "this file has no JSON Schema keyword at its root (`$schema`, `type`, `properties`, `$ref`, …), so it is not compiled",
            )
            .with_help("list it under `skip` in schema2iceberg.toml; if it is a schema, give it `$schema` or `type`"),
        ),
        Content::DefinitionsOnly => Some(
            Diagnostic::new(
                &codes::DEFINITIONS_ONLY,
                location,
                "this file holds only definitions, no table, so it is not compiled on its own; each definition is checked in the schemas whose `$ref` uses it",
            )
            .with_help("list it under `skip` in schema2iceberg.toml to drop this note; give its root a `type` if it is a table"),
        ),
    }
}

/// The root's keywords of JSON Schema, each with a value of the kind that keyword takes:
/// `"type": "order"` or `"dependencies": {"left-pad": "^1.3"}` (package.json) are not keywords.
/// When every keyword found holds an empty object or array (`"dependencies": {}` in a
/// package.json), none is evidence of a schema, and none is returned. A root `true` or `false`
/// is a schema (draft-06 on) with no keywords; the compile says what it maps to.
fn root_keywords(doc: &JsonDoc) -> Vec<(&str, JsonId)> {
    let JsonValue::Object(members) = doc.value(doc.root()) else {
        return Vec::new();
    };
    let keywords: Vec<(&str, JsonId)> = members
        .iter()
        .filter(|m| is_keyword(doc, &m.key, m.value))
        .map(|m| (m.key.as_str(), m.value))
        .collect();
    let empty = |id: JsonId| match doc.value(id) {
        JsonValue::Object(members) => members.is_empty(),
        JsonValue::Array(items) => items.is_empty(),
        _ => false,
    };
    if keywords.iter().all(|(_, value)| empty(*value)) {
        return Vec::new();
    }
    keywords
}

fn is_keyword(doc: &JsonDoc, key: &str, value: JsonId) -> bool {
    let is_schema_value =
        |id: JsonId| matches!(doc.value(id), JsonValue::Object(_) | JsonValue::Bool(_));
    let items = |id: JsonId| match doc.value(id) {
        JsonValue::Array(items) => Some(items.clone()),
        _ => None,
    };
    match key {
        "$schema" | "$ref" | "$id" => matches!(doc.value(value), JsonValue::String(_)),
        "type" => match doc.value(value) {
            JsonValue::String(name) => TYPE_NAMES.contains(&name.as_str()),
            JsonValue::Array(names) => {
                !names.is_empty()
                    && names.iter().all(|n| {
                        matches!(doc.value(*n), JsonValue::String(name) if TYPE_NAMES.contains(&name.as_str()))
                    })
            }
            _ => false,
        },
        _ if SCHEMA_MAPS.contains(&key) => match doc.value(value) {
            JsonValue::Object(members) => members.iter().all(|m| is_schema_value(m.value)),
            _ => false,
        },
        "dependencies" => match doc.value(value) {
            JsonValue::Object(members) => members.iter().all(|m| {
                is_schema_value(m.value)
                    || items(m.value).is_some_and(|names| {
                        names
                            .iter()
                            .all(|n| matches!(doc.value(*n), JsonValue::String(_)))
                    })
            }),
            _ => false,
        },
        _ if ONE_SCHEMA.contains(&key) => is_schema_value(value),
        "items" => {
            is_schema_value(value)
                || items(value).is_some_and(|all| all.iter().all(|i| is_schema_value(*i)))
        }
        "allOf" | "anyOf" | "oneOf" => items(value)
            .is_some_and(|all| !all.is_empty() && all.iter().all(|i| is_schema_value(*i))),
        "required" => items(value).is_some_and(|names| {
            names
                .iter()
                .all(|n| matches!(doc.value(*n), JsonValue::String(_)))
        }),
        "enum" => items(value).is_some(),
        "const" => true,
        "uniqueItems" => matches!(doc.value(value), JsonValue::Bool(_)),
        _ if NUMBERS.contains(&key) => matches!(doc.value(value), JsonValue::Number(_)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn content(text: &str) -> Content {
        let (file, _) = JsonFile::parse("x.json", text.as_bytes().to_vec());
        classify(file.json.as_deref(), "x.json", text.as_bytes())
    }

    #[test]
    fn schemas_channel_configurations_and_other_json() {
        assert_eq!(
            content(r#"{"$schema": "http://json-schema.org/draft-07/schema#"}"#),
            Content::Schema
        );
        assert_eq!(content(r#"{"type": ["object", "null"]}"#), Content::Schema);
        assert_eq!(content(r#"{"properties": {"a": {}}}"#), Content::Schema);
        assert_eq!(content("true"), Content::Schema);
        assert_eq!(
            content("{not json"),
            Content::Schema,
            "the compile reports bad JSON"
        );
        assert_eq!(
            content(
                r#"{"name": "app", "description": "x", "dependencies": {"left-pad": "^1.3.0"}}"#
            ),
            Content::NotASchema
        );
        assert_eq!(
            content(r#"{"type": "order", "id": 5}"#),
            Content::NotASchema
        );
        assert_eq!(
            content(r#"{"name": "app", "version": "1.0.0", "dependencies": {}}"#),
            Content::NotASchema,
            "an empty value is evidence of nothing"
        );
        assert_eq!(
            content(r#"{"properties": {}, "required": []}"#),
            Content::NotASchema
        );
        assert_eq!(
            content(r#"{"type": "object", "properties": {}}"#),
            Content::Schema
        );
        assert_eq!(
            content(r#"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow"}]}"#),
            Content::Policy
        );
        assert_eq!(
            content(r#"{"Sid": "Maintenance", "Effect": "Allow", "Action": ["kms:Decrypt"]}"#),
            Content::Policy
        );
        assert_eq!(
            content(r#"{"Statement": "a sentence", "Version": 2}"#),
            Content::NotASchema
        );
        assert_eq!(content(r#"[1, 2]"#), Content::NotASchema);
        assert_eq!(content("{}"), Content::NotASchema);
        assert_eq!(
            content(
                r#"{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"a": {"type": "string"}}}"#
            ),
            Content::DefinitionsOnly
        );
        assert_eq!(
            content(r#"{"definitions": {"a": {}}, "type": "object"}"#),
            Content::Schema
        );
        assert_eq!(
            content(r#"{"DataFreshnessInSeconds": 300, "S3TablesConfigurationList": []}"#),
            Content::ChannelConfig
        );
    }
}
