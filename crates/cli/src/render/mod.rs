//! Text output: the table as a tree, the partition spec, and rustc-style diagnostics.

use std::fmt::Write;

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use iceberg::spec::{NestedFieldRef, PartitionSpec, Schema, Type};
use schema2iceberg_mapper::Compiled;
use schema2iceberg_parser::{Diagnostic, Severity, SourceTexts, Workspace};

mod batch;
pub(crate) mod diff;
pub(crate) mod github;
mod json;
mod plain;
pub(crate) mod record;

pub use json::{pretty_line, pretty_value_line, write_report};

/// Longest doc shown in the tree; the JSON output has the whole text.
const DOC_WIDTH: usize = 72;

/// Renders the whole result for a terminal.
pub fn text(files: &dyn Sources, compiled: &Compiled, color: bool) -> String {
    written(|out| write_text(files, compiled, color, out))
}

/// Writes [`text`] into `out` as it is rendered: the diagnostics reach `out` a batch at a
/// time, rather than as one string of the whole output (5.7 MB for Mozilla's largest schema),
/// whose pages would be faulted in and copied.
pub fn write_text<W: std::io::Write>(
    files: &dyn Sources,
    compiled: &Compiled,
    color: bool,
    out: &mut W,
) -> std::io::Result<()> {
    let mut head = String::new();
    match &compiled.schema {
        Some(schema) => {
            table(&mut head, schema);
            if let Some(spec) = &compiled.partition_spec {
                partition(&mut head, schema, spec);
            }
        }
        None => head.push_str("no table: the schema has errors\n"),
    }
    out.write_all(head.as_bytes())?;
    drop(head);
    write_diagnostics_and_summary(files, compiled, color, out)
}

/// The diagnostics, then the closing summary line: the whole text output but for the table,
/// and what goes to standard error when standard output carries a machine format.
pub fn diagnostics_and_summary(files: &dyn Sources, compiled: &Compiled, color: bool) -> String {
    written(|out| write_diagnostics_and_summary(files, compiled, color, out))
}

/// Writes [`diagnostics_and_summary`] into `out`.
fn write_diagnostics_and_summary<W: std::io::Write>(
    files: &dyn Sources,
    compiled: &Compiled,
    color: bool,
    out: &mut W,
) -> std::io::Result<()> {
    write_diagnostics(
        &compiled.diagnostics,
        &|file: &str| files.text_of(file),
        color,
        ("\n", "\n"),
        &mut |text: &str| out.write_all(text.as_bytes()),
    )?;
    out.write_all(b"\n")?;
    out.write_all(summary(compiled).as_bytes())?;
    out.write_all(b"\n")
}

