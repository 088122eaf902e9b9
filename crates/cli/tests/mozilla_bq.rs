//! The Mozilla BigQuery differential check (issue 5): every Mozilla schema in
//! `../shared/corpus/mozilla-pipeline-schemas` that has a `.bq` beside it is compiled, and our
//! Iceberg columns are compared with the BigQuery columns Mozilla's jsonschema-transpiler made
//! from the same file. `docs/dev/corpus-bigquery.md` explains the method and every disagreement kind.
//!
//! A file we reject still has columns worth comparing: each subschema an error points at is
//! replaced by a marker (a decimal whose scale encodes the error code) and the file is compiled
//! again, so the marker's column counts as a disagreement of kind `rejected: <code>`.

// A test should stop loudly; the no-panic rule is for code that reads input.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use iceberg::spec::{NestedFieldRef, PrimitiveType, Type};
use schema2iceberg_mapper::{compile, compile_source, CompileOptions};
use schema2iceberg_parser::{LoadOptions, Severity, Workspace};
use serde_json::Value;

mod support;

/// Top-level BigQuery columns that Mozilla's pipeline adds to every table. They are left out when
/// the JSON Schema has no property of that name; the summary lists how often each was left out.
const METADATA_COLUMNS: [&str; 10] = [
    "additional_properties",
    "document_id",
    "metadata",
    "normalized_app_name",
    "normalized_channel",
    "normalized_country_code",
    "normalized_os",
    "normalized_os_version",
    "sample_id",
    "submission_timestamp",
];

/// The scale of the first marker decimal; scale `MARKER_SCALE + i` stands for the i-th error
/// code met. No Mozilla schema has `multipleOf`, so no real column is a decimal at all.
const MARKER_SCALE: u32 = 25;

/// What a marker's `multipleOf` is while the schema is a `Value`.
const MARKER: &str = "schema2iceberg-marker-1e-";

/// jsonschema-transpiler's `--normalize-case` (`src/casing.rs`): non-word characters and `_`
/// separate words, and a word also starts at an uppercase letter that follows a lowercase one
/// (digits in between count with it, `a7Aa` → `a7_aa`) and at the last uppercase of a run that a
/// lowercase follows (`HTMLParser` → `html_parser`). BigQuery names cannot start with a digit, and
/// the `.bq` files show that such a name gets a leading `_` (`64bit_os` → `_64bit_os`).
fn normalise(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        if c.is_ascii_uppercase() && !word.is_empty() {
            // The letter before the run of digits that ends the word so far.
            let before = word.chars().rev().find(|ch| !ch.is_ascii_digit());
            let after_lower = before.is_some_and(|b| b.is_ascii_lowercase());
            let next_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            let after_upper = before.is_some_and(|b| b.is_ascii_uppercase());
            if after_lower || (after_upper && next_lower) {
                words.push(std::mem::take(&mut word));
            }
        }
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    let joined = words.join("_").to_lowercase();
    if joined.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{joined}")
    } else {
        joined
    }
}

/// One BigQuery column.
#[derive(Debug)]
struct Bq {
    name: String,
    ty: String,
    mode: String,
    fields: Vec<Bq>,
}

fn bq_columns(value: &Value) -> Vec<Bq> {
    value
        .as_array()
        .expect("a .bq file is a list of columns")
        .iter()
        .map(|c| Bq {
            name: c["name"].as_str().unwrap().to_string(),
            ty: c["type"].as_str().unwrap().to_string(),
            mode: c["mode"].as_str().unwrap_or("NULLABLE").to_string(),
            fields: c.get("fields").map(bq_columns).unwrap_or_default(),
        })
        .collect()
}

/// How one kind of disagreement adds up.
#[derive(Debug, Default)]
struct Kind {
    columns: usize,
    files: BTreeSet<String>,
    /// The shallowest path in the first file that has the kind.
    example: String,
}

