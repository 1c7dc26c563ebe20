//! What the commands that name a provider share (`check --provider P`, `repair --provider P`,
//! `export --to P`, `show --html --provider P`): the profile flags, a history against a provider's
//! rules (msgflow-providers) reported at the history's message and part, and the export's errors.

use std::fmt::Write as _;
use std::path::Path;

use clap::Args;
use msgflow_providers::{ExportError, ExportOptions, Provider, ProviderChange, ProviderChangeKind, Violation};
use msgflow_sanitize::RepairOptions;

use crate::files;
use crate::outcome::{Failure, Status};
use crate::runner::{Processed, Source};

/// The model profile's settings that change a provider's request (`export`, `check --provider`).
#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// How OpenAI Chat sends thinking back (the profile's `openai_chat_send_back_thinking_parts`):
    /// auto (gpt-4o's default: a part from a `reasoning`-like field of OpenAI's goes back in it,
    /// others as <think> text), tags, field:NAME (every part in the field NAME) or off.
    #[arg(long, value_name = "MODE")]
    pub openai_chat_thinking: Option<msgflow_providers::openai_chat::ChatThinking>,
    /// Where Anthropic gets reasoning it cannot take back as the model's own thinking block
    /// (unsigned, or another provider's; the profile's `mimics_assistant_message_formatting`):
    /// user-turn (claude-sonnet-4-5's default: an <assistant_thinking> frame in a user turn ahead
    /// of the reply) or assistant-turn (<thinking> text in the reply itself).
    #[arg(long, value_name = "WHERE")]
    pub anthropic_thinking: Option<msgflow_providers::ReplayedThinking>,
    /// Where OpenAI Chat and Responses put reasoning they write out as text (another provider's,
    /// or any with --openai-chat-thinking tags; the profile's `mimics_assistant_message_formatting`):
    /// assistant-turn (gpt-4o's and gpt-5's default: <think> text in the reply itself) or
    /// user-turn (an <assistant_thinking> frame in a user turn ahead of the reply).
    #[arg(long, value_name = "WHERE")]
    pub openai_thinking: Option<msgflow_providers::ReplayedThinking>,
}

impl ProfileArgs {
    /// The export options of `--openai-chat-thinking`, `--anthropic-thinking` and
    /// `--openai-thinking`, each refused for a provider it does not apply to (rather than ignored).
    pub fn export_options(&self, provider: Option<Provider>) -> Result<ExportOptions, Status> {
        let mut options = ExportOptions::default();
        if let Some(thinking) = &self.openai_chat_thinking {
            if provider != Some(Provider::OpenAiChat) {
                return Err(crate::outcome::usage_error(
                    "--openai-chat-thinking applies to the openai-chat provider only",
                    None,
                ));
            }
            options.openai_chat_thinking = thinking.clone();
        }
        if let Some(replayed) = self.anthropic_thinking {
            if provider != Some(Provider::Anthropic) {
                return Err(crate::outcome::usage_error(
                    "--anthropic-thinking applies to the anthropic provider only",
                    None,
                ));
            }
            options.anthropic_thinking = replayed;
        }
        if let Some(replayed) = self.openai_thinking {
            if !matches!(provider, Some(Provider::OpenAiChat | Provider::OpenAiResponses)) {
                return Err(crate::outcome::usage_error(
                    "--openai-thinking applies to the openai-chat and openai-responses providers only",
                    None,
                ));
            }
            options.openai_thinking = replayed;
        }
        Ok(options)
    }
}

/// A history msgflow cannot export: exit 2 with the location and the reason.
pub(crate) fn export_failure(error: &ExportError) -> Failure {
    let hint = match error {
        ExportError::Unsupported { .. } => Some(
            "msgflow sends only requests equal to pydantic-ai's, and refuses what it does not reproduce exactly \
             rather than send something else (crates/providers/README.md lists what that is)"
                .to_owned(),
        ),
        ExportError::Refused { provider, .. } => Some(format!(
            "pydantic-ai raises on this history when it maps it for {provider}, so it would send nothing either: \
             remove or replace the item, or send the history to another provider"
        )),
        ExportError::NeedsDownload { .. } => Some(
            "fetch the file yourself and put its bytes in the history as binary content (`msgflow media` \
             works with files on disk)"
                .to_owned(),
        ),
        ExportError::NoExport(_) => None,
    };
    Failure::invalid(error.to_string(), hint)
}

