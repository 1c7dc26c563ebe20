//! `vercel-ui`: the lossless form gives every history it converts back unchanged (generated
//! histories), a front end's additions to a lossless file are read as pydantic-ai reads them, and bad
//! input is an error naming its place. Equality with pydantic-ai's own adapter is checked by
//! `cargo xtask conformance --only vercel-ui`.

use msgflow_formats::{convert, convert_with, vercel_ui, ConvertOptions, Format, LossKind, Output, Report};
use msgflow_wire::arbitrary::{history, Flavour};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Value};

const CASES: usize = 1500;

fn lossless(sdk_version: u8) -> ConvertOptions {
    ConvertOptions {
        lossless: true,
        vercel_sdk_version: sdk_version,
        ..ConvertOptions::default()
    }
}

#[test]
fn the_lossless_form_is_the_identity_on_generated_histories() {
    let seed = [33u8; 32];
    let mut runner = TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let strategy = history(Flavour::Pydantic);
    let (mut compared, mut refused, mut default_lossless) = (0, 0, 0);
    for case in 0..CASES {
        let history = strategy.new_tree(&mut runner).expect("a history").current();
        let sdk_version = if case % 2 == 0 { 5 } else { 6 };
        let mut report = Report::default();
        let Ok(ui) = vercel_ui::to_value(&history, 0, &lossless(sdk_version), &mut report) else {
            refused += 1;
            continue;
        };
        assert!(report.is_lossless(), "case {case}: {:?}", report.losses);
        let back = vercel_ui::from_value(&ui, 0, &lossless(sdk_version), &mut Report::default())
            .unwrap_or_else(|err| panic!("case {case}: msgflow cannot read its own UI messages: {err:?}"));
        assert_eq!(
            msgflow_wire::to_string(&back).unwrap(),
            msgflow_wire::to_string(&history).unwrap(),
            "case {case}"
        );
        compared += 1;
        // The default form reports a loss exactly when the history does not come back unchanged.
        let mut report = Report::default();
        let options = ConvertOptions {
            vercel_sdk_version: sdk_version,
            ..ConvertOptions::default()
        };
        let ui = vercel_ui::to_value(&history, 0, &options, &mut report).expect("converted losslessly above");
        let back = vercel_ui::from_value(&ui, 0, &options, &mut Report::default()).expect("reads its own output");
        let unchanged = msgflow_wire::to_string(&back).unwrap() == msgflow_wire::to_string(&history).unwrap();
        assert_eq!(report.is_lossless(), unchanged, "case {case}: {:?}", report.losses);
        default_lossless += usize::from(unchanged);
    }
    eprintln!("{compared} compared ({default_lossless} lossless by default), {refused} refused");
    assert!(
        compared >= CASES / 5,
        "too few histories compared: {compared} of {CASES}"
    );
}

fn turn_with_a_tool_call() -> &'static str {
    r#"[
      {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "weather?", "timestamp": "2025-01-02T03:04:05Z"}],
       "timestamp": "2025-01-02T03:04:05Z"},
      {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "weather", "args": {"city": "Paris"}, "tool_call_id": "c1"}],
       "timestamp": "2025-01-02T03:04:06Z", "model_name": "gpt-4o"},
      {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "weather", "content": "sunny", "tool_call_id": "c1",
        "timestamp": "2025-01-02T03:04:07Z"}]},
      {"kind": "response", "parts": [{"part_kind": "text", "content": "Sunny."}], "timestamp": "2025-01-02T03:04:08Z"}
    ]"#
}

fn documents(output: Output) -> Vec<Value> {
    match output {
        Output::Documents(documents) => documents,
        Output::Histories(_) => panic!("expected documents"),
    }
}

/// The lossless UI messages of [`turn_with_a_tool_call`], whose report is empty.
fn lossless_ui() -> Value {
    let converted = convert_with(
        turn_with_a_tool_call(),
        Format::PydanticAi,
        Format::VercelUi,
        &lossless(5),
    )
    .unwrap();
    assert!(converted.report.is_lossless(), "{:?}", converted.report.losses);
    documents(converted.output).remove(0)
}

