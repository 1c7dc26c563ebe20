//! The `otel` format: span attributes written for every instrumentation version, read back, and
//! OTLP JSON trace exports read one history per agent run.

use msgflow_formats::{convert, convert_with, otel, ConvertOptions, Format, LossKind, Output};
use serde_json::{json, Value};

/// A history holding only what a span records (no timestamps: pydantic-ai fills them in).
const HISTORY: &str = r#"[
 {"parts": [{"content": "Be brief.", "part_kind": "system-prompt"},
            {"content": "Weather in Paris?", "part_kind": "user-prompt"}], "instructions": "Answer in French.", "kind": "request"},
 {"parts": [{"tool_name": "weather", "args": {"city": "Paris"}, "tool_call_id": "call_1", "part_kind": "tool-call"}],
  "finish_reason": "tool_call", "kind": "response"},
 {"parts": [{"tool_name": "weather", "content": "sunny", "tool_call_id": "call_1", "part_kind": "tool-return"}],
  "instructions": "Answer in French.", "kind": "request"},
 {"parts": [{"content": "Ensoleillé.", "part_kind": "text"}], "finish_reason": "stop", "kind": "response"}
]"#;

fn options(version: u8) -> ConvertOptions {
    ConvertOptions {
        otel_version: version,
        ..ConvertOptions::default()
    }
}

fn span(version: u8) -> Value {
    let converted = convert_with(HISTORY, Format::PydanticAi, Format::Otel, &options(version)).unwrap();
    let Output::Documents(documents) = converted.output else {
        panic!()
    };
    documents.into_iter().next().unwrap()
}

#[test]
fn the_last_response_is_the_output_and_tool_results_take_the_tool_role_from_version_6() {
    let five = span(5);
    assert_eq!(five["gen_ai.output.messages"][0]["parts"][0]["content"], "Ensoleillé.");
    assert_eq!(five["gen_ai.output.messages"][0]["finish_reason"], "stop");
    assert_eq!(
        five["gen_ai.system_instructions"],
        json!([{"type": "text", "content": "Answer in French."}])
    );
    let roles = |span: &Value| -> Vec<String> {
        span["gen_ai.input.messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|message| message["role"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(roles(&five), ["system", "user", "assistant", "user"]);
    assert_eq!(roles(&span(6)), ["system", "user", "assistant", "tool"]);
}

#[test]
fn a_history_of_what_a_span_records_comes_back_unchanged_at_every_version() {
    let original = msgflow_wire::from_str(HISTORY).unwrap();
    for version in otel::VERSIONS {
        let text = span(version).to_string();
        let converted = convert(&text, Format::Otel, Format::PydanticAi).unwrap();
        let Output::Histories(histories) = converted.output else {
            panic!()
        };
        assert_eq!(
            msgflow_wire::to_string(&histories[0]).unwrap(),
            msgflow_wire::to_string(&original).unwrap(),
            "version {version}"
        );
        // Only the timestamps pydantic-ai fills in, and the instructions given to every request, are noted.
        let noted = |what: &str| what.contains("timestamps") || what.starts_with("the instructions of every request");
        assert!(
            converted.report.losses.iter().all(|loss| noted(&loss.what)),
            "{:?}",
            converted.report
        );
    }
}

#[test]
fn version_1_is_refused_with_the_reason() {
    let err = convert_with(HISTORY, Format::PydanticAi, Format::Otel, &options(1)).unwrap_err();
    assert!(err.message.contains("versions 2 to 6"), "{err}");
    assert!(err.message.contains("log events"), "{err}");
}

#[test]
fn media_parts_follow_the_version() {
    let history = r#"[{"parts": [{"content": ["look", {"url": "https://x.test/cat.png", "kind": "image-url"},
        {"data": "aGk=", "media_type": "audio/wav", "kind": "binary"}], "part_kind": "user-prompt"}], "kind": "request"}]"#;
    let parts = |version: u8| -> Value {
        let converted = convert_with(history, Format::PydanticAi, Format::Otel, &options(version)).unwrap();
        let Output::Documents(documents) = converted.output else {
            panic!()
        };
        documents[0]["gen_ai.input.messages"][0]["parts"].clone()
    };
    assert_eq!(
        parts(3)[1],
        json!({"type": "image-url", "url": "https://x.test/cat.png"})
    );
    assert_eq!(
        parts(3)[2],
        json!({"type": "binary", "media_type": "audio/wav", "content": "aGk="})
    );
    assert_eq!(
        parts(4)[1],
        json!({"type": "uri", "modality": "image", "mime_type": "image/png", "uri": "https://x.test/cat.png"})
    );
    assert_eq!(
        parts(4)[2],
        json!({"type": "blob", "mime_type": "audio/wav", "modality": "audio", "content": "aGk="})
    );
}

