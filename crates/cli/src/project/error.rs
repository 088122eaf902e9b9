//! What can go wrong reading the user's project: each a usage error (exit 2), with the message
//! printed after `error: `.

use std::path::PathBuf;

use schema2iceberg_parser::{Diagnostic, Location};

use crate::render;

/// A usage error in what the project or the command line gives.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// A file (the schema, an input, the toml) that cannot be read.
    #[error("cannot read `{shown}`: {source}")]
    Read {
        shown: String,
        source: std::io::Error,
    },
    /// Standard input that cannot be read.
    #[error("cannot read standard input: {0}")]
    Stdin(std::io::Error),
    /// `--ref-root` is not a folder.
    #[error("--ref-root `{}` is not a directory", .0.display())]
    RefRootNotDir(PathBuf),
    /// `schema2iceberg.toml` has mistakes (drawn as `check` draws them).
    #[error("{}", toml_mistakes(shown, text, diagnostics))]
    TomlMistakes {
        shown: String,
        text: String,
        diagnostics: Vec<Diagnostic>,
    },
    /// A channel configuration that cannot be read.
    #[error("cannot read the channel configuration `{shown}` ({from}): {source}")]
    ReadChannelConfig {
        shown: String,
        from: String,
        source: std::io::Error,
    },
    /// A channel configuration that is not JSON.
    #[error("the channel configuration `{shown}` is not JSON: {message} at {at}")]
    ChannelConfigNotJson {
        shown: String,
        message: String,
        at: String,
    },
    /// A JSON file that is not a channel configuration.
    #[error("{message} ({at})")]
    NotAChannelConfig { message: String, at: String },
    /// A channel configuration with errors, which the channel would refuse.
    #[error("{}", channel_errors(.0))]
    ChannelConfigErrors(Vec<Diagnostic>),
    /// Two channel configurations disagree on a setting.
    #[error(
        "the channel configurations name two {what}s: {first} at {first_at} and {other} at {other_at}"
    )]
    Disagree {
        what: String,
        first: String,
        first_at: String,
        other: String,
        other_at: String,
    },
    /// A flag that names another value than the channel configuration.
    #[error(
        "{flag} `{value}` contradicts the channel configuration, whose {key} is `{configured}` ({at}); drop one"
    )]
    Contradicts {
        flag: &'static str,
        value: String,
        key: &'static str,
        configured: String,
        at: String,
    },
    /// `--compression` against the configuration's `CompressionType`.
    #[error(
        "--compression contradicts the channel configuration, whose CompressionType is `{configured}` ({at}); drop one"
    )]
    CompressionContradicts { configured: String, at: String },
    /// `--record-format` against the configuration's record format.
    #[error(
        "--record-format {flag} contradicts the channel configuration, which says {configured} ({at}); drop one"
    )]
    RecordFormatContradicts {
        flag: &'static str,
        configured: &'static str,
        at: String,
    },
    /// The toml's partition against the configuration's `SourceName`.
    #[error(
        "schema2iceberg.toml gives the partition `{configured}` for this schema, but its channel configuration's SourceName is `{source_name}` ({at})"
    )]
    TomlPartitionContradicts {
        configured: String,
        source_name: String,
        at: String,
    },
    /// A `CompressionType` the channel does not take.
    #[error("the CompressionType `{value}` ({at}) is not NONE, ZSTD or SNAPPY")]
    BadCompression { value: String, at: String },
    /// A namespace or table name the channel would refuse.
    #[error("{message}{place}: the channel would refuse it; {help} (rule {rule})")]
    NameRefused {
        message: String,
        place: String,
        help: String,
        rule: &'static str,
    },
}

/// `file:line:col`.
pub(crate) fn at(location: &Location) -> String {
    format!("{}:{}:{}", location.file, location.line, location.column)
}

fn toml_mistakes(shown: &str, text: &str, diagnostics: &[Diagnostic]) -> String {
    let mut message = format!("`{shown}` has mistakes, so no record was checked:\n");
    for d in diagnostics {
        message.push_str(&render::diagnostic(Some(text), d, false));
        message.push('\n');
    }
    message.trim_end().to_string()
}

/// A channel configuration with an error is refused by every command that reads one, with the
/// diagnostics `check` reports for it.
fn channel_errors(errors: &[Diagnostic]) -> String {
    let mut message = format!(
        "the channel configuration has {} error(s), so the channel would not be created from it (`schema2iceberg check` reports the same):",
        errors.len()
    );
    for d in errors {
        message.push_str(&format!(
            "\n  error[{}]: {} ({})",
            d.code,
            d.message,
            at(&d.location)
        ));
        if let Some(help) = &d.help {
            message.push_str(&format!("\n    help: {help}"));
        }
    }
    message
}