/// The comparison of one file.
#[derive(Debug, Default)]
struct FileTally {
    compared: usize,
    agreed: usize,
    /// Columns that agree but for the mode (BigQuery's are all NULLABLE: `--force-nullable`).
    typed_agreed: usize,
    /// Columns whose name, nesting and repetition agree (types and modes may differ).
    shape_agreed: usize,
    kinds: BTreeMap<String, Vec<String>>,
    /// Metadata columns left out.
    excluded: Vec<String>,
    /// BigQuery columns under a record that stands where we have a map: each a key that Mozilla
    /// listed from its probe metadata. Not compared, since the JSON Schema does not name them.
    probe_columns: usize,
}

impl FileTally {
    fn record(&mut self, path: &str, kinds: Vec<String>) {
        self.compared += 1;
        if kinds.is_empty() {
            self.agreed += 1;
        }
        if kinds.iter().all(|k| k.starts_with("mode:")) {
            self.typed_agreed += 1;
        }
        if kinds.iter().all(|k| is_type_or_mode(k)) {
            self.shape_agreed += 1;
        }
        let unique: BTreeSet<String> = kinds.into_iter().collect();
        for kind in unique {
            self.kinds.entry(kind).or_default().push(path.to_string());
        }
    }
}

/// Kinds about the column's type or mode, as opposed to its name, nesting or repetition.
fn is_type_or_mode(kind: &str) -> bool {
    kind.starts_with("type:") || kind.starts_with("mode:")
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// Walks our table and the BigQuery columns side by side.
struct Compare<'a> {
    codes: &'a [String],
    tally: FileTally,
}

