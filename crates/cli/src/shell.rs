//! `completions` and `man`: the shell's view of the command line, generated from its clap
//! definition so that it cannot drift from the real flags.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap_complete::Shell;

use crate::app::{stdout_written, usage_error, EXIT_OK};

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

pub(crate) fn run_completions(args: CompletionsArgs, mut command: clap::Command) -> ExitCode {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "schema2iceberg", &mut script);
    write_stdout(&script)
}

pub(crate) fn run_man(args: ManArgs, command: clap::Command) -> ExitCode {
    match args.dir {
        Some(dir) => {
            let written = std::fs::create_dir_all(&dir)
                .and_then(|()| clap_mangen::generate_to(command, &dir));
            match written {
                Ok(()) => ExitCode::from(EXIT_OK),
                Err(e) => usage_error(format!(
                    "cannot write the man pages into {}: {e}",
                    dir.display()
                )),
            }
        }
        None => {
            let mut page = Vec::new();
            match clap_mangen::Man::new(command).render(&mut page) {
                Ok(()) => write_stdout(&page),
                Err(e) => usage_error(format!("cannot render the man page: {e}")),
            }
        }
    }
}

fn write_stdout(bytes: &[u8]) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    let written = stdout.write_all(bytes).and_then(|()| stdout.flush());
    stdout_written(written, EXIT_OK)
}
