//! Severity overrides: `--allow`, `--warn`, `--deny` and the `[severity]` tables of the
//! repository config.

use std::collections::BTreeMap;

use schema2iceberg_parser::{Diagnostic, Severity};

/// What to do with a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Drop the diagnostic.
    Allow,
    /// Make it a warning.
    Warn,
    /// Make it an error.
    Deny,
}

impl Level {
    /// Reads `allow`, `warn` or `deny`.
    pub fn parse(text: &str) -> Option<Level> {
        match text {
            "allow" => Some(Level::Allow),
            "warn" => Some(Level::Warn),
            "deny" => Some(Level::Deny),
            _ => None,
        }
    }
}

/// A set of overrides. Later layers win: the config's global table, then a matching
/// `[[schemas]]` entry, then the command line.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    codes: BTreeMap<String, Level>,
    warnings: Option<Level>,
}

impl Overrides {
    /// Sets `code` (or the group `warnings`) to `level`.
    pub fn set(&mut self, code: &str, level: Level) {
        if code == "warnings" {
            self.warnings = Some(level);
        } else {
            self.codes.insert(code.to_string(), level);
        }
    }

    /// `self`, with `later`'s settings on top.
    pub fn layered(&self, later: &Overrides) -> Overrides {
        let mut out = self.clone();
        out.codes
            .extend(later.codes.iter().map(|(k, v)| (k.clone(), *v)));
        if later.warnings.is_some() {
            out.warnings = later.warnings;
        }
        out
    }

    /// Applies the overrides: `None` when the diagnostic is allowed. A setting for the code beats
    /// the `warnings` group.
    pub fn apply(&self, mut d: Diagnostic) -> Option<Diagnostic> {
        let level = self
            .codes
            .get(d.code)
            .copied()
            .or_else(|| self.warnings.filter(|_| d.severity == Severity::Warning));
        match level {
            Some(Level::Allow) => return None,
            Some(Level::Warn) => d.severity = Severity::Warning,
            Some(Level::Deny) => d.severity = Severity::Error,
            None => {}
        }
        Some(d)
    }
}
