//! The keyword table: every JSON Schema keyword the compiler knows, with what it does to the
//! table (its [`Role`]), the rule of docs/mapping.md that says so, and how `diff` judges a
//! change of its value. The mapper's lists of type-giving, validating and unenforced keywords,
//! `diff`'s "loosens" and the "Keywords that change nothing" section of docs/mapping.md (rule
//! 14, written by `cargo xtask codegen`) all read this one table.

/// What a keyword does to the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// It can decide the column's type. An `anyOf`/`oneOf` branch with one of these is not
    /// only validation. `validates`: its value also decides which records are valid beyond
    /// what the type says (`format: email`, `maximum`, `enum`), so `diff` compares it.
    GivesType {
        /// Whether the value also restricts records beyond the column's type.
        validates: bool,
    },
    /// It decides which records are valid, never the column's type: records that fail it go to
    /// the dead-letter queue.
    OnlyValidates,
    /// It decides which records are valid, but the table cannot express it: a `not-enforced`
    /// note.
    NotEnforced,
    /// It becomes the column's doc and nothing else.
    DocumentsOnly,
    /// It changes neither the column, nor which records are valid, nor the doc.
    ChangesNothing,
}

impl Role {
    /// Whether the keyword decides which records are valid, so that a change to it can send
    /// records that were valid before to the dead-letter queue.
    pub fn validates(self) -> bool {
        match self {
            Role::GivesType { validates } => validates,
            Role::OnlyValidates | Role::NotEnforced => true,
            Role::DocumentsOnly | Role::ChangesNothing => false,
        }
    }

    /// Whether the keyword can decide the column's type.
    pub fn gives_type(self) -> bool {
        matches!(self, Role::GivesType { .. })
    }

    /// The role as docs/mapping.md words it.
    pub fn describe(self) -> &'static str {
        match self {
            Role::GivesType { .. } => "gives a type",
            Role::OnlyValidates => "only validates",
            Role::NotEnforced => "not enforced",
            Role::DocumentsOnly => "documents only",
            Role::ChangesNothing => "changes nothing",
        }
    }
}

/// How `diff` tells that a new value of a validation keyword accepts every record the old one
/// accepts (it "loosens"). Anything it cannot tell counts as tightening.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loosening {
    /// An upper bound (`maximum`, `maxLength`): a larger or equal number, or draft-04's
    /// exclusive flag turned from `true` to `false`.
    UpperBound,
    /// A lower bound (`minimum`, `minLength`): a smaller or equal number, or draft-04's flag
    /// turned off.
    LowerBound,
    /// A list of allowed values (`enum`): every old value is still listed.
    MoreValues,
    /// A list of names that must be present (`required`): every new name was listed before.
    FewerNames,
    /// A flag (`uniqueItems`): `true` turned to `false`.
    FlagOff,
    /// `multipleOf`: the old value is a whole multiple of the new one.
    Divisor,
    /// No change can be told to loosen.
    Never,
}

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The keyword as written in a schema.
    pub name: &'static str,
    /// What it does to the table.
    pub role: Role,
    /// The `### N.` section of docs/mapping.md that says what it does.
    pub rule: u8,
    /// How `diff` judges a change of its value.
    pub loosening: Loosening,
}

const fn row(name: &'static str, role: Role, rule: u8, loosening: Loosening) -> Entry {
    Entry {
        name,
        role,
        rule,
        loosening,
    }
}

use Loosening::{Divisor, FewerNames, FlagOff, LowerBound, MoreValues, Never, UpperBound};
use Role::{ChangesNothing, DocumentsOnly, NotEnforced, OnlyValidates};

const TYPE: Role = Role::GivesType { validates: false };
const TYPE_AND_VALIDATES: Role = Role::GivesType { validates: true };

