//! Bundling: the one self-contained document to register in the Glue Schema Registry, with
//! every file that the schema's `$ref`s reach inlined under the root's `definitions`.
//!
//! The main file's text is kept as written except for the rewritten `$ref` strings and the new
//! entries; inlined files are written from their source text (keys, strings and numbers copied
//! byte for byte). docs/mapping.md (rule 17) gives the rules and their reasons.

use crate::codes;
use crate::diagnostic::{Diagnostic, Severity};
use crate::json::{JsonDoc, JsonId, JsonValue, MAX_JSON_DEPTH};
use crate::pointer;
use crate::schema::{DocId, Reference, SchemaId, SchemaKind};
use crate::workspace::{Document, Workspace};

mod text;

use text::{entry_name, json_string, line_indent, percent_encode_fragment, unique_name};

/// Indentation of one level in the inlined files.
const STEP: &str = "  ";

/// The bundled document, or the errors that keep the schema from being one document.
pub fn bundle(ws: &Workspace) -> Result<String, Vec<Diagnostic>> {
    let errors: Vec<Diagnostic> = ws
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .cloned()
        .collect();
    let (Some(main), Some(root)) = (ws.document(DocId(0)), ws.root()) else {
        return Err(errors);
    };
    let (Some(main_json), Some(main_text)) = (main.json.as_deref(), main.text_str()) else {
        return Err(errors);
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut bundler = Bundler::new(ws, main, main_json, root)?;
    bundler.plan_references();
    if !bundler.errors.is_empty() {
        let mut errors = bundler.errors;
        // In file order (the main file first, then as loaded), then by place.
        let file_index = |d: &Diagnostic| {
            ws.documents()
                .iter()
                .position(|doc| *doc.display == *d.location.file)
                .unwrap_or(usize::MAX)
        };
        errors.sort_by_key(|d| (file_index(d), d.location.span.start()));
        errors.dedup_by(|a, b| a.location == b.location && a.message == b.message);
        return Err(errors);
    }
    let inlined = bundler.write_inlined();
    if !bundler.errors.is_empty() {
        return Err(bundler.errors);
    }
    Ok(bundler.splice(main_text, &inlined))
}

/// Where the inlined files go: an existing `definitions`/`$defs` object, or a new
/// `definitions` member at the end of the root.
enum Container {
    Existing { key: String, at: JsonId },
    New,
}

struct Bundler<'w> {
    ws: &'w Workspace,
    main: &'w Document,
    main_json: &'w JsonDoc,
    root: SchemaId,
    container: Container,
    /// The entry name of each inlined document, by document index (`None` for the main one and
    /// for documents that are not JSON).
    names: Vec<Option<String>>,
    /// `$ref` values of the main file to replace: span start, span end, new JSON string.
    main_edits: Vec<(usize, usize, String)>,
    /// The rewritten `$ref` value of each schema node of the inlined files that has one.
    rewritten: rustc_hash::FxHashMap<SchemaId, String>,
    errors: Vec<Diagnostic>,
}

impl<'w> Bundler<'w> {
    fn new(
        ws: &'w Workspace,
        main: &'w Document,
        main_json: &'w JsonDoc,
        root: SchemaId,
    ) -> Result<Self, Vec<Diagnostic>> {
        let root_at = main_json.root();
        let member = |key: &str| main_json.member(root_at, key).map(|m| m.value);
        let container = match (member("definitions"), member("$defs")) {
            (Some(at), _) => Container::Existing {
                key: "definitions".to_string(),
                at,
            },
            (None, Some(at)) => Container::Existing {
                key: "$defs".to_string(),
                at,
            },
            (None, None) => Container::New,
        };
        let mut taken: Vec<String> = Vec::new();
        if let Container::Existing { key, at } = &container {
            match main_json.value(*at) {
                JsonValue::Object(members) => {
                    taken.extend(members.iter().map(|m| m.key.to_string()))
                }
                _ => {
                    return Err(vec![unsupported(
                        ws,
                        DocId(0),
                        *at,
                        format!(
                        "`{key}` is not an object, so the referenced files cannot be added to it"
                    ),
                    )])
                }
            }
        }
        let mut names = vec![None];
        for doc in ws.documents().iter().skip(1) {
            if doc.json.is_none() {
                names.push(None);
                continue;
            }
            let name = unique_name(&entry_name(doc), &taken);
            taken.push(name.clone());
            names.push(Some(name));
        }
        Ok(Bundler {
            ws,
            main,
            main_json,
            root,
            container,
            names,
            main_edits: Vec::new(),
            rewritten: rustc_hash::FxHashMap::default(),
            errors: Vec::new(),
        })
    }

