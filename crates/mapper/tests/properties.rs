//! Property tests: random JSON Schemas within the supported subset compile without errors, with
//! unique and dense field ids, a schema that survives a JSON round trip, and byte-identical
//! output on a second compile; and no input at all makes the compiler panic.

// Tests should fail loudly, so they unwrap, index and panic freely.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use iceberg::spec::{NestedFieldRef, Schema, Type};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use schema2iceberg_mapper::{compile_source, formats::report, CompileOptions};
use serde_json::{json, Map, Value};

/// A fixed case count keeps the run short and the same in CI as on a laptop.
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A string value `"__num__TEXT__"` is written out as the bare number `TEXT`, so that numbers
/// keep their exact text (`2.147483648e9`, `0.010`), which `serde_json::Value` would not.
fn num(text: &str) -> Value {
    Value::String(format!("__num__{text}__"))
}

/// A `{"$ref": …}` placeholder, numbered; [`link_refs`] points it at a definition.
const REF_MARK: &str = "__ref__";

fn write(schema: &Value) -> String {
    let mut text = serde_json::to_string_pretty(schema).unwrap();
    while let Some(start) = text.find("\"__num__") {
        let end = text[start + 1..].find("__\"").unwrap() + start + 1;
        let number = text[start + "\"__num__".len()..end].to_string();
        text.replace_range(start..end + 3, &number);
    }
    text
}

// ---------------------------------------------------------------------------------------------
// Generators

fn description() -> impl Strategy<Value = Option<String>> {
    prop::option::of("[ -~]{0,24}")
}

fn with_description(mut schema: Value, doc: Option<String>) -> Value {
    if let (Some(doc), Some(object)) = (doc, schema.as_object_mut()) {
        object.insert("description".into(), Value::String(doc));
    }
    schema
}

/// Integer bounds, with the values around 2^31 written as exact text.
fn integer_bound() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "100",
        "2147483646",
        "2147483647",
        "2147483648",
        "2147483649",
        "2147483648.5",
        "2.147483648e9",
        "2.147483649e9",
        "4294967296",
        "9223372036854775807",
        "100000000000000000000000",
        "1e3",
    ])
}

fn leaf() -> impl Strategy<Value = Value> {
    let string = prop::option::of(prop::sample::select(vec![
        "date-time",
        "date",
        "time",
        "uuid",
        "email",
    ]))
    .prop_map(|format| match format {
        Some(f) => json!({"type": "string", "format": f}),
        None => json!({"type": "string"}),
    });
    let integer = (
        prop::option::of(integer_bound()),
        prop::option::of(prop::sample::select(vec!["0", "-2147483648", "-1e3"])),
    )
        .prop_map(|(maximum, minimum)| {
            let mut schema = json!({"type": "integer"});
            if let Some(m) = maximum {
                schema["maximum"] = num(m);
            }
            if let Some(m) = minimum {
                schema["minimum"] = num(m);
            }
            schema
        });
    let number = prop::option::of(prop::sample::select(vec![
        "0.01", "0.001", "0.010", "0.25", "1e-3", "2.5E-7", "10", "1",
    ]))
    .prop_map(|multiple_of| match multiple_of {
        Some(m) => json!({"type": "number", "multipleOf": num(m)}),
        None => json!({"type": "number"}),
    });
    let enumeration = prop::collection::vec("[a-z]{1,6}", 1..4)
        .prop_map(|values| json!({"type": "string", "enum": values}));
    // A bare `$ref`, or one wrapped in `allOf` (the usual way to give a `$ref` a description).
    let reference = (0..8usize, any::<bool>()).prop_map(|(k, wrapped)| {
        let reference = json!({"$ref": format!("{REF_MARK}{k}")});
        if wrapped {
            json!({"allOf": [reference]})
        } else {
            reference
        }
    });
    let primitive = prop_oneof![
        string,
        integer,
        number,
        Just(json!({"type": "boolean"})),
        enumeration,
    ];
    (prop_oneof![4 => primitive, 1 => reference], description())
        .prop_map(|(schema, doc)| with_description(schema, doc))
}

