//! The bottom of the command line, which every command uses: the exit codes, usage errors, the
//! one writer of standard output, the colour decision, and the arguments every command that
//! reads a schema shares (`--draft`, `--ref-root`, `--color`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use schema2iceberg_parser::Draft;

/// Exit code: the schema compiled (warnings allowed).
pub(crate) const EXIT_OK: u8 = 0;
/// Exit code: the schema has errors (invalid JSON included).
pub(crate) const EXIT_SCHEMA_ERRORS: u8 = 1;
/// Exit code: usage errors, and files that cannot be read.
pub(crate) const EXIT_USAGE: u8 = 2;

/// When to color text output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorWhen {
    /// When stdout is a terminal and NO_COLOR is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// `--draft`: how a schema is read, whatever its `$schema` says.
#[derive(Debug, clap::Args)]
pub(crate) struct DraftArg {
    /// Read the schema as this draft, whatever its $schema says.
    #[arg(long, value_name = "04|06|07", value_parser = parse_draft)]
    pub(crate) draft: Option<Draft>,
}

/// `--draft` and `--ref-root`: how a schema and the files its `$ref`s reach are read. The help of
/// `--ref-root` is `compile`'s; `bundle` and `check` say their own default with `mut_arg`.
///
/// `--color` ([`ColorArg`]) and `--partition` are not in this struct: `--partition` is a list in
/// `compile`, one value in `check`, `diff`, `records` and `deliver`, and absent from `bundle`, and
/// flattening `--color` here would move it in every command's `--help`, which the restructuring
/// that made this struct was not to change.
#[derive(Debug, clap::Args)]
pub(crate) struct ReadArgs {
    #[command(flatten)]
    pub(crate) draft: DraftArg,
    /// The folder that file $refs may read from [default: the nearest folder at or above the
    /// schema's that holds a schema2iceberg.toml or a .git, otherwise the schema's folder].
    #[arg(long, value_name = "DIR")]
    pub(crate) ref_root: Option<PathBuf>,
}

/// `--color`.
#[derive(Debug, clap::Args)]
pub(crate) struct ColorArg {
    /// Color the text output.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub(crate) color: ColorWhen,
}

/// A `--draft` that is not 04, 06 or 07 (clap prints it after `invalid value`).
#[derive(Debug, thiserror::Error)]
#[error("`{0}` is not a supported draft: use 04, 06 or 07")]
pub(crate) struct NotADraft(String);

fn parse_draft(text: &str) -> Result<Draft, NotADraft> {
    Draft::from_flag(text).ok_or_else(|| NotADraft(text.to_string()))
}

/// A command's result, rendered: what goes to standard output and standard error, and the
/// exit code.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// What goes to standard output.
    pub stdout: String,
    /// What goes to standard error: the diagnostics, when standard output carries a machine
    /// format other than `json`.
    pub stderr: String,
    /// The process exit code.
    pub exit: u8,
}

impl Outcome {
    /// A usage error as an outcome: `stderr` (the whole text, `error: ` included) and exit 2.
    pub(crate) fn usage(stderr: String) -> Outcome {
        Outcome {
            stdout: String::new(),
            stderr,
            exit: EXIT_USAGE,
        }
    }
}

pub(crate) fn color_enabled(when: ColorWhen) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
        }
    }
}

/// `--color` for what goes to standard error (`bundle`'s diagnostics, and those of a schema
/// that `records` cannot compile).
pub(crate) fn stderr_color_enabled(when: ColorWhen) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never
        }
    }
}

/// Every usage and I/O error of every command ends here: one `error: ` line on standard error
/// (a rendered config mistake follows it), and exit code 2.
pub(crate) fn usage_error(message: impl std::fmt::Display) -> ExitCode {
    let mut stderr = anstream::stderr();
    let _ = writeln!(stderr, "error: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// Writes a command's standard output (every command's goes through here) and exits with
/// `exit`. A failure to write exits 2: quietly for a reader that went away (`| head`), with an
/// I/O error otherwise.
pub(crate) fn print_stdout(text: &str, exit: u8) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
    stdout_written(written, exit)
}

/// How writing a command's standard output ended, as an exit code: `print_stdout`'s rule, for
/// `records`, which streams its output rather than writing one string.
pub(crate) fn stdout_written(written: std::io::Result<()>, exit: u8) -> ExitCode {
    match written {
        Ok(()) => ExitCode::from(exit),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_USAGE),
        Err(e) => usage_error(format!("cannot write to standard output: {e}")),
    }
}
