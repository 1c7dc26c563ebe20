//! `from ag-ui` and `from vercel-ui` on what clients send beside pydantic-ai's own dumps: AG-UI
//! tool results holding media and provider file references, and messages enqueued during a run
//! (the AG-UI activity or Vercel data part pydantic-ai's event streams send them in). Each case of
//! `tests/data/ag_ui_inputs.json` and `vercel_ui_inputs.json` records the history pydantic-ai
//! 2.68.0's `load_messages` builds (`oracle/ui_inputs_expected.py`): its messages' kinds, part kinds
//! and UI message ids. `cargo xtask conformance --only ag-ui` / `--only vercel-ui` compare the whole
//! histories with pydantic-ai's.

use msgflow_formats::{ag_ui, vercel_ui, ConvertOptions, LossKind, Report};
use serde_json::{json, Value};

struct Case {
    format: Format,
    name: String,
    messages: Value,
    /// The summary of pydantic-ai's history, or `None` where pydantic-ai refuses the messages.
    loaded: Option<Value>,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Format {
    AgUi,
    VercelUi,
}

fn cases() -> Vec<Case> {
    let files = [
        (Format::AgUi, include_str!("data/ag_ui_inputs.json")),
        (Format::VercelUi, include_str!("data/vercel_ui_inputs.json")),
    ];
    let mut cases = Vec::new();
    for (format, text) in files {
        let recorded: Vec<Value> = serde_json::from_str(text).expect("the cases are JSON");
        cases.extend(recorded.into_iter().map(|case| Case {
            format,
            name: case["name"].as_str().expect("a name").to_owned(),
            messages: case["messages"].clone(),
            loaded: case.get("loaded").cloned(),
        }));
    }
    cases
}

fn case(format: Format, name: &str) -> Case {
    cases()
        .into_iter()
        .find(|case| case.format == format && case.name == name)
        .unwrap_or_else(|| panic!("no {format:?} case {name}"))
}

/// What `oracle/ui_inputs_expected.py` records of a history.
fn summary(history: &[msgflow_wire::ModelMessage]) -> Value {
    let history: Value = serde_json::from_str(&msgflow_wire::to_string(history).unwrap()).unwrap();
    history
        .as_array()
        .unwrap()
        .iter()
        .map(|message| {
            json!({
                "kind": message["kind"],
                "parts": message["parts"].as_array().unwrap().iter().map(|part| &part["part_kind"]).collect::<Vec<_>>(),
                "id": message.pointer("/metadata/__pydantic_ai__/ui_message_id").unwrap_or(&Value::Null),
            })
        })
        .collect()
}

fn read(
    case: &Case,
) -> (
    Result<Vec<msgflow_wire::ModelMessage>, msgflow_formats::openai_chat::ShapeError>,
    Report,
) {
    let mut report = Report::default();
    let options = ConvertOptions::default();
    let read = match case.format {
        Format::AgUi => ag_ui::from_value(&case.messages, 0, &options, &mut report),
        Format::VercelUi => vercel_ui::from_value(&case.messages, 0, &options, &mut report),
    };
    (read, report)
}

fn dropped(report: &Report) -> Vec<(&str, &str)> {
    report
        .losses
        .iter()
        .filter(|loss| loss.kind == LossKind::Dropped)
        .map(|loss| (loss.path.as_str(), loss.what.as_str()))
        .collect()
}

#[test]
fn each_input_loads_as_pydantic_ai_loads_it() {
    let cases = cases();
    for format in [Format::AgUi, Format::VercelUi] {
        let count = cases.iter().filter(|case| case.format == format).count();
        assert!(count >= 15, "{format:?}: {count} cases");
    }
    for case in &cases {
        let (read, report) = read(case);
        match (&case.loaded, read) {
            (Some(loaded), Ok(history)) => assert_eq!(&summary(&history), loaded, "{:?} {}", case.format, case.name),
            (Some(_), Err(err)) => panic!(
                "{:?} {}: msgflow refuses what pydantic-ai loads: {err:?}",
                case.format, case.name
            ),
            // pydantic-ai refuses the whole input where enqueued messages do not load; msgflow
            // leaves them out, reported.
            (None, Ok(history)) => {
                assert_eq!(case.name, "enqueued_tool_result_of_an_outer_call", "{history:?}");
                assert!(
                    dropped(&report)
                        .iter()
                        .any(|(path, what)| *path == "$[2].content.messages"
                            && what.contains("enqueued messages")
                            && what.contains("$[2].content.messages[0].toolCallId")),
                    "{:?}",
                    report.losses
                );
            }
            (None, Err(_)) => {}
        }
    }
}

#[test]
fn a_file_reference_pydantic_ai_cannot_send_is_reported_dropped_where_it_is() {
    let (read, report) = read(&case(Format::AgUi, "file_source_of_an_unknown_provider"));
    read.unwrap();
    let dropped = dropped(&report);
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert_eq!(dropped[0].0, "$[0].content[1].source");
    assert!(dropped[0].1.contains("`file-abc`"), "{}", dropped[0].1);
}

#[test]
fn enqueued_messages_that_load_as_nothing_are_reported_dropped() {
    let ag_ui = [
        ("enqueued_messages_that_do_not_validate", "$[1].content.messages"),
        ("enqueued_within_enqueued", "$[1].content.messages[1]"),
        ("enqueued_activity_without_messages", "$[1]"),
        ("enqueued_message_without_an_id", "$[1].content.messages"),
    ];
    let vercel_ui = [
        ("enqueued_messages_that_do_not_validate", "$[1].parts[1].data.messages"),
        ("enqueued_part_with_an_unknown_key", "$[1].parts[1].data.messages"),
        ("enqueued_message_without_an_id", "$[1].parts[1].data.messages"),
        (
            "enqueued_within_an_enqueued_assistant_message",
            "$[1].parts[1].data.messages[0].parts[1]",
        ),
        ("enqueued_in_a_user_message", "$[0].parts[1]"),
        ("enqueued_part_whose_data_is_no_object", "$[1].parts[1]"),
    ];
    let expected = ag_ui.map(|(name, path)| (Format::AgUi, name, path)).into_iter();
    for (format, name, path) in expected.chain(vercel_ui.map(|(name, path)| (Format::VercelUi, name, path))) {
        let (read, report) = read(&case(format, name));
        read.unwrap_or_else(|err| panic!("{format:?} {name}: {err:?}"));
        assert!(
            dropped(&report).iter().any(|(at, _)| *at == path),
            "{format:?} {name}: {:?}",
            report.losses
        );
    }
}

#[test]
fn an_enqueued_activity_keeps_the_ids_of_its_messages_not_its_own() {
    let (read, report) = read(&case(Format::AgUi, "enqueued_after_a_response"));
    let ids: Vec<Value> = summary(&read.unwrap())
        .as_array()
        .unwrap()
        .iter()
        .map(|message| message["id"].clone())
        .collect();
    assert_eq!(ids, [json!("u"), json!("a"), json!("u2"), json!("u3")]);
    // The enqueued message's timestamps are pydantic-ai's to fill in, at its place in the input.
    assert!(report
        .losses
        .iter()
        .any(|loss| loss.kind == LossKind::Invented && loss.path == "$[2].content.messages[0]"));
}

#[test]
fn vercel_enqueued_messages_keep_their_own_id_and_metadata_not_the_assistant_message_s() {
    let (read, _) = read(&case(Format::VercelUi, "enqueued_message_with_metadata"));
    let history: Value = serde_json::from_str(&msgflow_wire::to_string(&read.unwrap()).unwrap()).unwrap();
    // The user message, the enqueued one (its own id and metadata), then the assistant's answer.
    assert_eq!(
        history[1]["metadata"],
        json!({"x": 1, "__pydantic_ai__": {"ui_message_id": "u2"}})
    );
    assert_eq!(
        history[2]["metadata"],
        json!({"__pydantic_ai__": {"ui_message_id": "a"}})
    );
    assert_eq!(history[2]["timestamp"], "2025-01-02T03:04:05Z");
}

#[test]
fn a_javascript_byte_array_in_tool_output_is_its_bytes() {
    for name in [
        "binary_tool_output_as_a_uint8array",
        "binary_tool_output_as_a_node_buffer",
    ] {
        let (read, _) = read(&case(Format::VercelUi, name));
        let history: Value = serde_json::from_str(&msgflow_wire::to_string(&read.unwrap()).unwrap()).unwrap();
        let content = &history[2]["parts"][0]["content"];
        assert_eq!(content["kind"], "binary", "{name}: {content}");
        // "hi", as pydantic-ai writes bytes: URL-safe base64.
        assert_eq!(content["data"], "aGk=", "{name}: {content}");
    }
    // Not a canonical byte sequence: the mapping stays as the client sent it.
    let (read, _) = read(&case(Format::VercelUi, "uint8array_with_a_missing_index"));
    let history: Value = serde_json::from_str(&msgflow_wire::to_string(&read.unwrap()).unwrap()).unwrap();
    assert_eq!(history[2]["parts"][0]["content"]["data"], json!({"0": 104, "2": 105}));
}