/// Lowercase names without dots, so that no name is an error; `element`, `key` and `value`
/// are among them, since Iceberg uses those words inside lists and maps.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "[a-z][a-z0-9_]{0,7}",
        1 => prop::sample::select(vec!["element", "key", "value", "id", "created_at"])
            .prop_map(str::to_string),
    ]
}

/// Properties with distinct names, in generated order.
fn properties(inner: impl Strategy<Value = Value>) -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::vec((name(), inner), 1..5).prop_map(|mut props| {
        let mut seen = std::collections::HashSet::new();
        props.retain(|(n, _)| seen.insert(n.clone()));
        props
    })
}

fn object_schema(props: Vec<(String, Value)>, required: Vec<bool>, doc: Option<String>) -> Value {
    let required: Vec<Value> = props
        .iter()
        .zip(required.iter().chain(std::iter::repeat(&false)))
        .filter(|(_, r)| **r)
        .map(|((n, _), _)| Value::String(n.clone()))
        .collect();
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert(
        "properties".into(),
        Value::Object(props.into_iter().collect()),
    );
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    with_description(Value::Object(schema), doc)
}

/// `{"type": T}` becomes `{"type": [T, "null"]}`; a `$ref` is left as it is.
fn nullable(mut schema: Value) -> Value {
    if let Some(Value::String(t)) = schema.get("type").cloned() {
        schema["type"] = json!([t, "null"]);
    }
    schema
}

fn node() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (
                properties(inner.clone()),
                prop::collection::vec(any::<bool>(), 0..5),
                description()
            )
                .prop_map(|(props, required, doc)| object_schema(props, required, doc)),
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items})),
            inner
                .clone()
                .prop_map(|value| json!({"type": "object", "additionalProperties": value})),
            inner.prop_map(nullable),
        ]
    })
}

/// Points each `$ref` placeholder at a definition: definition `i` may only use definitions
/// before it, so there is no cycle, and a placeholder with nothing to point at becomes a
/// string.
fn link_refs(schema: &mut Value, defs_available: usize) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::String(r)) = object.get("$ref") {
                if let Some(k) = r.strip_prefix(REF_MARK) {
                    let k: usize = k.parse().unwrap();
                    *schema = if defs_available == 0 {
                        json!({"type": "string"})
                    } else {
                        json!({"$ref": format!("#/definitions/d{}", k % defs_available)})
                    };
                    return;
                }
            }
            for value in object.values_mut() {
                link_refs(value, defs_available);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| link_refs(v, defs_available)),
        _ => {}
    }
}

/// A whole supported schema: an object root, maybe a `$schema`, maybe definitions.
fn supported_schema() -> impl Strategy<Value = String> {
    (
        properties(node()),
        prop::collection::vec(any::<bool>(), 0..5),
        prop::collection::vec(node(), 0..4),
        any::<bool>(),
        description(),
    )
        .prop_map(|(props, required, defs, draft, doc)| {
            let mut root = object_schema(props, required, doc);
            link_refs(&mut root, defs.len());
            if draft {
                root["$schema"] = json!("http://json-schema.org/draft-07/schema#");
            }
            if !defs.is_empty() {
                let defs: Map<String, Value> = defs
                    .into_iter()
                    .enumerate()
                    .map(|(i, mut d)| {
                        link_refs(&mut d, i);
                        (format!("d{i}"), d)
                    })
                    .collect();
                root["definitions"] = Value::Object(defs);
            }
            write(&root)
        })
}

