//! A small `arbitrary`-derived schema AST, written out as JSON Schema text and compiled.
//!
//! The AST covers the supported subset and the constructs around it that must end in a
//! diagnostic (cycles, unions, tuples, free-form objects, odd names and numbers, `$ref`
//! siblings, …). Checks: no panic, and when the schema compiles, the field ids of the output
//! are unique and exactly 1..=n.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use schema2iceberg_mapper::{compile_source, formats::report, CompileOptions};
use serde_json::Value;

/// Deeper than the JSON reader's 256 levels, so that limit is reached too, but bounded so that
/// this harness's own recursion cannot overflow.
const MAX_EMIT_DEPTH: usize = 300;

const NAMES: &[&str] = &[
    "id",
    "a",
    "b",
    "ts",
    "element",
    "value",
    "key",
    "A",
    "Ts",
    "a.b",
    "",
    "a b",
    "~/x",
    "é",
    "ÅB",
    "created_at",
    "x%25y",
    "0",
];

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "-0",
    "0.01",
    "0.001",
    "0.010",
    "0.25",
    "10",
    "1e-3",
    "2.5E-7",
    "1E-38",
    "1e-39",
    "1e999999",
    "1e-999999",
    "-1e999999",
    "2147483647",
    "2147483648",
    "2147483649",
    "2147483648.5",
    "2.147483648e9",
    "-2147483648",
    "-2147483649",
    "-2147483650",
    "100000000000000000000000",
    "0.0000000000000000000000000000000000000001",
    "9223372036854775807",
    "9223372036854775808",
];

const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "uuid",
    "byte",
    "binary",
    "email",
    "DATE-TIME",
    "",
];

const TYPE_NAMES: &[&str] = &[
    "string", "integer", "number", "boolean", "object", "array", "null", "any", "String",
];

#[derive(Arbitrary, Debug)]
struct Doc {
    draft: Draft,
    props: Vec<Prop>,
    required: Vec<Name>,
    defs: Vec<Node>,
    root_all_of: Vec<Node>,
    partition: Option<Name>,
    lints: bool,
    /// Also build the column sources that `diff` compares.
    column_sources: bool,
}

#[derive(Arbitrary, Debug)]
enum Draft {
    None,
    D04,
    D06,
    D07,
    D2020,
    NotAString,
}

#[derive(Arbitrary, Debug)]
struct Prop {
    name: Name,
    node: Node,
}

#[derive(Arbitrary, Debug)]
enum Name {
    Pick(u8),
    Raw(String),
}

#[derive(Arbitrary, Debug)]
enum Num {
    Pick(u8),
    Int(i64),
    Dec { mantissa: i32, exp: i16 },
}

#[derive(Arbitrary, Debug)]
enum Lit {
    Null,
    Bool(bool),
    Str(Name),
    Num(Num),
}

#[derive(Arbitrary, Debug)]
enum RefTo {
    Def(u8),
    Root,
    Property(Name),
    Missing,
    File(String),
    Raw(String),
}

#[derive(Arbitrary, Debug)]
enum Node {
    Str {
        format: Option<u8>,
        base64: bool,
    },
    Int {
        maximum: Option<Num>,
        minimum: Option<Num>,
        exclusive_maximum: Option<Num>,
        draft04_exclusive: bool,
    },
    Number {
        multiple_of: Option<Num>,
    },
    Bool,
    Null,
    Obj {
        props: Vec<Prop>,
        required: Vec<Name>,
        additional: Option<Box<Node>>,
        additional_bool: Option<bool>,
        pattern: bool,
    },
    Arr(Option<Box<Node>>),
    Tuple(Vec<Node>),
    Map(Box<Node>),
    Nullable(Box<Node>),
    AnyOfNull {
        node: Box<Node>,
        one_of: bool,
        null_first: bool,
    },
    AnyOf(Vec<Node>),
    AllOf(Vec<Node>),
    Ref {
        to: RefTo,
        sibling: Option<Box<Node>>,
    },
    Enum(Vec<Lit>),
    Const(Lit),
    Described(Name, Box<Node>),
    WithId(Name, Box<Node>),
    Types(Vec<u8>),
    BoolSchema(bool),
    Empty,
    Literal(Lit),
}

