//! Each provider's rules for conversation structure, as tables: one [`Rule`] per thing the API
//! rejects, citing where the provider documents it, with the error it answers and what
//! `repair --provider` does about it.
//!
//! Anthropic and OpenAI rules are evaluated on the request msgflow exports (so pydantic-ai's own
//! dropping and reordering are taken into account: its `_tool_results_first` already puts results
//! first, empty text blocks are never sent); Gemini's on the history's turns (request = `user`
//! turn, response = `model` turn, as `GoogleModel` maps them). Every violation is reported at the
//! history's message and part.
//!
//! Each provider's table and its `check` live in its folder (`anthropic/rules.rs`,
//! `openai_chat/rules.rs`, `openai_responses/rules.rs`, `gemini/rules.rs`); this module holds the
//! types, the dispatch (a new provider adds one arm to [`rules`] and [`check_with`]) and, in
//! `media` and `openai`, the media limits more than one provider checks.

pub(crate) mod media;
pub(crate) mod openai;
pub(crate) mod table;

use msgflow_wire::ModelMessage;

pub use self::table::{Rule, Violation};
pub use crate::anthropic::rules::ANTHROPIC_RULES;
pub use crate::gemini::rules::GEMINI_RULES;
pub use crate::openai_chat::rules::{OPENAI_CHAT_MAX_CALL_ID, OPENAI_CHAT_RULES};
pub use crate::openai_responses::rules::OPENAI_RESPONSES_RULES;
use crate::{anthropic, gemini, openai_chat, openai_responses};
use crate::{ExportError, ExportOptions, Provider};

/// The rule table of a provider.
pub fn rules(provider: Provider) -> &'static [Rule] {
    match provider {
        Provider::Anthropic => anthropic::rules::ANTHROPIC_RULES,
        Provider::OpenAiChat => openai_chat::rules::OPENAI_CHAT_RULES,
        Provider::OpenAiResponses => openai_responses::rules::OPENAI_RESPONSES_RULES,
        Provider::Gemini => gemini::rules::GEMINI_RULES,
    }
}

/// The rules of `provider` the history breaks, in history order.
///
/// Anthropic and OpenAI rules are evaluated on the exported request, so a history msgflow cannot
/// export yet is an error ([`ExportError`]).
pub fn check(history: &[ModelMessage], provider: Provider) -> Result<Vec<Violation>, ExportError> {
    check_with(history, provider, &ExportOptions::default())
}

/// [`check`] on the request a profile with `options` exports.
pub fn check_with(
    history: &[ModelMessage],
    provider: Provider,
    options: &ExportOptions,
) -> Result<Vec<Violation>, ExportError> {
    let mut violations = match provider {
        Provider::Anthropic => anthropic::rules::check(history, options)?,
        Provider::OpenAiChat => openai_chat::rules::check(history, options)?,
        Provider::OpenAiResponses => openai_responses::rules::check(history, options)?,
        Provider::Gemini => gemini::rules::check(history),
    };
    violations.sort_by_key(|violation| (violation.message, violation.part));
    Ok(violations)
}
