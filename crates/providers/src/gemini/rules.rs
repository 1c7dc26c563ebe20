//! Gemini's rules: the table, and their check on the history's turns (request = `user` turn,
//! response = `model` turn, as `GoogleModel` maps them).

use std::collections::HashSet;

use msgflow_wire::{ModelMessage, ModelRequestPart, ModelResponsePart, UserContent, UserPromptContent};

use crate::rules::media::limits;
use crate::rules::table::{rule, Rule, Violation};
use crate::PartLocation;

/// Gemini `generateContent` rules (https://ai.google.dev/gemini-api/docs/function-calling).
pub const GEMINI_RULES: &[Rule] = &[
    Rule {
        id: "gemini/function-response-count",
        requirement: "a model turn's function calls are answered, all of them, by the next turn's function responses",
        provider_error: "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
        documentation: "https://ai.google.dev/gemini-api/docs/function-calling#multi-turn",
        repair: "pydantic-ai's repair synthesizes an interrupted result for each unanswered call and drops results that answer none; calls sharing an id in one turn, or results a turn late (after another response), are left as they are",
        fixable: false,
    },
    Rule {
        id: "gemini/function-call-turn-order",
        requirement: "a model turn with function calls comes right after a user turn or a function response turn",
        provider_error: "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
        documentation: "https://ai.google.dev/gemini-api/docs/function-calling#multi-turn",
        repair: "not fixed: the conversation would need a user turn msgflow cannot invent; start the history with a request",
        fixable: false,
    },
    Rule {
        id: "gemini/inline-data-too-large",
        requirement: "the inline data of a request (binary content of user prompts and tool results, files the model generated: sent base64-encoded as `inline_data`) totals at most 100 MB (104,857,600 bytes of base64)",
        provider_error: "Request payload size exceeds the limit: 104857600 bytes.",
        // "Inline data: ... up to 100 MB per request (50 MB for PDFs)"; larger files go through the
        // Files API or a URL (File input methods, "Input method comparison").
        documentation: "https://ai.google.dev/gemini-api/docs/file-input-methods",
        repair: "not fixed: msgflow does not upload files; upload the large files with the Files API and refer to them by URL, or remove them",
        fixable: false,
    },
];
/// The Gemini rules `history` breaks.
pub(crate) fn check(history: &[ModelMessage]) -> Vec<Violation> {
    let mut violations = Vec::new();
    if let Some(at) = gemini_inline_overflow(history) {
        violations.push(Violation::new(
            rule(GEMINI_RULES, "gemini/inline-data-too-large"),
            at,
            &[],
        ));
    }
    for (index, message) in history.iter().enumerate() {
        let ModelMessage::Response(response) = message else {
            continue;
        };
        let calls: Vec<(usize, &str)> = response
            .parts
            .iter()
            .enumerate()
            .filter_map(|(part, item)| match item {
                ModelResponsePart::ToolCall(call) => {
                    Some((part, call.tool_call_id.get().map(String::as_str).unwrap_or_default()))
                }
                _ => None,
            })
            .collect();
        let Some(&(first_call, _)) = calls.first() else {
            continue;
        };
        let at = PartLocation {
            message: index,
            part: first_call,
        };
        if !matches!(
            index.checked_sub(1).map(|previous| &history[previous]),
            Some(ModelMessage::Request(_))
        ) {
            violations.push(Violation::new(
                rule(GEMINI_RULES, "gemini/function-call-turn-order"),
                at,
                &[],
            ));
        }
        let responses: Vec<&str> = match history.get(index + 1) {
            Some(ModelMessage::Request(request)) => request
                .parts
                .iter()
                .filter_map(|part| match part {
                    ModelRequestPart::ToolReturn(ret) => {
                        Some(ret.tool_call_id.get().map(String::as_str).unwrap_or_default())
                    }
                    ModelRequestPart::RetryPrompt(retry) if retry.tool_name.get().is_some() => {
                        Some(retry.tool_call_id.get().map(String::as_str).unwrap_or_default())
                    }
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let call_ids: HashSet<&str> = calls.iter().map(|(_, id)| *id).collect();
        let response_ids: HashSet<&str> = responses.iter().copied().collect();
        if responses.len() != calls.len() || call_ids != response_ids {
            let unanswered = calls
                .iter()
                .find(|(_, id)| !response_ids.contains(id))
                .map_or(first_call, |(part, _)| *part);
            violations.push(Violation::new(
                rule(GEMINI_RULES, "gemini/function-response-count"),
                PartLocation {
                    message: index,
                    part: unanswered,
                },
                &[],
            ));
        }
    }
    violations
}

/// Where the history's inline data passes Gemini's limit: the part holding the binary item that
/// takes the total of their base64 text past it. `GoogleModel` sends the whole history in one
/// request, and as `inline_data` every `BinaryContent` of a user prompt and of a tool result
/// (`_resolve_file`) and every `FilePart` of a response; a URL it downloads first is not counted
/// (msgflow cannot know its size).
fn gemini_inline_overflow(history: &[ModelMessage]) -> Option<PartLocation> {
    // The base64 text as sent: padded, so a multiple of 4 characters.
    let sent = |data: &msgflow_wire::Base64Data| data.as_str().len().div_ceil(4) * 4;
    let mut total = 0usize;
    for (message_index, message) in history.iter().enumerate() {
        let parts: Vec<usize> = match message {
            ModelMessage::Request(request) => request
                .parts
                .iter()
                .map(|part| match part {
                    ModelRequestPart::UserPrompt(user) => match &user.content {
                        UserPromptContent::Items(items) => items
                            .iter()
                            .map(|item| match item {
                                UserContent::Binary(binary) => sent(&binary.data),
                                _ => 0,
                            })
                            .sum(),
                        UserPromptContent::Text(_) => 0,
                    },
                    ModelRequestPart::ToolReturn(ret) => tool_return_inline_base64(ret),
                    _ => 0,
                })
                .collect(),
            ModelMessage::Response(response) => response
                .parts
                .iter()
                .map(|part| match part {
                    ModelResponsePart::File(file) => sent(&file.content.data),
                    _ => 0,
                })
                .collect(),
        };
        for (part_index, size) in parts.into_iter().enumerate() {
            total += size;
            if total > limits::GEMINI_MAX_INLINE_BASE64 {
                return Some(PartLocation {
                    message: message_index,
                    part: part_index,
                });
            }
        }
    }
    None
}

/// The base64 text of a tool result's binary files (the content, or items of a content list, that
/// are `BinaryContent` objects); the content is read only when its text holds one.
fn tool_return_inline_base64(ret: &msgflow_wire::ToolReturnPart) -> usize {
    if !ret.content.get().contains("\"binary\"") {
        return 0;
    }
    let Ok(content) = ret.content.try_to_value() else {
        return 0;
    };
    let binary_size = |value: &serde_json::Value| match value {
        serde_json::Value::Object(map) if map.get("kind").and_then(serde_json::Value::as_str) == Some("binary") => map
            .get("data")
            .and_then(serde_json::Value::as_str)
            .map_or(0, |data| data.len().div_ceil(4) * 4),
        _ => 0,
    };
    match &content {
        serde_json::Value::Array(items) => items.iter().map(binary_size).sum(),
        other => binary_size(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_results_binary_files_count_as_inline_data() {
        let history = msgflow_wire::from_str(
            r#"[{"kind":"request","parts":[{"part_kind":"tool-return","tool_name":"t","tool_call_id":"c",
            "content":["shot",{"kind":"binary","data":"aGVsbG8","media_type":"image/png"},{"kind":"binary","data":"aGk=","media_type":"application/pdf"}],
            "timestamp":"2026-03-14T09:00:00Z"}]}]"#,
        )
        .unwrap();
        let ModelMessage::Request(request) = &history[0] else {
            unreachable!()
        };
        let ModelRequestPart::ToolReturn(ret) = &request.parts[0] else {
            unreachable!()
        };
        // `aGVsbG8` is sent padded (`aGVsbG8=`): 8 characters, then 4.
        assert_eq!(tool_return_inline_base64(ret), 12);
    }
}
