//! Snapshot tests: representative output of histories built in code, and the error messages
//! for bad inputs (path, line, column, message). Review changes with `cargo insta review`.

use msgflow_wire::{
    from_slice, to_string, Base64Data, BinaryContent, Field, ImageUrl, Int, ModelMessage, ModelRequest,
    ModelRequestPart, ModelResponse, ModelResponsePart, RawJson, RequestUsage, TextPart, ThinkingPart, Timestamp,
    ToolCallPart, ToolReturnPart, UserContent, UserPromptContent, UserPromptPart,
};

fn timestamp(text: &str) -> Timestamp {
    Timestamp::parse(text).expect("a valid timestamp")
}

fn user_prompt(content: UserPromptContent, at: &str) -> ModelRequestPart {
    let mut part = UserPromptPart::new(content);
    part.timestamp = Field::Present(timestamp(at));
    ModelRequestPart::UserPrompt(part)
}

fn response(parts: Vec<ModelResponsePart>, at: &str) -> ModelResponse {
    let mut response = ModelResponse::new(parts);
    response.timestamp = Field::Present(timestamp(at));
    response.model_name = Field::Present("gpt-5".to_owned());
    response
}

// ---------------------------------------------------------------------------------------------
// Serialised output
// ---------------------------------------------------------------------------------------------

#[test]
fn output_prompt_and_text_answer() {
    let history = vec![
        ModelMessage::from(ModelRequest::new(vec![user_prompt(
            UserPromptContent::Text("Hello, \"world\"\n\u{1f}é😀".to_owned()),
            "2025-01-02T03:04:05.678901Z",
        )])),
        ModelMessage::from(response(
            vec![ModelResponsePart::Text(TextPart::new("Hi!".to_owned()))],
            "2025-01-02T03:04:06+05:30",
        )),
    ];
    insta::assert_snapshot!(to_string(&history).expect("serialises"));
}