#[test]
fn a_turn_is_one_assistant_message_with_steps_in_the_lossless_form() {
    let default = convert(turn_with_a_tool_call(), Format::PydanticAi, Format::VercelUi).unwrap();
    let default_ui = &documents(default.output)[0];
    let roles: Vec<&str> = default_ui
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user", "assistant", "assistant"],
        "pydantic-ai writes one message per response"
    );
    // What pydantic-ai's form cannot hold is reported: the parts' timestamps, the model name.
    let lost: Vec<&str> = default.report.losses.iter().map(|loss| loss.path.as_str()).collect();
    assert!(lost.contains(&"$[1].model_name"), "{lost:?}");
    assert!(lost.contains(&"$[2].parts[0].timestamp"), "{lost:?}");

    let ui = &lossless_ui();
    let messages = ui.as_array().unwrap();
    assert_eq!(messages.len(), 2);
    let types: Vec<&str> = messages[1]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|part| part["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["step-start", "tool-weather", "step-start", "text"]);
    let back = convert_with(&ui.to_string(), Format::VercelUi, Format::PydanticAi, &lossless(5)).unwrap();
    let Output::Histories(histories) = back.output else {
        panic!()
    };
    let original = msgflow_wire::from_str(turn_with_a_tool_call()).unwrap();
    assert_eq!(histories[0], original);
}