impl Compare<'_> {
    /// The error a marker column stands for.
    fn marker(&self, ty: &Type) -> Option<&str> {
        match ty {
            Type::Primitive(PrimitiveType::Decimal { scale, .. }) if *scale >= MARKER_SCALE => {
                let index = usize::try_from(scale - MARKER_SCALE).unwrap();
                Some(&self.codes[index])
            }
            _ => None,
        }
    }

    /// The first error a marker stands for anywhere in `ty`.
    fn marker_within(&self, ty: &Type) -> Option<&str> {
        match ty {
            Type::Primitive(_) => self.marker(ty),
            Type::Struct(st) => st
                .fields()
                .iter()
                .find_map(|f| self.marker_within(&f.field_type)),
            Type::List(list) => self.marker_within(&list.element_field.field_type),
            Type::Map(map) => self.marker_within(&map.value_field.field_type),
        }
    }

    /// Compares the fields of two structs (the table itself when `top`).
    fn fields(&mut self, path: &str, ours: &[NestedFieldRef], bq: &[Bq], top: bool) {
        let mut unmatched: BTreeMap<String, &Bq> =
            bq.iter().map(|c| (normalise(&c.name), c)).collect();
        let mut matched: BTreeSet<String> = BTreeSet::new();
        for field in ours {
            let here = join(path, &field.name);
            let key = normalise(&field.name);
            match unmatched.remove(&key) {
                Some(column) => {
                    matched.insert(key);
                    self.column(&here, field, column);
                }
                None => {
                    let kind = if matched.contains(&key) {
                        "name: same snake_case name as an earlier sibling".to_string()
                    } else {
                        match self.marker_within(&field.field_type) {
                            Some(code) => format!(
                                "name: not in BigQuery, and ours holds a rejected subschema ({code})"
                            ),
                            None => "name: not in BigQuery".to_string(),
                        }
                    };
                    self.ours_subtree(&here, &field.field_type, &kind, true);
                }
            }
        }
        for (key, column) in unmatched {
            if top && METADATA_COLUMNS.contains(&key.as_str()) {
                self.tally.excluded.push(key);
                continue;
            }
            self.bq_subtree(&join(path, &column.name), column, "name: not in ours", true);
        }
    }

    /// Compares one struct field with the BigQuery column of the same name.
    fn column(&mut self, path: &str, ours: &iceberg::spec::NestedField, bq: &Bq) {
        let mut kinds = Vec::new();
        let repeated = bq.mode == "REPEATED";
        match (ours.required, bq.mode.as_str()) {
            (true, "NULLABLE") => kinds.push("mode: required vs NULLABLE".to_string()),
            (false, "REQUIRED") => kinds.push("mode: optional vs REQUIRED".to_string()),
            _ => {}
        }
        self.body(
            path,
            &ours.field_type,
            &bq.ty,
            repeated,
            &bq.fields,
            &mut kinds,
        );
        self.tally.record(path, kinds);
    }

    /// Compares a type with a BigQuery type (`repeated` when the BigQuery column repeats).
    fn body(
        &mut self,
        path: &str,
        ty: &Type,
        bq_ty: &str,
        repeated: bool,
        bq_fields: &[Bq],
        kinds: &mut Vec<String>,
    ) {
        let shown = if repeated {
            format!("REPEATED {bq_ty}")
        } else {
            bq_ty.to_string()
        };
        if let Some(code) = self.marker(ty) {
            let kind = format!("rejected: {code}; BigQuery has {shown}");
            kinds.push(kind.clone());
            for f in bq_fields {
                self.bq_subtree(&join(path, &f.name), f, &kind, true);
            }
            return;
        }
        match ty {
            Type::List(list) => {
                if !repeated {
                    let kind = format!("shape: list vs {shown}");
                    kinds.push(kind.clone());
                    self.ours_subtree(path, ty, &kind, false);
                    for f in bq_fields {
                        self.bq_subtree(&join(path, &f.name), f, &kind, true);
                    }
                    return;
                }
                let element = &list.element_field.field_type;
                // BigQuery cannot repeat a repeated column: the transpiler wraps the inner one in
                // a record with one REPEATED field, `list`.
                let wrapped = match bq_fields {
                    [only] if only.name == "list" && only.mode == "REPEATED" => Some(only),
                    _ => None,
                };
                match (element.as_ref(), wrapped) {
                    (Type::List(_) | Type::Map(_), Some(inner)) if bq_ty == "RECORD" => {
                        self.body(path, element, &inner.ty, true, &inner.fields, kinds);
                    }
                    _ => self.body(path, element, bq_ty, false, bq_fields, kinds),
                }
            }
            Type::Map(map) => {
                let key = bq_fields.iter().find(|f| f.name == "key");
                let value = bq_fields.iter().find(|f| f.name == "value");
                match (repeated, bq_ty, key, value, bq_fields.len()) {
                    (false, "RECORD", _, _, _) => {
                        // A record where we have a map: Mozilla's generator lists the keys it
                        // knows from probe metadata as columns. Those are not in the schema.
                        kinds.push("shape: map vs RECORD of keys from probe metadata".to_string());
                        self.ours_subtree(
                            path,
                            ty,
                            "shape: map vs RECORD of keys from probe metadata",
                            false,
                        );
                        for f in bq_fields {
                            self.tally.probe_columns += 1 + count_bq(&f.fields);
                        }
                    }
                    (true, "RECORD", Some(_), Some(value), 2) => {
                        let value_path = join(path, "value");
                        let value_repeated = value.mode == "REPEATED";
                        self.body(
                            &value_path,
                            &map.value_field.field_type,
                            &value.ty,
                            value_repeated,
                            &value.fields,
                            kinds,
                        );
                    }
                    _ => {
                        let kind = format!("shape: map vs {shown}");
                        kinds.push(kind.clone());
                        self.ours_subtree(path, ty, &kind, false);
                        for f in bq_fields {
                            self.bq_subtree(&join(path, &f.name), f, &kind, true);
                        }
                    }
                }
            }
            Type::Struct(st) => {
                if bq_ty != "RECORD" {
                    let kind = format!("shape: struct vs {shown}");
                    kinds.push(kind.clone());
                    self.ours_subtree(path, ty, &kind, false);
                    return;
                }
                if repeated {
                    kinds.push("shape: struct vs REPEATED RECORD".to_string());
                }
                self.fields(path, st.fields(), bq_fields, false);
            }
            Type::Primitive(p) => {
                if repeated || bq_ty == "RECORD" {
                    let kind = format!("shape: {} vs {shown}", primitive_name(p));
                    kinds.push(kind.clone());
                    for f in bq_fields {
                        self.bq_subtree(&join(path, &f.name), f, &kind, true);
                    }
                    return;
                }
                if !primitive_agrees(p, bq_ty) {
                    kinds.push(format!("type: {} vs {bq_ty}", primitive_name(p)));
                }
            }
        }
    }

    /// Records every column of our type (and, when `this`, the column itself) as `kind`.
    fn ours_subtree(&mut self, path: &str, ty: &Type, kind: &str, this: bool) {
        if this {
            self.tally.record(path, vec![kind.to_string()]);
        }
        match ty {
            Type::Struct(st) => {
                for f in st.fields() {
                    self.ours_subtree(&join(path, &f.name), &f.field_type, kind, true);
                }
            }
            Type::List(list) => {
                self.ours_subtree(path, &list.element_field.field_type, kind, false)
            }
            Type::Map(map) => {
                self.ours_subtree(
                    &join(path, "value"),
                    &map.value_field.field_type,
                    kind,
                    false,
                );
            }
            Type::Primitive(_) => {}
        }
    }

    /// Records a BigQuery column (when `this`) and all the columns under it as `kind`.
    fn bq_subtree(&mut self, path: &str, column: &Bq, kind: &str, this: bool) {
        if this {
            self.tally.record(path, vec![kind.to_string()]);
        }
        for f in &column.fields {
            self.bq_subtree(&join(path, &f.name), f, kind, true);
        }
    }
}

