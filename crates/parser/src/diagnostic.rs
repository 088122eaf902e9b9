//! Diagnostics shared by the parser and the mapper: a stable code, a severity, a message and a
//! place in a file.

use std::fmt;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The table cannot be created as written.
    Error,
    /// The table can be created, but probably not as the author meant.
    Warning,
    /// Information about a choice the compiler made.
    Note,
}

impl Severity {
    /// `error`, `warning` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One entry of a crate's table of diagnostic codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    /// The stable code, in kebab-case.
    pub name: &'static str,
    /// Its default severity.
    pub severity: Severity,
    /// One sentence: what it means.
    pub summary: &'static str,
    /// How to fix it.
    pub fix: &'static str,
    /// A minimal schema fragment that triggers it.
    pub example: &'static str,
    /// The numbered rules of docs/mapping.md (its `### N.` sections) that decide it; empty when
    /// none does.
    pub rules: &'static [u8],
    /// The part of the docs without a number that decides it, where no numbered rule does, or
    /// that decides it too: a heading such as `budgets` (docs/mapping.md, "Decisions that apply
    /// everywhere") or `channel configurations (docs/ci.md)`. Every code has rules, a section,
    /// or both.
    pub section: Option<&'static str>,
}

/// Where a diagnostic points.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    /// The file, as the user named it (or as reached through a `$ref`). Shared, because a file
    /// with many diagnostics would otherwise copy its name into each.
    pub file: std::sync::Arc<str>,
    /// RFC 6901 pointer into `file`; `""` is the root.
    pub pointer: String,
    /// Byte span in `file`.
    pub span: crate::span::Span,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// One problem or remark, with its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable code.
    pub code: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// What is wrong, in one sentence.
    pub message: String,
    /// Where.
    pub location: Location,
    /// The dotted Iceberg column path, where there is one.
    pub field: Option<String>,
    /// What to do about it: the code's own fix from its table, unless the place that finds it
    /// knows better ([`Diagnostic::with_help`]).
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic of `code` at `location`, with the code's default severity and its fix as
    /// the help: every code says what to do about it.
    pub fn new(code: &Code, location: Location, message: impl Into<String>) -> Self {
        Diagnostic {
            code: code.name,
            severity: code.severity,
            message: message.into(),
            location,
            field: None,
            help: Some(code.fix.to_string()),
        }
    }

    /// Adds the Iceberg column path.
    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        let field = field.into();
        if !field.is_empty() {
            self.field = Some(field);
        }
        self
    }

    /// Adds a hint.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// Declares a table of diagnostic codes: one `pub const` a code, and `ALL`, every code in order.
///
/// Each entry names the code, its default severity, the numbered rules of docs/mapping.md that
/// decide it (`rule [3]`, `rule [11, 12]`, or `rule []` for none) and, optionally, the part of the
/// docs without a number that decides it (`section "budgets"`), then its summary, fix and example.
///
/// ```
/// schema2iceberg_parser::code_table! {
///     EXAMPLE = "example-code", Warning, rule [7],
///         "What it means.", "How to fix it.", "{}";
///     OTHER = "other-code", Error, rule [] section "budgets",
///         "What it means.", "How to fix it.", "{}";
/// }
/// assert_eq!(ALL[0].name, "example-code");
/// assert_eq!(ALL[0].rules, &[7]);
/// assert_eq!(ALL[1].section, Some("budgets"));
/// ```
#[macro_export]
macro_rules! code_table {
    (@section) => { None };
    (@section $section:literal) => { Some($section) };
    ($($ident:ident = $name:literal, $severity:ident, rule [$($rule:literal),*] $(section $section:literal)?,
        $summary:literal, $fix:literal, $example:literal;)*) => {
        $(
            #[doc = $summary]
            pub const $ident: $crate::Code = $crate::Code {
                name: $name,
                severity: $crate::Severity::$severity,
                summary: $summary,
                fix: $fix,
                example: $example,
                rules: &[$($rule),*],
                section: $crate::code_table!(@section $($section)?),
            };
        )*
        /// Every code of this table, in documentation order.
        pub const ALL: &[$crate::Code] = &[$($ident),*];
    };
}