fn pick<'a>(list: &[&'a str], i: u8) -> &'a str {
    list.get(usize::from(i) % list.len()).copied().unwrap_or("")
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

impl Name {
    fn text(&self) -> String {
        match self {
            Name::Pick(i) => pick(NAMES, *i).to_string(),
            Name::Raw(s) => s.clone(),
        }
    }
}

impl Num {
    fn text(&self) -> String {
        match self {
            Num::Pick(i) => pick(NUMBERS, *i).to_string(),
            Num::Int(i) => i.to_string(),
            Num::Dec { mantissa, exp } => format!("{mantissa}e{exp}"),
        }
    }
}

impl Lit {
    fn text(&self) -> String {
        match self {
            Lit::Null => "null".into(),
            Lit::Bool(b) => b.to_string(),
            Lit::Str(n) => quote(&n.text()),
            Lit::Num(n) => n.text(),
        }
    }
}

/// An object schema as its members (key, JSON text), or another JSON value as text.
enum Out {
    Members(Vec<(String, String)>),
    Text(String),
}

impl Out {
    fn text(self) -> String {
        match self {
            Out::Text(t) => t,
            Out::Members(m) => object(&m),
        }
    }
}

fn object(members: &[(String, String)]) -> String {
    let body: Vec<String> = members
        .iter()
        .map(|(k, v)| format!("{}:{v}", quote(k)))
        .collect();
    format!("{{{}}}", body.join(","))
}

struct Emitter {
    defs: usize,
}

impl Emitter {
    fn props(&self, props: &[Prop], depth: usize) -> String {
        let members: Vec<(String, String)> = props
            .iter()
            .map(|p| (p.name.text(), self.node(&p.node, depth + 2).text()))
            .collect();
        object(&members)
    }

    fn names(names: &[Name]) -> String {
        let items: Vec<String> = names.iter().map(|n| quote(&n.text())).collect();
        format!("[{}]", items.join(","))
    }

    fn list(&self, nodes: &[Node], depth: usize) -> String {
        let items: Vec<String> = nodes
            .iter()
            .map(|n| self.node(n, depth + 2).text())
            .collect();
        format!("[{}]", items.join(","))
    }

