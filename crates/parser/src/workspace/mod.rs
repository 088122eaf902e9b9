//! The set of documents behind one compile: the schema file, the files its `$ref`s reach, every
//! schema node in one table keyed by document and JSON value, and `$ref` resolution by full URI.

use rustc_hash::FxHashMap as HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use url::Url;

use crate::codes;
use crate::diagnostic::{Diagnostic, Location};
use crate::draft::{DeclaredDraft, Draft};
use crate::json::{self, JsonDoc, JsonErrorKind, JsonId, JsonValue, Member};
use crate::pointer;
use crate::schema::{
    DocId, Exclusive, Items, Keyword, Keywords, Property, Reference, Schema, SchemaId, SchemaKind,
    Site, TypeName,
};
use crate::span::{LineIndex, Span};
use crate::suggest::suggest_type;

/// Most documents one compile may load through file references.
pub const MAX_DOCUMENTS: usize = 1_000;

/// How to read a schema and the files it refers to.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Overrides the draft named by `$schema` in the main document.
    pub draft: Option<Draft>,
    /// The folder that file references may read from. Without one, file references are errors.
    pub ref_root: Option<PathBuf>,
}

/// One source text.
#[derive(Debug, Clone)]
pub struct Document {
    /// The name shown in diagnostics.
    pub display: String,
    /// Its base URI.
    pub url: Url,
    /// The raw bytes.
    pub text: Vec<u8>,
    /// The parsed JSON, when the text is JSON. Shared, so that the schema table can be built
    /// while reading it without copying values.
    pub json: Option<Arc<JsonDoc>>,
    /// The draft it is read as.
    pub draft: Draft,
    /// Built on first use: a document that no diagnostic points into never needs it.
    lines: std::sync::OnceLock<LineIndex>,
    /// `display`, shared by the locations that point into this document.
    file_name: Arc<str>,
}

impl Document {
    /// The text as UTF-8, where it is UTF-8.
    pub fn text_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.text).ok()
    }

    fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }
}

/// All documents and schema nodes of one compile.
#[derive(Debug)]
pub struct Workspace {
    docs: Vec<Document>,
    schemas: Vec<Schema>,
    /// The base URI of each schema; shared, since nearly every node has its document's.
    bases: Vec<Arc<Url>>,
    by_json: HashMap<(DocId, JsonId), SchemaId>,
    by_uri: HashMap<String, SchemaId>,
    docs_by_url: HashMap<String, DocId>,
    diagnostics: Vec<Diagnostic>,
    /// Document-level diagnostics of referenced files, reported only when the file is used.
    doc_diagnostics: Vec<Vec<Diagnostic>>,
    pending_refs: Vec<SchemaId>,
    ref_root: Option<RefRoot>,
    main_draft: Draft,
}

#[derive(Debug)]
struct RefRoot {
    absolute: PathBuf,
    canonical: PathBuf,
}

/// Why a failed reference failed; turned into a diagnostic at the `$ref`.
struct RefFailure {
    code: &'static crate::diagnostic::Code,
    message: String,
    help: Option<String>,
}

impl RefFailure {
    fn new(code: &'static crate::diagnostic::Code, message: impl Into<String>) -> Self {
        RefFailure {
            code,
            message: message.into(),
            help: None,
        }
    }
}

/// The file that marks a repository's root for `check`; the default reference root stops at it.
const CONFIG_FILE: &str = "schema2iceberg.toml";

/// The reference root used when none is given: the nearest folder at or above the schema's own
/// that holds a `schema2iceberg.toml` or a `.git`, otherwise the schema's own folder. It
/// depends only on where the schema is, never on the current directory, so a `../` reference
/// compiles (or not) the same from anywhere.
pub fn default_ref_root(schema: &Path) -> PathBuf {
    let absolute = absolute_path(schema);
    let folder = absolute
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| absolute.clone());
    folder
        .ancestors()
        .find(|dir| dir.join(CONFIG_FILE).is_file() || dir.join(".git").exists())
        .map_or(folder.clone(), Path::to_path_buf)
}

