//! Builds small histories from a compact notation (`R[user] S[call a, ...]`) and prints them back.
//!
//! `R[...]` is a request, `S[...]` a response (no provider fields). Parts: `user` / `user "x"`,
//! `call a`, `ret a`, `synth a` (a synthesized result, output only), `retry a` (legacy retry
//! prompt naming tool `t`), `feedback` (retry-feedback), `text`.

#![allow(dead_code)]

use msgflow_wire::{
    Field, ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart, RawJson, RetryCause,
    RetryFeedbackPart, RetryInfo, RetryPromptPart, TextPart, Timestamp, ToolCallPart, ToolReturnPart,
    UserPromptContent, UserPromptPart,
};

pub const TIME: &str = "2025-01-02T00:00:00Z";

pub fn time() -> Field<Timestamp> {
    Field::Present(Timestamp::parse(TIME).expect("a valid timestamp"))
}

pub fn user(text: &str) -> ModelRequestPart {
    let mut part = UserPromptPart::new(UserPromptContent::Text(text.to_owned()));
    part.timestamp = time();
    ModelRequestPart::UserPrompt(part)
}

pub fn call(id: &str) -> ModelResponsePart {
    let mut part = ToolCallPart::new("t".to_owned());
    part.tool_call_id = Field::Present(id.to_owned());
    ModelResponsePart::ToolCall(part)
}

pub fn ret(id: &str) -> ModelRequestPart {
    let mut part = ToolReturnPart::new("t".to_owned(), RawJson::string("ok"));
    part.tool_call_id = Field::Present(id.to_owned());
    part.timestamp = time();
    ModelRequestPart::ToolReturn(part)
}

pub fn retry(id: &str) -> ModelRequestPart {
    let mut part = RetryPromptPart::new(RawJson::string("fix the args"));
    part.tool_name = Field::Present("t".to_owned());
    part.tool_call_id = Field::Present(id.to_owned());
    part.timestamp = time();
    ModelRequestPart::RetryPrompt(part)
}

pub fn feedback() -> ModelRequestPart {
    let mut part = RetryFeedbackPart::new(
        RawJson::string("try again"),
        RetryInfo::new(RetryCause::from_wire("model_retry")),
    );
    part.timestamp = time();
    ModelRequestPart::RetryFeedback(part)
}

pub fn request(parts: Vec<ModelRequestPart>) -> ModelMessage {
    ModelMessage::from(ModelRequest::new(parts))
}

pub fn response(parts: Vec<ModelResponsePart>) -> ModelMessage {
    let mut response = ModelResponse::new(parts);
    response.timestamp = time();
    ModelMessage::from(response)
}

/// `4 * groups` messages in the shapes a quadratic repair would choke on: runs of consecutive
/// requests (merge chains), ids reused across responses (shadowed calls), a call every response
/// makes with the same id, and orphans. Repairs to `2 * groups` messages.
pub fn merge_chains_and_shadowed_ids(groups: usize) -> Vec<ModelMessage> {
    let mut history = Vec::with_capacity(4 * groups);
    for i in 0..groups {
        let id = format!("id{}", i % 7);
        history.push(response(vec![call(&id), call("same")]));
        history.push(request(vec![user("x"), ret(&id)]));
        history.push(request(vec![ret("orphan"), user("y")]));
        history.push(request(vec![ret(&id)]));
    }
    history
}

/// One call followed by `requests` requests that all answer it: one merge chain of
/// `requests` links. Repairs to 2 messages.
pub fn long_merge_chain(requests: usize) -> Vec<ModelMessage> {
    let mut chain = vec![response(vec![call("a")])];
    chain.extend((0..requests).map(|_| request(vec![user("x"), ret("a")])));
    chain
}

/// Parses the notation, e.g. `R[user] S[call a, call b] R[ret a, user "next"]`.
pub fn history(notation: &str) -> Vec<ModelMessage> {
    let mut messages = Vec::new();
    let mut rest = notation.trim();
    while !rest.is_empty() {
        let kind = &rest[..1];
        let close = rest.find(']').expect("a closing bracket");
        let inner = &rest[2..close];
        let tokens: Vec<&str> = inner
            .split(", ")
            .map(str::trim)
            .filter(|token| !token.is_empty())
            .collect();
        match kind {
            "R" => messages.push(request(tokens.iter().map(|token| request_part(token)).collect())),
            "S" => messages.push(response(tokens.iter().map(|token| response_part(token)).collect())),
            other => panic!("unknown message kind {other}"),
        }
        rest = rest[close + 1..].trim();
    }
    messages
}

fn request_part(token: &str) -> ModelRequestPart {
    let (word, arg) = token.split_once(' ').unwrap_or((token, ""));
    match word {
        "user" if arg.is_empty() => user("u"),
        "user" => user(arg.trim_matches('"')),
        "ret" => ret(arg),
        "retry" => retry(arg),
        "feedback" => feedback(),
        other => panic!("unknown request part {other}"),
    }
}

fn response_part(token: &str) -> ModelResponsePart {
    let (word, arg) = token.split_once(' ').unwrap_or((token, ""));
    match word {
        "call" => call(arg),
        "text" => ModelResponsePart::Text(TextPart::new("text".to_owned())),
        other => panic!("unknown response part {other}"),
    }
}

/// Prints a history in the notation.
pub fn notation(history: &[ModelMessage]) -> String {
    history
        .iter()
        .map(|message| match message {
            ModelMessage::Request(request) => {
                format!(
                    "R[{}]",
                    request.parts.iter().map(request_token).collect::<Vec<_>>().join(", ")
                )
            }
            ModelMessage::Response(response) => {
                format!(
                    "S[{}]",
                    response.parts.iter().map(response_token).collect::<Vec<_>>().join(", ")
                )
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn request_token(part: &ModelRequestPart) -> String {
    match part {
        ModelRequestPart::UserPrompt(prompt) => match &prompt.content {
            UserPromptContent::Text(text) if text == "u" => "user".to_owned(),
            UserPromptContent::Text(text) => format!("user \"{text}\""),
            UserPromptContent::Items(_) => "user [items]".to_owned(),
        },
        ModelRequestPart::ToolReturn(ret) => {
            let id = ret.tool_call_id.get().cloned().unwrap_or_default();
            let synthesized = ret
                .metadata
                .get()
                .is_some_and(|m| m.get().contains("pydantic_ai_synthesized_tool_return"));
            if synthesized {
                format!("synth {id}")
            } else {
                format!("ret {id}")
            }
        }
        ModelRequestPart::RetryPrompt(retry) => {
            format!("retry {}", retry.tool_call_id.get().cloned().unwrap_or_default())
        }
        ModelRequestPart::RetryFeedback(_) => "feedback".to_owned(),
        other => other.tag().unwrap_or_default().into_owned(),
    }
}

fn response_token(part: &ModelResponsePart) -> String {
    match part {
        ModelResponsePart::ToolCall(call) => format!("call {}", call.tool_call_id.get().cloned().unwrap_or_default()),
        ModelResponsePart::Text(_) => "text".to_owned(),
        other => other.tag().unwrap_or_default().into_owned(),
    }
}