    fn node(&self, node: &Node, depth: usize) -> Out {
        if depth > MAX_EMIT_DEPTH {
            return Out::Members(vec![("type".into(), "\"string\"".into())]);
        }
        let t = |name: &str| ("type".to_string(), quote(name));
        let mut m: Vec<(String, String)> = Vec::new();
        match node {
            Node::Str { format, base64 } => {
                m.push(t("string"));
                if let Some(f) = format {
                    m.push(("format".into(), quote(pick(FORMATS, *f))));
                }
                if *base64 {
                    m.push(("contentEncoding".into(), quote("base64")));
                }
            }
            Node::Int {
                maximum,
                minimum,
                exclusive_maximum,
                draft04_exclusive,
            } => {
                m.push(t("integer"));
                if let Some(n) = maximum {
                    m.push(("maximum".into(), n.text()));
                }
                if let Some(n) = minimum {
                    m.push(("minimum".into(), n.text()));
                }
                if let Some(n) = exclusive_maximum {
                    m.push(("exclusiveMaximum".into(), n.text()));
                } else if *draft04_exclusive {
                    m.push(("exclusiveMaximum".into(), "true".into()));
                    m.push(("exclusiveMinimum".into(), "true".into()));
                }
            }
            Node::Number { multiple_of } => {
                m.push(t("number"));
                if let Some(n) = multiple_of {
                    m.push(("multipleOf".into(), n.text()));
                }
            }
            Node::Bool => m.push(t("boolean")),
            Node::Null => m.push(t("null")),
            Node::Obj {
                props,
                required,
                additional,
                additional_bool,
                pattern,
            } => {
                m.push(t("object"));
                m.push(("properties".into(), self.props(props, depth)));
                if !required.is_empty() {
                    m.push(("required".into(), Self::names(required)));
                }
                if let Some(a) = additional {
                    m.push((
                        "additionalProperties".into(),
                        self.node(a, depth + 1).text(),
                    ));
                } else if let Some(b) = additional_bool {
                    m.push(("additionalProperties".into(), b.to_string()));
                }
                if *pattern {
                    m.push((
                        "patternProperties".into(),
                        "{\"^x\":{\"type\":\"string\"}}".into(),
                    ));
                }
            }
            Node::Arr(items) => {
                m.push(t("array"));
                if let Some(i) = items {
                    m.push(("items".into(), self.node(i, depth + 1).text()));
                }
            }
            Node::Tuple(items) => {
                m.push(t("array"));
                m.push(("items".into(), self.list(items, depth)));
            }
            Node::Map(value) => {
                m.push(t("object"));
                m.push((
                    "additionalProperties".into(),
                    self.node(value, depth + 1).text(),
                ));
            }
            Node::Nullable(inner) => match self.node(inner, depth + 1) {
                Out::Members(mut inner) => {
                    match inner.iter_mut().find(|(k, _)| k == "type") {
                        Some((_, v)) => *v = format!("[{v},\"null\"]"),
                        None => inner.push(("type".into(), "[\"null\"]".into())),
                    }
                    return Out::Members(inner);
                }
                Out::Text(text) => return Out::Text(text),
            },
            Node::AnyOfNull {
                node,
                one_of,
                null_first,
            } => {
                let inner = self.node(node, depth + 2).text();
                let null = "{\"type\":\"null\"}".to_string();
                let pair = if *null_first {
                    format!("[{null},{inner}]")
                } else {
                    format!("[{inner},{null}]")
                };
                let key = if *one_of { "oneOf" } else { "anyOf" };
                m.push((key.into(), pair));
            }
            Node::AnyOf(nodes) => m.push(("anyOf".into(), self.list(nodes, depth))),
            Node::AllOf(nodes) => m.push(("allOf".into(), self.list(nodes, depth))),
            Node::Ref { to, sibling } => {
                if let Some(s) = sibling {
                    if let Out::Members(s) = self.node(s, depth + 1) {
                        m = s;
                    }
                }
                let target = match to {
                    RefTo::Def(i) if self.defs > 0 => {
                        format!("#/definitions/d{}", usize::from(*i) % self.defs)
                    }
                    RefTo::Def(_) | RefTo::Missing => "#/definitions/missing".into(),
                    RefTo::Root => "#".into(),
                    RefTo::Property(n) => format!(
                        "#/properties/{}",
                        schema2iceberg_parser::pointer::escape_token(&n.text())
                    ),
                    RefTo::File(f) => format!("{f}.json#/definitions/x"),
                    RefTo::Raw(r) => r.clone(),
                };
                m.insert(0, ("$ref".into(), quote(&target)));
            }
            Node::Enum(values) => {
                let items: Vec<String> = values.iter().map(Lit::text).collect();
                m.push(("enum".into(), format!("[{}]", items.join(","))));
            }
            Node::Const(value) => m.push(("const".into(), value.text())),
            Node::Described(doc, inner) => {
                if let Out::Members(inner) = self.node(inner, depth + 1) {
                    m = inner;
                }
                m.push(("description".into(), quote(&doc.text())));
            }
            Node::WithId(id, inner) => {
                if let Out::Members(inner) = self.node(inner, depth + 1) {
                    m = inner;
                }
                m.insert(0, ("$id".into(), quote(&id.text())));
            }
            Node::Types(types) => {
                let items: Vec<String> =
                    types.iter().map(|i| quote(pick(TYPE_NAMES, *i))).collect();
                m.push(("type".into(), format!("[{}]", items.join(","))));
            }
            Node::BoolSchema(b) => return Out::Text(b.to_string()),
            Node::Empty => {}
            Node::Literal(l) => return Out::Text(l.text()),
        }
        Out::Members(m)
    }
}