/// Binary data in the standard alphabet or without padding loads in pydantic-ai, whose
/// `BinaryContent.base64` then writes it standard and padded (probed with pydantic-ai 2.68.0).
#[test]
fn binary_data_in_any_base64_pydantic_ai_reads_is_written_standard_and_padded() {
    let history = r#"[{"parts": [{"content": ["look", {"data": "+/8", "media_type": "image/png", "kind": "binary"},
        {"data": "YQ", "media_type": "application/pdf", "kind": "binary"}], "part_kind": "user-prompt"}], "kind": "request"}]"#;
    for version in otel::VERSIONS {
        let converted = convert_with(history, Format::PydanticAi, Format::Otel, &options(version)).unwrap();
        let Output::Documents(documents) = converted.output else {
            panic!()
        };
        let parts = &documents[0]["gen_ai.input.messages"][0]["parts"];
        let expected = if version < 4 {
            json!([{"type": "binary", "media_type": "image/png", "content": "+/8="},
                   {"type": "binary", "media_type": "application/pdf", "content": "YQ=="}])
        } else {
            json!([{"type": "blob", "mime_type": "image/png", "modality": "image", "content": "+/8="},
                   {"type": "blob", "mime_type": "application/pdf", "content": "YQ=="}])
        };
        assert_eq!(
            parts.as_array().unwrap()[1..],
            expected.as_array().unwrap()[..],
            "version {version}"
        );
    }
}

/// Another producer's blob in URL-safe base64 without padding reads as the same bytes.
#[test]
fn a_blob_in_url_safe_base64_reads_as_its_bytes() {
    let span = json!({"gen_ai.input.messages": [{"role": "user", "parts": [
        {"type": "blob", "mime_type": "image/png", "modality": "image", "content": "-_8"}]}]});
    let converted = convert(&span.to_string(), Format::Otel, Format::PydanticAi).unwrap();
    let Output::Histories(histories) = converted.output else {
        panic!()
    };
    let history = serde_json::to_value(&histories[0]).unwrap();
    assert_eq!(history[0]["parts"][0]["content"][0]["data"], "-_8=");
    assert!(!converted.report.losses.iter().any(|loss| loss.what.contains("binary")));
}

fn attributes(pairs: &[(&str, &Value)]) -> Value {
    Value::Array(
        pairs
            .iter()
            .map(|(key, value)| json!({"key": key, "value": {"stringValue": value.to_string()}}))
            .collect(),
    )
}

fn otlp_span(id: &str, parent: &str, name: &str, start: u64, attributes: Value) -> Value {
    json!({"traceId": "t1", "spanId": id, "parentSpanId": parent, "name": name,
           "startTimeUnixNano": start.to_string(), "endTimeUnixNano": (start + 10).to_string(), "attributes": attributes})
}

fn export(spans: Vec<Value>) -> String {
    json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).to_string()
}