    /// Decides, for every `$ref` of every document, whether it stays as written or becomes a
    /// pointer into the bundle, and collects the references that cannot be bundled.
    fn plan_references(&mut self) {
        let ws = self.ws;
        for index in 0..ws.schema_count() {
            let Some(id) = u32::try_from(index).ok().map(SchemaId) else {
                break;
            };
            let Some(schema) = ws.schema(id) else {
                continue;
            };
            let SchemaKind::Object(k) = &schema.kind else {
                continue;
            };
            let Some(reference) = &k.reference else {
                continue;
            };
            let in_main = schema.doc == DocId(0);
            let target = match &reference.value.target {
                Ok(target) => *target,
                Err(failure) => {
                    // A dangling `#…` in the main file stays as dangling as it was; anything else
                    // names a resource that the bundle could not contain.
                    if !in_main || !reference.value.text.starts_with('#') {
                        self.errors.push((**failure).clone());
                    }
                    continue;
                }
            };
            let Some(target_schema) = ws.schema(target) else {
                continue;
            };
            if in_main && !self.needs_rewrite(id, &reference.value, target_schema.doc) {
                continue;
            }
            let Some(fragment) = self.bundle_pointer(target_schema.doc, target_schema.at) else {
                continue;
            };
            if in_main {
                let Some(text) = self.main_ref_text(id, reference.at, &fragment) else {
                    continue;
                };
                let span = self.main_json.span(reference.at);
                self.main_edits
                    .push((span.start(), span.end(), json_string(&text)));
            } else {
                self.rewritten.insert(id, json_string(&fragment));
            }
        }
        if self.names.iter().skip(1).flatten().next().is_some() {
            for (index, doc) in ws.documents().iter().enumerate().skip(1) {
                if doc.json.is_some() && doc.draft != self.main.draft {
                    let at = doc
                        .json
                        .as_deref()
                        .map_or_else(JsonId::default, JsonDoc::root);
                    let d = unsupported(
                        ws,
                        DocId(u32::try_from(index).unwrap_or(u32::MAX)),
                        at,
                        format!(
                            "`{}` is read as {} and the main schema as {}, but one document has one draft",
                            doc.display,
                            doc.draft,
                            self.main.draft
                        ),
                    );
                    self.errors.push(d);
                }
            }
        }
    }

    /// Whether a `$ref` written in the main file that reached `target_doc` must be rewritten:
    /// it leads into another file, or it names the main file by its path, which the registry
    /// does not know.
    fn needs_rewrite(&self, holder: SchemaId, reference: &Reference, target_doc: DocId) -> bool {
        if target_doc != DocId(0) {
            return true;
        }
        if reference.text.starts_with('#') {
            return false;
        }
        let resource = self
            .ws
            .base(holder)
            .and_then(|base| base.join(&reference.text).ok())
            .map(|mut url| {
                url.set_fragment(None);
                url
            });
        resource.is_some_and(|url| url == self.main.url)
    }

    /// The text of a rewritten `$ref` in the main file: a fragment where the holder's base is
    /// the root's, the root's absolute `$id` with the fragment inside an embedded resource.
    fn main_ref_text(&mut self, holder: SchemaId, at: JsonId, fragment: &str) -> Option<String> {
        let ws = self.ws;
        let root_base = ws.base(self.root)?;
        if ws.base(holder) == Some(root_base) {
            return Some(fragment.to_string());
        }
        let declared_root_id = self
            .main_json
            .member(self.main_json.root(), self.main.draft.id_keyword())
            .map(|m| self.main_json.value(m.value));
        if let Some(JsonValue::String(id)) = declared_root_id {
            if let Ok(mut absolute) = url::Url::parse(id) {
                absolute.set_fragment(None);
                return Some(format!("{absolute}{fragment}"));
            }
        }
        self.errors.push(unsupported(
            ws,
            DocId(0),
            at,
            format!(
                "this `$ref` is inside an embedded `{}` resource and must point into the bundle's root, which has no absolute `{}` to name it by",
                self.main.draft.id_keyword(),
                self.main.draft.id_keyword()
            ),
        ));
        None
    }