impl Doc {
    fn text(&self) -> String {
        let emitter = Emitter {
            defs: self.defs.len(),
        };
        let mut m: Vec<(String, String)> = Vec::new();
        let draft = match self.draft {
            Draft::None => None,
            Draft::D04 => Some(quote("http://json-schema.org/draft-04/schema#")),
            Draft::D06 => Some(quote("http://json-schema.org/draft-06/schema#")),
            Draft::D07 => Some(quote("http://json-schema.org/draft-07/schema#")),
            Draft::D2020 => Some(quote("https://json-schema.org/draft/2020-12/schema")),
            Draft::NotAString => Some("7".into()),
        };
        if let Some(d) = draft {
            m.push(("$schema".into(), d));
        }
        m.push(("type".into(), quote("object")));
        m.push(("properties".into(), emitter.props(&self.props, 0)));
        if !self.required.is_empty() {
            m.push(("required".into(), Emitter::names(&self.required)));
        }
        if !self.root_all_of.is_empty() {
            m.push(("allOf".into(), emitter.list(&self.root_all_of, 0)));
        }
        if !self.defs.is_empty() {
            let defs: Vec<(String, String)> = self
                .defs
                .iter()
                .enumerate()
                .map(|(i, d)| (format!("d{i}"), emitter.node(d, 2).text()))
                .collect();
            m.push(("definitions".into(), object(&defs)));
        }
        object(&m)
    }
}

/// Collects every field id of an Iceberg schema's JSON: struct fields, list elements, map keys
/// and values.
fn collect_ids(ty: &Value, ids: &mut Vec<u64>) {
    match ty.get("type").and_then(Value::as_str) {
        Some("struct") => {
            for field in ty["fields"].as_array().into_iter().flatten() {
                ids.push(field["id"].as_u64().expect("field id"));
                collect_ids(&field["type"], ids);
            }
        }
        Some("list") => {
            ids.push(ty["element-id"].as_u64().expect("element id"));
            collect_ids(&ty["element"], ids);
        }
        Some("map") => {
            ids.push(ty["key-id"].as_u64().expect("key id"));
            ids.push(ty["value-id"].as_u64().expect("value id"));
            collect_ids(&ty["key"], ids);
            collect_ids(&ty["value"], ids);
        }
        _ => {}
    }
}

/// `SCHEMA2ICEBERG_FUZZ_PRINT=1 …/compiler ARTIFACT` prints the schema text of a unit.
fn print_requested() -> bool {
    static PRINT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PRINT.get_or_init(|| std::env::var_os("SCHEMA2ICEBERG_FUZZ_PRINT").is_some())
}

fuzz_target!(|doc: Doc| {
    let text = doc.text();
    if print_requested() {
        println!("{text}");
    }
    let options = CompileOptions {
        partition: doc.partition.iter().map(Name::text).collect(),
        partition_origin: None,
        lints: doc.lints,
        column_sources: doc.column_sources,
        // Options added later start at their defaults instead of breaking this target, which
        // CI does not build.
        ..CompileOptions::default()
    };
    let compiled = compile_source("schema.json", &text, &options);
    let json = report::to_json(&compiled);
    if compiled.has_errors() {
        assert!(compiled.schema.is_none(), "a schema despite errors: {text}");
        return;
    }
    assert!(compiled.schema.is_some(), "no schema and no error: {text}");
    let schema = &json["schema"];
    assert!(!schema.is_null(), "the schema did not serialise: {text}");
    let mut ids = Vec::new();
    collect_ids(schema, &mut ids);
    ids.sort_unstable();
    let expected: Vec<u64> = (1..=ids.len() as u64).collect();
    assert_eq!(ids, expected, "field ids are not unique and dense: {text}");
});