/// What `write` writes, as a `String`: writing into a `Vec` cannot fail, and every piece
/// written is a `str`.
fn written(write: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    let _ = write(&mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Appends `parts` in order: the pieces of a line whose layout is fixed, without the
/// formatting machinery.
fn push_all(out: &mut String, parts: &[&str]) {
    parts.iter().for_each(|part| out.push_str(part));
}

/// Appends a line or column number in decimal, without the formatting machinery (two per
/// diagnostic, thousands of diagnostics).
fn push_number(out: &mut String, number: usize) {
    out.push_str(itoa::Buffer::new().format(number));
}

/// The texts of the files that diagnostics point into, by the names they show for them.
pub trait Sources {
    /// The text of the file that diagnostics name `file`, when it is UTF-8.
    fn text_of(&self, file: &str) -> Option<&str>;
}

impl Sources for Workspace {
    fn text_of(&self, file: &str) -> Option<&str> {
        self.source_text(file)
    }
}

impl Sources for SourceTexts {
    fn text_of(&self, file: &str) -> Option<&str> {
        self.text(file)
    }
}

fn table(out: &mut String, schema: &Schema) {
    let fields = schema.as_struct().fields();
    let _ = writeln!(
        out,
        "table schema (schema-id {}, {}, highest field id {})",
        schema.schema_id(),
        plural(fields.len(), "column"),
        schema.highest_field_id()
    );
    tree(out, fields, "");
}

/// The fields as `├─`/`└─` lines, each followed by what it holds, indented.
// Not iceberg's `SchemaVisitor`: a line's branch and its children's indent depend on whether the
// field is its parent's last, which the visitor's callbacks are not told.
fn tree(out: &mut String, fields: &[NestedFieldRef], indent: &str) {
    let count = fields.len();
    for (i, field) in fields.iter().enumerate() {
        let last = i + 1 == count;
        let branch = if last { "└─ " } else { "├─ " };
        let requirement = if field.required {
            "required"
        } else {
            "optional"
        };
        let _ = write!(
            out,
            "{indent}{branch}{} {}: {} ({requirement})",
            field.id,
            field.name,
            short_type(&field.field_type)
        );
        if let Some(doc) = &field.doc {
            let _ = write!(out, " — {}", shorten(doc));
        }
        out.push('\n');
        let child_indent = format!("{indent}{}", if last { "   " } else { "│  " });
        match field.field_type.as_ref() {
            Type::Struct(s) => tree(out, s.fields(), &child_indent),
            Type::List(l) => tree(out, std::slice::from_ref(&l.element_field), &child_indent),
            Type::Map(m) => tree(
                out,
                &[m.key_field.clone(), m.value_field.clone()],
                &child_indent,
            ),
            Type::Primitive(_) => {}
        }
    }
}

/// A type's name in the tree: a struct's fields follow on their own lines, so only lists and
/// maps name what they hold.
fn short_type(ty: &Type) -> String {
    match ty {
        Type::Primitive(p) => p.to_string(),
        Type::Struct(_) => "struct".to_string(),
        Type::List(l) => format!("list<{}>", short_type(&l.element_field.field_type)),
        Type::Map(m) => format!("map<string, {}>", short_type(&m.value_field.field_type)),
    }
}

fn shorten(doc: &str) -> String {
    if doc.len() <= DOC_WIDTH && is_flat_ascii(doc) {
        return doc.to_string();
    }
    let flat: String = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= DOC_WIDTH {
        flat
    } else {
        let cut: String = flat.chars().take(DOC_WIDTH - 1).collect();
        format!("{}…", cut.trim_end())
    }
}

/// Whether `doc` is ASCII and already has its words one space apart, with no space at either
/// end: what `split_whitespace` and `join(" ")` would give back unchanged. Most docs are, and
/// a schema can have thousands.
fn is_flat_ascii(doc: &str) -> bool {
    let mut previous = b' ';
    for &byte in doc.as_bytes() {
        // The ASCII characters that `char::is_whitespace` takes, but for the space itself
        // (vertical tab included, which `u8::is_ascii_whitespace` leaves out).
        if !byte.is_ascii() || matches!(byte, b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r') {
            return false;
        }
        if byte == b' ' && previous == b' ' {
            return false;
        }
        previous = byte;
    }
    previous != b' '
}

fn partition(out: &mut String, schema: &Schema, spec: &PartitionSpec) {
    let _ = writeln!(out, "partition spec (spec-id {})", spec.spec_id());
    if spec.fields().is_empty() {
        out.push_str(
            "└─ unpartitioned (pass --partition FIELD: the channel needs one hourly partition)\n",
        );
        return;
    }
    let count = spec.fields().len();
    for (i, field) in spec.fields().iter().enumerate() {
        let branch = if i + 1 == count { "└─ " } else { "├─ " };
        let source = schema.name_by_field_id(field.source_id).unwrap_or("?");
        let _ = writeln!(
            out,
            "{branch}{} {}: {}({source}) from field {}",
            field.field_id, field.name, field.transform, field.source_id
        );
    }
}

fn level(severity: Severity) -> Level<'static> {
    match severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Note => Level::NOTE,
    }
}

/// Appends each diagnostic, rendered, between `around.0` and `around.1`, in order; `source`
/// gives the text of a file by its display name.
pub(crate) fn push_diagnostics<'s>(
    out: &mut String,
    diagnostics: &[Diagnostic],
    source: &dyn Fn(&str) -> Option<&'s str>,
    color: bool,
    around: (&str, &str),
) {
    let _ = write_diagnostics::<std::convert::Infallible>(
        diagnostics,
        source,
        color,
        around,
        &mut |text: &str| {
            out.push_str(text);
            Ok(())
        },
    );
}

