//! The `schema2iceberg` command line: it parses the arguments and hands them to the command's
//! module. Each command (`compile`, `check`, `diff`, `bundle`, `records`, `deliver`,
//! `policies`, and `shell`'s `completions` and `man`) has one shape, [`Command`]: its module
//! owns its clap arguments (`…Args`) and help (`HELP`, the `after_help`), the `Request` they
//! resolve into, `run(&Request, out) -> Outcome` (standard output written into `out` as it is
//! produced; `records` and `deliver` stream it), the rendering of the rest of the outcome, and
//! its typed error. `app::main` runs every command the same way; tests and the generated docs
//! build a request and call [`run_captured`].
//!
//! Below the commands: `app` (exit codes, usage errors, the one standard-output writer, colour,
//! and the arguments every schema-reading command shares), `project` (what several commands
//! read about the user's project: `schema2iceberg.toml`, the channel configuration, how a
//! schema and its reference root are read), `intake` (the records front that `records` and
//! `deliver` share) and `render` (renderings several commands show). No command imports
//! another (`tests/layout.rs`). `codes`, `corpus` and `docs` serve the generated documentation
//! (`cargo xtask`).

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

pub use app::{run_captured, Command, Outcome};
pub use compile::{
    Compile, CompileError, CompileOutcome, CompileRequest, Format, SchemaInput, TableOptions,
};
pub use project::{source::SourceOptions, ProjectError};

mod app;
pub mod bundle;
pub mod check;
pub mod codes;
mod compile;
pub mod corpus;
pub mod deliver;
pub mod diff;
pub mod docs;
mod intake;
pub mod policies;
mod project;
mod records;
mod render;
mod shell;

const ABOUT: &str =
    "Preview the Iceberg table that an Amazon Kinesis or MSK streaming-tables channel \
creates from a JSON Schema, and every problem in the schema, before anything is registered.";

const EXAMPLES: &str = "\
Examples:
  schema2iceberg compile testdata/examples/event.json --partition event_time
  schema2iceberg compile schema.json --format json > table.json
  cat schema.json | schema2iceberg compile - --draft 04
  schema2iceberg bundle schema.json > schema.bundled.json   # the one document to register
  schema2iceberg records schema.json samples.ndjson --partition event_time   # which reach the table

Exit codes: 0 compiled (warnings allowed), 1 the schema has errors, 2 usage or I/O error.";

/// What `--version` prints after the name: the version, then the commit and the target triple the
/// binary was built from (build.rs; the commit is `unknown` outside a git checkout), so a bug
/// report names the exact build: `schema2iceberg 0.1.0 (e9674f7a1b2c x86_64-unknown-linux-musl)`.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("SCHEMA2ICEBERG_COMMIT"),
    " ",
    env!("SCHEMA2ICEBERG_TARGET"),
    ")"
);

#[derive(Debug, Parser)]
#[command(name = "schema2iceberg", version = VERSION, about = ABOUT, after_help = EXAMPLES, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Commands,
}

/// The commands; each command's `about` and `after_help` are on its arguments struct.
#[derive(Debug, Subcommand)]
enum Commands {
    Compile(compile::CompileArgs),
    Check(check::CheckArgs),
    Diff(diff::DiffArgs),
    Bundle(bundle::BundleArgs),
    Records(records::RecordsArgs),
    Deliver(deliver::DeliverArgs),
    Policies(policies::PoliciesArgs),
    Completions(shell::CompletionsArgs),
    Man(shell::ManArgs),
}

/// Runs the command line and returns the exit code.
pub fn run(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    app::EXIT_OK
                }
                _ => app::EXIT_USAGE,
            });
        }
    };
    match cli.command {
        Commands::Compile(args) => app::main::<compile::Compile>(args),
        Commands::Check(args) => app::main::<check::Check>(args),
        Commands::Diff(args) => app::main::<diff::Diff>(args),
        Commands::Bundle(args) => app::main::<bundle::Bundle>(args),
        Commands::Records(args) => app::main::<records::Records>(args),
        Commands::Deliver(args) => app::main::<deliver::Deliver>(args),
        Commands::Policies(args) => app::main::<policies::Policies>(args),
        Commands::Completions(args) => app::main::<shell::Completions>((args, Cli::command())),
        Commands::Man(args) => app::main::<shell::Man>((args, Cli::command())),
    }
}

/// `schema2iceberg compile <args>` as the binary runs it, without color, with its output kept:
/// for generated documentation, which shows the commands it ran. Relative paths in `args` are
/// read from `root`, and shown as written.
pub fn compile_command_line(root: &std::path::Path, args: &[&str]) -> Outcome {
    let argv = ["schema2iceberg", "compile"]
        .into_iter()
        .chain(args.iter().copied());
    match Cli::try_parse_from(argv) {
        Ok(Cli {
            command: Commands::Compile(parsed),
        }) => compile::run_rooted(root, parsed),
        Ok(_) => Outcome::usage("error: not a compile command line\n".to_string()),
        Err(e) => Outcome::usage(e.to_string()),
    }
}