#[test]
fn a_message_the_front_end_adds_to_a_lossless_file_is_read_as_pydantic_ai_reads_it() {
    let mut ui = lossless_ui();
    ui.as_array_mut().unwrap().push(json!({
        "id": "m-new", "role": "user", "parts": [{"type": "text", "text": "And tomorrow?"}]
    }));
    let back = convert_with(&ui.to_string(), Format::VercelUi, Format::PydanticAi, &lossless(5)).unwrap();
    let Output::Histories(histories) = back.output else {
        panic!()
    };
    let history = &histories[0];
    assert_eq!(history.len(), 5);
    let original = msgflow_wire::from_str(turn_with_a_tool_call()).unwrap();
    assert_eq!(
        &history[..4],
        &original[..],
        "the recorded messages come back unchanged"
    );
    let last = msgflow_wire::to_string(&history[4..]).unwrap();
    assert!(last.contains(r#""content":"And tomorrow?""#), "{last}");
    assert!(last.contains(r#""ui_message_id":"m-new""#), "{last}");
    // An edited message is no longer the recorded one: from there on, pydantic-ai's reading.
    let mut edited = ui.clone();
    edited[0]["parts"][0]["text"] = json!("weather in Lyon?");
    let back = convert_with(&edited.to_string(), Format::VercelUi, Format::PydanticAi, &lossless(5)).unwrap();
    let Output::Histories(histories) = back.output else {
        panic!()
    };
    let text = msgflow_wire::to_string(&histories[0]).unwrap();
    assert!(
        text.contains("weather in Lyon?") && !text.contains("\"weather?\""),
        "{text}"
    );
}

#[test]
fn a_record_that_holds_no_pydantic_ai_message_is_an_error_at_its_place() {
    let mut ui = lossless_ui();
    let record = &mut ui[1]["parts"][1]["callProviderMetadata"]["msgflow"]["messages"][1];
    assert_eq!(record["kind"], "request", "the tool return's request is recorded here");
    record.as_object_mut().unwrap().remove("kind");
    let err = convert_with(&ui.to_string(), Format::VercelUi, Format::PydanticAi, &lossless(5)).unwrap_err();
    assert_eq!(
        err.path, "$[1].parts[1].callProviderMetadata.msgflow.messages[1]",
        "{err}"
    );
    assert!(err.message.contains("record holds no pydantic-ai message"), "{err}");
    // pydantic-ai's own reading (no record) takes the messages as they are.
    assert!(convert(&ui.to_string(), Format::VercelUi, Format::PydanticAi).is_ok());

    // A value that is no message object in a record is refused too, not left out.
    let mut ui = lossless_ui();
    let record = &mut ui[0]["parts"][0]["providerMetadata"]["msgflow"]["messages"];
    record.as_array_mut().unwrap().push(json!("not a message"));
    let err = convert_with(&ui.to_string(), Format::VercelUi, Format::PydanticAi, &lossless(5)).unwrap_err();
    assert_eq!(err.path, "$[0].parts[0].providerMetadata.msgflow.messages[1]", "{err}");
}

#[test]
fn bad_input_is_an_error_with_its_place() {
    let cases = [
        (r#"{"chat": []}"#, "$", "expected Vercel AI UI messages"),
        (r#"[{"id": "a", "role": "robot", "parts": []}]"#, "$[0].role", "expected `system`, `user` or `assistant`"),
        (
            "[\n {\"id\": \"a\", \"role\": \"assistant\",\n  \"parts\": [{\"type\": \"file\", \"mediaType\": \"image/png\", \"url\": \"https://x/a.png\"}]}]",
            "$[0].parts[0].url",
            "base64 `data:` URI",
        ),
        (
            r#"[{"id": "a", "role": "assistant", "parts": [{"type": "tool-f", "toolCallId": "c", "state": "done"}]}]"#,
            "$[0].parts[0].state",
            "expected a tool part state",
        ),
        (r#"[{"id": "a", "role": "system", "parts": [{"type": "file", "mediaType": "a/b", "url": "u"}]}]"#, "$[0].parts[0]", "text parts only"),
    ];
    for (input, path, message) in cases {
        let err = convert(input, Format::VercelUi, Format::PydanticAi).unwrap_err();
        assert_eq!(err.path, path, "{input}");
        assert!(err.message.contains(message), "{input}: {err}");
        assert!(err.position.is_some(), "{input}: {err}");
    }
    let err = convert(r#"[{"id": "a", "role": "assistant", "parts": [{"type": "file", "mediaType": "image/png", "url": "https://x/a.png"}]}]"#, Format::VercelUi, Format::PydanticAi).unwrap_err();
    assert_eq!(err.position, Some((1, 95)), "{err}");
    // A history pydantic-ai does not load is refused with the path of what it refuses.
    let history = r#"[{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi"},
        {"part_kind": "user-prompt", "content": [{"kind": "hologram"}]}]}]"#;
    let err = convert(history, Format::PydanticAi, Format::VercelUi).unwrap_err();
    assert_eq!(err.path, "$[0].parts[1].content[0]");
    assert!(err.message.contains("does not load a `hologram` item"), "{err}");
}

#[test]
fn what_the_history_cannot_hold_of_ui_messages_is_reported() {
    let ui = r#"{"id": "chat-1", "trigger": "submit-message", "messages": [
      {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hi"}, {"type": "data-weather", "data": {"t": 1}}]},
      {"id": "a1", "role": "assistant", "parts": [{"type": "text", "text": "hello", "id": "t1"},
        {"type": "tool-f", "toolCallId": "c", "state": "input-available", "input": {}, "title": "F"},
        {"type": "source-url", "sourceId": "s", "url": "https://x"}]}
    ]}"#;
    let converted = convert(ui, Format::VercelUi, Format::PydanticAi).unwrap();
    let losses: Vec<(LossKind, &str)> = converted
        .report
        .losses
        .iter()
        .map(|loss| (loss.kind, loss.path.as_str()))
        .collect();
    for expected in [
        (LossKind::Dropped, "$.id"),
        (LossKind::Dropped, "$.trigger"),
        (LossKind::Dropped, "$.messages[0].parts[1]"),
        (LossKind::Dropped, "$.messages[1].parts[2]"),
        // A key no model of its type has (pydantic-ai's text part has no `id`), one nothing reads.
        (LossKind::Dropped, "$.messages[1].parts[0].id"),
        (LossKind::Dropped, "$.messages[1].parts[1].title"),
        (LossKind::Invented, "$.messages[0]"),
    ] {
        assert!(losses.contains(&expected), "{expected:?} not in {losses:?}");
    }
}

/// The keys of each tool part in the order pydantic-ai 2.68.0 writes them (the order its UI part
/// model of the part's `state` declares them; `VercelAIAdapter.dump_messages` then
/// `model_dump(by_alias=True)`, probed on these parts).
#[test]
fn tool_parts_keep_the_key_order_of_their_model() {
    let history = r#"[
      {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "go", "timestamp": "2025-01-02T03:04:05Z"}]},
      {"kind": "response", "parts": [
        {"part_kind": "tool-call", "tool_name": "ok", "args": {"a": 1}, "tool_call_id": "c1"},
        {"part_kind": "tool-call", "tool_name": "bad", "args": "{}", "tool_call_id": "c2"},
        {"part_kind": "tool-call", "tool_name": "pending", "args": null, "tool_call_id": "c3"}],
       "timestamp": "2025-01-02T03:04:06Z"},
      {"kind": "request", "parts": [
        {"part_kind": "tool-return", "tool_name": "ok", "content": "done", "tool_call_id": "c1", "timestamp": "2025-01-02T03:04:07Z"},
        {"part_kind": "retry-prompt", "tool_name": "bad", "content": "no", "tool_call_id": "c2", "timestamp": "2025-01-02T03:04:07Z"}]}
    ]"#;
    let keys_of_tool_parts = |sdk_version: u8| -> Vec<Vec<String>> {
        let options = ConvertOptions {
            vercel_sdk_version: sdk_version,
            ..ConvertOptions::default()
        };
        let converted = convert_with(history, Format::PydanticAi, Format::VercelUi, &options).unwrap();
        documents(converted.output)[0]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|message| message["parts"].as_array().unwrap())
            .filter(|part| part.get("toolCallId").is_some())
            .map(|part| part.as_object().unwrap().keys().cloned().collect())
            .collect()
    };
    let keys = |keys: &[&str]| keys.iter().map(|key| key.to_string()).collect::<Vec<_>>();
    let answered = [
        keys(&["type", "toolCallId", "state", "input", "output", "providerExecuted"]),
        keys(&[
            "type",
            "toolCallId",
            "state",
            "input",
            "errorText",
            "providerExecuted",
            "callProviderMetadata",
        ]),
    ];
    let mut sdk5 = answered.to_vec();
    sdk5.push(keys(&["type", "toolCallId", "state", "input", "providerExecuted"]));
    assert_eq!(keys_of_tool_parts(5), sdk5);
    let mut sdk6 = answered.to_vec();
    sdk6.push(keys(&[
        "type",
        "toolCallId",
        "state",
        "input",
        "providerExecuted",
        "approval",
    ]));
    assert_eq!(keys_of_tool_parts(6), sdk6);
}

