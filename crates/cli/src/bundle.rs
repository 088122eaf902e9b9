//! The `bundle` command: reads a schema and the files its `$ref`s reach, and prints the one
//! self-contained document to register (the transformation is `schema2iceberg_parser::bundle`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use schema2iceberg_parser::Draft;

use crate::app::{
    print_stdout, stderr_color_enabled, usage_error, ColorArg, ReadArgs, EXIT_OK,
    EXIT_SCHEMA_ERRORS, EXIT_USAGE,
};
use crate::project::source::{self, SchemaSource};
use crate::project::ProjectError;
use crate::render;

/// The `after_help` of `bundle --help`.
pub(crate) const HELP: &str = "\
The Glue Schema Registry stores one document per schema version and cannot read the files a
$ref names, so a channel created on such a schema fails (compile warns: file-ref). bundle writes
the schema you register:
  - each referenced file is inlined once, as an entry of the root's `definitions` (or `$defs`,
    when the root already uses it) named after the file: common.json becomes `common`, then
    `common_2`, … when the name is taken;
  - every $ref into another file, and every $ref inside an inlined file, becomes a pointer into
    the bundle (\"#/definitions/common/definitions/address\"); cycles between files stay cycles;
  - `$id`/`id` and `$schema` are dropped from inlined files, so their $refs resolve the same;
  - the main file's text is kept as written; numbers keep their exact text.
compile gives the bundle the same table and diagnostics as the files it came from.

Examples:
  schema2iceberg bundle schemas/order.json > order.bundled.json
  schema2iceberg bundle schemas/order.json --output build/order.json
  aws glue register-schema-version --schema-id RegistryName=events,SchemaName=order \\
    --schema-definition file://order.bundled.json

Exit codes: 0 bundled, 1 the schema has a reference that cannot be bundled (a missing file, a
file outside the reference root, a network URI) or is not JSON, 2 usage or I/O error.
Diagnostics go to standard error, and nothing is written when there is one.";

#[derive(Debug, clap::Args)]
#[command(
    about = "Print the one self-contained document to register: the schema with every file that its $refs reach inlined under `definitions`",
    after_help = HELP
)]
#[command(
    mut_arg("ref_root", |a| a.help("The folder that file $refs may read from [default: as compile: the nearest folder at or above the schema's that holds a schema2iceberg.toml or a .git, otherwise the schema's]")),
    mut_arg("color", |a| a.help("Color the diagnostics")),
)]
pub(crate) struct BundleArgs {
    /// The JSON Schema file.
    #[arg(value_name = "SCHEMA")]
    schema: PathBuf,
    /// Write the bundle to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    color: ColorArg,
}

/// Runs `bundle`.
pub(crate) fn run(args: BundleArgs) -> ExitCode {
    let color = stderr_color_enabled(args.color.color);
    let outcome = bundle_file(&BundleRequest {
        schema: args.schema,
        draft: args.read.draft.draft,
        ref_root: args.read.ref_root,
        color,
    });
    let mut stderr = anstream::stderr();
    let _ = stderr.write_all(outcome.stderr.as_bytes());
    if outcome.exit != EXIT_OK {
        return ExitCode::from(outcome.exit);
    }
    match &args.output {
        Some(path) => match std::fs::write(path, &outcome.document) {
            Ok(()) => ExitCode::from(EXIT_OK),
            Err(e) => usage_error(format!("cannot write `{}`: {e}", path.display())),
        },
        None => print_stdout(&outcome.document, EXIT_OK),
    }
}

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
    let usage = |message: &dyn std::fmt::Display| BundleOutcome {
        document: String::new(),
        stderr: format!("error: {message}\n"),
        exit: EXIT_USAGE,
    };
    if let Err(message) = source::ref_root_is_dir(request.ref_root.as_deref()) {
        return usage(&message);
    }
    let bytes = match std::fs::read(&request.schema) {
        Ok(bytes) => bytes,
        Err(source) => {
            return usage(&ProjectError::Read {
                shown: request.schema.display().to_string(),
                source,
            })
        }
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