    /// `#` and the percent-encoded JSON Pointer of a value in the bundle.
    fn bundle_pointer(&self, doc: DocId, at: JsonId) -> Option<String> {
        let json = self.ws.document(doc)?.json.as_deref()?;
        let inner = json.pointer(at);
        let pointer = if doc == DocId(0) {
            inner
        } else {
            let name = self.names.get(doc.0 as usize)?.as_deref()?;
            format!(
                "/{}/{}{inner}",
                pointer::escape_token(self.container_key()),
                pointer::escape_token(name)
            )
        };
        Some(format!("#{}", percent_encode_fragment(&pointer)))
    }

    fn container_key(&self) -> &str {
        match &self.container {
            Container::Existing { key, .. } => key,
            Container::New => "definitions",
        }
    }

    /// Each inlined document's entry, `"name": value`, written at two levels below the root.
    fn write_inlined(&mut self) -> Vec<String> {
        let mut entries = Vec::new();
        for (index, name) in self.names.iter().enumerate().skip(1) {
            let Some(name) = name else { continue };
            let doc = DocId(u32::try_from(index).unwrap_or(u32::MAX));
            entries.push((name.clone(), doc));
        }
        let mut written = Vec::new();
        for (name, doc) in entries {
            let Some(document) = self.ws.document(doc) else {
                continue;
            };
            let Some(json) = document.json.as_deref() else {
                continue;
            };
            let mut value = String::new();
            self.write_value(doc, document, json, json.root(), 0, &mut value);
            written.push(format!("{}: {value}", json_string(&name)));
        }
        written
    }

    /// Writes one value of an inlined document, indented `depth` steps below its entry, with
    /// `$schema` dropped at its root, `$id`/`id` dropped from its schemas, and `$ref`s
    /// rewritten.
    // Over 80 lines: the depth check, the three kinds of value and the member filter are one
    // recursive walk, and splitting it would pass the same six arguments through every piece.
    fn write_value(
        &mut self,
        doc: DocId,
        document: &Document,
        json: &JsonDoc,
        at: JsonId,
        depth: usize,
        out: &mut String,
    ) {
        // The entry sits two levels below the bundle's root (`definitions`, then the entry),
        // so a file nested nearly as deep as the reader allows would be too deep once inlined.
        // This also bounds the recursion.
        let container = matches!(json.value(at), JsonValue::Object(_) | JsonValue::Array(_));
        if container && depth + 2 >= MAX_JSON_DEPTH {
            self.errors.push(unsupported(
                self.ws,
                doc,
                at,
                format!(
                    "once inlined two levels below the root, this value would be nested more than {MAX_JSON_DEPTH} levels deep, which JSON readers (this one included) refuse"
                ),
            ));
            return;
        }
        let source = |span: crate::span::Span| {
            document
                .bytes()
                .get(span.start()..span.end())
                .map(String::from_utf8_lossy)
                .unwrap_or_default()
        };
        // A value written on one line in its file stays on one line.
        let inline = !source(json.span(at)).contains('\n');
        let (open_line, item_indent, close_indent, separator) = if inline {
            ("", String::new(), String::new(), ", ")
        } else {
            ("\n", STEP.repeat(depth + 3), STEP.repeat(depth + 2), ",\n")
        };
        match json.value(at) {
            JsonValue::Object(members) => {
                let schema = self.ws.schema_at(doc, at);
                let kept: Vec<_> = members
                    .iter()
                    .filter(|m| {
                        let is_root_schema_key = at == json.root() && m.key == "$schema";
                        let is_id = schema.is_some()
                            && (m.key == "$id" || m.key == "id")
                            && matches!(json.value(m.value), JsonValue::String(_));
                        !is_root_schema_key && !is_id
                    })
                    .collect();
                if kept.is_empty() {
                    out.push_str("{}");
                    return;
                }
                out.push('{');
                out.push_str(open_line);
                for (i, member) in kept.iter().enumerate() {
                    out.push_str(&item_indent);
                    out.push_str(&source(member.key_span));
                    out.push_str(": ");
                    let rewritten = (member.key == "$ref")
                        .then(|| schema.and_then(|s| self.rewritten.get(&s)))
                        .flatten();
                    match rewritten {
                        Some(text) => out.push_str(text),
                        None => self.write_value(doc, document, json, member.value, depth + 1, out),
                    }
                    if i + 1 < kept.len() {
                        out.push_str(separator);
                    }
                }
                out.push_str(open_line);
                out.push_str(&close_indent);
                out.push('}');
            }
            JsonValue::Array(items) => {
                if items.is_empty() {
                    out.push_str("[]");
                    return;
                }
                out.push('[');
                out.push_str(open_line);
                for (i, item) in items.iter().enumerate() {
                    out.push_str(&item_indent);
                    self.write_value(doc, document, json, *item, depth + 1, out);
                    if i + 1 < items.len() {
                        out.push_str(separator);
                    }
                }
                out.push_str(open_line);
                out.push_str(&close_indent);
                out.push(']');
            }
            _ => out.push_str(&source(json.span(at))),
        }
    }

