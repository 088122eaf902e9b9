//! The `bundle` command: reads a schema and the files its `$ref`s reach, and prints the one
//! self-contained document to register (the transformation is `schema2iceberg_parser::bundle`).

use std::path::PathBuf;

use schema2iceberg_parser::Draft;

use crate::source::{self, SchemaSource};
use crate::{render, EXIT_OK, EXIT_SCHEMA_ERRORS, EXIT_USAGE};

/// Everything `bundle` needs.
#[derive(Debug, Clone)]
pub struct BundleRequest {
    /// The schema file.
    pub schema: PathBuf,
    /// The draft override.
    pub draft: Option<Draft>,
    /// The reference root override.
    pub ref_root: Option<PathBuf>,
    /// Whether to color the diagnostics.
    pub color: bool,
}

/// The result of one bundle, rendered.
#[derive(Debug, Clone)]
pub struct BundleOutcome {
    /// The bundled document (empty when there are errors).
    pub document: String,
    /// The diagnostics and the summary, or the usage error, for standard error.
    pub stderr: String,
    /// The process exit code.
    pub exit: u8,
}

/// Bundles one schema file; the whole command but for writing the output.
pub fn bundle_file(request: &BundleRequest) -> BundleOutcome {
    let usage = |message: String| BundleOutcome {
        document: String::new(),
        stderr: format!("error: {message}\n"),
        exit: EXIT_USAGE,
    };
    if let Err(message) = source::ref_root_is_dir(request.ref_root.as_deref()) {
        return usage(message);
    }
    let bytes = match std::fs::read(&request.schema) {
        Ok(bytes) => bytes,
        Err(e) => return usage(format!("cannot read `{}`: {e}", request.schema.display())),
    };
    let display = request.schema.display().to_string();
    let ws = source::workspace(
        &SchemaSource {
            display: &display,
            path: Some(&request.schema),
            ref_root: request.ref_root.clone(),
            draft: request.draft,
        },
        bytes,
    );
    match schema2iceberg_parser::bundle(&ws) {
        Ok(document) => BundleOutcome {
            document,
            stderr: String::new(),
            exit: EXIT_OK,
        },
        Err(errors) => {
            let mut stderr = String::new();
            for d in &errors {
                let source = ws.source_text(&d.location.file);
                stderr.push_str(&render::diagnostic(source, d, request.color));
                stderr.push_str("\n\n");
            }
            stderr.push_str(&format!(
                "failed: `{}` cannot be bundled into one document; {} error{}\n",
                request.schema.display(),
                errors.len(),
                if errors.len() == 1 { "" } else { "s" }
            ));
            BundleOutcome {
                document: String::new(),
                stderr,
                exit: EXIT_SCHEMA_ERRORS,
            }
        }
    }
}