fn count_bq(columns: &[Bq]) -> usize {
    columns.iter().map(|c| 1 + count_bq(&c.fields)).sum()
}

fn primitive_name(p: &PrimitiveType) -> String {
    match p {
        PrimitiveType::Decimal { .. } => "decimal".to_string(),
        other => other.to_string(),
    }
}

/// The pairs that are the same type on both sides.
fn primitive_agrees(p: &PrimitiveType, bq: &str) -> bool {
    matches!(
        (p, bq),
        (PrimitiveType::String, "STRING")
            | (PrimitiveType::Long, "INT64" | "INTEGER")
            | (PrimitiveType::Double, "FLOAT64" | "FLOAT")
            | (PrimitiveType::Boolean, "BOOL" | "BOOLEAN")
            | (PrimitiveType::Timestamptz, "TIMESTAMP")
            | (PrimitiveType::Date, "DATE")
            | (PrimitiveType::Time, "TIME")
            | (PrimitiveType::Binary, "BYTES")
            | (PrimitiveType::Decimal { .. }, "NUMERIC" | "BIGNUMERIC")
    )
}

/// RFC 6901 tokens of a pointer.
fn tokens(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// The longest prefix of `pointer` that is a schema (not a keyword's value): the subschema an
/// error at `pointer` belongs to.
fn schema_prefix(doc: &Value, pointer: &str) -> Vec<String> {
    #[derive(Clone, Copy)]
    enum At {
        Schema,
        SchemaMap,
        SchemaArray,
        Other,
    }
    let all = tokens(pointer);
    let mut at = At::Schema;
    let mut best = 0;
    let mut value = doc;
    for (i, token) in all.iter().enumerate() {
        let next = match value {
            Value::Object(map) => map.get(token),
            Value::Array(items) => token.parse::<usize>().ok().and_then(|n| items.get(n)),
            _ => None,
        };
        let Some(next) = next else { break };
        at = match at {
            At::Schema => match token.as_str() {
                "items" if next.is_array() => At::SchemaArray,
                "items"
                | "additionalProperties"
                | "additionalItems"
                | "not"
                | "contains"
                | "propertyNames"
                | "if"
                | "then"
                | "else" => At::Schema,
                "properties" | "patternProperties" | "definitions" | "$defs" | "dependencies" => {
                    At::SchemaMap
                }
                "allOf" | "anyOf" | "oneOf" => At::SchemaArray,
                _ => At::Other,
            },
            At::SchemaMap | At::SchemaArray => At::Schema,
            At::Other => At::Other,
        };
        value = next;
        if matches!(at, At::Schema) {
            best = i + 1;
        }
    }
    all[..best].to_vec()
}

fn value_at<'v>(doc: &'v mut Value, path: &[String]) -> &'v mut Value {
    let mut value = doc;
    for token in path {
        value = match value {
            Value::Object(map) => map.get_mut(token).unwrap(),
            Value::Array(items) => items.get_mut(token.parse::<usize>().unwrap()).unwrap(),
            _ => unreachable!("schema_prefix only returns existing paths"),
        };
    }
    value
}

