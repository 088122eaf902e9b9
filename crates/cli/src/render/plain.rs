//! The common diagnostic in plain text, written straight into a `String`: byte for byte what
//! annotate-snippets renders, without its buffer of one styled character per cell.
//!
//! annotate-snippets lays every character of a diagnostic into a grid, then walks the grid to
//! write it out; on Mozilla's largest schema (5,923 warnings) that was most of a text run.
//! Most diagnostics are one short, printable-ASCII source line with one underlined span and
//! plain messages, whose layout is fixed. [`push_snippet`] writes those, and declines everything
//! else (colour, tabs, control or wide characters, lines that annotate-snippets would trim,
//! messages on several lines), which the caller then hands to annotate-snippets. The tests
//! below render every diagnostic of the fixtures and the corpus both ways and compare them.

use annotate_snippets::renderer::DEFAULT_TERM_WIDTH;
use schema2iceberg_parser::Diagnostic;

use super::{push_all, push_number};

/// Leading whitespace that annotate-snippets leaves in place: beyond this much (counted after
/// its ellipsis padding), it cuts the line's start and shows `...`.
const KEPT_INDENT: usize = 20;
/// The room annotate-snippets keeps around a span for an ellipsis.
const ELLIPSIS_PADDING: usize = 6;

/// Appends the diagnostic with `range` of `line` underlined, as `Renderer::plain()` renders
/// it, and says so; appends nothing where the layout is not the simple one.
pub(super) fn push_snippet(
    out: &mut String,
    d: &Diagnostic,
    place: &str,
    line: &str,
    range: std::ops::Range<usize>,
) -> bool {
    let gutter = decimal_digits(d.location.line);
    if !fits_unchanged(line, &range, gutter)
        || ![d.message.as_str(), place, &d.location.file]
            .into_iter()
            .chain(d.help.as_deref())
            .all(shown_as_is)
    {
        return false;
    }
    let pad = |out: &mut String, width: usize| push_repeated(out, SPACES, width);
    push_all(
        out,
        &[d.severity.as_str(), "[", d.code, "]: ", &d.message, "\n"],
    );
    pad(out, gutter);
    push_all(out, &["--> ", &d.location.file, ":"]);
    push_number(out, d.location.line);
    out.push(':');
    push_number(out, range.start + 1);
    out.push('\n');
    pad(out, gutter + 1);
    out.push_str("|\n");
    push_number(out, d.location.line);
    push_all(out, &[" | ", line, "\n"]);
    pad(out, gutter + 1);
    out.push_str("| ");
    pad(out, range.start);
    push_repeated(out, CARETS, range.len());
    out.push('\n');
    pad(out, gutter + 1);
    out.push_str("|\n");
    pad(out, gutter + 1);
    push_all(out, &["= note: ", place]);
    if let Some(help) = &d.help {
        out.push('\n');
        pad(out, gutter + 1);
        push_all(out, &["= help: ", help]);
    }
    true
}

const SPACES: &str = "                                                                ";
const CARETS: &str = "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^";

/// Appends `count` characters of `run`, a string of one ASCII character repeated.
fn push_repeated(out: &mut String, run: &str, count: usize) {
    let mut left = count;
    while left > 0 {
        let now = left.min(run.len());
        out.push_str(run.get(..now).unwrap_or_default());
        left -= now;
    }
}

/// Whether every byte is printable ASCII. Without an early exit, the compiler checks many
/// bytes per instruction; the texts checked here are nearly always printable.
fn printable_ascii(text: &str) -> bool {
    text.bytes()
        .fold(true, |printable, b| printable & (b' '..=b'~').contains(&b))
}

/// Whether annotate-snippets shows `line` whole, and measures it in bytes: printable ASCII
/// (no tab, which it widens, and no character whose width differs from one), a non-empty
/// span, no indent long enough for it to cut, and no more than fits its terminal width beside
/// the gutter.
fn fits_unchanged(line: &str, range: &std::ops::Range<usize>, gutter: usize) -> bool {
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    !range.is_empty()
        && range.end <= line.len()
        && printable_ascii(line)
        && indent.min(range.start).saturating_sub(ELLIPSIS_PADDING) <= KEPT_INDENT
        && line.len() + 3 + gutter <= DEFAULT_TERM_WIDTH
}

