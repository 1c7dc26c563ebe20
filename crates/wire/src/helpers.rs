//! Hand-written conveniences on the generated types.

use crate::{ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart};

impl ModelMessage {
    /// `true` for a `request` message.
    pub fn is_request(&self) -> bool {
        matches!(self, ModelMessage::Request(_))
    }

    /// The request, if this is one.
    pub fn as_request(&self) -> Option<&ModelRequest> {
        match self {
            ModelMessage::Request(request) => Some(request),
            ModelMessage::Response(_) => None,
        }
    }

    /// The response, if this is one.
    pub fn as_response(&self) -> Option<&ModelResponse> {
        match self {
            ModelMessage::Response(response) => Some(response),
            ModelMessage::Request(_) => None,
        }
    }

    /// How many parts the message has.
    pub fn parts_len(&self) -> usize {
        match self {
            ModelMessage::Request(request) => request.parts.len(),
            ModelMessage::Response(response) => response.parts.len(),
        }
    }
}

impl ModelRequestPart {
    /// The id of the tool call this part answers, as pydantic-ai pairs them: a `tool-return`
    /// (any outcome, any `tool_kind`) or a legacy `retry-prompt` that names a tool.
    ///
    /// ```
    /// let part: msgflow_wire::ModelRequestPart = serde_json::from_str(
    ///     r#"{"content":"bad args","tool_name":"grep","tool_call_id":"c1","part_kind":"retry-prompt"}"#,
    /// ).unwrap();
    /// assert_eq!(part.answered_tool_call_id(), Some("c1"));
    /// ```
    pub fn answered_tool_call_id(&self) -> Option<&str> {
        match self {
            ModelRequestPart::ToolReturn(part) => part.tool_call_id.get().map(String::as_str),
            ModelRequestPart::RetryPrompt(part) if part.tool_name.is_present() => {
                part.tool_call_id.get().map(String::as_str)
            }
            _ => None,
        }
    }
}

impl ModelResponsePart {
    /// The id of a (non-builtin) tool call.
    pub fn tool_call_id(&self) -> Option<&str> {
        match self {
            ModelResponsePart::ToolCall(part) => part.tool_call_id.get().map(String::as_str),
            _ => None,
        }
    }
}
