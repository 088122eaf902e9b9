//! The bottom of the command line, which every command uses: the one shape of a command
//! ([`Command`], run by [`main`]), the exit codes, usage errors, the one writer of standard
//! output, the colour decision, and the arguments every command that reads a schema shares
//! (`--draft`, `--ref-root`, `--color`).

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

/// The one shape of every command. Its module owns its clap arguments (`Args`) and help; the
/// arguments resolve into a `Request` (the schema, the toml and the channel configuration read),
/// which tests and the generated docs can also build directly; `run` does the whole command,
/// writing standard output into `out` as it is produced (`records` and `deliver` stream it) and
/// returning the `Outcome`; `finish` renders the rest of the outcome (standard error) and gives
/// the exit code. A usage or I/O error is the command's typed `Error`, rendered once by
/// [`usage_error`].
pub trait Command {
    /// The command's arguments, as clap parses them.
    type Args;
    /// Everything the command needs.
    type Request;
    /// What it produced besides its standard output.
    type Outcome;
    /// Why it stopped: exit code 2.
    type Error: std::fmt::Display;
    /// Resolves the arguments into a request.
    fn request(args: Self::Args) -> Result<Self::Request, Self::Error>;
    /// Runs the command, writing its standard output into `out`.
    fn run(request: &Self::Request, out: &mut dyn Write) -> Result<Self::Outcome, Self::Error>;
    /// The file `--output` names, which takes standard output when the command is done (or
    /// none: standard output).
    fn output(_request: &Self::Request) -> Option<&std::path::Path> {
        None
    }
    /// Renders what is left of the outcome (on standard error) and gives the exit code.
    fn finish(outcome: Self::Outcome) -> u8;
}

/// Runs a command from its arguments, as the binary does: the request resolved, the command run
/// into standard output (or into the `--output` file, written whole when the command is done
/// and left unwritten when the command failed with nothing to write), the outcome finished.
pub(crate) fn main<C: Command>(args: C::Args) -> ExitCode {
    let request = match C::request(args) {
        Ok(request) => request,
        Err(e) => return usage_error(e),
    };
    if let Some(path) = C::output(&request) {
        let mut buffer = Vec::new();
        let outcome = match C::run(&request, &mut buffer) {
            Ok(outcome) => outcome,
            Err(e) => return usage_error(e),
        };
        let exit = C::finish(outcome);
        if buffer.is_empty() && exit != EXIT_OK {
            return ExitCode::from(exit);
        }
        return match std::fs::write(path, &buffer) {
            Ok(()) => ExitCode::from(exit),
            Err(e) => usage_error(format!("cannot write `{}`: {e}", path.display())),
        };
    }
    let stdout = std::io::stdout().lock();
    let mut out = WriteOnce {
        inner: std::io::BufWriter::with_capacity(256 * 1024, stdout),
        error: None,
    };
    let ran = C::run(&request, &mut out);
    let flushed = out.flush();
    // A failed write decides the exit whatever the command made of it: quietly for a reader
    // that went away (`| head`).
    if let Some(e) = out.error.take() {
        return stdout_written(Err(e), EXIT_USAGE);
    }
    match ran {
        Ok(outcome) => {
            let exit = C::finish(outcome);
            stdout_written(flushed, exit)
        }
        Err(e) => usage_error(e),
    }
}

/// [`Command::run`] into memory: the outcome and what it wrote to standard output (as text,
/// invalid UTF-8 replaced), for tests and the generated docs.
pub fn run_captured<C: Command>(request: &C::Request) -> Result<(C::Outcome, String), C::Error> {
    let mut out = Vec::new();
    let outcome = C::run(request, &mut out)?;
    let text = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Ok((outcome, text))
}

/// Standard output that keeps its first write error, so that [`main`] renders it once, as
/// [`stdout_written`] says, whatever the command made of it.
struct WriteOnce<W: Write> {
    inner: W,
    error: Option<std::io::Error>,
}

impl<W: Write> WriteOnce<W> {
    fn kept<T>(&mut self, result: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(e) = &result {
            if self.error.is_none() {
                self.error = Some(std::io::Error::new(e.kind(), e.to_string()));
            }
        }
        result
    }
}

impl<W: Write> Write for WriteOnce<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let result = self.inner.write(buf);
        self.kept(result)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let result = self.inner.write_all(buf);
        self.kept(result)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let result = self.inner.flush();
        self.kept(result)
    }
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

/// How writing a command's standard output ended, as an exit code: a failure to write exits 2,
/// quietly for a reader that went away (`| head`), with an I/O error otherwise.
pub(crate) fn stdout_written(written: std::io::Result<()>, exit: u8) -> ExitCode {
    match written {
        Ok(()) => ExitCode::from(exit),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_USAGE),
        Err(e) => usage_error(format!("cannot write to standard output: {e}")),
    }
}