pub(crate) fn violation_line(violation: &Violation) -> String {
    let part = violation.part.map_or(String::new(), |part| format!(", part {part}"));
    format!(
        "message {}{part}: {}: {}\n  {} would answer: {}\n  repair --provider: {}\n",
        violation.message,
        violation.rule.id,
        violation.rule.requirement,
        violation.rule.id.split('/').next().unwrap_or_default(),
        violation.provider_error,
        violation.rule.repair,
    )
}

/// `check --provider`: exit 1 when the provider would reject the history.
pub(crate) fn check(
    source: &Source<'_>,
    provider: Provider,
    options: &ExportOptions,
    json: bool,
) -> Result<Processed, Failure> {
    let history = crate::runner::parse_history(source)?;
    let violations =
        msgflow_providers::check_with(&history, provider, options).map_err(|error| export_failure(&error))?;
    let status = if violations.is_empty() {
        Status::Ok
    } else {
        Status::Problems
    };
    let output = if json {
        let document = serde_json::json!({
            "provider": provider.name(),
            "valid": violations.is_empty(),
            "violations": violations,
        });
        let mut text = serde_json::to_string_pretty(&document)
            .map_err(|err| Failure::invalid(format!("cannot serialise the report: {err}"), None))?;
        text.push('\n');
        text
    } else if violations.is_empty() {
        format!("no problems found for {provider}\n")
    } else {
        violations.iter().map(violation_line).collect()
    };
    Ok(Processed {
        output: output.into_bytes(),
        status,
        ..Processed::default()
    })
}

fn change_line(change: &ProviderChange) -> String {
    let what = match change.kind {
        ProviderChangeKind::TrimmedTrailingWhitespace => "removed trailing whitespace",
        ProviderChangeKind::RemovedWhitespaceText => "removed the whitespace-only text",
        ProviderChangeKind::RemovedCallItemId => "removed the call's item id (sent as a new call)",
        ProviderChangeKind::RenamedToolCallId => "renamed the call and its results from",
    };
    let replaced = change
        .replaced_by
        .as_ref()
        .map_or_else(String::new, |id| format!(" to {id:?}"));
    format!(
        "{what} {:?}{replaced} at message {}, part {} ({})",
        change.removed, change.at.message, change.at.part, change.rule
    )
}

/// `repair --provider`: pydantic-ai's repair, then the provider fixes; every change on stderr,
/// and what is left unfixed with the reason. The JSON report (`--report`) holds all three.
pub(crate) fn repair(
    source: &Source<'_>,
    provider: Provider,
    options: &RepairOptions,
    report: Option<&Path>,
) -> Result<Processed, Failure> {
    let history = crate::runner::parse_history(source)?;
    let repaired = msgflow_providers::repair(history, provider, options).map_err(|error| export_failure(&error))?;
    if let Some(path) = report {
        let document = serde_json::json!({
            "provider": provider.name(),
            "changes": repaired.report.changes,
            "provider_changes": repaired.provider_changes,
            "unfixed": repaired.unfixed,
        });
        let mut json = serde_json::to_vec_pretty(&document)
            .map_err(|err| Failure::invalid(format!("cannot serialise the repair report: {err}"), None))?;
        json.push(b'\n');
        files::write_atomically(path, &json, None).map_err(|err| Failure::unwritable(path, &err))?;
    }
    let mut notes = String::new();
    for change in &repaired.report.changes {
        let _ = writeln!(notes, "msgflow: {}: {change}", source.label);
    }
    for change in &repaired.provider_changes {
        let _ = writeln!(notes, "msgflow: {}: {provider}: {}", source.label, change_line(change));
    }
    for unfixed in &repaired.unfixed {
        let violation = &unfixed.violation;
        let part = violation.part.map_or(String::new(), |part| format!(", part {part}"));
        let _ = writeln!(
            notes,
            "msgflow: {}: {provider}: not fixed: message {}{part}: {}: {}",
            source.label, violation.message, violation.rule.id, unfixed.reason
        );
    }
    let mut processed = Processed::history(repaired.history, notes);
    if !repaired.unfixed.is_empty() {
        processed.status = Status::Problems;
    }
    Ok(processed)
}
