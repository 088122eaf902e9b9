//! The code's shape, as the developers' guide and ARCHITECTURE.md state it: no source file under
//! `crates/*/src` over 600 lines (but generated tables, marked `@generated`), and no function in
//! those or in `xtask/src` over 80 lines unless a comment just above it, or its doc comment, says why
//! after the words `Over 80 lines:`.

use std::fmt::Write as _;
use std::path::PathBuf;

use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::module_map::rust_files;
use crate::repository_root;

const MAX_FILE_LINES: usize = 600;
const MAX_FN_LINES: usize = 80;
/// The words that let a function run longer, followed by the reason, in a `//` comment or in
/// the function's doc comment.
const LONG_MARK: &str = "Over 80 lines:";

/// The source files the rules cover: every crate's `src`, and xtask's.
fn sources() -> Vec<PathBuf> {
    let root = repository_root();
    let mut found = Vec::new();
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    crates.sort();
    for krate in crates {
        rust_files(&krate.join("src"), &mut found);
    }
    rust_files(&root.join("xtask/src"), &mut found);
    found
}

/// A generated table says so in its first lines, and is exempt from the file-length rule.
fn is_generated(text: &str) -> bool {
    text.lines().take(5).any(|line| line.contains("@generated"))
}

/// Functions longer than [`MAX_FN_LINES`] without a [`LONG_MARK`] comment.
struct LongFunctions<'a> {
    lines: Vec<&'a str>,
    found: Vec<(String, usize, usize)>,
}

impl LongFunctions<'_> {
    fn check(&mut self, name: String, item_start: usize, fn_line: usize, end: usize) {
        let length = end + 1 - fn_line;
        if length <= MAX_FN_LINES {
            return;
        }
        // Lines are 1-based: the comment may sit among the doc comments and attributes
        // (item_start..fn_line) or on the two lines above them.
        let from = item_start.saturating_sub(3);
        let marked = self
            .lines
            .get(from..fn_line)
            .unwrap_or_default()
            .iter()
            .any(|line| {
                let line = line.trim_start();
                line.starts_with("//") && line.contains(LONG_MARK)
            });
        if !marked {
            self.found.push((name, fn_line, length));
        }
    }
}

impl<'ast> Visit<'ast> for LongFunctions<'_> {
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.check(
            item.sig.ident.to_string(),
            item.span().start().line,
            item.sig.fn_token.span.start().line,
            item.block.brace_token.span.close().end().line,
        );
        syn::visit::visit_item_fn(self, item);
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.check(
            item.sig.ident.to_string(),
            item.span().start().line,
            item.sig.fn_token.span.start().line,
            item.block.brace_token.span.close().end().line,
        );
        syn::visit::visit_impl_item_fn(self, item);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(block) = &item.default {
            self.check(
                item.sig.ident.to_string(),
                item.span().start().line,
                item.sig.fn_token.span.start().line,
                block.brace_token.span.close().end().line,
            );
        }
        syn::visit::visit_trait_item_fn(self, item);
    }
}

#[test]
fn source_files_and_functions_stay_short() {
    let root = repository_root();
    let mut problems = String::new();
    let files = sources();
    assert!(files.len() > 50, "found only {} source files", files.len());
    for path in files {
        let shown = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let lines = text.lines().count();
        if lines > MAX_FILE_LINES && !is_generated(&text) && shown.starts_with("crates/") {
            let _ = writeln!(
                problems,
                "{shown}: {lines} lines (at most {MAX_FILE_LINES})"
            );
        }
        let file = match syn::parse_file(&text) {
            Ok(file) => file,
            Err(e) => {
                let _ = writeln!(problems, "{shown}: does not parse: {e}");
                continue;
            }
        };
        let mut visitor = LongFunctions {
            lines: text.lines().collect(),
            found: Vec::new(),
        };
        visitor.visit_file(&file);
        for (name, line, length) in visitor.found {
            let _ = writeln!(
                problems,
                "{shown}:{line}: fn {name} is {length} lines (at most {MAX_FN_LINES} without `{LONG_MARK} <reason>` in a comment above it)"
            );
        }
    }
    assert!(problems.is_empty(), "{problems}");
}