/// The error's code, refined for forms the corpus shows to be common: a free-form object with
/// `patternProperties`, and two forms of `unsupported-composition` whose branches add no type.
fn label(doc: &Value, code: &str, pointer: &str) -> String {
    if code == "free-form-object" {
        let node = doc.pointer(pointer);
        if node.is_some_and(|n| n.get("patternProperties").is_some()) {
            return format!("{code} (with `patternProperties`)");
        }
        return code.to_string();
    }
    if code != "unsupported-composition" {
        return code.to_string();
    }
    let all = tokens(pointer);
    let Some((_, parent)) = all.split_last() else {
        return code.to_string();
    };
    let mut schema = doc;
    for token in parent {
        schema = match schema {
            Value::Object(map) => &map[token.as_str()],
            Value::Array(items) => &items[token.parse::<usize>().unwrap()],
            _ => return code.to_string(),
        };
    }
    let branches: Vec<&Value> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_array))
        .flatten()
        .collect();
    let presence_only = !branches.is_empty()
        && branches.iter().all(|b| {
            b.as_object().is_some_and(|m| {
                m.keys().all(|k| {
                    matches!(
                        k.as_str(),
                        "required" | "description" | "title" | "$comment"
                    )
                })
            })
        });
    let types: BTreeSet<Option<&str>> = branches
        .iter()
        .map(|b| b.get("type").and_then(Value::as_str))
        .collect();
    let one_primitive = types.len() == 1
        && types
            .first()
            .copied()
            .flatten()
            .is_some_and(|t| !matches!(t, "object" | "array" | "null"));
    if presence_only {
        format!("{code} (branches only list `required`)")
    } else if one_primitive {
        format!("{code} (every branch has the same primitive type)")
    } else {
        code.to_string()
    }
}

/// A compiled table with the errors its markers stand for.
struct Excised {
    schema: iceberg::spec::Schema,
    /// The error (refined by [`label`]) each marker scale stands for.
    codes: Vec<String>,
    /// Errors at the root that were resolved by deleting the root's `anyOf` and `oneOf`.
    root: BTreeSet<String>,
}