/// Every keyword the compiler knows, one row each, grouped by rule. A test checks that every
/// keyword the parser reads has a row.
pub const KEYWORDS: &[Entry] = &[
    row("$schema", ChangesNothing, 1, Never),
    row("format", TYPE_AND_VALIDATES, 3, Never),
    row("contentEncoding", TYPE, 3, Never),
    row("encoding", TYPE, 3, Never),
    row("maximum", TYPE_AND_VALIDATES, 4, UpperBound),
    row("exclusiveMaximum", TYPE_AND_VALIDATES, 4, UpperBound),
    // `minimum` gives no type, but a branch with it is read as giving one (rule 10), and it
    // bounds the int and long checks of rule 4.
    row("minimum", TYPE_AND_VALIDATES, 4, LowerBound),
    row("exclusiveMinimum", OnlyValidates, 4, LowerBound),
    row("multipleOf", TYPE_AND_VALIDATES, 5, Divisor),
    row("properties", TYPE, 7, Never),
    row("additionalProperties", TYPE_AND_VALIDATES, 7, Never),
    row("patternProperties", TYPE_AND_VALIDATES, 7, Never),
    row("items", TYPE, 8, Never),
    row("enum", TYPE_AND_VALIDATES, 9, MoreValues),
    row("const", TYPE_AND_VALIDATES, 9, Never),
    row("type", TYPE, 10, Never),
    row("anyOf", TYPE_AND_VALIDATES, 10, Never),
    row("oneOf", TYPE_AND_VALIDATES, 10, Never),
    row("allOf", TYPE, 12, Never),
    row("description", DocumentsOnly, 13, Never),
    row("pattern", OnlyValidates, 14, Never),
    row("minLength", OnlyValidates, 14, LowerBound),
    row("maxLength", OnlyValidates, 14, UpperBound),
    row("minItems", OnlyValidates, 14, LowerBound),
    row("maxItems", OnlyValidates, 14, UpperBound),
    row("uniqueItems", OnlyValidates, 14, FlagOff),
    row("contains", OnlyValidates, 14, Never),
    row("minProperties", OnlyValidates, 14, LowerBound),
    row("maxProperties", OnlyValidates, 14, UpperBound),
    row("propertyNames", OnlyValidates, 14, Never),
    row("not", NotEnforced, 14, Never),
    row("if", NotEnforced, 14, Never),
    row("then", NotEnforced, 14, Never),
    row("else", NotEnforced, 14, Never),
    row("dependencies", NotEnforced, 14, Never),
    row("title", ChangesNothing, 14, Never),
    row("default", ChangesNothing, 14, Never),
    row("examples", ChangesNothing, 14, Never),
    row("readOnly", ChangesNothing, 14, Never),
    row("writeOnly", ChangesNothing, 14, Never),
    row("$comment", ChangesNothing, 14, Never),
    row("contentMediaType", ChangesNothing, 14, Never),
    // Only the tuple form of `items` gives it elements to check, and that form has no column.
    row("additionalItems", ChangesNothing, 14, Never),
    row("required", OnlyValidates, 15, FewerNames),
    row("$ref", TYPE, 17, Never),
    row("$id", ChangesNothing, 17, Never),
    row("id", ChangesNothing, 17, Never),
    row("definitions", ChangesNothing, 17, Never),
    row("$defs", ChangesNothing, 17, Never),
];

/// The row of `name`, if the compiler knows the keyword.
pub fn entry(name: &str) -> Option<&'static Entry> {
    KEYWORDS.iter().find(|e| e.name == name)
}

/// The role of `name`; an unknown keyword changes nothing.
pub fn role(name: &str) -> Role {
    entry(name).map_or(Role::ChangesNothing, |e| e.role)
}

/// The first and last line of the generated part of rule 14 in docs/mapping.md.
pub const SECTION_BEGIN: &str =
    "<!-- keywords that change nothing: generated by `cargo xtask codegen` from crates/mapper/src/compiler/keywords.rs; do not edit -->";
/// The line after the generated part.
pub const SECTION_END: &str = "<!-- end of generated keywords -->";

