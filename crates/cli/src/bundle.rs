//! The `bundle` command: reads a schema and the files its `$ref`s reach, and prints the one
//! self-contained document to register (the transformation is `schema2iceberg_parser::bundle`).

use std::io::Write;
use std::path::{Path, PathBuf};

use schema2iceberg_parser::{Diagnostic, Workspace};

use crate::app::{stderr_color_enabled, ColorArg, Command, ReadArgs, EXIT_OK, EXIT_SCHEMA_ERRORS};
use crate::project::source::{self, SchemaSource, SourceOptions};
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
pub struct BundleArgs {
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

/// `bundle`, in the one shape of a command ([`Command`]).
#[derive(Debug)]
pub struct Bundle;

/// Everything `bundle` needs.
#[derive(Debug, Clone)]
pub struct BundleRequest {
    /// The schema file.
    pub schema: PathBuf,
    /// How to read it (`bundle` takes no partition); `color` is for the diagnostics, on
    /// standard error.
    pub source: SourceOptions,
    /// `--output`: the file the bundle goes to instead of standard output.
    pub output: Option<PathBuf>,
}

/// The result of one bundle, besides the document on standard output.
#[derive(Debug, Clone)]
pub struct BundleOutcome {
    /// The diagnostics and the summary, for standard error.
    pub stderr: String,
    /// The process exit code.
    pub exit: u8,
}

/// Why `bundle` stopped: exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// The reference root or the schema file.
    #[error(transparent)]
    Project(#[from] ProjectError),
    /// Standard output could not be written.
    #[error("cannot write the bundle: {0}")]
    Write(#[from] std::io::Error),
}

impl Command for Bundle {
    type Args = BundleArgs;
    type Request = BundleRequest;
    type Outcome = BundleOutcome;
    type Error = BundleError;

    fn request(args: BundleArgs) -> Result<BundleRequest, BundleError> {
        Ok(BundleRequest {
            schema: args.schema,
            source: SourceOptions {
                draft: args.read.draft.draft,
                ref_root: args.read.ref_root,
                partition: Vec::new(),
                color: stderr_color_enabled(args.color.color),
            },
            output: args.output,
        })
    }

    /// Bundles the schema file and writes the document; nothing is written when it cannot be
    /// bundled.
    fn run(request: &BundleRequest, out: &mut dyn Write) -> Result<BundleOutcome, BundleError> {
        source::ref_root_is_dir(request.source.ref_root.as_deref())?;
        let bytes = std::fs::read(&request.schema).map_err(|source| ProjectError::Read {
            shown: request.schema.display().to_string(),
            source,
        })?;
        let display = request.schema.display().to_string();
        let ws = source::workspace(
            &SchemaSource {
                display: &display,
                path: Some(&request.schema),
                ref_root: request.source.ref_root.clone(),
                draft: request.source.draft,
            },
            bytes,
        );
        match schema2iceberg_parser::bundle(&ws) {
            Ok(document) => {
                out.write_all(document.as_bytes())?;
                Ok(BundleOutcome {
                    stderr: String::new(),
                    exit: EXIT_OK,
                })
            }
            Err(errors) => Ok(BundleOutcome {
                stderr: unbundled(&ws, &errors, request),
                exit: EXIT_SCHEMA_ERRORS,
            }),
        }
    }

    fn output(request: &BundleRequest) -> Option<&Path> {
        request.output.as_deref()
    }

    fn finish(outcome: BundleOutcome) -> u8 {
        let _ = anstream::stderr().write_all(outcome.stderr.as_bytes());
        outcome.exit
    }
}

/// The diagnostics of a schema that cannot be bundled, and the summary line.
fn unbundled(ws: &Workspace, errors: &[Diagnostic], request: &BundleRequest) -> String {
    let mut stderr = String::new();
    for d in errors {
        let source = ws.source_text(&d.location.file);
        stderr.push_str(&render::diagnostic(source, d, request.source.color));
        stderr.push_str("\n\n");
    }
    stderr.push_str(&format!(
        "failed: `{}` cannot be bundled into one document; {} error{}\n",
        request.schema.display(),
        errors.len(),
        if errors.len() == 1 { "" } else { "s" }
    ));
    stderr
}