/// Renders each diagnostic between `around.0` and `around.1` and hands the text to `sink` in
/// order, a batch at a time ([`batch::write_batched`]); stops at the first error `sink`
/// returns.
fn write_diagnostics<'s, E>(
    diagnostics: &[Diagnostic],
    source: &dyn Fn(&str) -> Option<&'s str>,
    color: bool,
    around: (&str, &str),
    sink: &mut dyn FnMut(&str) -> Result<(), E>,
) -> Result<(), E> {
    let render = |out: &mut String, _index: usize, d: &Diagnostic| {
        out.push_str(around.0);
        push_diagnostic(out, source(&d.location.file), d, color);
        out.push_str(around.1);
    };
    batch::write_batched(diagnostics, &render, sink)
}

/// One diagnostic in rustc's style: title with code, `file:line:col`, the source line and a
/// label, then the pointer, field and help.
pub fn diagnostic(source: Option<&str>, d: &Diagnostic, color: bool) -> String {
    let mut out = String::new();
    push_diagnostic(&mut out, source, d, color);
    out
}

/// Appends [`diagnostic`] to `out`.
fn push_diagnostic(out: &mut String, source: Option<&str>, d: &Diagnostic, color: bool) {
    let pointer = if d.location.pointer.is_empty() {
        "(root)"
    } else {
        d.location.pointer.as_str()
    };
    let place = match &d.field {
        Some(field) => format!("at {pointer}, column `{field}`"),
        None => format!("at {pointer}"),
    };
    let window = source.and_then(|text| LineWindow::around(text, d));
    let start = out.len();
    match &window {
        Some(window) if !color => {
            if !plain::push_snippet(out, d, &place, &window.text, window.range.clone()) {
                out.push_str(&by_annotate_snippets(
                    d,
                    &place,
                    Some(window),
                    Renderer::plain(),
                ));
            }
        }
        _ => {
            let renderer = if color {
                Renderer::styled()
            } else {
                Renderer::plain()
            };
            out.push_str(&by_annotate_snippets(d, &place, window.as_ref(), renderer));
        }
    }
    if let Some(window) = window.as_ref().filter(|window| window.cut_start) {
        // annotate-snippets counts the column in the `-->` line from the start of the text it
        // was given, and so does `plain::push_snippet`; where the line's start was cut, that
        // count is put right.
        let place = |column: usize| format!("{}:{}:{column}", d.location.file, d.location.line);
        let shown = window
            .text
            .get(..window.range.start)
            .unwrap_or_default()
            .chars()
            .count()
            + 1;
        let fixed = out.get(start..).unwrap_or_default().replacen(
            &place(shown),
            &place(d.location.column),
            1,
        );
        out.truncate(start);
        out.push_str(&fixed);
    }
}

/// The diagnostic as annotate-snippets renders it: every diagnostic in colour, and those that
/// [`plain::push_snippet`] does not take in plain text.
fn by_annotate_snippets(
    d: &Diagnostic,
    place: &str,
    window: Option<&LineWindow<'_>>,
    renderer: Renderer,
) -> String {
    let title = level(d.severity)
        .primary_title(d.message.as_str())
        .id(d.code);
    let mut footer = vec![Level::NOTE.message(place)];
    if let Some(help) = &d.help {
        footer.push(Level::HELP.message(help.as_str()));
    }
    let group: Group<'_> = match window {
        Some(window) => {
            let snippet = Snippet::source(window.text.as_ref())
                .line_start(d.location.line)
                .path(&*d.location.file)
                .annotation(AnnotationKind::Primary.span(window.range.clone()));
            let g = title.element(snippet);
            footer.into_iter().fold(g, |g, m| g.element(m))
        }
        None => {
            let origin = annotate_snippets::Origin::path(&*d.location.file)
                .line(d.location.line)
                .char_column(d.location.column);
            let g = title.element(origin);
            footer.into_iter().fold(g, |g, m| g.element(m))
        }
    };
    renderer.render(&[group])
}

