//! `compile --format json`: the report written straight into its writer, byte for byte what
//! `serde_json::to_writer_pretty(&report::Report(compiled))` writes (a test holds the two
//! together). The schema and the partition spec still go through the iceberg crate's
//! serializers; the diagnostics are written here, because serde_json escapes strings a byte at
//! a time, which was an eighth of the whole run on a schema with thousands of diagnostics.

use std::io::{self, Write};

use schema2iceberg_mapper::Compiled;
use schema2iceberg_parser::json::literal_run;
use schema2iceberg_parser::Diagnostic;
use serde::Serialize;

use super::{push_all, push_number};

/// Indentation for the deepest levels a report has, written in one piece: serde_json writes
/// two spaces per level, one call each.
const INDENTATION: &[u8] = b"                                                                ";

/// `value` as pretty JSON with a final newline: the JSON documents the commands print whole.
/// serde_json fails only on a map whose keys are not strings or on a `Serialize` that fails;
/// the caller reports such a bug as an error rather than printing nothing.
pub fn pretty_line<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    Ok(text)
}

/// A `serde_json::Value` as pretty JSON with a final newline. Its alternate `Display` is
/// `to_string_pretty`, and a `Value` always serializes, so nothing can fail here.
pub fn pretty_value_line(value: &serde_json::Value) -> String {
    format!("{value:#}\n")
}

/// Writes the report of `compiled`, without the final newline.
pub fn write_report<W: Write>(compiled: &Compiled, out: &mut W) -> io::Result<()> {
    out.write_all(b"{\n  \"format-version\": 2,\n  \"schema\": ")?;
    nested(out, &compiled.schema)?;
    out.write_all(b",\n  \"partition-spec\": ")?;
    nested(out, &compiled.partition_spec)?;
    out.write_all(b",\n  \"diagnostics\": ")?;
    diagnostics(out, &compiled.diagnostics)?;
    out.write_all(b"\n}")
}

/// A value of the report's top-level object, serialized by its own `Serialize` one level in.
fn nested<W: Write, T: Serialize>(out: &mut W, value: &T) -> io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, Pretty::at(1));
    value.serialize(&mut serializer).map_err(io::Error::from)
}

/// The diagnostics array, one level in, as serde_json would write `report`'s
/// `{severity, code, message, file, pointer, line, column, field, help}` objects; rendered in
/// batches, as the text output's are.
fn diagnostics<W: Write>(out: &mut W, diagnostics: &[Diagnostic]) -> io::Result<()> {
    if diagnostics.is_empty() {
        return out.write_all(b"[]");
    }
    out.write_all(b"[")?;
    let render = |text: &mut String, index: usize, d: &Diagnostic| diagnostic(text, index == 0, d);
    super::batch::write_batched(diagnostics, &render, &mut |text: &str| {
        out.write_all(text.as_bytes())
    })?;
    out.write_all(b"\n  ]")
}

/// One diagnostic object of the array, after the comma that separates it from the one before
/// unless it is the `first`.
fn diagnostic(out: &mut String, first: bool, d: &Diagnostic) {
    out.push_str(if first { "\n    {" } else { ",\n    {" });
    // The severity and the code are the project's own words: nothing in them to escape.
    push_all(
        out,
        &["\n      \"severity\": \"", d.severity.as_str(), "\""],
    );
    push_all(out, &[",\n      \"code\": \"", d.code, "\""]);
    out.push_str(",\n      \"message\": ");
    string(out, &d.message);
    out.push_str(",\n      \"file\": ");
    string(out, &d.location.file);
    out.push_str(",\n      \"pointer\": ");
    string(out, &d.location.pointer);
    out.push_str(",\n      \"line\": ");
    push_number(out, d.location.line);
    out.push_str(",\n      \"column\": ");
    push_number(out, d.location.column);
    out.push_str(",\n      \"field\": ");
    optional_string(out, d.field.as_deref());
    out.push_str(",\n      \"help\": ");
    optional_string(out, d.help.as_deref());
    out.push_str("\n    }");
}

fn optional_string(out: &mut String, value: Option<&str>) {
    match value {
        Some(value) => string(out, value),
        None => out.push_str("null"),
    }
}

/// `value` as a JSON string, escaped as serde_json escapes it: `\"`, `\\`, the short forms of
/// the five common control characters, and `\u00xx` for the other control characters.
fn string(out: &mut String, value: &str) {
    use std::fmt::Write as _;
    out.push('"');
    let mut rest = value;
    loop {
        let run = literal_run(rest.as_bytes());
        out.push_str(rest.get(..run).unwrap_or_default());
        let Some(&byte) = rest.as_bytes().get(run) else {
            break;
        };
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\x08' => out.push_str("\\b"),
            b'\x0c' => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            _ => {
                let _ = write!(out, "\\u{byte:04x}");
            }
        }
        // The byte is ASCII, so the rest starts on a character boundary.
        rest = rest.get(run + 1..).unwrap_or_default();
    }
    out.push('"');
}

