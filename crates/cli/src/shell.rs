//! `completions` and `man`: the shell's view of the command line, generated from its clap
//! definition so that it cannot drift from the real flags.

use std::io::Write;
use std::path::PathBuf;

use clap_complete::Shell;

use crate::app::{Command, EXIT_OK};

pub(crate) const COMPLETIONS_HELP: &str = "\
Prints the completion script to standard output. It completes subcommands, flags, the values of
flags that take one of a fixed set (--format, --color, …), and file names elsewhere.

Install it where your shell looks for completions, for example:
  bash:  schema2iceberg completions bash > ~/.local/share/bash-completion/completions/schema2iceberg
  zsh:   schema2iceberg completions zsh > ~/.zfunc/_schema2iceberg
         (with `fpath+=~/.zfunc; autoload -Uz compinit; compinit` in ~/.zshrc)
  fish:  schema2iceberg completions fish > ~/.config/fish/completions/schema2iceberg.fish
  powershell:  schema2iceberg completions powershell >> $PROFILE
  elvish:  schema2iceberg completions elvish >> ~/.config/elvish/rc.elv
or, for the current bash session only:  source <(schema2iceberg completions bash)

Exit codes: 0 printed, 2 usage or I/O error.";

pub(crate) const MAN_HELP: &str = "\
Prints the man page of schema2iceberg (roff) to standard output, or, with --dir, writes one page
per command into DIR: schema2iceberg.1, schema2iceberg-compile.1, schema2iceberg-check.1, …

Examples:
  schema2iceberg man | man -l -
  schema2iceberg man --dir ~/.local/share/man/man1 && man schema2iceberg-compile

Exit codes: 0 written, 2 usage or I/O error.";

#[derive(Debug, clap::Args)]
#[command(
    about = "Print the shell completion script for bash, zsh, fish, powershell or elvish",
    after_help = COMPLETIONS_HELP
)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum, value_name = "SHELL")]
    shell: Shell,
}

#[derive(Debug, clap::Args)]
#[command(
    about = "Print the man page, or write one page per command into a folder",
    after_help = MAN_HELP
)]
pub(crate) struct ManArgs {
    /// Write one page per command into DIR (created if missing) instead of printing the main
    /// page.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// `completions`, in the one shape of a command ([`Command`]). Its arguments come with the
/// command line they complete.
#[derive(Debug)]
pub(crate) struct Completions;

/// What a shell command needs: its arguments and the whole command line's definition.
pub(crate) struct ShellRequest<A> {
    args: A,
    command: clap::Command,
}

/// Why `completions` or `man` stopped: exit code 2.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ShellError {
    /// The pages cannot be written into `--dir`.
    #[error("cannot write the man pages into {}: {source}", .dir.display())]
    ManDir {
        dir: PathBuf,
        source: std::io::Error,
    },
    /// The page cannot be rendered.
    #[error("cannot render the man page: {0}")]
    Render(std::io::Error),
    /// Standard output cannot be written.
    #[error("cannot write to standard output: {0}")]
    Write(std::io::Error),
}

impl Command for Completions {
    type Args = (CompletionsArgs, clap::Command);
    type Request = ShellRequest<CompletionsArgs>;
    type Outcome = ();
    type Error = ShellError;

    fn request((args, command): Self::Args) -> Result<Self::Request, ShellError> {
        Ok(ShellRequest { args, command })
    }

    fn run(request: &Self::Request, out: &mut dyn Write) -> Result<(), ShellError> {
        let mut command = request.command.clone();
        let mut script = Vec::new();
        clap_complete::generate(
            request.args.shell,
            &mut command,
            "schema2iceberg",
            &mut script,
        );
        out.write_all(&script).map_err(ShellError::Write)
    }

    fn finish((): ()) -> u8 {
        EXIT_OK
    }
}

/// `man`, in the one shape of a command ([`Command`]).
#[derive(Debug)]
pub(crate) struct Man;

impl Command for Man {
    type Args = (ManArgs, clap::Command);
    type Request = ShellRequest<ManArgs>;
    type Outcome = ();
    type Error = ShellError;

    fn request((args, command): Self::Args) -> Result<Self::Request, ShellError> {
        Ok(ShellRequest { args, command })
    }

    /// Prints the main page, or writes every command's page into `--dir`.
    fn run(request: &Self::Request, out: &mut dyn Write) -> Result<(), ShellError> {
        let command = request.command.clone();
        match &request.args.dir {
            Some(dir) => std::fs::create_dir_all(dir)
                .and_then(|()| clap_mangen::generate_to(command, dir))
                .map_err(|source| ShellError::ManDir {
                    dir: dir.clone(),
                    source,
                }),
            None => {
                let mut page = Vec::new();
                clap_mangen::Man::new(command)
                    .render(&mut page)
                    .map_err(ShellError::Render)?;
                out.write_all(&page).map_err(ShellError::Write)
            }
        }
    }

    fn finish((): ()) -> u8 {
        EXIT_OK
    }
}
