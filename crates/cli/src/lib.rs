//! The `schema2iceberg` command line: it parses the arguments and hands them to the command's
//! module. Each command (`compile`, `check`, `diff`, `bundle`, `records`, `deliver`,
//! `policies`, and `shell`'s `completions` and `man`) has one shape: its module owns its clap
//! arguments (`…Args`), its help (`HELP`, the `after_help`), its typed error, and
//! `run(args) -> ExitCode`, which renders its outcome and writes it through `app`. The commands
//! whose result fits in memory also offer it as a value, from a request (`compile_bytes`,
//! `check::check`, `diff::run_diff`, `bundle::bundle_file`), for the tests and the generated
//! docs; `records` and `deliver` stream theirs.
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

pub use app::Outcome;
pub use compile::{compile_bytes, CompileRequest, Format, TableOptions};

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
    command: Command,
}

/// The commands; each command's `about` and `after_help` are on its arguments struct.
#[derive(Debug, Subcommand)]
enum Command {
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
        Command::Compile(args) => compile::run(args),
        Command::Check(args) => check::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Bundle(args) => bundle::run(args),
        Command::Records(args) => records::run(args),
        Command::Deliver(args) => deliver::run(args),
        Command::Policies(args) => policies::run(args),
        Command::Completions(args) => shell::run_completions(args, Cli::command()),
        Command::Man(args) => shell::run_man(args, Cli::command()),
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
            command: Command::Compile(parsed),
        }) => compile::run_rooted(root, parsed),
        Ok(_) => Outcome::usage("error: not a compile command line\n".to_string()),
        Err(e) => Outcome::usage(e.to_string()),
    }
}
