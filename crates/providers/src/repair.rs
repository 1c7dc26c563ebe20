//! `repair --provider`: pydantic-ai's repair first, then the fixes a provider's rules allow
//! without losing data silently (every change is reported).

use msgflow_sanitize::{RepairOptions, RepairReport};
use std::collections::HashSet;

use msgflow_wire::{Field, ModelMessage, ModelRequestPart, ModelResponsePart};
use serde::Serialize;

use crate::rules::{check, Violation};
use crate::{ExportError, PartLocation, Provider};

/// A change `repair --provider` made after pydantic-ai's repair, at the repaired history's
/// message and part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProviderChange {
    /// What was done.
    pub kind: ProviderChangeKind,
    /// The rule that asked for it.
    pub rule: &'static str,
    /// Where the part is (or was).
    pub at: PartLocation,
    /// What was removed: the trailing whitespace, the whole whitespace-only part, a call's item
    /// id, or a call's old `tool_call_id`.
    pub removed: String,
    /// What took its place, for a renamed call: its new `tool_call_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced_by: Option<String>,
}

/// The kinds of [`ProviderChange`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderChangeKind {
    /// Trailing whitespace removed from the final text (`anthropic/final-assistant-trailing-whitespace`).
    TrimmedTrailingWhitespace,
    /// A whitespace-only text part removed (`anthropic/whitespace-only-text`).
    RemovedWhitespaceText,
    /// A tool call's OpenAI item id removed (`openai-responses/function-call-without-reasoning`).
    RemovedCallItemId,
    /// A tool call and its results given a new `tool_call_id` (`anthropic/tool-use-id-pattern`,
    /// `openai-chat/tool-call-id-too-long`).
    RenamedToolCallId,
}

/// A violation `repair --provider` leaves, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unfixed {
    /// The violation, at the repaired history's message and part.
    pub violation: Violation,
    /// Why it is not fixed (the rule's `repair` text).
    pub reason: &'static str,
}

/// The result of [`repair`].
#[derive(Debug, Clone)]
pub struct ProviderRepair {
    /// The repaired history.
    pub history: Vec<ModelMessage>,
    /// What pydantic-ai's repair did.
    pub report: RepairReport,
    /// What the provider fixes did, after it, in order.
    pub provider_changes: Vec<ProviderChange>,
    /// What the provider would still reject.
    pub unfixed: Vec<Unfixed>,
}

/// pydantic-ai's repair ([`msgflow_sanitize::repair`]), then the provider fixes, then a check of
/// what remains.
///
/// Fails only when the repaired history cannot be exported to `provider` ([`ExportError`]:
/// pydantic-ai refuses it too, would download a file first, or msgflow does not reproduce it).
pub fn repair(
    history: Vec<ModelMessage>,
    provider: Provider,
    options: &RepairOptions,
) -> Result<ProviderRepair, ExportError> {
    let repaired = msgflow_sanitize::repair(history, options);
    let mut history = repaired.history;
    let mut provider_changes = Vec::new();
    // Each pass fixes what the check finds; a fix can uncover another (a trimmed text that becomes
    // empty is not sent, and the text before it becomes the final one), and each pass shrinks the
    // history's text, so this ends. The bound is a guard, never reached by a well-formed history.
    for _ in 0..=history.len() * 4 + 4 {
        let violations = check(&history, provider)?;
        let mut changed = false;
        for violation in &violations {
            if let Some(change) = fix(&mut history, violation) {
                provider_changes.push(change);
                changed = true;
                // Positions after a removal move: check again before the next fix.
                break;
            }
        }
        if !changed {
            let unfixed = violations
                .into_iter()
                .map(|violation| Unfixed {
                    reason: violation.rule.repair,
                    violation,
                })
                .collect();
            return Ok(ProviderRepair {
                history,
                report: repaired.report,
                provider_changes,
                unfixed,
            });
        }
    }
    let unfixed = check(&history, provider)?
        .into_iter()
        .map(|violation| Unfixed {
            reason: violation.rule.repair,
            violation,
        })
        .collect();
    Ok(ProviderRepair {
        history,
        report: repaired.report,
        provider_changes,
        unfixed,
    })
}