/// Whether annotate-snippets writes `text` unchanged on one line: no line break, no control
/// character (it shows those as symbols) and none of the invisible characters it replaces.
fn shown_as_is(text: &str) -> bool {
    // Printable ASCII, the common case, is checked without decoding characters.
    printable_ascii(text)
        || !text.chars().any(|c| {
            c.is_control()
                || matches!(c, '\u{200d}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
}

fn decimal_digits(mut n: usize) -> usize {
    let mut digits = 1;
    while n >= 10 {
        n /= 10;
        digits += 1;
    }
    digits
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    use annotate_snippets::Renderer;
    use schema2iceberg_parser::{Diagnostic, Location, Severity, Span};

    use super::super::{by_annotate_snippets, diagnostic, LineWindow};
    use crate::project::source::{workspace, SchemaSource};
    use schema2iceberg_mapper::{map, CompileOptions};

    /// How many diagnostics `push_snippet` wrote and how many it left to annotate-snippets.
    #[derive(Default, Debug)]
    struct Tally {
        written: usize,
        declined: usize,
    }

    /// Renders `d` against `text` both ways, and fails where `push_snippet` took it and wrote
    /// anything but what annotate-snippets writes.
    fn check(text: &str, d: &Diagnostic, tally: &mut Tally) {
        let Some(window) = LineWindow::around(text, d) else {
            return;
        };
        let place = match &d.field {
            Some(field) => format!("at {}, column `{field}`", d.location.pointer),
            None => format!("at {}", d.location.pointer),
        };
        let mut written = String::new();
        if super::push_snippet(&mut written, d, &place, &window.text, window.range.clone()) {
            tally.written += 1;
            let expected = by_annotate_snippets(d, &place, Some(&window), Renderer::plain());
            assert_eq!(
                written, expected,
                "{}:{}: {:?}",
                d.location.file, d.location.line, window.text
            );
        } else {
            assert_eq!(written, "", "declined, but wrote");
            tally.declined += 1;
        }
    }

    fn json_files(root: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root)
            .into_iter()
            .filter_map(Result::ok)
            .map(walkdir::DirEntry::into_path)
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        files
    }

    /// Every diagnostic that compiling a fixture or a corpus schema draws.
    #[test]
    fn fixtures_and_corpus_render_as_annotate_snippets_renders_them() {
        let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = json_files(&repository.join("testdata"));
        files.extend(json_files(&repository.join("../shared/corpus")));
        let mut tally = Tally::default();
        for path in &files {
            let bytes = std::fs::read(path).unwrap();
            let name = path.display().to_string();
            let source = SchemaSource {
                display: &name,
                path: Some(path),
                ref_root: None,
                draft: None,
            };
            let ws = workspace(&source, bytes);
            let compiled = map(&ws, &CompileOptions::default()).build();
            for d in &compiled.diagnostics {
                if let Some(text) = ws.source_text(&d.location.file) {
                    check(text, d, &mut tally);
                }
            }
        }
        eprintln!("{} files, {tally:?}", files.len());
        // Both ways are taken, and the fast one far more often: the comparison compared.
        assert!(
            files.len() > 1_000,
            "the corpus is missing: {}",
            files.len()
        );
        assert!(tally.written > 20_000, "{tally:?}");
        assert!(tally.declined > 100, "{tally:?}");
    }

    /// The edges of the layout: gutter widths, indents around where annotate-snippets starts
    /// to cut, line lengths around its terminal width, spans at each end, trailing spaces,
    /// whitespace-only lines, and messages with characters it writes as they are or
    /// replaces.
    #[test]
    fn the_layout_edges_render_as_annotate_snippets_renders_them() {
        let messages = [
            "plain",
            "wide 中文 and é",
            "tab\tinside",
            "two\nlines",
            "zero\u{200d}width",
        ];
        let mut tally = Tally::default();
        for line_number in [1, 9, 10, 99, 100, 12_345] {
            for indent in [0, 5, 6, 20, 25, 26, 27, 28, 40] {
                for length in [0, 1, 10, 100, 130, 133, 134, 135, 136, 137, 138, 140, 300] {
                    for trailing in ["", "  "] {
                        let body = "k".repeat(length);
                        let line = format!("{}{body}{trailing}", " ".repeat(indent));
                        let text = format!("{}{line}\nnext\n", "\n".repeat(line_number - 1));
                        let line_start = line_number - 1;
                        for (from, to) in [
                            (indent, indent + 1),
                            (indent, indent + length),
                            (indent + length / 2, indent + length),
                            ((indent + length).saturating_sub(1), line.len()),
                            (0, 1),
                            // Past the line's end: an empty span.
                            (line.len(), line.len() + 1),
                        ] {
                            for (i, message) in messages.iter().enumerate() {
                                let d = Diagnostic {
                                    code: "uppercase-name",
                                    severity: [Severity::Error, Severity::Warning, Severity::Note]
                                        [i % 3],
                                    message: (*message).to_string(),
                                    location: Location {
                                        file: Arc::from("dir/schema.json"),
                                        pointer: "/properties/k".to_string(),
                                        span: Span::new(line_start + from, line_start + to),
                                        line: line_number,
                                        column: from + 1,
                                    },
                                    field: (i % 2 == 0).then(|| "a.k".to_string()),
                                    help: (i != 1).then(|| format!("help: {message}")),
                                };
                                check(&text, &d, &mut tally);
                            }
                        }
                    }
                }
            }
        }
        eprintln!("{tally:?}");
        assert!(tally.written > 1_000 && tally.declined > 1_000, "{tally:?}");
    }

    /// `diagnostic` takes the fast way only without colour.
    #[test]
    fn colour_goes_to_annotate_snippets() {
        let text = "{\n  \"A\": 1\n}\n";
        let d = Diagnostic {
            code: "uppercase-name",
            severity: Severity::Warning,
            message: "m".to_string(),
            location: Location {
                file: Arc::from("s.json"),
                pointer: "/properties/A".to_string(),
                span: Span::new(4, 7),
                line: 2,
                column: 3,
            },
            field: None,
            help: None,
        };
        let coloured = diagnostic(Some(text), &d, true);
        assert!(coloured.contains('\u{1b}'), "{coloured:?}");
        assert!(!diagnostic(Some(text), &d, false).contains('\u{1b}'));
    }
}