/// The table, compiled after replacing each subschema an error points at by a marker; or why
/// there is none.
fn compile_excised(name: &str, text: &str) -> Result<Excised, String> {
    let mut doc: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut codes: Vec<String> = Vec::new();
    let mut root = BTreeSet::new();
    for _ in 0..20 {
        // serde_json reads `1e-26` as the nearest f64, which is not exactly 1e-26, so the
        // markers are strings in `doc` and become numbers in the text.
        let mut text = serde_json::to_string(&doc).unwrap();
        for (index, _) in codes.iter().enumerate() {
            let scale = MARKER_SCALE + u32::try_from(index).unwrap();
            text = text.replace(&format!("\"{MARKER}{scale}\""), &format!("1e-{scale}"));
        }
        let compiled = compile_source(name, &text, &CompileOptions::default());
        if let Some(schema) = compiled.schema {
            return Ok(Excised {
                schema,
                codes,
                root,
            });
        }
        let mut errors: Vec<_> = compiled
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        errors.sort_by_key(|d| d.location.pointer.len());
        let mut replaced: Vec<Vec<String>> = Vec::new();
        for error in errors {
            let prefix = schema_prefix(&doc, &error.location.pointer);
            let label = label(&doc, error.code, &error.location.pointer);
            if prefix.is_empty() {
                // A root `anyOf`/`oneOf` that only lists `required` names no column: drop it
                // and compare the properties. Any other error at the root leaves no table.
                if label.ends_with("(branches only list `required`)") {
                    let map = doc.as_object_mut().unwrap();
                    map.shift_remove("anyOf");
                    map.shift_remove("oneOf");
                    root.insert(label);
                    continue;
                }
                return Err(format!("{label} at the root"));
            }
            if replaced.iter().any(|r| prefix.starts_with(r)) {
                continue;
            }
            let index = match codes.iter().position(|c| *c == label) {
                Some(index) => index,
                None => {
                    codes.push(label);
                    codes.len() - 1
                }
            };
            let scale = MARKER_SCALE + u32::try_from(index).unwrap();
            assert!(scale <= 38, "too many distinct error codes for the markers");
            *value_at(&mut doc, &prefix) =
                serde_json::json!({"type": "number", "multipleOf": format!("{MARKER}{scale}")});
            replaced.push(prefix);
        }
    }
    Err("still rejected after 20 rounds of replacing".to_string())
}

/// What one schema file gives.
#[derive(Debug)]
struct FileResult {
    file: String,
    glean: bool,
    /// The error codes of compiling the file as written (empty when it compiles).
    rejected: BTreeSet<String>,
    /// Errors at the root that were resolved by deleting the root's `anyOf` and `oneOf`.
    root: BTreeSet<String>,
    /// The comparison, or why there is none.
    tally: Result<FileTally, String>,
}

fn check_file(corpus: &Path, schema_path: &Path, bq_path: &Path) -> FileResult {
    let file = schema_path
        .strip_prefix(corpus)
        .unwrap()
        .display()
        .to_string();
    let ws = Workspace::open(schema_path, LoadOptions::default()).unwrap();
    let compiled = compile(&ws, &CompileOptions::default());
    let rejected: BTreeSet<String> = compiled
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.code.to_string())
        .collect();
    let text = std::fs::read_to_string(schema_path).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    // The Glean schemas are the only draft-06 ones (`SOURCES.md`).
    let glean = json["$schema"]
        .as_str()
        .is_some_and(|s| s.contains("draft-06"));
    let bq: Value = serde_json::from_str(&std::fs::read_to_string(bq_path).unwrap()).unwrap();
    let bq = bq_columns(&bq);
    let table = match compiled.schema {
        Some(schema) => Ok(Excised {
            schema,
            codes: Vec::new(),
            root: BTreeSet::new(),
        }),
        None => compile_excised(&file, &text).map_err(|why| {
            let payload = bq
                .iter()
                .filter(|c| !METADATA_COLUMNS.contains(&c.name.as_str()))
                .count();
            format!("{why}; BigQuery has {payload} columns besides the metadata columns")
        }),
    };
    let root = table.as_ref().map(|t| t.root.clone()).unwrap_or_default();
    let tally = table.map(|table| {
        let mut cmp = Compare {
            codes: &table.codes,
            tally: FileTally::default(),
        };
        cmp.fields("", table.schema.as_struct().fields(), &bq, true);
        cmp.tally
    });
    FileResult {
        file,
        glean,
        rejected,
        root,
        tally,
    }
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "-".to_string();
    }
    // Tenths of a percent, rounded half up, in integers so the text is the same everywhere.
    let tenths = (part * 2000 + whole) / (whole * 2);
    format!("{}.{}%", tenths / 10, tenths % 10)
}