    /// The main file's text with the `$ref` edits made and the inlined entries added.
    fn splice(&self, text: &str, inlined: &[String]) -> String {
        let mut edits = self.main_edits.clone();
        if !inlined.is_empty() {
            edits.push(self.insertion(text, inlined));
        }
        edits.sort_by_key(|(start, end, _)| (*start, *end));
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (start, end, replacement) in edits {
            out.push_str(text.get(at..start).unwrap_or_default());
            out.push_str(&replacement);
            at = end;
        }
        out.push_str(text.get(at..).unwrap_or_default());
        out
    }

    /// Where and what to insert for the inlined entries. Entries are written for a container
    /// indented one step (`  "definitions": {`); when the file is indented otherwise, the
    /// entries are still valid JSON, only less tidy.
    fn insertion(&self, text: &str, inlined: &[String]) -> (usize, usize, String) {
        let json = self.main_json;
        // A root written on one line gets its entries on that line too.
        let one_line = !text
            .get(json.span(json.root()).start()..json.span(json.root()).end())
            .unwrap_or_default()
            .contains('\n');
        let (newline, step, comma) = if one_line {
            ("", "", ", ")
        } else {
            ("\n", STEP, ",\n")
        };
        let indent_of = |at: usize| {
            if one_line {
                String::new()
            } else {
                line_indent(text, at)
            }
        };
        let entries = |indent: &str| {
            inlined
                .iter()
                .map(|entry| format!("{indent}{entry}"))
                .collect::<Vec<_>>()
                .join(comma)
        };
        // `{` + the entries + `}`, for a container written here.
        let object = |indent: &str| {
            format!(
                "{{{newline}{}{newline}{indent}}}",
                entries(&format!("{indent}{step}"))
            )
        };
        match &self.container {
            Container::Existing { at, .. } => {
                let members = match json.value(*at) {
                    JsonValue::Object(members) => members.as_slice(),
                    _ => &[],
                };
                match members.last() {
                    Some(last) => {
                        let end = json.span(last.value).end();
                        let indent = indent_of(last.key_span.start());
                        (end, end, format!("{comma}{}", entries(&indent)))
                    }
                    None => {
                        let span = json.span(*at);
                        (span.start(), span.end(), object(&indent_of(span.start())))
                    }
                }
            }
            Container::New => {
                let root = json.root();
                let members = match json.value(root) {
                    JsonValue::Object(members) => members.as_slice(),
                    _ => &[],
                };
                let (end, indent) = match members.last() {
                    Some(last) => (
                        json.span(last.value).end(),
                        indent_of(last.key_span.start()),
                    ),
                    None => (json.span(root).start() + 1, step.to_string()),
                };
                let separator = if members.is_empty() { newline } else { comma };
                (
                    end,
                    end,
                    format!("{separator}{indent}\"definitions\": {}", object(&indent)),
                )
            }
        }
    }
}

fn unsupported(ws: &Workspace, doc: DocId, at: JsonId, message: String) -> Diagnostic {
    Diagnostic::new(&codes::BUNDLE_UNSUPPORTED, ws.location(doc, at), message)
}
