//! Histories built from a compact description, for the tests.

#![allow(dead_code)]

use msgflow_wire::ModelMessage;

/// One message of a test history.
#[derive(Clone, Debug)]
pub enum M {
    /// A request with a system prompt only.
    System(&'static str),
    /// A request with an optional system prompt and a user prompt.
    User(Option<&'static str>, String),
    /// A request with tool returns (ids), then optionally a user prompt.
    Returns(Vec<String>, Option<String>),
    /// A response with text and tool calls (ids).
    Calls(String, Vec<String>),
}

fn part_json(kind: &str, body: &str) -> String {
    format!("{{{body},\"part_kind\":\"{kind}\"}}")
}

fn request(parts: Vec<String>, instructions: Option<&str>) -> String {
    let instructions = instructions.map_or("null".to_owned(), |text| serde_json::to_string(text).unwrap());
    format!(
        "{{\"parts\":[{}],\"timestamp\":\"2025-01-02T00:00:00Z\",\"instructions\":{instructions},\"kind\":\"request\",\"run_id\":null,\"conversation_id\":null,\"metadata\":null,\"state\":\"complete\"}}",
        parts.join(",")
    )
}

fn text(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// The JSON of a history.
pub fn json(messages: &[M], instructions: Option<&str>) -> String {
    let mut out = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let instructions = if index == 0 { instructions } else { None };
        out.push(match message {
            M::System(content) => request(
                vec![part_json(
                    "system-prompt",
                    &format!("\"content\":{},\"timestamp\":\"2025-01-02T00:00:00Z\",\"dynamic_ref\":null", text(content)),
                )],
                instructions,
            ),
            M::User(system, content) => {
                let mut parts = Vec::new();
                if let Some(system) = system {
                    parts.push(part_json(
                        "system-prompt",
                        &format!("\"content\":{},\"timestamp\":\"2025-01-02T00:00:00Z\",\"dynamic_ref\":null", text(system)),
                    ));
                }
                parts.push(part_json(
                    "user-prompt",
                    &format!("\"content\":{},\"timestamp\":\"2025-01-02T00:00:00Z\"", text(content)),
                ));
                request(parts, instructions)
            }
            M::Returns(ids, user) => {
                let mut parts: Vec<String> = ids
                    .iter()
                    .map(|id| {
                        part_json(
                            "tool-return",
                            &format!(
                                "\"tool_name\":\"bash\",\"content\":{},\"tool_call_id\":{},\"metadata\":null,\"timestamp\":\"2025-01-02T00:00:00Z\"",
                                text(&format!("output of {id}: {}", "x".repeat(40))),
                                text(id)
                            ),
                        )
                    })
                    .collect();
                if let Some(user) = user {
                    parts.push(part_json(
                        "user-prompt",
                        &format!("\"content\":{},\"timestamp\":\"2025-01-02T00:00:00Z\"", text(user)),
                    ));
                }
                request(parts, instructions)
            }
            M::Calls(content, ids) => {
                let mut parts = vec![part_json("text", &format!("\"content\":{},\"id\":null", text(content)))];
                for id in ids {
                    parts.push(part_json(
                        "tool-call",
                        &format!("\"tool_name\":\"bash\",\"args\":{{\"cmd\":\"ls\"}},\"tool_call_id\":{}", text(id)),
                    ));
                }
                format!(
                    "{{\"parts\":[{}],\"usage\":{{\"input_tokens\":100,\"output_tokens\":10}},\"model_name\":\"gpt-4o\",\"timestamp\":\"2025-01-02T00:00:01Z\",\"kind\":\"response\"}}",
                    parts.join(",")
                )
            }
        });
    }
    format!("[{}]", out.join(","))
}

/// The parsed history.
pub fn history(messages: &[M], instructions: Option<&str>) -> Vec<ModelMessage> {
    msgflow_wire::from_str(&json(messages, instructions)).expect("test histories are valid")
}

/// The bytes of one message.
pub fn bytes(message: &ModelMessage) -> Vec<u8> {
    serde_json::to_vec(message).unwrap()
}
