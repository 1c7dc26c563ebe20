//! The command line: the list of subcommands (clap derive). Each command's flags, help text and
//! work live in its file under `commands/`.
//!
//! To add a subcommand: write `commands/<name>.rs` with its `Args` struct (flattening the shared
//! groups of [`crate::args`] it needs), its `HELP` and its `run`, then add a variant to
//! [`Command`] and its arm in [`Command::run`].

use clap::{CommandFactory, Parser, Subcommand};

use crate::commands::{
    assemble, canonical, check, completions, convert, export, fmt, media, repair, schema, show, stats, tools, trim,
    wire,
};
use crate::outcome::Status;

/// msgflow: read, format, inspect and validate pydantic-ai message histories.
#[derive(Debug, Parser)]
#[command(
    name = "msgflow",
    version,
    propagate_version = true,
    after_help = concat!(
        "Inputs: FILE, `-` or nothing for stdin, or several files and directories (batch mode; a directory\n",
        "means the *.json files directly inside it, add -r for subdirectories).\n\n",
        "Examples:\n",
        "  msgflow fmt history.json -o compact.json\n",
        "  msgflow show history.json | less -R\n",
        "  msgflow stats --json runs/\n",
        "  msgflow check -r runs/\n",
        "  msgflow repair --in-place --backup history.json\n\n",
        exit_codes_text!()
    )
)]
pub struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Every subcommand.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Rewrite a history in pydantic-ai's compact JSON form (as `dump_json` writes it).
    #[command(after_help = fmt::HELP)]
    Fmt(fmt::FmtArgs),
    /// Print a history as a readable transcript.
    #[command(after_help = show::HELP)]
    Show(show::ShowArgs),
    /// Count messages, parts, tool calls, tokens and cost.
    #[command(after_help = stats::HELP)]
    Stats(stats::StatsArgs),
    /// Convert a history to msgflow's canonical JSON form.
    #[command(after_help = canonical::HELP)]
    Canonical(canonical::CanonicalArgs),
    /// Convert canonical JSON back to a pydantic-ai history.
    #[command(after_help = wire::HELP)]
    Wire(wire::WireArgs),
    /// Find what a provider would reject or pydantic-ai would change (dangling calls, orphan results...).
    #[command(after_help = check::HELP)]
    Check(check::CheckArgs),
    /// Repair a history as pydantic-ai's repair_messages does, reporting every change.
    #[command(after_help = repair::HELP)]
    Repair(repair::RepairArgs),
    /// Print the request pydantic-ai would send for a history to a provider (JSON).
    #[command(after_help = export::HELP)]
    Export(export::ExportArgs),
    /// Convert between pydantic-ai histories and other formats (OpenAI Chat, Anthropic, Vercel AI and AG-UI messages, OpenTelemetry spans), reporting every loss.
    #[command(name = "convert", after_help = convert::HELP)]
    Convert(convert::ConvertArgs),
    /// Fit a history into a token, turn or byte budget: clear, clamp, keep the newest whole turns.
    #[command(after_help = trim::HELP)]
    Trim(trim::TrimArgs),
    /// Move inline images, documents and audio out to content-addressed files, or back in.
    #[command(after_help = media::HELP)]
    Media(media::MediaArgs),
    /// Rebuild the history a streamed run recorded from its event log (JSON Lines), interrupted streams included.
    #[command(after_help = assemble::HELP)]
    Assemble(assemble::AssembleArgs),
    /// Export the tool-call registry (lifecycle of every tool call) as JSON, or guidance hints.
    #[command(after_help = tools::HELP)]
    Tools(tools::ToolsArgs),
    /// Print a JSON Schema: the wire format, the canonical form or the registry export.
    #[command(after_help = schema::HELP)]
    Schema(schema::SchemaArgs),
    /// Print a shell completion script.
    #[command(after_help = completions::HELP)]
    Completions(completions::CompletionsArgs),
}

impl Command {
    /// Runs the subcommand and returns the exit status.
    pub fn run(self) -> Status {
        match self {
            Command::Fmt(args) => fmt::run(&args),
            Command::Show(args) => show::run(&args),
            Command::Stats(args) => stats::run(&args),
            Command::Canonical(args) => canonical::run(&args),
            Command::Wire(args) => wire::run(&args),
            Command::Check(args) => check::run(&args),
            Command::Repair(args) => repair::run(&args),
            Command::Export(args) => export::run(&args),
            Command::Convert(args) => convert::run(&args),
            Command::Trim(args) => trim::run(&args),
            Command::Media(args) => media::run(&args),
            Command::Assemble(args) => assemble::run(&args),
            Command::Tools(args) => tools::run(&args),
            Command::Schema(args) => schema::run(&args),
            Command::Completions(args) => completions::run(&args, Cli::command()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::EXIT_CODES_HELP;

    #[test]
    fn the_command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_exit_code_table_matches_the_shared_one() {
        let help = Cli::command().render_long_help().to_string();
        assert!(help.contains(EXIT_CODES_HELP), "{help}");
    }
}
