//! `msgflow completions SHELL`: a shell completion script for the whole command line.

use std::io::Write;

use clap::Args;

use crate::outcome::Status;

/// `msgflow completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to generate completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The examples and notes after `msgflow completions --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow completions bash > ~/.local/share/bash-completion/completions/msgflow\n",
    "  msgflow completions zsh > ~/.zfunc/_msgflow\n",
    "  msgflow completions fish > ~/.config/fish/completions/msgflow.fish\n\n",
    exit_codes_text!()
);

/// Runs `msgflow completions`: the script completing `command`, the whole command line (which
/// the caller passes in, so that this module does not reach up to the list of commands).
pub fn run(args: &CompletionsArgs, mut command: clap::Command) -> Status {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "msgflow", &mut script);
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(&script) {
        Ok(()) => Status::Ok,
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Status::Ok,
        Err(err) => crate::outcome::usage_error(&format!("cannot write to standard output: {err}"), None),
    }
}