/// Any JSON value, with keys that are mostly schema keywords so that the compiler gets past
/// the root check.
fn any_json() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        prop::sample::select(vec![
            "type",
            "properties",
            "items",
            "additionalProperties",
            "required",
            "enum",
            "const",
            "format",
            "maximum",
            "exclusiveMaximum",
            "minimum",
            "multipleOf",
            "allOf",
            "anyOf",
            "oneOf",
            "$ref",
            "$id",
            "id",
            "definitions",
            "$schema",
            "description",
            "a",
        ])
        .prop_map(str::to_string),
        "[ -~]{0,6}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|n| json!(n)),
        prop::sample::select(vec![
            "object",
            "string",
            "integer",
            "number",
            "array",
            "null",
            "boolean",
            "#",
            "#/definitions/a",
            "date-time",
        ])
        .prop_map(|s| json!(s)),
        "[ -~]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

// ---------------------------------------------------------------------------------------------
// Checks

fn options() -> CompileOptions {
    CompileOptions::default()
}

/// Compiles `text` and returns the JSON output as text; panics are what these tests look for.
fn compile_to_text(text: &str) -> String {
    let compiled = compile_source("schema.json", text, &options());
    serde_json::to_string(&report::to_json(&compiled)).unwrap()
}

fn collect_ids(field: &NestedFieldRef, ids: &mut Vec<i32>) {
    ids.push(field.id);
    match field.field_type.as_ref() {
        Type::Struct(s) => s.fields().iter().for_each(|f| collect_ids(f, ids)),
        Type::List(l) => collect_ids(&l.element_field, ids),
        Type::Map(m) => {
            collect_ids(&m.key_field, ids);
            collect_ids(&m.value_field, ids);
        }
        Type::Primitive(_) => {}
    }
}

/// Checks one supported schema: it compiles without errors, its field ids are exactly
/// 1..=highest, its JSON schema parses back into an equal `Schema`, and a second compile gives
/// the same bytes.
fn check(text: &str) -> Result<(), TestCaseError> {
    let compiled = compile_source("schema.json", text, &options());
    let errors: Vec<_> = compiled
        .diagnostics
        .iter()
        .filter(|d| d.severity == schema2iceberg_parser::Severity::Error)
        .map(|d| format!("{} at {:?}: {}", d.code, d.location.pointer, d.message))
        .collect();
    prop_assert!(errors.is_empty(), "errors {errors:#?} for\n{text}");
    let schema = compiled.schema.as_ref().expect("a schema without errors");

    let mut ids = Vec::new();
    schema
        .as_struct()
        .fields()
        .iter()
        .for_each(|f| collect_ids(f, &mut ids));
    ids.sort_unstable();
    let dense: Vec<i32> = (1..=schema.highest_field_id()).collect();
    prop_assert_eq!(&ids, &dense, "field ids not unique and dense for\n{}", text);

    let output = report::to_json(&compiled);
    let parsed: Schema = serde_json::from_value(output["schema"].clone()).map_err(|e| {
        TestCaseError::fail(format!("{e}: the output schema does not parse\n{text}"))
    })?;
    prop_assert_eq!(
        serde_json::to_value(&parsed).unwrap(),
        output["schema"].clone(),
        "the schema changes in a JSON round trip for\n{}",
        text
    );

    let first = serde_json::to_string(&output).unwrap();
    prop_assert_eq!(
        first,
        compile_to_text(text),
        "two compiles differ for\n{}",
        text
    );
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn supported_schemas_compile_to_a_valid_table(text in supported_schema()) {
        check(&text)?;
    }

    #[test]
    fn any_json_value_compiles_without_panic(value in any_json()) {
        let text = serde_json::to_string(&value).unwrap();
        compile_to_text(&text);
    }

    #[test]
    fn any_text_compiles_without_panic(text in prop_oneof![
        any::<String>(),
        "[\\[\\]{}\":,0-9a-z .eE$#/-]{0,80}",
    ]) {
        compile_to_text(&text);
    }
}

#[test]
fn the_generator_writes_exact_numbers() {
    let schema = json!({"type": "integer", "maximum": num("2.147483648e9")});
    assert_eq!(
        write(&schema),
        "{\n  \"type\": \"integer\",\n  \"maximum\": 2.147483648e9\n}"
    );
}