/// `names` as Markdown code, joined with commas and a final "and".
fn listed(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// `text` as one Markdown list item, wrapped before column 100 as the rest of the document is.
fn bullet(text: &str) -> String {
    let mut out = String::from("-");
    let mut width = 1;
    for word in text.split(' ') {
        if width + 1 + word.chars().count() > 99 {
            out.push_str("\n ");
            width = 1;
        }
        out.push(' ');
        out.push_str(word);
        width += 1 + word.chars().count();
    }
    out.push('\n');
    out
}

/// The generated part of rule 14: the keywords of rule 14 by role, in the table's order.
pub fn rule_14_section() -> String {
    let of = |role: Role| -> Vec<&str> {
        KEYWORDS
            .iter()
            .filter(|e| e.rule == 14 && e.role == role)
            .map(|e| e.name)
            .collect()
    };
    let mut out = String::new();
    out.push_str(&bullet(&format!(
        "Keywords with no effect on the table are ignored silently: {}, which only validate records, and {}, which change nothing.",
        listed(&of(OnlyValidates)),
        listed(&of(ChangesNothing)),
    )));
    out.push_str(&bullet(&format!(
        "{} each emit a `not-enforced` note at the keyword, wherever the mapper reads the schema (its `allOf` parts included).",
        listed(&of(NotEnforced)),
    )));
    out
}

/// `document` (the text of docs/mapping.md) with its generated part of rule 14 rewritten from
/// the table; `None` when the document lacks the marker lines.
pub fn with_rule_14_section(document: &str) -> Option<String> {
    crate::generated::splice(document, SECTION_BEGIN, SECTION_END, &rule_14_section())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};

    use schema2iceberg_parser::{LoadOptions, Url, Workspace};

    use super::{entry, with_rule_14_section, Role, KEYWORDS};

    /// Every keyword the mapper knows is one whose name the parser's keyword tables share.
    #[test]
    fn the_parser_shares_every_known_keyword_name() {
        for e in KEYWORDS {
            assert!(
                schema2iceberg_parser::KEYWORD_NAMES.contains(&e.name),
                "`{}` is missing from the parser's KEYWORD_NAMES",
                e.name
            );
        }
    }

    /// What the parser makes of a one-key schema `{"<name>": <value>}`, with the key's name
    /// left out: the root's typed keywords, its problems, the schema nodes and the document's
    /// diagnostics.
    fn reading(name: &str, value: &str) -> String {
        let text = format!("{{{}: {value}}}", serde_json::Value::from(name));
        let base = Url::parse("file:///probe.json").unwrap();
        let ws = Workspace::from_bytes(
            "probe.json",
            text.into_bytes(),
            base,
            LoadOptions::default(),
        );
        let root = ws.root().unwrap();
        let mut keywords = ws.keywords(root).cloned().unwrap_or_default();
        keywords.keys.clear();
        let problems = ws.schema(root).map_or(0, |s| s.problems.len());
        format!(
            "{keywords:?} {problems} {} {} {:?}",
            ws.schema_count(),
            ws.diagnostics().len(),
            ws.base(root).map(Url::as_str)
        )
    }

    /// Whether the parser reads the keyword `name`: some value of it gives a typed keyword, a
    /// problem, a schema node or a diagnostic that the same value under an unknown key does not.
    fn parser_reads(name: &str) -> bool {
        const VALUES: &[&str] = &[
            "{}",
            r#"{"a": {}}"#,
            "[{}]",
            r#"["a"]"#,
            r#""text""#,
            "1",
            "true",
            "null",
        ];
        VALUES
            .iter()
            .any(|v| reading(name, v) != reading("x-not-a-keyword", v))
    }

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// Every word the parser's source has between two quotes: a keyword it reads is matched by
    /// its name, so it is among them, wherever the parser's code puts it.
    fn parser_words() -> BTreeSet<String> {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../parser/src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let mut words = BTreeSet::new();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            // Every piece between two quotes, whichever quotes pair up.
            for piece in text.split('"') {
                let word = piece.strip_prefix('$').unwrap_or(piece);
                if word.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && word.chars().all(|c| c.is_ascii_alphanumeric())
                {
                    words.insert(piece.to_string());
                }
            }
        }
        words
    }

    #[test]
    fn every_keyword_the_parser_reads_has_a_row() {
        let read: Vec<String> = parser_words()
            .into_iter()
            .filter(|w| parser_reads(w))
            .collect();
        // The probe must see what the mapper is known to need from the parser.
        for needed in [
            "$ref",
            "type",
            "properties",
            "not",
            "minimum",
            "additionalItems",
        ] {
            assert!(
                read.iter().any(|r| r == needed),
                "the probe does not see the parser read `{needed}`: {read:?}"
            );
        }
        let missing: Vec<&String> = read.iter().filter(|w| entry(w).is_none()).collect();
        assert!(
            missing.is_empty(),
            "the parser reads {missing:?}, which the keyword table has no row for"
        );
    }

    #[test]
    fn each_keyword_has_one_row() {
        let mut seen = BTreeSet::new();
        for e in KEYWORDS {
            assert!(seen.insert(e.name), "`{}` has two rows", e.name);
            assert!(
                (1..=23).contains(&e.rule),
                "`{}` names rule {}, which docs/mapping.md does not have",
                e.name,
                e.rule
            );
        }
    }

    #[test]
    fn only_validation_keywords_loosen() {
        for e in KEYWORDS {
            if e.loosening != super::Loosening::Never {
                assert!(
                    e.role.validates(),
                    "`{}` is judged by diff, but its role ({}) does not validate",
                    e.name,
                    e.role.describe()
                );
            }
        }
        assert!(!Role::ChangesNothing.validates());
    }

    #[test]
    fn the_rule_14_section_is_current() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/mapping.md");
        let published = std::fs::read_to_string(path).unwrap();
        let current = with_rule_14_section(&published);
        assert!(
            current.as_deref() == Some(published.as_str()),
            "docs/mapping.md's rule 14 keyword list is stale or its markers are missing: run `cargo xtask codegen`"
        );
    }
}