#[test]
fn an_otlp_export_split_over_lines_gives_one_history_per_run_from_its_last_model_request() {
    let first = json!([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]);
    let first_out = json!([{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "f"}]}]);
    let second_in = json!([{"role": "user", "parts": [{"type": "text", "content": "hi"}]},
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "f"}]},
        {"role": "user", "parts": [{"type": "tool_call_response", "id": "c1", "name": "f", "result": 1}]}]);
    let second_out = json!([{"role": "assistant", "parts": [{"type": "text", "content": "done"}]}]);
    let other = json!([{"role": "user", "parts": [{"type": "text", "content": "again"}]},
        {"role": "assistant", "parts": [{"type": "text", "content": "yes"}]}]);
    // The run spans and the model request spans come on different lines, out of order.
    let lines = [
        export(vec![
            otlp_span(
                "m2",
                "r1",
                "chat",
                30,
                attributes(&[
                    ("gen_ai.input.messages", &second_in),
                    ("gen_ai.output.messages", &second_out),
                ]),
            ),
            otlp_span(
                "r2",
                "",
                "invoke_agent b",
                100,
                attributes(&[("pydantic_ai.all_messages", &other)]),
            ),
        ]),
        export(vec![
            otlp_span("r1", "", "invoke_agent a", 0, attributes(&[])),
            otlp_span(
                "m1",
                "r1",
                "chat",
                10,
                attributes(&[
                    ("gen_ai.input.messages", &first),
                    ("gen_ai.output.messages", &first_out),
                ]),
            ),
        ]),
    ];
    let converted = convert(&lines.join("\n"), Format::Otel, Format::PydanticAi).unwrap();
    let Output::Histories(histories) = converted.output else {
        panic!()
    };
    let lengths: Vec<usize> = histories.iter().map(Vec::len).collect();
    assert_eq!(lengths, [4, 2]);
    let first_run = msgflow_wire::to_string(&histories[0]).unwrap();
    assert!(first_run.contains(r#""content":"done""#), "{first_run}");
}

#[test]
fn input_that_is_not_otel_is_an_error_at_its_path() {
    let err = convert(r#"{"messages": []}"#, Format::Otel, Format::PydanticAi).unwrap_err();
    assert_eq!(err.path, "$");
    let err = convert(
        r#"{"gen_ai.input.messages": [{"role": "user", "parts": [{"content": "no type"}]}]}"#,
        Format::Otel,
        Format::PydanticAi,
    )
    .unwrap_err();
    assert_eq!(err.path, r#"$["gen_ai.input.messages"][0].parts[0]"#);
    assert!(err.position.is_some());
    let err = convert(r#"{"resourceSpans": []}"#, Format::Otel, Format::PydanticAi).unwrap_err();
    assert!(err.message.contains("no span with messages"), "{err}");
    let err = convert(
        r#"{"gen_ai.input.messages": "[not json"}"#,
        Format::Otel,
        Format::PydanticAi,
    )
    .unwrap_err();
    assert!(err.message.contains("JSON text"), "{err}");
}

#[test]
fn parts_a_history_cannot_hold_are_reported_dropped() {
    let span = r#"{"gen_ai.input.messages": [{"role": "user", "parts": [{"type": "text", "content": "q"}]},
        {"role": "assistant", "parts": [{"type": "Vendor.Reasoning", "text": "x"}, {"type": "text", "content": "a"}]}]}"#;
    let converted = convert(span, Format::Otel, Format::PydanticAi).unwrap();
    let dropped = converted.report.paths(LossKind::Dropped);
    assert_eq!(dropped, [r#"$["gen_ai.input.messages"][1].parts[0]"#]);
}

/// Found by `cargo xtask conformance --only otel --seed 7` (arbitrary-1833): fenced validation
/// errors whose details pydantic-ai would not load (no `input`) are read as the user text they are,
/// and the span of that history is the span read.
#[test]
fn fenced_feedback_is_read_as_feedback_only_where_pydantic_ai_renders_it_so() {
    let framing = "Your previous response failed the application's validation (this is automated feedback, not a message from the user):";
    let loads = format!(
        "{framing}\n<pyai:validation_errors>\n[{{\"type\":\"missing\",\"loc\":[\"a\"],\"msg\":\"Field required\",\"input\":{{}}}}]\n</pyai:validation_errors>"
    );
    let does_not_load = format!(
        "{framing}\n<pyai:validation_errors>\n[{{\"type\":\"missing\",\"loc\":[\"a\"],\"msg\":\"Field required\"}}]\n</pyai:validation_errors>"
    );
    for (text, kind) in [(loads, "retry-feedback"), (does_not_load, "user-prompt")] {
        let span = json!({"gen_ai.input.messages": [{"role": "user", "parts": [{"type": "text", "content": text}]}]});
        let converted = convert(&span.to_string(), Format::Otel, Format::PydanticAi).unwrap();
        let Output::Histories(histories) = converted.output else {
            panic!()
        };
        let history = msgflow_wire::to_string(&histories[0]).unwrap();
        assert!(history.contains(&format!(r#""part_kind":"{kind}""#)), "{history}");
        let again = convert(&history, Format::PydanticAi, Format::Otel).unwrap();
        let Output::Documents(documents) = again.output else {
            panic!()
        };
        assert_eq!(documents[0]["gen_ai.input.messages"], span["gen_ai.input.messages"]);
    }
}

/// The messages are mapped on several threads; the first message that cannot be mapped still
/// gives the error.
#[test]
fn of_several_messages_that_cannot_be_mapped_the_first_gives_the_error() {
    // pydantic-ai has no `uploaded-file` part in a request.
    let unmappable = json!({"parts": [{"file_id": "f", "provider_name": "openai", "part_kind": "uploaded-file"}],
                            "kind": "request"});
    let mut history: Vec<Value> = (0..2000)
        .map(|i| json!({"parts": [{"content": format!("prompt {i}"), "part_kind": "user-prompt"}], "kind": "request"}))
        .collect();
    for at in [1500, 700, 1201] {
        history[at] = unmappable.clone();
    }
    history.push(json!({"parts": [{"content": "last", "part_kind": "user-prompt"}], "kind": "request"}));
    let text = serde_json::to_string(&history).unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    let err = pool
        .install(|| convert(&text, Format::PydanticAi, Format::Otel))
        .unwrap_err();
    assert_eq!(err.path, "$[700].parts[0]", "{err}");
}

/// A tool part without a `tool_call_id` gets msgflow's id, as in the UI formats, where pydantic-ai
/// makes up a random one on load, reported invented; a typed part its class's tool name, which is
/// no loss: pydantic-ai loads the part without one as that name. The parts as pydantic-ai 2.68.0
/// records them (its ids aside).
#[test]
fn tool_parts_without_ids_get_msgflows_reported_invented() {
    let history = r#"[
     {"parts": [{"content": "find tools", "part_kind": "user-prompt"}], "kind": "request"},
     {"parts": [{"tool_kind": "tool-search", "args": {"queries": ["weather"]}, "part_kind": "tool-call"},
                {"tool_name": "lookup", "args": "{}", "part_kind": "tool-call"},
                {"content": {"data": "AA==", "media_type": "image/png"}, "part_kind": "file"}], "kind": "response"}
    ]"#;
    let converted = convert_with(history, Format::PydanticAi, Format::Otel, &options(5)).unwrap();
    let Output::Documents(documents) = converted.output else {
        panic!()
    };
    assert_eq!(
        documents[0]["gen_ai.output.messages"][0]["parts"],
        json!([
            {"type": "tool_call", "id": "msgflow_call_1_0", "name": "search_tools", "arguments": {"queries": ["weather"]}},
            {"type": "tool_call", "id": "msgflow_call_1_1", "name": "lookup", "arguments": "{}"},
            {"type": "blob", "mime_type": "image/png", "modality": "image", "content": "AA=="}
        ])
    );
    assert_eq!(
        converted.report.paths(LossKind::Invented),
        ["$[1].parts[0].tool_call_id", "$[1].parts[1].tool_call_id"]
    );
}