/// serde_json's `PrettyFormatter`, but starting `level` indentation steps in, so that a value
/// nested in the report is serialized into the writer with the report's indentation.
struct Pretty {
    level: usize,
    has_value: bool,
}

impl Pretty {
    fn at(level: usize) -> Pretty {
        Pretty {
            level,
            has_value: false,
        }
    }

    fn indent<W: ?Sized + Write>(&self, out: &mut W) -> io::Result<()> {
        let mut left = 2 * self.level;
        while left > 0 {
            let now = left.min(INDENTATION.len());
            out.write_all(INDENTATION.get(..now).unwrap_or_default())?;
            left -= now;
        }
        Ok(())
    }

    fn open<W: ?Sized + Write>(&mut self, out: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        out.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, out: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level = self.level.saturating_sub(1);
        if self.has_value {
            out.write_all(b"\n")?;
            self.indent(out)?;
        }
        out.write_all(bracket)
    }

    fn next_line<W: ?Sized + Write>(&self, out: &mut W, first: bool) -> io::Result<()> {
        out.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(out)
    }
}

impl serde_json::ser::Formatter for Pretty {
    fn begin_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.open(out, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.close(out, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        self.next_line(out, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.open(out, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.close(out, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        self.next_line(out, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        out.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schema2iceberg_parser::Location;

    /// The report as serde_json writes it, which `write_report` must match byte for byte.
    fn by_serde_json(compiled: &Compiled) -> String {
        let mut out = Vec::new();
        serde_json::to_writer_pretty(
            &mut out,
            &schema2iceberg_mapper::formats::report::Report(compiled),
        )
        .unwrap_or_else(|e| panic!("serde_json: {e}"));
        String::from_utf8_lossy(&out).into_owned()
    }

    fn by_hand(compiled: &Compiled) -> String {
        let mut out = Vec::new();
        write_report(compiled, &mut out).unwrap_or_else(|e| panic!("write_report: {e}"));
        String::from_utf8_lossy(&out).into_owned()
    }

    fn compile_file(path: &std::path::Path) -> Compiled {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let display = path.display().to_string();
        let source = crate::project::source::SchemaSource {
            display: &display,
            path: Some(path),
            ref_root: None,
            draft: None,
        };
        let ws = crate::project::source::workspace(&source, bytes);
        schema2iceberg_mapper::compile(&ws, &schema2iceberg_mapper::CompileOptions::default())
    }

    #[test]
    fn every_compile_fixture_is_written_as_serde_json_writes_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
        let mut compared = 0;
        for dir in ["compile", "compile-formats", "examples", "check"] {
            for entry in walkdir::WalkDir::new(root.join(dir)).sort_by_file_name() {
                let entry = entry.unwrap_or_else(|e| panic!("{e}"));
                if entry.path().extension().is_some_and(|e| e == "json") {
                    let compiled = compile_file(entry.path());
                    assert_eq!(
                        by_hand(&compiled),
                        by_serde_json(&compiled),
                        "{}",
                        entry.path().display()
                    );
                    compared += 1;
                }
            }
        }
        assert!(compared > 100, "only {compared} fixtures compared");
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut compiled = compile_file(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../testdata/examples/event.json"),
        );
        let every_ascii: String = (0u8..0x80).map(char::from).collect();
        let texts = [
            every_ascii.clone(),
            format!("{every_ascii}{every_ascii}"),
            "\"quoted\" and back\\slashed\ttabbed\u{7f}".to_string(),
            "é ✓ 𝄞 \u{2028}\u{2029} \u{0}".to_string(),
            String::new(),
        ];
        // Enough of them for the array to be handed on in several batches.
        for (index, text) in texts.iter().cycle().take(1_000).enumerate() {
            compiled
                .diagnostics
                .push(schema2iceberg_parser::Diagnostic {
                    code: "made-up",
                    severity: schema2iceberg_parser::Severity::Warning,
                    message: text.clone(),
                    location: Location {
                        file: text.as_str().into(),
                        pointer: text.clone(),
                        line: index,
                        column: 1_000 - index,
                        ..Location::default()
                    },
                    field: Some(text.clone()),
                    help: (index % 3 == 0).then(|| text.clone()),
                });
        }
        assert_eq!(by_hand(&compiled), by_serde_json(&compiled));
    }
}
