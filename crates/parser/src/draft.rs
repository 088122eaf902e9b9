//! JSON Schema drafts, and which one a `$schema` URI names.

use std::fmt;

/// The drafts that the Glue Schema Registry accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Draft {
    /// draft-04: `id`, boolean `exclusiveMaximum`.
    Draft04,
    /// draft-06: `$id`, numeric `exclusiveMaximum`, `const`, boolean schemas.
    Draft06,
    /// draft-07: draft-06 plus `if`/`then`/`else` and `contentEncoding`.
    Draft07,
}

/// What a `$schema` value names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DeclaredDraft {
    /// One of the supported drafts.
    Supported(Draft),
    /// A later draft that the Glue Schema Registry does not accept (2019-09, 2020-12).
    Later(String),
    /// Anything else.
    Unknown,
}

impl Draft {
    /// Parses the `--draft` spelling: `04`, `06`, `07` (a leading `draft-` is allowed).
    pub fn from_flag(text: &str) -> Option<Draft> {
        match text
            .trim_start_matches("draft-")
            .trim_start_matches("draft")
        {
            "04" | "4" => Some(Draft::Draft04),
            "06" | "6" => Some(Draft::Draft06),
            "07" | "7" => Some(Draft::Draft07),
            _ => None,
        }
    }

    /// Reads a `$schema` URI: http or https, with or without the trailing `#`.
    pub(crate) fn from_schema_uri(uri: &str) -> DeclaredDraft {
        let trimmed = uri.trim_end_matches('#');
        let Some(rest) = trimmed
            .strip_prefix("http://json-schema.org/")
            .or_else(|| trimmed.strip_prefix("https://json-schema.org/"))
        else {
            return DeclaredDraft::Unknown;
        };
        match rest {
            "draft-04/schema" => DeclaredDraft::Supported(Draft::Draft04),
            "draft-06/schema" => DeclaredDraft::Supported(Draft::Draft06),
            "draft-07/schema" => DeclaredDraft::Supported(Draft::Draft07),
            "draft/2019-09/schema" => DeclaredDraft::Later("2019-09".to_string()),
            "draft/2020-12/schema" => DeclaredDraft::Later("2020-12".to_string()),
            _ => DeclaredDraft::Unknown,
        }
    }

    /// The keyword that sets a base URI in this draft.
    pub(crate) fn id_keyword(self) -> &'static str {
        match self {
            Draft::Draft04 => "id",
            Draft::Draft06 | Draft::Draft07 => "$id",
        }
    }
}

impl fmt::Display for Draft {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Draft::Draft04 => "draft-04",
            Draft::Draft06 => "draft-06",
            Draft::Draft07 => "draft-07",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_schema_uris() {
        for uri in [
            "http://json-schema.org/draft-04/schema#",
            "https://json-schema.org/draft-04/schema",
        ] {
            assert_eq!(
                Draft::from_schema_uri(uri),
                DeclaredDraft::Supported(Draft::Draft04)
            );
        }
        assert_eq!(
            Draft::from_schema_uri("https://json-schema.org/draft/2020-12/schema"),
            DeclaredDraft::Later("2020-12".to_string())
        );
        assert_eq!(
            Draft::from_schema_uri("http://example.com/x#"),
            DeclaredDraft::Unknown
        );
        assert_eq!(Draft::from_flag("draft-06"), Some(Draft::Draft06));
    }
}