/// `path` made absolute against the current directory, with `.` and `..` removed by their
/// text, as URIs resolve them: `orders/../common/a.json` and `common/a.json` name one file.
pub fn absolute_path(path: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    let absolute = std::path::absolute(path).unwrap_or_else(|_| cwd.join(path));
    let mut normal = PathBuf::new();
    for component in absolute.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

impl Workspace {
    /// Reads the schema file at `path` and every file its references reach. Only the main file
    /// failing to be read is an `Err`; everything else becomes a diagnostic.
    pub fn open(path: &Path, mut options: LoadOptions) -> std::io::Result<Workspace> {
        let bytes = std::fs::read(path)?;
        let absolute = absolute_path(path);
        let url = Url::from_file_path(&absolute).map_err(|()| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file path")
        })?;
        if options.ref_root.is_none() {
            options.ref_root = Some(default_ref_root(path));
        }
        Ok(Workspace::from_bytes(
            &path.display().to_string(),
            bytes,
            url,
            options,
        ))
    }

    /// Builds a workspace from text already in memory, named `display`, whose relative
    /// references resolve against `base`.
    pub fn from_bytes(display: &str, bytes: Vec<u8>, base: Url, options: LoadOptions) -> Workspace {
        let ref_root = options.ref_root.as_deref().and_then(|root| {
            Some(RefRoot {
                absolute: std::path::absolute(root).ok()?,
                canonical: std::fs::canonicalize(root).ok()?,
            })
        });
        let mut ws = Workspace {
            docs: Vec::new(),
            schemas: Vec::new(),
            bases: Vec::new(),
            by_json: HashMap::default(),
            by_uri: HashMap::default(),
            docs_by_url: HashMap::default(),
            diagnostics: Vec::new(),
            doc_diagnostics: Vec::new(),
            pending_refs: Vec::new(),
            ref_root,
            main_draft: options.draft.unwrap_or(Draft::Draft07),
        };
        ws.add_document(display.to_string(), base, bytes, options.draft, true);
        ws.resolve_pending();
        ws
    }

    /// The main document's root schema, unless the main document is not JSON.
    pub fn root(&self) -> Option<SchemaId> {
        let doc = self.docs.first()?;
        let json = doc.json.as_ref()?;
        self.by_json.get(&(DocId(0), json.root())).copied()
    }

    /// The main document's draft.
    pub fn draft(&self) -> Draft {
        self.main_draft
    }

    /// The schema node `id`.
    pub fn schema(&self, id: SchemaId) -> Option<&Schema> {
        self.schemas.get(id.index())
    }

    /// How many schema nodes the workspace holds; every `SchemaId` is below it.
    pub fn schema_count(&self) -> usize {
        self.schemas.len()
    }

    /// The schema node built for the JSON value `at` of `doc`, if that value is a schema.
    pub fn schema_at(&self, doc: DocId, at: JsonId) -> Option<SchemaId> {
        self.by_json.get(&(doc, at)).copied()
    }

    /// The base URI in force at the schema node `id`.
    pub fn base(&self, id: SchemaId) -> Option<&Url> {
        self.bases.get(id.index()).map(|base| &**base)
    }

    /// The keywords of `id`, when it is an object schema.
    pub fn keywords(&self, id: SchemaId) -> Option<&Keywords> {
        match &self.schema(id)?.kind {
            SchemaKind::Object(k) => Some(k),
            _ => None,
        }
    }

    /// Every document, the main one first.
    pub fn documents(&self) -> &[Document] {
        &self.docs
    }

    /// The document `id`.
    pub fn document(&self, id: DocId) -> Option<&Document> {
        self.docs.get(id.0 as usize)
    }

    /// Document-level diagnostics: JSON syntax, duplicate keys and drafts. Problems of single
    /// schema nodes are in [`Schema::problems`].
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Document-level diagnostics of a referenced file (JSON syntax, duplicate keys, drafts),
    /// for the mapper to report once it uses the file. Empty for the main document, whose
    /// diagnostics are in [`Workspace::diagnostics`].
    pub fn document_diagnostics(&self, doc: DocId) -> &[Diagnostic] {
        self.doc_diagnostics
            .get(doc.0 as usize)
            .map_or(&[], Vec::as_slice)
    }

    /// The JSON value `at` of document `doc`.
    pub fn json_value(&self, doc: DocId, at: JsonId) -> &JsonValue {
        match self.document(doc).and_then(|d| d.json.as_ref()) {
            Some(json) => json.value(at),
            None => &JsonValue::Null,
        }
    }

    /// Where the JSON value `at` of `doc` is written.
    pub fn location(&self, doc: DocId, at: JsonId) -> Location {
        self.locate(Site::new(doc, at))
    }

    /// Where a schema node is written.
    pub fn schema_location(&self, id: SchemaId) -> Location {
        self.locate(self.schema_site(id))
    }

    /// Where the keyword value `at` in the same document as `schema` is written.
    pub fn keyword_location(&self, schema: SchemaId, at: JsonId) -> Location {
        match self.schema(schema) {
            Some(s) => self.location(s.doc, at),
            None => Location::default(),
        }
    }

    /// Where a property's name is written in `schema`'s `properties`, pointing at the name.
    pub fn property_location(&self, parent: SchemaId, property: &Property) -> Location {
        self.locate(self.property_site(parent, property))
    }

    /// The [`Site`] of a schema node.
    pub fn schema_site(&self, id: SchemaId) -> Site {
        match self.schema(id) {
            Some(s) => Site::new(s.doc, s.at),
            None => Site::default(),
        }
    }

    /// The [`Site`] of the keyword value `at` in the same document as `schema`.
    pub fn keyword_site(&self, schema: SchemaId, at: JsonId) -> Site {
        match self.schema(schema) {
            Some(s) => Site::new(s.doc, at),
            None => Site::default(),
        }
    }

    /// The [`Site`] of a property: its schema's pointer, with the span of its name when the
    /// name and the schema are in one document (they are not when the schema is a `$ref`'s
    /// target elsewhere).
    pub fn property_site(&self, parent: SchemaId, property: &Property) -> Site {
        let site = self.schema_site(property.schema);
        match self.schema(parent) {
            Some(s) if s.doc == site.doc => Site {
                span: Some(property.name_span),
                ..site
            },
            _ => site,
        }
    }

    /// Turns a [`Site`] into a [`Location`]: the pointer and the line and column are computed
    /// here, so a site that no diagnostic needs costs nothing.
    pub fn locate(&self, site: Site) -> Location {
        let Some(d) = self.document(site.doc) else {
            return Location::default();
        };
        match &d.json {
            Some(json) => {
                let span = site.span.unwrap_or_else(|| json.span(site.at));
                locate(d, json.pointer(site.at), span)
            }
            None => locate(d, String::new(), Span::default()),
        }
    }

    fn add_document(
        &mut self,
        display: String,
        url: Url,
        bytes: Vec<u8>,
        draft_override: Option<Draft>,
        is_main: bool,
    ) -> Option<DocId> {
        let id = DocId(u32::try_from(self.docs.len()).ok()?);
        let mut found: Vec<Diagnostic> = Vec::new();
        let mut doc = Document {
            file_name: Arc::from(display.as_str()),
            display,
            url: url.clone(),
            text: bytes,
            json: None,
            draft: draft_override.unwrap_or(self.main_draft),
            lines: std::sync::OnceLock::new(),
        };
        match json::parse(&doc.text) {
            Ok(parsed) => {
                for dup in &parsed.duplicates {
                    let location = locate(&doc, parsed.doc.pointer(dup.value), dup.span);
                    let (first_line, _) = doc.lines().line_col(&doc.text, dup.first.start());
                    found.push(
                        Diagnostic::new(
                            &codes::DUPLICATE_KEY,
                            location,
                            format!(
                                "key `{}` is written twice in one object (first on line {first_line}); the later value is used",
                                dup.key
                            ),
                        )
                        .with_help("JSON parsers disagree on which duplicate wins; delete one of them"),
                    );
                }
                doc.json = Some(Arc::new(parsed.doc));
            }
            Err(error) => {
                let (code, message) = match error.kind {
                    JsonErrorKind::InvalidUtf8 => (
                        &codes::INVALID_UTF8,
                        "the file is not valid UTF-8".to_string(),
                    ),
                    JsonErrorKind::TooDeep => (
                        &codes::JSON_TOO_DEEP,
                        format!(
                            "arrays and objects are nested more than {} levels deep",
                            json::MAX_JSON_DEPTH
                        ),
                    ),
                    JsonErrorKind::Syntax(text) => {
                        (&codes::INVALID_JSON, format!("invalid JSON: {text}"))
                    }
                };
                let location = locate(&doc, String::new(), error.span);
                self.diagnostics
                    .push(Diagnostic::new(code, location, message));
            }
        }
        if let Some(json) = &doc.json {
            let declared = json.member(json.root(), "$schema").map(|m| m.value);
            match (draft_override, declared) {
                (Some(_), _) => {}
                (None, None) => {
                    if is_main {
                        let location = locate(&doc, String::new(), Span::new(0, 1));
                        found.push(Diagnostic::new(
                            &codes::DRAFT_ASSUMED,
                            location,
                            "no `$schema`: the schema is read as draft-07",
                        ));
                    }
                }
                (None, Some(at)) => {
                    // Only when there is something to report: a location builds the line index.
                    let location = || locate(&doc, "/$schema".to_string(), json.span(at));
                    match json.value(at) {
                        JsonValue::String(uri) => match Draft::from_schema_uri(uri) {
                            DeclaredDraft::Supported(draft) => doc.draft = draft,
                            DeclaredDraft::Later(name) => found.push(
                                Diagnostic::new(
                                    &codes::UNSUPPORTED_DRAFT,
                                    location(),
                                    format!("`$schema` names JSON Schema {name}, but the Glue Schema Registry accepts only drafts 04, 06 and 07"),
                                )
                                .with_help("declare draft-04, -06 or -07, or pass --draft 04|06|07 to read the file as one of them"),
                            ),
                            DeclaredDraft::Unknown => found.push(
                                Diagnostic::new(
                                    &codes::UNSUPPORTED_DRAFT,
                                    location(),
                                    format!("`$schema` is `{uri}`, which is not a draft that the Glue Schema Registry accepts (04, 06 or 07)"),
                                )
                                .with_help("if the file extends a supported draft (as Snowplow's self-describing schemas extend draft-04), pass --draft 04|06|07"),
                            ),
                        },
                        _ => found.push(Diagnostic::new(
                            &codes::INVALID_KEYWORD,
                            location(),
                            "`$schema` must be a string",
                        )),
                    }
                }
            }
        }
        if is_main {
            self.main_draft = doc.draft;
            self.diagnostics.append(&mut found);
        }
        self.doc_diagnostics.push(found);
        let root = doc.json.as_ref().map(|json| json.root());
        self.docs_by_url.insert(without_fragment(&url), id);
        self.docs.push(doc);
        if let Some(root) = root {
            // Schemas are JSON objects (or, rarely, booleans), so the object count is a good first
            // size for the index and the bases: they are not rehashed again and again as they grow.
            let objects = self.json(id).map_or(0, JsonDoc::object_count);
            self.by_json.reserve(objects);
            self.bases.reserve(objects);
            let root_schema = self.build(id, root, &Arc::new(url.clone()));
            self.by_uri
                .entry(without_fragment(&url))
                .or_insert(root_schema);
        }
        Some(id)
    }

    fn json(&self, doc: DocId) -> Option<&JsonDoc> {
        self.document(doc)?.json.as_deref()
    }

    /// The base URI in force at `at`: the document's, changed by each `$id` on the way down.
    fn base_at(&self, doc: DocId, at: JsonId) -> Url {
        let Some(d) = self.document(doc) else {
            return self
                .docs
                .first()
                .map(|d| d.url.clone())
                .unwrap_or_else(fallback_url);
        };
        let mut chain = Vec::new();
        if let Some(json) = &d.json {
            let mut cursor = Some(at);
            while let Some(node) = cursor {
                chain.push(node);
                cursor = json.node(node).and_then(|n| n.parent);
            }
        }
        let mut base = d.url.clone();
        for node in chain.into_iter().rev() {
            let beside_ref = self
                .json(doc)
                .and_then(|j| j.member(node, "$ref"))
                .is_some();
            if let Some(JsonValue::String(id)) = self
                .json(doc)
                .filter(|_| !beside_ref)
                .and_then(|j| j.member(node, d.draft.id_keyword()))
                .map(|m| self.json_value(doc, m.value))
            {
                if let Ok(joined) = base.join(id) {
                    if !id.starts_with('#') {
                        base = joined;
                        base.set_fragment(None);
                    }
                }
            }
        }
        base
    }

    /// Builds (once) the schema node for the JSON value `at`, and every subschema below it.
    fn build(&mut self, doc: DocId, at: JsonId, base: &Arc<Url>) -> SchemaId {
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

    /// Applies an `$id` (`id` in draft-04): registers the node under its URI and returns the
    /// base URI for what is below it.
    fn enter_resource(
        &mut self,
        id: SchemaId,
        doc: DocId,
        members: &[Member],
        draft: Draft,
        base: &Arc<Url>,
    ) -> Arc<Url> {
        // Drafts 04–07 ignore every keyword beside `$ref`, `$id` included.
        if members.iter().any(|m| m.key == "$ref") {
            return Arc::clone(base);
        }
        let Some(member) = members.iter().find(|m| m.key == draft.id_keyword()) else {
            return Arc::clone(base);
        };
        let JsonValue::String(text) = self.json_value(doc, member.value).clone() else {
            return Arc::clone(base);
        };
        let Ok(joined) = base.join(&text) else {
            return Arc::clone(base);
        };
        match joined.fragment() {
            Some(fragment) if !fragment.is_empty() && !fragment.starts_with('/') => {
                self.by_uri.entry(joined.to_string()).or_insert(id);
            }
            _ => {}
        }
        if text.starts_with('#') {
            return Arc::clone(base);
        }
        let mut resource = joined;
        resource.set_fragment(None);
        self.by_uri.entry(resource.to_string()).or_insert(id);
        Arc::new(resource)
    }

    /// The parsed JSON of `doc`, shared (an empty document when it is not JSON, which has no
    /// schema nodes to build).
    fn shared_json(&self, doc: DocId) -> Arc<JsonDoc> {
        self.document(doc)
            .and_then(|d| d.json.clone())
            .unwrap_or_default()
    }

    fn read_keywords(
        &mut self,
        doc: DocId,
        json: &JsonDoc,
        members: &[Member],
        base: &Arc<Url>,
        problems: &mut Vec<Diagnostic>,
    ) -> Keywords {
        let mut k = Keywords {
            keys: members.iter().map(|m| (m.key.clone(), m.value)).collect(),
            ..Keywords::default()
        };
        for member in members {
            let at = member.value;
            let value = json.value(at);
            let invalid = |ws: &Self, expected: &str| {
                Diagnostic::new(
                    &codes::INVALID_KEYWORD,
                    ws.location(doc, at),
                    format!("`{}` must be {expected}", member.key),
                )
            };
            match member.key.as_str() {
                "$ref" => match value {
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
                    _ => problems.push(invalid(self, "a string")),
                },
                "type" => {
                    let names: Vec<(JsonValue, JsonId)> = match &value {
                        JsonValue::String(_) => vec![(value.clone(), at)],
                        JsonValue::Array(items) => items
                            .iter()
                            .map(|i| (self.json_value(doc, *i).clone(), *i))
                            .collect(),
                        _ => {
                            problems.push(invalid(self, "a string or an array of strings"));
                            continue;
                        }
                    };
                    let mut types = Vec::new();
                    for (name, name_at) in names {
                        match &name {
                            JsonValue::String(s) => match TypeName::parse(s) {
                                Some(t) => {
                                    if !types.contains(&t) {
                                        types.push(t);
                                    }
                                }
                                None => problems.push(
                                    Diagnostic::new(
                                        &codes::UNKNOWN_TYPE,
                                        self.location(doc, name_at),
                                        format!("`{s}` is not a JSON Schema type"),
                                    )
                                    .with_help(suggest_type(s)),
                                ),
                            },
                            _ => problems.push(invalid(self, "a string or an array of strings")),
                        }
                    }
                    k.types = Some(Keyword { value: types, at });
                }
                "format" | "contentEncoding" | "encoding" | "description" => match value {
                    JsonValue::String(text) => {
                        let keyword = Some(Keyword {
                            value: text.clone(),
                            at,
                        });
                        match member.key.as_str() {
                            "format" => k.format = keyword,
                            "contentEncoding" => k.content_encoding = keyword,
                            "encoding" => k.encoding = keyword,
                            _ => k.description = keyword,
                        }
                    }
                    _ => problems.push(invalid(self, "a string")),
                },
                "enum" => match value {
                    JsonValue::Array(items) => {
                        k.enum_values = Some(Keyword {
                            value: items.clone(),
                            at,
                        })
                    }
                    _ => problems.push(invalid(self, "an array")),
                },
                "const" => k.const_value = Some(Keyword { value: at, at }),
                "multipleOf" | "maximum" | "minimum" => match value {
                    JsonValue::Number(n) => {
                        let keyword = Some(Keyword {
                            value: n.clone(),
                            at,
                        });
                        match member.key.as_str() {
                            "multipleOf" => k.multiple_of = keyword,
                            "maximum" => k.maximum = keyword,
                            _ => k.minimum = keyword,
                        }
                    }
                    _ => problems.push(invalid(self, "a number")),
                },
                "exclusiveMaximum" | "exclusiveMinimum" => {
                    let exclusive = match value {
                        JsonValue::Bool(b) => Exclusive::Flag(*b),
                        JsonValue::Number(n) => Exclusive::Bound(n.clone()),
                        _ => {
                            problems.push(invalid(
                                self,
                                "a number (draft-06/07) or a boolean (draft-04)",
                            ));
                            continue;
                        }
                    };
                    let keyword = Some(Keyword {
                        value: exclusive,
                        at,
                    });
                    if member.key == "exclusiveMaximum" {
                        k.exclusive_maximum = keyword;
                    } else {
                        k.exclusive_minimum = keyword;
                    }
                }
                "properties" => match value {
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
                    _ => problems.push(invalid(self, "an object")),
                },
                "required" => match value {
                    JsonValue::Array(items) => {
                        let mut names = Vec::new();
                        for &item in items {
                            match json.value(item) {
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
                    JsonValue::Bool(_) => problems.push(invalid(
                        self,
                        "an array of property names (the boolean form is draft-03)",
                    )),
                    _ => problems.push(invalid(self, "an array of property names")),
                },
                "additionalProperties" => {
                    let schema = self.subschema(doc, at, base, problems, &member.key);
                    k.additional_properties = schema.map(|s| Keyword { value: s, at });
                }
                "items" => match value {
                    JsonValue::Array(items) => {
                        let list = items.iter().map(|i| self.build(doc, *i, base)).collect();
                        k.items = Some(Keyword {
                            value: Items::Tuple(list),
                            at,
                        });
                    }
                    _ => {
                        let schema = self.subschema(doc, at, base, problems, &member.key);
                        k.items = schema.map(|s| Keyword {
                            value: Items::Single(s),
                            at,
                        });
                    }
                },
                "allOf" | "anyOf" | "oneOf" => match value {
                    JsonValue::Array(items) if !items.is_empty() => {
                        let list: Vec<SchemaId> =
                            items.iter().map(|i| self.build(doc, *i, base)).collect();
                        let keyword = Some(Keyword { value: list, at });
                        match member.key.as_str() {
                            "allOf" => k.all_of = keyword,
                            "anyOf" => k.any_of = keyword,
                            _ => k.one_of = keyword,
                        }
                    }
                    _ => problems.push(invalid(self, "a non-empty array of schemas")),
                },
                "patternProperties" | "definitions" | "$defs" | "dependencies" => {
                    if let JsonValue::Object(entries) = value {
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
                            k.pattern_properties = Some(Keyword { value: list, at });
                        }
                    } else if member.key != "dependencies" {
                        problems.push(invalid(self, "an object"));
                    }
                }
                "not" | "if" | "then" | "else" | "additionalItems" | "contains"
                | "propertyNames" => {
                    self.subschema(doc, at, base, problems, &member.key);
                }
                _ => {}
            }
        }
        k
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

    fn resolve_pending(&mut self) {
        while let Some(id) = self.pending_refs.pop() {
            let Some(SchemaKind::Object(k)) = self.schema(id).map(|s| &s.kind) else {
                continue;
            };
            let Some(reference) = &k.reference else {
                continue;
            };
            let (text, at) = (reference.value.text.clone(), reference.at);
            let doc = self.schema(id).map(|s| s.doc).unwrap_or(DocId(0));
            let target = self.resolve(id, &text).map_err(|mut failure| {
                if failure.code.name == codes::REF_DANGLING.name {
                    self.explain_id_base(id, &text, &mut failure);
                }
                let mut d = Diagnostic::new(failure.code, self.location(doc, at), failure.message);
                d.help = failure.help;
                Box::new(d)
            });
            if let Some(Schema {
                kind: SchemaKind::Object(k),
                ..
            }) = self.schemas.get_mut(id.index())
            {
                if let Some(reference) = &mut k.reference {
                    reference.value.target = target;
                }
            }
        }
    }

    /// When the base that `from`'s reference was resolved against comes from an `$id` rather
    /// than the file's own place, says which `$id`, and whether the reference names an existing
    /// file against the file's own place: a relative `$id` that repeats a folder is a common
    /// cause of dangling references.
    fn explain_id_base(&self, from: SchemaId, text: &str, failure: &mut RefFailure) {
        let (Some(schema), Some(base)) = (self.schema(from), self.bases.get(from.index())) else {
            return;
        };
        let Some(doc) = self.document(schema.doc) else {
            return;
        };
        if **base == doc.url {
            return;
        }
        let Some(json) = doc.json.as_deref() else {
            return;
        };
        // The nearest `$id` above the reference (one beside `$ref` is ignored, as drafts 04–07
        // say), and the line it is written on.
        let keyword = doc.draft.id_keyword();
        let mut cursor = json.node(schema.at).and_then(|n| n.parent);
        let mut found = None;
        while let Some(node) = cursor {
            if json.member(node, "$ref").is_none() {
                if let Some(member) = json.member(node, keyword) {
                    if let JsonValue::String(id_text) = json.value(member.value) {
                        if !id_text.starts_with('#') {
                            found = Some((id_text.clone(), member.key_span));
                            break;
                        }
                    }
                }
            }
            cursor = json.node(node).and_then(|n| n.parent);
        }
        let Some((id_text, span)) = found else {
            return;
        };
        let (line, _) = doc.lines().line_col(&doc.text, span.start());
        failure.message.push_str(&format!(
            "; it was resolved against `{keyword}` \"{id_text}\" (line {line}), not against this file's own place"
        ));
        let own = doc
            .url
            .join(text)
            .ok()
            .and_then(|u| u.to_file_path().ok())
            // Only inside the reference root: what exists outside it is not ours to report.
            .filter(|p| {
                self.ref_root.as_ref().is_some_and(|root| {
                    p.starts_with(&root.absolute) || p.starts_with(&root.canonical)
                }) && p.is_file()
            });
        failure.help = Some(match own {
            Some(path) => format!(
                "against this file's own place, `{text}` names `{}`, which exists: bundle the schemas into one document (the registry needs one anyway), or write the `{keyword}`s and `$ref`s against the files' real places",
                display_path(&path, self.docs.first())
            ),
            None => format!(
                "relative references resolve against the nearest `{keyword}`: bundle the schemas into one document (the registry needs one anyway), or write the `{keyword}`s and `$ref`s against the files' real places"
            ),
        });
    }

    fn resolve(&mut self, from: SchemaId, text: &str) -> Result<SchemaId, RefFailure> {
        let Some(base) = self.bases.get(from.index()).cloned() else {
            return Err(RefFailure::new(
                &codes::REF_DANGLING,
                format!("`{text}` points at nothing"),
            ));
        };
        let target = base.join(text).map_err(|e| {
            RefFailure::new(
                &codes::REF_INVALID,
                format!("`{text}` is not a valid URI reference: {e}"),
            )
        })?;
        let resource_uri = without_fragment(&target);
        let resource = match self.by_uri.get(&resource_uri) {
            Some(s) => *s,
            None => self.load_resource(&target, text)?,
        };
        let fragment = target.fragment().unwrap_or("");
        if fragment.is_empty() {
            return Ok(resource);
        }
        let decoded = pointer::percent_decode(fragment).ok_or_else(|| {
            RefFailure::new(
                &codes::REF_INVALID,
                format!("the fragment of `{text}` is not valid percent-encoding"),
            )
        })?;
        if !decoded.starts_with('/') {
            let anchor = target.to_string();
            return self.by_uri.get(&anchor).copied().ok_or_else(|| RefFailure {
                code: &codes::REF_DANGLING,
                message: format!("`{text}` names the anchor `#{decoded}`, but no `$id` defines it"),
                help: Some(
                    "a fragment that is a JSON Pointer starts with `/`, as in `#/definitions/name`"
                        .to_string(),
                ),
            });
        }
        let tokens = pointer::decode(&decoded).ok_or_else(|| {
            RefFailure::new(
                &codes::REF_INVALID,
                format!("`{decoded}` is not a valid JSON Pointer (`~` must be followed by 0 or 1)"),
            )
        })?;
        let (doc, start) = match self.schema(resource) {
            Some(s) => (s.doc, s.at),
            None => {
                return Err(RefFailure::new(
                    &codes::REF_DANGLING,
                    format!("`{text}` points at nothing"),
                ))
            }
        };
        let found = self
            .json(doc)
            .and_then(|json| json.walk(start, tokens.iter().map(String::as_str)));
        let Some(found) = found else {
            return Err(RefFailure {
                code: &codes::REF_DANGLING,
                message: format!("`{text}` points at nothing: there is no value at `{decoded}`"),
                help: self.closest_definition(doc, start, &tokens),
            });
        };
        if !matches!(
            self.json_value(doc, found),
            JsonValue::Object(_) | JsonValue::Bool(_)
        ) {
            return Err(RefFailure::new(
                &codes::REF_DANGLING,
                format!("`{text}` points at a value that is not a schema"),
            ));
        }
        if let Some(built) = self.by_json.get(&(doc, found)) {
            return Ok(*built);
        }
        let base = Arc::new(self.base_at(doc, found));
        // References inside newly built nodes queue themselves in `pending_refs`.
        Ok(self.build(doc, found, &base))
    }

    /// For a dangling `#/definitions/x`, names the definitions that do exist.
    fn closest_definition(&self, doc: DocId, start: JsonId, tokens: &[String]) -> Option<String> {
        let (last, parent_tokens) = tokens.split_last()?;
        let json = self.json(doc)?;
        let parent = json.walk(start, parent_tokens.iter().map(String::as_str))?;
        let JsonValue::Object(members) = json.value(parent) else {
            return None;
        };
        let lower = last.to_lowercase();
        let close: Vec<&str> = members
            .iter()
            .map(|m| m.key.as_str())
            .filter(|k| k.to_lowercase() == lower || k.contains(last.as_str()) || last.contains(*k))
            .take(3)
            .collect();
        if close.is_empty() {
            None
        } else {
            Some(format!(
                "did you mean {}?",
                close
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ))
        }
    }

    fn load_resource(&mut self, target: &Url, text: &str) -> Result<SchemaId, RefFailure> {
        match target.scheme() {
            "file" => {}
            "http" | "https" => {
                return Err(RefFailure {
                    code: &codes::REF_NETWORK,
                    message: format!("`{text}` is a network reference, and no `$id` in the schema defines `{}`", without_fragment(target)),
                    help: Some("the tool never uses the network: copy the schema into the repository and refer to the file".to_string()),
                })
            }
            other => {
                return Err(RefFailure::new(
                    &codes::REF_DANGLING,
                    format!("`{text}` names a `{other}:` URI that no `$id` in the schema defines"),
                ))
            }
        }
        let path = target.to_file_path().map_err(|()| {
            RefFailure::new(
                &codes::REF_INVALID,
                format!("`{text}` is not a usable file path"),
            )
        })?;
        let Some(root) = &self.ref_root else {
            return Err(RefFailure::new(
                &codes::REF_OUTSIDE_ROOT,
                format!(
                    "`{text}` refers to a file, but no reference root is set, so no file is read"
                ),
            ));
        };
        let outside = || RefFailure {
            code: &codes::REF_OUTSIDE_ROOT,
            message: format!(
                "`{text}` resolves to a file outside the reference root, so it is not read"
            ),
            help: Some(
                "keep referenced files inside the root, or pass --ref-root to widen it".to_string(),
            ),
        };
        if !path.starts_with(&root.absolute) && !path.starts_with(&root.canonical) {
            return Err(outside());
        }
        let canonical = match std::fs::canonicalize(&path) {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(RefFailure::new(
                    &codes::REF_DANGLING,
                    format!(
                        "`{text}` names the file `{}`, which does not exist",
                        display_path(&path, self.docs.first())
                    ),
                ))
            }
            Err(e) => {
                return Err(RefFailure::new(
                    &codes::REF_UNREADABLE,
                    format!(
                        "cannot read `{}`: {e}",
                        display_path(&path, self.docs.first())
                    ),
                ))
            }
        };
        if !canonical.starts_with(&root.canonical) {
            let mut failure = outside();
            failure.message = format!(
                "`{text}` is a link to a file outside the reference root, so it is not read"
            );
            return Err(failure);
        }
        if let Some(doc) = self.docs_by_url.get(&without_fragment(target)) {
            let root_json = self.json(*doc).map(JsonDoc::root);
            return match root_json.and_then(|r| self.by_json.get(&(*doc, r))) {
                Some(id) => Ok(*id),
                None => Err(RefFailure::new(
                    &codes::REF_DANGLING,
                    format!("`{text}` names a file that is not valid JSON"),
                )),
            };
        }
        if self.docs.len() >= MAX_DOCUMENTS {
            return Err(RefFailure::new(
                &codes::REF_UNREADABLE,
                format!("more than {MAX_DOCUMENTS} files are referenced; `{text}` is not read"),
            ));
        }
        let bytes = std::fs::read(&canonical).map_err(|e| {
            RefFailure::new(
                &codes::REF_UNREADABLE,
                format!(
                    "cannot read `{}`: {e}",
                    display_path(&path, self.docs.first())
                ),
            )
        })?;
        let mut url = target.clone();
        url.set_fragment(None);
        let doc = self
            .add_document(
                display_path(&path, self.docs.first()),
                url,
                bytes,
                None,
                false,
            )
            .ok_or_else(|| RefFailure::new(&codes::REF_UNREADABLE, "too many documents"))?;
        let root_json = self.json(doc).map(JsonDoc::root);
        match root_json.and_then(|r| self.by_json.get(&(doc, r))) {
            Some(id) => Ok(*id),
            None => Err(RefFailure::new(
                &codes::REF_DANGLING,
                format!(
                    "`{text}` names `{}`, which is not valid JSON (see the error for that file)",
                    display_path(&path, self.docs.first())
                ),
            )),
        }
    }
}

fn without_fragment(url: &Url) -> String {
    let mut u = url.clone();
    u.set_fragment(None);
    u.to_string()
}

fn fallback_url() -> Url {
    // Reached only for a document id from another workspace; every workspace has a document.
    match Url::parse("file:///") {
        Ok(url) => url,
        Err(_) => Url::from_directory_path("/").unwrap_or_else(|()| fallback_url()),
    }
}

/// How a referenced file is named in diagnostics: relative to the main file's name as it was
/// given (`../common/money.json` beside `order.json`), so that the name does not depend on the
/// current directory; absolute when the main file has no place.
fn display_path(path: &Path, main: Option<&Document>) -> String {
    let Some((main, main_dir)) = main.and_then(|m| {
        let dir = m.url.to_file_path().ok()?.parent()?.to_path_buf();
        Some((m, dir))
    }) else {
        return path.display().to_string();
    };
    let shown_dir = Path::new(&main.display)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let common = main_dir
        .components()
        .zip(path.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut shown = shown_dir;
    for _ in common..main_dir.components().count() {
        // Step up by the name as given where it has a folder to drop, else write `..`.
        let droppable = matches!(
            shown.components().next_back(),
            Some(std::path::Component::Normal(_))
        );
        if droppable {
            shown.pop();
        } else {
            shown.push("..");
        }
    }
    for component in path.components().skip(common) {
        shown.push(component);
    }
    shown.display().to_string()
}

fn locate(doc: &Document, pointer: String, span: Span) -> Location {
    let (line, column) = doc.lines().line_col(&doc.text, span.start());
    Location {
        file: Arc::clone(&doc.file_name),
        pointer,
        span,
        line,
        column,
    }
}