fn fix(history: &mut [ModelMessage], violation: &Violation) -> Option<ProviderChange> {
    let at = PartLocation {
        message: violation.message,
        part: violation.part?,
    };
    let rule = violation.rule.id;
    let ModelMessage::Response(response) = history.get_mut(at.message)? else {
        return None;
    };
    match rule {
        "anthropic/final-assistant-trailing-whitespace" => {
            // The model's speech goes as a text of its transcript (`_convert_speech_parts`), which
            // ends the text unless an interruption marker follows it (then no whitespace ends it).
            let content = match response.parts.get_mut(at.part)? {
                ModelResponsePart::Text(text) => &mut text.content,
                ModelResponsePart::Speech(speech) => speech.transcript.get_mut()?,
                _ => return None,
            };
            let kept = content.trim_end().len();
            let removed = content.split_off(kept);
            Some(ProviderChange {
                kind: ProviderChangeKind::TrimmedTrailingWhitespace,
                rule,
                at,
                removed,
                replaced_by: None,
            })
        }
        "anthropic/whitespace-only-text" => {
            let removed = match response.parts.get(at.part)? {
                ModelResponsePart::Text(text) => text.content.clone(),
                // Speech whose transcript is whitespace only (and not cut off: the marker would
                // follow it), sent as that text.
                ModelResponsePart::Speech(speech) => speech.transcript.get()?.clone(),
                _ => return None,
            };
            response.parts.remove(at.part);
            Some(ProviderChange {
                kind: ProviderChangeKind::RemovedWhitespaceText,
                rule,
                at,
                removed,
                replaced_by: None,
            })
        }
        "openai-responses/function-call-without-reasoning" => {
            let ModelResponsePart::ToolCall(call) = response.parts.get_mut(at.part)? else {
                return None;
            };
            let removed = call.id.get().cloned()?;
            call.id = Field::Null;
            Some(ProviderChange {
                kind: ProviderChangeKind::RemovedCallItemId,
                rule,
                at,
                removed,
                replaced_by: None,
            })
        }
        // The id matches Anthropic's pattern once its other characters are `_`.
        "anthropic/tool-use-id-pattern" => rename_call(history, at, rule, |old| {
            old.chars()
                .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
                .collect()
        }),
        "openai-chat/tool-call-id-too-long" => rename_call(history, at, rule, hashed_call_id),
        _ => None,
    }
}

/// `call_` and 16 hex digits of a hash (FNV-1a) of `old`: short, and matching every provider's
/// id rules.
fn hashed_call_id(old: &str) -> String {
    let hash = old.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("call_{hash:016x}")
}

/// Gives the tool call at `at` the id `new_id` makes of its old one (or a hashed one, when that is
/// taken), and every result after it with the old id the same: the pairs stay as they were. Only
/// when no other call has the id (which result answers which call would change otherwise).
fn rename_call(
    history: &mut [ModelMessage],
    at: PartLocation,
    rule: &'static str,
    new_id: impl Fn(&str) -> String,
) -> Option<ProviderChange> {
    let old = match history.get(at.message)? {
        ModelMessage::Response(response) => match response.parts.get(at.part)? {
            ModelResponsePart::ToolCall(call) => call.tool_call_id.get()?.clone(),
            _ => return None,
        },
        ModelMessage::Request(_) => return None,
    };
    let mut taken = HashSet::new();
    let mut calls_with_id = 0;
    for message in history.iter() {
        match message {
            ModelMessage::Response(response) => {
                for part in &response.parts {
                    let id = match part {
                        ModelResponsePart::ToolCall(call) => {
                            calls_with_id += usize::from(call.tool_call_id.get() == Some(&old));
                            call.tool_call_id.get()
                        }
                        ModelResponsePart::BuiltinToolCall(call) => call.tool_call_id.get(),
                        ModelResponsePart::BuiltinToolReturn(ret) => ret.tool_call_id.get(),
                        _ => None,
                    };
                    taken.extend(id.cloned());
                }
            }
            ModelMessage::Request(request) => {
                for part in &request.parts {
                    match part {
                        ModelRequestPart::ToolReturn(ret) => taken.extend(ret.tool_call_id.get().cloned()),
                        ModelRequestPart::RetryPrompt(retry) => taken.extend(retry.tool_call_id.get().cloned()),
                        _ => {}
                    }
                }
            }
        }
    }
    if calls_with_id != 1 {
        return None;
    }
    let mut id = new_id(&old);
    if id.is_empty() || taken.contains(&id) {
        id = hashed_call_id(&old);
    }
    let base = id.clone();
    let mut suffix = 1;
    while taken.contains(&id) {
        id = format!("{base}_{suffix}");
        suffix += 1;
    }
    for (index, message) in history.iter_mut().enumerate().skip(at.message) {
        match message {
            ModelMessage::Response(response) if index == at.message => {
                if let Some(ModelResponsePart::ToolCall(call)) = response.parts.get_mut(at.part) {
                    call.tool_call_id = Field::Present(id.clone());
                }
            }
            ModelMessage::Response(_) => {}
            ModelMessage::Request(request) => {
                for part in &mut request.parts {
                    let result_id = match part {
                        ModelRequestPart::ToolReturn(ret) => &mut ret.tool_call_id,
                        ModelRequestPart::RetryPrompt(retry) if retry.tool_name.get().is_some() => {
                            &mut retry.tool_call_id
                        }
                        _ => continue,
                    };
                    if result_id.get() == Some(&old) {
                        *result_id = Field::Present(id.clone());
                    }
                }
            }
        }
    }
    Some(ProviderChange {
        kind: ProviderChangeKind::RenamedToolCallId,
        rule,
        at,
        removed: old,
        replaced_by: Some(id),
    })
}