#[test]
fn output_tool_call_and_return() {
    let mut call = ToolCallPart::new("get_weather".to_owned());
    call.args = Field::Present(
        RawJson::from_json_text(r#"{"city": "Paris", "days": 3, "big": 1180591620717411303424}"#).expect("JSON"),
    );
    call.tool_call_id = Field::Present("call_1".to_owned());
    let mut thinking = ThinkingPart::new("The user wants weather.".to_owned());
    thinking.signature = Field::Present("sig".to_owned());
    let mut usage = RequestUsage::new();
    usage.input_tokens = Field::Present(Int::from(12));
    usage.output_tokens = Field::Present(Int::from(7));
    let mut first = response(
        vec![ModelResponsePart::Thinking(thinking), ModelResponsePart::ToolCall(call)],
        "2025-01-02T03:04:06",
    );
    first.usage = Field::Present(usage);
    let mut result = ToolReturnPart::new(
        "get_weather".to_owned(),
        RawJson::from_json_text(r#"{"temperature": 21.5, "unit": "C"}"#).expect("JSON"),
    );
    result.tool_call_id = Field::Present("call_1".to_owned());
    result.timestamp = Field::Present(timestamp("2025-01-02T03:04:07.000001Z"));
    result.content_file_digests = Field::Present(msgflow_wire::FileDigests::default());
    let history = vec![
        ModelMessage::from(first),
        ModelMessage::from(ModelRequest::new(vec![ModelRequestPart::ToolReturn(result)])),
    ];
    insta::assert_snapshot!(to_string(&history).expect("serialises"));
}

#[test]
fn output_user_content_items_and_absent_keys() {
    let mut image = ImageUrl::new("https://example.com/cat.png".to_owned());
    image.media_type = Field::Present("image/png".to_owned());
    image.identifier = Field::Present("a1b2c3".to_owned());
    let mut binary = BinaryContent::new(
        Base64Data::from_bytes(&[0xfb, 0xff]),
        "application/octet-stream".to_owned(),
    );
    binary.identifier = Field::Present("d4e5f6".to_owned());
    let items = vec![
        UserContent::Text("look:".to_owned()),
        UserContent::ImageUrl(image),
        UserContent::Binary(binary),
    ];
    // A request as an older release wrote it: no request-level keys beyond `parts` and `kind`.
    let mut request = ModelRequest::new(vec![user_prompt(
        UserPromptContent::Items(items),
        "2025-01-02T03:04:05Z",
    )]);
    request.timestamp = Field::Absent;
    request.instructions = Field::Absent;
    request.run_id = Field::Absent;
    request.conversation_id = Field::Absent;
    request.metadata = Field::Absent;
    request.state = Field::Absent;
    request
        .extra
        .insert("x_from_the_future", RawJson::from_json_text("[1,2]").expect("JSON"));
    insta::assert_snapshot!(to_string(&[ModelMessage::from(request)]).expect("serialises"));
}

// ---------------------------------------------------------------------------------------------
// Error messages
// ---------------------------------------------------------------------------------------------

/// What msgflow makes of an input: the error's category and Display, or (when it is accepted)
/// what it writes back.
fn outcome(input: &[u8]) -> String {
    match from_slice(input) {
        Ok(history) => {
            let written = to_string(&history).unwrap_or_else(|err| err.to_string());
            // Long outputs (deep nesting) are cut: the snapshot documents that the input was accepted.
            let shown: String = written.chars().take(400).collect();
            let cut = if shown.len() < written.len() {
                format!("... ({} bytes in all)", written.len())
            } else {
                String::new()
            };
            format!("accepted; written back as:\n{shown}{cut}")
        }
        Err(err) => format!(
            "{:?} error\npath: {}\nline: {}, column: {}\nmessage: {}\ndisplay: {err}",
            err.category(),
            err.path(),
            err.line(),
            err.column(),
            err.message()
        ),
    }
}

const REQUEST_TAIL: &str = r#""timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete""#;

/// A one-message history whose request holds `part` (JSON text).
fn with_request_part(part: &str) -> String {
    format!("[{{\"parts\":[{part}],{REQUEST_TAIL}}}]")
}

/// A one-message history whose response holds `part` and `usage` (JSON text).
fn with_response(part: &str, usage: &str) -> String {
    format!(
        r#"[{{"parts":[{part}],"usage":{usage},"model_name":null,"timestamp":"2025-01-02T03:04:05Z","kind":"response"}}]"#
    )
}

const USER_PART: &str = r#"{"content":"hi","timestamp":"2025-01-02T03:04:05Z","part_kind":"user-prompt"}"#;

macro_rules! error_snapshot {
    ($name:ident, $input:expr) => {
        #[test]
        fn $name() {
            let input: Vec<u8> = $input.into();
            insta::assert_snapshot!(outcome(&input));
        }
    };
}

error_snapshot!(error_empty_input, "");
error_snapshot!(error_truncated_json, with_request_part(USER_PART)[..60].to_owned());
error_snapshot!(
    error_top_level_object,
    format!("{{\"parts\":[{USER_PART}],{REQUEST_TAIL}}}")
);
error_snapshot!(error_missing_kind, format!("[{{\"parts\":[{USER_PART}]}}]"));
error_snapshot!(
    error_unknown_kind,
    format!("[{{\"parts\":[{USER_PART}],\"kind\":\"system\"}}]")
);
error_snapshot!(error_missing_parts, r#"[{"kind":"request"}]"#);
error_snapshot!(error_parts_not_a_list, r#"[{"parts":{},"kind":"request"}]"#);
error_snapshot!(error_missing_part_kind, with_request_part(r#"{"content":"hi"}"#));
error_snapshot!(
    error_response_part_in_request,
    with_request_part(
        r#"{"content":"hi","id":null,"provider_name":null,"provider_details":null,"citations":null,"part_kind":"text"}"#
    )
);
error_snapshot!(
    error_missing_required_field,
    with_response(r#"{"id":null,"part_kind":"text"}"#, "{}")
);
error_snapshot!(
    error_wrong_type_string,
    with_request_part(r#"{"content":5,"part_kind":"system-prompt"}"#)
);
error_snapshot!(
    error_wrong_type_int,
    with_response(r#"{"content":"x","part_kind":"text"}"#, r#"{"input_tokens":1.5}"#)
);
error_snapshot!(
    error_wrong_type_float,
    with_response(r#"{"content":"x","part_kind":"text"}"#, r#"{"audio_seconds":"fast"}"#)
);
error_snapshot!(
    // A plain bool field takes whatever pydantic's lax mode might read (`"yes"`, `1`, ...): the
    // verdict judges it. A string field is strict.
    error_wrong_type_tool_name,
    with_request_part(r#"{"tool_name":5,"content":"x","tool_call_id":"c","part_kind":"tool-return"}"#)
);
error_snapshot!(
    error_wrong_type_timestamp,
    with_request_part(r#"{"content":"hi","timestamp":true,"part_kind":"user-prompt"}"#)
);
error_snapshot!(
    error_wrong_type_enum,
    format!("[{{\"parts\":[{USER_PART}],\"kind\":\"request\",\"state\":5}}]")
);
error_snapshot!(
    error_wrong_type_nested_object,
    with_response(r#"{"content":"x","part_kind":"text"}"#, r#""none""#)
);
error_snapshot!(
    error_invalid_base64,
    with_request_part(
        r#"{"content":[{"data":"A===","media_type":"image/png","kind":"binary"}],"part_kind":"user-prompt"}"#
    )
);
error_snapshot!(
    error_invalid_timestamp,
    with_request_part(r#"{"content":"hi","timestamp":"yesterday","part_kind":"user-prompt"}"#)
);
error_snapshot!(
    error_lone_surrogate,
    with_request_part(r#"{"content":"\ud800","part_kind":"user-prompt"}"#)
);
error_snapshot!(error_invalid_utf8, {
    let mut bytes = with_request_part(r#"{"content":"AB","part_kind":"user-prompt"}"#).into_bytes();
    if let Some(position) = bytes.windows(2).position(|window| window == b"AB") {
        bytes[position] = 0xff;
    }
    bytes
});
error_snapshot!(error_trailing_garbage, format!("{} x", with_request_part(USER_PART)));
error_snapshot!(error_byte_order_mark, {
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(with_request_part(USER_PART).into_bytes());
    bytes
});
// Not JSON, but pydantic-ai reads `NaN` and `±Infinity` as floats in float fields and opaque
// values: msgflow carries them and writes them back as written.
error_snapshot!(
    non_finite_literals_in_args_are_carried,
    with_response(
        r#"{"tool_name":"t","args":{"x":NaN,"y":[Infinity,-Infinity],"z":"NaN"},"part_kind":"tool-call"}"#,
        "{}"
    )
);
error_snapshot!(
    non_finite_literal_in_float_is_carried,
    with_response(
        r#"{"content":"x","part_kind":"text"}"#,
        r#"{"audio_seconds":-Infinity}"#
    )
);
// Anywhere else pydantic-ai refuses them too; msgflow says where.
error_snapshot!(
    error_nan_literal_in_a_string_field,
    format!(
        "[\n{}\n]",
        &with_response(r#"{"content":NaN,"part_kind":"text"}"#, r#"{"audio_seconds":NaN}"#)[1..].trim_end_matches(']')
    )
);
error_snapshot!(
    error_nan_literal_in_an_integer_field,
    with_response(
        r#"{"content":"x","part_kind":"text"}"#,
        r#"{"audio_seconds":NaN,"input_tokens":NaN}"#
    )
);
error_snapshot!(
    error_after_a_nan_literal_is_located_in_the_input,
    with_response(
        r#"{"tool_name":"t","args":{"x":NaN,"y":Infinity},"part_kind":"tool-call"},{"content":7,"part_kind":"text"}"#,
        "{}"
    )
);
error_snapshot!(
    error_huge_exponent_in_float,
    with_response(r#"{"content":"x","part_kind":"text"}"#, r#"{"audio_seconds":1e400}"#)
);
error_snapshot!(
    error_duplicate_keys_last_wins,
    with_request_part(
        r#"{"content":"first","content":"second","timestamp":"2025-01-02T03:04:05Z","part_kind":"user-prompt"}"#
    )
);
error_snapshot!(error_deep_nesting_in_args, {
    let depth = 10_000;
    let args = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    with_response(
        &format!(r#"{{"tool_name":"t","args":{args},"part_kind":"tool-call"}}"#),
        "{}",
    )
});
error_snapshot!(error_in_second_message_multiline, {
    let bad = r#"{"parts": [
    {"content": "ok", "part_kind": "text"},
    {"tool_name": "t", "tool_call_id": 7, "part_kind": "tool-call"}
  ], "kind": "response"}"#;
    format!(
        "[\n  {},\n  {bad}\n]",
        &with_request_part(USER_PART)[1..with_request_part(USER_PART).len() - 1]
    )
});