/// A source line longer than this is cut around the span before it is rendered:
/// annotate-snippets measures every character of the text it is given, though it shows only
/// what fits the terminal, so the one line of a minified schema made text output quadratic
/// (46 s for Mozilla's 1.3 MB schema with 5,923 warnings, minified).
const LONG_LINE: usize = 1024;
/// How much of a long line is kept on each side of the span, in bytes (widened to whole
/// characters).
const LONG_LINE_CONTEXT: usize = 80;
/// How much of a span on a long line is underlined, in bytes.
const LONG_LINE_SPAN: usize = 200;

/// The text a diagnostic's snippet shows, and the span within it.
struct LineWindow<'t> {
    text: std::borrow::Cow<'t, str>,
    range: std::ops::Range<usize>,
    /// Whether the text starts after the line's start (marked with `...`).
    cut_start: bool,
}

impl<'t> LineWindow<'t> {
    /// The window of the line of `text` that holds the diagnostic's start. The line's ends are
    /// looked for no further than [`LONG_LINE`] bytes from the start: on a minified schema,
    /// finding them would scan the whole file for every diagnostic.
    fn around(text: &'t str, d: &Diagnostic) -> Option<LineWindow<'t>> {
        let start = d.location.span.start().min(text.len());
        let back = text.floor_char_boundary(start.saturating_sub(LONG_LINE));
        let ahead = text.ceil_char_boundary(start.saturating_add(LONG_LINE));
        let from = text
            .get(back..start)?
            .rfind('\n')
            .map_or(back, |i| back + i + 1);
        let to = text
            .get(start..ahead)?
            .find('\n')
            .map_or(ahead, |i| start + i);
        let cut = (
            from > 0 && text.as_bytes().get(from - 1) != Some(&b'\n'),
            to < text.len() && text.as_bytes().get(to) != Some(&b'\n'),
        );
        let (_, line, range) = span_line(
            text.get(from..to)?,
            start - from,
            d.location.span.end().saturating_sub(from),
        )?;
        Some(LineWindow::of(line, range, cut))
    }

    /// The whole line, or for a long one (or one already `cut` at its start or end) the span
    /// (cut to [`LONG_LINE_SPAN`]) with [`LONG_LINE_CONTEXT`] on each side, `...` marking each
    /// cut.
    fn of(line: &'t str, range: std::ops::Range<usize>, cut: (bool, bool)) -> LineWindow<'t> {
        if line.len() <= LONG_LINE && cut == (false, false) {
            return LineWindow {
                text: line.into(),
                range,
                cut_start: false,
            };
        }
        let span_end = line
            .ceil_char_boundary(range.end.min(range.start.saturating_add(LONG_LINE_SPAN)))
            .max(range.start);
        let from = line.floor_char_boundary(range.start.saturating_sub(LONG_LINE_CONTEXT));
        let to = line.ceil_char_boundary(span_end.saturating_add(LONG_LINE_CONTEXT));
        let cut_start = from > 0 || cut.0;
        let marker = if cut_start { "..." } else { "" };
        let mut text = String::with_capacity(to - from + 6);
        text.push_str(marker);
        text.push_str(line.get(from..to).unwrap_or_default());
        if to < line.len() || cut.1 {
            text.push_str("...");
        }
        let shift = |at: usize| at - from + marker.len();
        LineWindow {
            text: text.into(),
            range: shift(range.start)..shift(span_end),
            cut_start,
        }
    }
}

/// The line of `text` that holds byte `start`: the byte where that line starts, its text
/// (without a trailing `\r`), and `start..end` within it, cut at the line's end. A snippet of
/// one line keeps rendering cheap for huge files; `records` draws its failures with it too.
pub(crate) fn span_line(
    text: &str,
    start: usize,
    end: usize,
) -> Option<(usize, &str, std::ops::Range<usize>)> {
    let start = start.min(text.len());
    let line_start = text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
    let line_end = text
        .get(start..)?
        .find('\n')
        .map_or(text.len(), |i| start + i);
    let line = text.get(line_start..line_end)?;
    let line = line.strip_suffix('\r').unwrap_or(line);
    let from = start - line_start;
    let mut to = (end.max(start + 1) - line_start).min(line.len()).max(from);
    // A span may end inside a character (a one-byte span at a multi-byte one); widen it.
    while !line.is_char_boundary(to) {
        to += 1;
    }
    Some((line_start, line, from..to))
}

/// The closing line: what compiled, and how many of each severity.
pub fn summary(compiled: &Compiled) -> String {
    let errors = compiled.count(Severity::Error);
    let warnings = compiled.count(Severity::Warning);
    let notes = compiled.count(Severity::Note);
    let counts = format!(
        "{}, {}, {}",
        plural(errors, "error"),
        plural(warnings, "warning"),
        plural(notes, "note")
    );
    match &compiled.schema {
        Some(schema) => format!(
            "compiled: {}, {} in all; {counts}",
            plural(schema.as_struct().fields().len(), "column"),
            plural(
                usize::try_from(schema.highest_field_id()).unwrap_or(0),
                "field"
            )
        ),
        None => format!("failed: the schema does not compile; {counts}"),
    }
}

pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use schema2iceberg_parser::{Diagnostic, Location, Severity, Span};

    /// `count` diagnostics, each on its own line of `text`, with messages that tell them apart.
    fn numbered(count: usize) -> (String, Vec<Diagnostic>) {
        let text: String = (0..count).map(|i| format!("\"N{i}\": {{}}\n")).collect();
        let mut start = 0;
        let diagnostics = (0..count)
            .map(|i| {
                let line_length = format!("\"N{i}\": {{}}").len();
                let d = Diagnostic {
                    code: "uppercase-name",
                    severity: Severity::Warning,
                    message: format!("number {i}"),
                    location: Location {
                        file: "s.json".into(),
                        pointer: format!("/properties/N{i}"),
                        span: Span::new(start, start + line_length),
                        line: i + 1,
                        column: 1,
                    },
                    field: None,
                    help: None,
                };
                start += line_length + 1;
                d
            })
            .collect();
        (text, diagnostics)
    }

    /// Handed on in several batches, the block is its diagnostics rendered one by one, in
    /// order.
    #[test]
    fn a_large_block_comes_out_in_order() {
        let (text, diagnostics) = numbered(3_000);
        let source = |_: &str| Some(text.as_str());
        let mut block = String::new();
        super::push_diagnostics(&mut block, &diagnostics, &source, false, ("<", ">"));
        let one_by_one: String = diagnostics
            .iter()
            .map(|d| format!("<{}>", super::diagnostic(Some(&text), d, false)))
            .collect();
        assert!(
            block == one_by_one,
            "the block differs from its diagnostics one by one"
        );
    }

    /// A sink that fails (a closed pipe) stops the rendering, and its error is returned.
    #[test]
    fn a_failing_sink_stops_the_block() {
        let (text, diagnostics) = numbered(10_000);
        let source = |_: &str| Some(text.as_str());
        let mut handed = 0;
        let result = super::write_diagnostics(&diagnostics, &source, false, ("", ""), &mut |_| {
            handed += 1;
            if handed == 3 {
                Err("closed")
            } else {
                Ok(())
            }
        });
        assert_eq!((result, handed), (Err("closed"), 3));
    }

    /// `is_flat_ascii` says yes exactly where flattening would change nothing, for every short
    /// text made of the kinds of character flattening tells apart.
    #[test]
    fn flat_docs_are_the_ones_flattening_leaves_alone() {
        let alphabet = [" ", "a", "\t", "\u{b}", "\n", "é", "\u{a0}", "z"];
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            texts = texts
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            for text in &texts {
                let flattened = text.split_whitespace().collect::<Vec<_>>().join(" ");
                if super::is_flat_ascii(text) {
                    assert_eq!(&flattened, text, "{text:?}");
                } else if text.is_ascii() {
                    assert_ne!(&flattened, text, "{text:?}");
                }
            }
        }
    }
}
