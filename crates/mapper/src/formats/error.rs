//! The formats' one error: what kind of failure it is and the message the cli shows, in the
//! manner of the `iceberg` crate's `Error`.

/// What kind of failure a [`FormatError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The format cannot say what the table is: a type or a partition it has no way to write
    /// (Athena has no `time` column), two columns with one name, or a depth no compiled table
    /// reaches.
    Unsupported,
    /// A library the document is written with (`iceberg`, `apache-avro`, `arrow-schema`,
    /// `serde_json`) refused the table.
    Library,
}

/// Why a compiled table cannot be written in a format. Its `Display` is the whole message.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct FormatError {
    kind: ErrorKind,
    message: String,
}

impl FormatError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, as `Display` writes it.
    pub fn message(&self) -> &str {
        &self.message
    }

    pub(crate) fn unsupported(message: impl Into<String>) -> FormatError {
        FormatError {
            kind: ErrorKind::Unsupported,
            message: message.into(),
        }
    }

    pub(crate) fn library(message: impl Into<String>) -> FormatError {
        FormatError {
            kind: ErrorKind::Library,
            message: message.into(),
        }
    }
}