/// Sums a set of files into the summary lines.
fn summarise(out: &mut String, title: &str, results: &[&FileResult]) {
    let (mut compared, mut agreed, mut typed, mut shape) = (0, 0, 0, 0);
    for r in results {
        if let Ok(t) = &r.tally {
            compared += t.compared;
            agreed += t.agreed;
            typed += t.typed_agreed;
            shape += t.shape_agreed;
        }
    }
    writeln!(
        out,
        "{title}: {} files, {compared} columns compared; agree: {agreed} ({}); but for the mode: {typed} ({}); on name, nesting and repetition: {shape} ({})",
        results.len(),
        percent(agreed, compared),
        percent(typed, compared),
        percent(shape, compared)
    )
    .unwrap();
}

#[test]
fn mozilla_bigquery_differential() {
    let Some(corpus) = support::corpus_dir(
        support::canonical_root().join("../shared/corpus/mozilla-pipeline-schemas"),
        "mozilla_bigquery_differential",
    ) else {
        return;
    };
    let mut pairs: Vec<(PathBuf, PathBuf)> = walkdir::WalkDir::new(&corpus)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.strip_suffix(".schema.json")?;
            let bq = p.with_file_name(format!("{name}.bq"));
            bq.is_file().then_some((p, bq))
        })
        .collect();
    pairs.sort();
    let results: Vec<FileResult> = pairs
        .iter()
        .map(|(schema, bq)| check_file(&corpus, schema, bq))
        .collect();

    // The long report, for reading with `--nocapture`.
    let mut report = String::new();
    writeln!(
        report,
        "per file: compared, agree, agree but for the mode, agree on shape, rejected as written"
    )
    .unwrap();
    for r in &results {
        match &r.tally {
            Ok(t) => writeln!(
                report,
                "  {}{}: {} columns, {} agree ({}), {} but for the mode ({}), {} shape ({}), {} probe columns{}",
                r.file,
                if r.glean { " [glean]" } else { "" },
                t.compared,
                t.agreed,
                percent(t.agreed, t.compared),
                t.typed_agreed,
                percent(t.typed_agreed, t.compared),
                t.shape_agreed,
                percent(t.shape_agreed, t.compared),
                t.probe_columns,
                if r.rejected.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; rejected: {}",
                        r.rejected.iter().cloned().collect::<Vec<_>>().join(", ")
                    )
                }
            )
            .unwrap(),
            Err(why) => writeln!(report, "  {}: not compared: {why}", r.file).unwrap(),
        }
    }

    // The kinds over all files.
    let mut kinds: BTreeMap<String, Kind> = BTreeMap::new();
    let mut excluded: BTreeMap<String, usize> = BTreeMap::new();
    for r in &results {
        let Ok(t) = &r.tally else { continue };
        for (kind, paths) in &t.kinds {
            let k = kinds.entry(kind.clone()).or_default();
            k.columns += paths.len();
            k.files.insert(r.file.clone());
            if k.example.is_empty() {
                // The shallowest path of the first file: the column itself rather than a
                // BigQuery column under it.
                let shallowest = paths.iter().min_by_key(|p| p.matches('.').count()).unwrap();
                k.example = format!("{}: {shallowest}", r.file);
            }
        }
        for name in &t.excluded {
            *excluded.entry(name.clone()).or_default() += 1;
        }
    }
    writeln!(report, "\nkinds by file (columns, first paths):").unwrap();
    for (name, k) in &kinds {
        writeln!(
            report,
            "  {name} ({} columns, {} files)",
            k.columns,
            k.files.len()
        )
        .unwrap();
        for r in &results {
            let Some(paths) = r.tally.as_ref().ok().and_then(|t| t.kinds.get(name)) else {
                continue;
            };
            let first: Vec<&str> = paths.iter().take(4).map(String::as_str).collect();
            writeln!(
                report,
                "    {}: {}: {}",
                r.file,
                paths.len(),
                first.join(", ")
            )
            .unwrap();
        }
    }

    // The summary that is snapshotted.
    let mut summary = String::new();
    let rejected: Vec<&FileResult> = results.iter().filter(|r| !r.rejected.is_empty()).collect();
    let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &rejected {
        for code in &r.rejected {
            *by_code.entry(code.as_str()).or_default() += 1;
        }
    }
    writeln!(summary, "schemas with a .bq: {}", results.len()).unwrap();
    writeln!(
        summary,
        "compiled as written: {}; rejected as written: {} (files per code: {})",
        results.len() - rejected.len(),
        rejected.len(),
        by_code
            .iter()
            .map(|(c, n)| format!("{c} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .unwrap();
    let not_compared: Vec<String> = results
        .iter()
        .filter_map(|r| {
            r.tally
                .as_ref()
                .err()
                .map(|why| format!("{} ({why})", r.file))
        })
        .collect();
    writeln!(
        summary,
        "not compared even after replacing rejected subschemas: {}",
        if not_compared.is_empty() {
            "none".to_string()
        } else {
            not_compared.join(", ")
        }
    )
    .unwrap();
    let root: Vec<String> = results
        .iter()
        .filter(|r| !r.root.is_empty())
        .map(|r| r.file.clone())
        .collect();
    writeln!(
        summary,
        "root anyOf/oneOf of required-only branches deleted to compare: {}",
        if root.is_empty() {
            "none (they compile with validation-only-composition)".to_string()
        } else {
            root.join(", ")
        }
    )
    .unwrap();
    let probe: usize = results
        .iter()
        .filter_map(|r| r.tally.as_ref().ok())
        .map(|t| t.probe_columns)
        .sum();
    writeln!(
        summary,
        "BigQuery columns under a record that stands for our map, left out (keys from probe metadata): {probe}"
    )
    .unwrap();
    writeln!(
        summary,
        "metadata columns left out (files): {}",
        excluded
            .iter()
            .map(|(c, n)| format!("{c} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .unwrap();
    let all: Vec<&FileResult> = results.iter().collect();
    let as_written: Vec<&FileResult> = results.iter().filter(|r| r.rejected.is_empty()).collect();
    let legacy: Vec<&FileResult> = results.iter().filter(|r| !r.glean).collect();
    let glean: Vec<&FileResult> = results.iter().filter(|r| r.glean).collect();
    summarise(&mut summary, "all", &all);
    summarise(&mut summary, "compiled as written", &as_written);
    summarise(&mut summary, "legacy and structured", &legacy);
    summarise(&mut summary, "glean", &glean);
    writeln!(
        summary,
        "disagreements by kind: columns, files, first example"
    )
    .unwrap();
    for (name, k) in &kinds {
        writeln!(
            summary,
            "  {name}: {}, {}, {}",
            k.columns,
            k.files.len(),
            k.example
        )
        .unwrap();
    }

    println!("{report}\n{summary}");
    insta::assert_snapshot!(summary);
}

#[test]
fn names_normalise_like_the_transpiler() {
    for (name, expect) in [
        ("Aa", "aa"),
        ("aA", "a_a"),
        ("_a__a_", "a_a"),
        ("RAM", "ram"),
        ("a7aAa", "a7a_aa"),
        ("A7AAa", "a7a_aa"),
        ("XMLHttpRequest", "xml_http_request"),
        ("activeAddons", "active_addons"),
        ("$schema", "schema"),
        ("64bit_os", "_64bit_os"),
        ("_64bit_os", "_64bit_os"),
        ("client-id", "client_id"),
    ] {
        assert_eq!(normalise(name), expect, "{name}");
    }
}

#[test]
fn markers_compile_to_their_decimal() {
    let text =
        r#"{"type": "object", "properties": {"a": {"type": "number", "multipleOf": 1e-33}}}"#;
    let compiled = compile_source("m.json", text, &CompileOptions::default());
    let schema = compiled.schema.expect("the marker compiles");
    let field = &schema.as_struct().fields()[0];
    assert_eq!(
        *field.field_type,
        Type::Primitive(PrimitiveType::Decimal {
            precision: 38,
            scale: 33
        })
    );
}
