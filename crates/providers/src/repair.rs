//! `repair --provider`: pydantic-ai's repair first, then the fixes a provider's rules allow
//! without losing data silently (every change is reported).

use msgflow_sanitize::{RepairOptions, RepairReport};
use msgflow_wire::{Field, ModelMessage, ModelResponsePart};
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
    /// What was removed: the trailing whitespace, the whole whitespace-only part, or a call's
    /// item id.
    pub removed: String,
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
/// Fails only when the repaired history cannot be exported to `provider` (it holds parts msgflow's
/// export does not reproduce yet).
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
            let ModelResponsePart::Text(text) = response.parts.get_mut(at.part)? else {
                return None;
            };
            let kept = text.content.trim_end().len();
            let removed = text.content.split_off(kept);
            Some(ProviderChange {
                kind: ProviderChangeKind::TrimmedTrailingWhitespace,
                rule,
                at,
                removed,
            })
        }
        "anthropic/whitespace-only-text" => {
            let ModelResponsePart::Text(text) = response.parts.get(at.part)? else {
                return None;
            };
            let removed = text.content.clone();
            response.parts.remove(at.part);
            Some(ProviderChange {
                kind: ProviderChangeKind::RemovedWhitespaceText,
                rule,
                at,
                removed,
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
            })
        }
        _ => None,
    }
}