/// A history written otherwise than pydantic-ai writes it (a Unix-time timestamp, numbers as
/// `1e5`, `-0` and `2.50`, a key `RetryInfo` does not declare), and the UI messages pydantic-ai
/// 2.68.0's `VercelAIAdapter.dump_messages` wrote for it: msgflow writes the same bytes, and
/// reports what the messages cannot hold, not numbers or timestamps re-spelled.
#[test]
fn a_history_spelled_otherwise_converts_as_pydantic_ai_dumps_what_it_read() {
    let history = include_str!("data/spelled-otherwise.json");
    let converted = convert(history, Format::PydanticAi, Format::VercelUi).unwrap();
    let expected: Value = serde_json::from_str(
        r#"[{"id": "f19ed4c3-c819-5c30-9abf-27e3808af8aa", "role": "user", "metadata": {"pydantic_ai": {"timestamp": "2025-01-02T03:04:05Z"}}, "parts": [{"type": "text", "text": "pay", "state": "done"}]}, {"id": "6670079a-3c83-5825-bb30-07b2de8da6c6", "role": "assistant", "metadata": {"pydantic_ai": {"timestamp": "2025-01-02T03:04:06Z"}}, "parts": [{"type": "tool-pay", "toolCallId": "c1", "state": "output-error", "input": {"amount": 100000.0, "n": 0}, "errorText": "{\"paid\":2.5}", "providerExecuted": false, "callProviderMetadata": {"pydantic_ai": {"outcome": "retried", "retry": {"cause": "model_retry", "attempt": 1}}}}]}]"#,
    )
    .unwrap();
    let written = documents(converted.output).remove(0);
    assert_eq!(written.to_string(), expected.to_string());
    let changed = converted.report.paths(LossKind::Changed);
    // The retried return's content comes back as the error text; the re-spelled arguments, and
    // the Unix time as the datetime text pydantic-ai loads it as, are no change.
    assert_eq!(changed, ["$[2].parts[0].content"]);
    assert!(converted
        .report
        .losses
        .iter()
        .any(|loss| loss.kind == LossKind::Dropped && loss.path == "$[2].parts[0].retry.x_reason"));
}

/// The read-back that finds a "to" conversion's losses reads the output itself: it must leave
/// every value there, tool inputs and outputs included (the loader moves them out of the messages
/// it reads for a "from" conversion).
#[test]
fn the_read_back_leaves_tool_inputs_and_outputs_in_the_output() {
    let history = r#"[
      {"kind": "response", "parts": [
        {"part_kind": "tool-call", "tool_name": "f", "args": {"path": "a.py", "deep": {"n": [1, 2]}}, "tool_call_id": "c1"}],
       "timestamp": "2025-01-02T03:04:06Z"},
      {"kind": "request", "parts": [
        {"part_kind": "tool-return", "tool_name": "f", "content": {"lines": ["x", "y"]}, "tool_call_id": "c1", "timestamp": "2025-01-02T03:04:07Z"}]}
    ]"#;
    for lossless in [false, true] {
        let options = ConvertOptions {
            lossless,
            ..ConvertOptions::default()
        };
        let converted = convert_with(history, Format::PydanticAi, Format::VercelUi, &options).unwrap();
        let output = &documents(converted.output)[0];
        let tool_part = output[0]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|part| part["type"] == "tool-f")
            .unwrap_or_else(|| panic!("no tool part in {output}"));
        assert_eq!(
            tool_part["input"],
            json!({"path": "a.py", "deep": {"n": [1, 2]}}),
            "lossless {lossless}"
        );
        assert_eq!(tool_part["output"], json!({"lines": ["x", "y"]}), "lossless {lossless}");
    }
}
