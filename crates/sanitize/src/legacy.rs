//! pydantic-ai 2.68.0's load-time translation of legacy `retry-prompt` parts.

use msgflow_wire::{
    Field, ModelMessage, ModelRequestPart, RetryCause, RetryFeedbackPart, RetryInfo, RetryPromptPart,
    ToolReturnOutcome, ToolReturnPart,
};

/// What [`upgrade_legacy_retry_prompts`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LegacyUpgrade {
    /// Parts rewritten in their 2.68.0 form.
    pub translated: usize,
    /// Legacy parts left as they were (error-list content, or no timestamp): pydantic-ai rewrites
    /// those too, but with data msgflow does not reproduce (a dropped `ctx`, the load time).
    pub untranslated: usize,
}

/// Rewrites legacy `retry-prompt` parts as pydantic-ai 2.68.0 reads them (`_RetryPromptPart` in
/// `messages.py`), for parts with string content and a timestamp: with a tool name, a `tool-return`
/// with outcome `retried`; without one, a `retry-feedback` with cause `model_retry`.
///
/// msgflow keeps legacy parts as written everywhere else (both forms answer a call the same way);
/// this is for comparing with what pydantic-ai writes after loading a history.
///
/// ```
/// let mut history = msgflow_wire::from_str(
///     r#"[{"kind":"request","parts":[{"content":"bad args","tool_name":"grep","tool_call_id":"c1",
///          "timestamp":"2025-01-02T00:00:00Z","part_kind":"retry-prompt"}]}]"#,
/// )?;
/// let upgrade = msgflow_sanitize::upgrade_legacy_retry_prompts(&mut history);
/// assert_eq!(upgrade.translated, 1);
/// assert!(msgflow_wire::to_string(&history)?.contains(r#""outcome":"retried","retry":null,"part_kind":"tool-return""#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn upgrade_legacy_retry_prompts(history: &mut [ModelMessage]) -> LegacyUpgrade {
    let mut upgrade = LegacyUpgrade::default();
    for message in history {
        let ModelMessage::Request(request) = message else {
            continue;
        };
        for part in &mut request.parts {
            let ModelRequestPart::RetryPrompt(legacy) = part else {
                continue;
            };
            match translate(legacy) {
                Some(translated) => {
                    *part = translated;
                    upgrade.translated += 1;
                }
                None => upgrade.untranslated += 1,
            }
        }
    }
    upgrade
}

fn translate(legacy: &RetryPromptPart) -> Option<ModelRequestPart> {
    if !legacy.content.is_string() || !legacy.timestamp.is_present() {
        return None;
    }
    Some(match legacy.tool_name.get() {
        Some(tool_name) => {
            let mut part = ToolReturnPart::new(tool_name.clone(), legacy.content.clone());
            part.tool_call_id = legacy.tool_call_id.clone();
            part.timestamp = legacy.timestamp.clone();
            part.outcome = Field::Present(ToolReturnOutcome::Retried);
            ModelRequestPart::ToolReturn(part)
        }
        None => {
            let mut part = RetryFeedbackPart::new(legacy.content.clone(), RetryInfo::new(RetryCause::ModelRetry));
            part.timestamp = legacy.timestamp.clone();
            ModelRequestPart::RetryFeedback(part)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_prompts_are_translated_and_list_content_is_left_alone() {
        let mut history = msgflow_wire::from_str(
            r#"[{"parts":[
                {"content":"fix","tool_name":"t","tool_call_id":"a","timestamp":"2025-01-02T00:00:00Z","part_kind":"retry-prompt"},
                {"content":"again","tool_name":null,"tool_call_id":"b","timestamp":"2025-01-02T00:00:00Z","part_kind":"retry-prompt"},
                {"content":[],"tool_name":"t","tool_call_id":"c","timestamp":"2025-01-02T00:00:00Z","part_kind":"retry-prompt"}
            ],"kind":"request"}]"#,
        )
        .unwrap();
        let upgrade = upgrade_legacy_retry_prompts(&mut history);
        assert_eq!(
            upgrade,
            LegacyUpgrade {
                translated: 2,
                untranslated: 1
            }
        );
        let json = msgflow_wire::to_string(&history).unwrap();
        assert!(json.starts_with(
            r#"[{"parts":[{"tool_name":"t","content":"fix","tool_call_id":"a","tool_kind":null,"metadata":null,"timestamp":"2025-01-02T00:00:00Z","outcome":"retried","retry":null,"part_kind":"tool-return"},{"content":"again","retry":{"cause":"model_retry","attempt":null,"max_retries":null},"timestamp":"2025-01-02T00:00:00Z","part_kind":"retry-feedback"},{"content":[],"#
        ), "{json}");
    }
}
