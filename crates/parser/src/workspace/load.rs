//! Reading files into a workspace: the main schema file, each file a `$ref` reaches (only inside
//! the reference root, at most [`MAX_DOCUMENTS`]), and the draft each document is read as.

use rustc_hash::FxHashMap as HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use url::Url;

use super::ids::without_fragment;
use super::resolve::RefFailure;
use super::{Document, LoadOptions, Workspace, MAX_DOCUMENTS};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::draft::{DeclaredDraft, Draft};
use crate::file::JsonFile;
use crate::json::{JsonDoc, JsonValue};
use crate::schema::{DocId, SchemaId};
use crate::span::Span;

#[derive(Debug)]
pub(super) struct RefRoot {
    pub(super) absolute: PathBuf,
    pub(super) canonical: PathBuf,
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
    // `std::path::absolute` asks for the current directory only for a relative path; every
    // command calls this for each file it names, so an absolute one costs no system call.
    let absolute = std::path::absolute(path)
        .unwrap_or_else(|_| std::env::current_dir().unwrap_or_default().join(path));
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
                // `..` removed by its text, as in the file paths made from `$ref` URLs, so
                // that the two compare alike; `canonical` is the check through links.
                absolute: absolute_path(root),
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

    /// Reads one file into the workspace and builds the schema nodes of its JSON. A file that is
    /// not JSON stays a document (its error is a workspace diagnostic) with no schema nodes.
    fn add_document(
        &mut self,
        display: String,
        url: Url,
        bytes: Vec<u8>,
        draft_override: Option<Draft>,
        is_main: bool,
    ) -> Option<DocId> {
        let id = DocId(u32::try_from(self.docs.len()).ok()?);
        let (file, read) = JsonFile::read(display, bytes);
        let mut found: Vec<Diagnostic> = match read {
            Ok(duplicates) => duplicates,
            Err(error) => {
                // Reported even for a referenced file: nothing else will say why it has no schema.
                self.diagnostics.push(error);
                Vec::new()
            }
        };
        let mut doc = Document {
            file,
            url: url.clone(),
            draft: draft_override.unwrap_or(self.main_draft),
        };
        if draft_override.is_none() {
            read_declared_draft(&mut doc, is_main, &mut found);
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

    /// The schema at the root of the file that `target` names, read (once) into the workspace.
    pub(super) fn load_resource(
        &mut self,
        target: &Url,
        text: &str,
    ) -> Result<SchemaId, RefFailure> {
        let (path, canonical) = self.file_in_root(target, text)?;
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

    /// The file that `target` names, as given and canonical, when the tool may read it: a
    /// `file:` URI inside the reference root, also once links are followed.
    fn file_in_root(&self, target: &Url, text: &str) -> Result<(PathBuf, PathBuf), RefFailure> {
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
        Ok((path, canonical))
    }
}

/// How a referenced file is named in diagnostics: relative to the main file's name as it was
/// given (`../common/money.json` beside `order.json`), so that the name does not depend on the
/// current directory; absolute when the main file has no place.
pub(super) fn display_path(path: &Path, main: Option<&Document>) -> String {
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

/// Sets the draft that `doc` is read as from its `$schema`, and reports a `$schema` that names no
/// supported draft (and, for the main document, a missing one). Not called with `--draft`.
fn read_declared_draft(doc: &mut Document, is_main: bool, found: &mut Vec<Diagnostic>) {
    let Some(json) = doc.json.clone() else {
        return;
    };
    let declared = json.member(json.root(), "$schema").map(|m| m.value);
    match declared {
        None => {
            if is_main {
                let location = doc.locate(String::new(), Span::new(0, 1));
                found.push(Diagnostic::new(
                    &codes::DRAFT_ASSUMED,
                    location,
                    "no `$schema`: the schema is read as draft-07",
                ));
            }
        }
        Some(at) => {
            // Only when there is something to report: a location builds the line index.
            let location = |doc: &Document| doc.locate("/$schema".to_string(), json.span(at));
            match json.value(at) {
                JsonValue::String(uri) => match Draft::from_schema_uri(uri) {
                    DeclaredDraft::Supported(draft) => doc.draft = draft,
                    DeclaredDraft::Later(name) => found.push(
                        Diagnostic::new(
                            &codes::UNSUPPORTED_DRAFT,
                            location(doc),
                            format!("`$schema` names JSON Schema {name}, but the Glue Schema Registry accepts only drafts 04, 06 and 07"),
                        )
                        .with_help("declare draft-04, -06 or -07, or pass --draft 04|06|07 to read the file as one of them"),
                    ),
                    DeclaredDraft::Unknown => found.push(
                        Diagnostic::new(
                            &codes::UNSUPPORTED_DRAFT,
                            location(doc),
                            format!("`$schema` is `{uri}`, which is not a draft that the Glue Schema Registry accepts (04, 06 or 07)"),
                        )
                        .with_help("if the file extends a supported draft (as Snowplow's self-describing schemas extend draft-04), pass --draft 04|06|07"),
                    ),
                },
                _ => found.push(Diagnostic::new(
                    &codes::INVALID_KEYWORD,
                    location(doc),
                    "`$schema` must be a string",
                )),
            }
        }
    }
}
