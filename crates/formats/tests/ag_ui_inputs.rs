//! `from ag-ui` on what clients send beside pydantic-ai's own dumps: tool results holding media,
//! provider file references, and messages enqueued during a run (the activity pydantic-ai's event
//! stream sends them in). Each case of `tests/data/ag_ui_inputs.json` records the history
//! pydantic-ai 2.68.0's `load_messages` builds (`oracle/ag_ui_inputs_expected.py`): its messages'
//! kinds, part kinds and AG-UI ids. `cargo xtask conformance --only ag-ui` compares the whole
//! histories with pydantic-ai's.

use msgflow_formats::{ag_ui, ConvertOptions, LossKind, Report};
use serde_json::{json, Value};

struct Case {
    name: String,
    messages: Value,
    /// The summary of pydantic-ai's history, or `None` where pydantic-ai refuses the messages.
    loaded: Option<Value>,
}

fn cases() -> Vec<Case> {
    let cases: Vec<Value> = serde_json::from_str(include_str!("data/ag_ui_inputs.json")).expect("the cases are JSON");
    cases
        .into_iter()
        .map(|case| Case {
            name: case["name"].as_str().expect("a name").to_owned(),
            messages: case["messages"].clone(),
            loaded: case.get("loaded").cloned(),
        })
        .collect()
}

/// What `oracle/ag_ui_inputs_expected.py` records of a history.
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
    let read = ag_ui::from_value(&case.messages, 0, &ConvertOptions::default(), &mut report);
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
    assert!(cases.len() >= 20, "{} cases", cases.len());
    for case in &cases {
        let (read, report) = read(case);
        match (&case.loaded, read) {
            (Some(loaded), Ok(history)) => assert_eq!(&summary(&history), loaded, "{}", case.name),
            (Some(_), Err(err)) => panic!("{}: msgflow refuses what pydantic-ai loads: {err:?}", case.name),
            // pydantic-ai refuses the whole input where enqueued messages do not load; msgflow
            // leaves them out, reported.
            (None, Ok(history)) => {
                assert_eq!(case.name, "enqueued_tool_result_of_an_outer_call", "{history:?}");
                assert!(
                    dropped(&report)
                        .iter()
                        .any(|(path, what)| *path == "$[2].content.messages[0].toolCallId"
                            && what.contains("enqueued messages")),
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
    let case = cases()
        .into_iter()
        .find(|case| case.name == "file_source_of_an_unknown_provider")
        .unwrap();
    let (read, report) = read(&case);
    read.unwrap();
    let dropped = dropped(&report);
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert_eq!(dropped[0].0, "$[0].content[1].source");
    assert!(dropped[0].1.contains("`file-abc`"), "{}", dropped[0].1);
}

#[test]
fn enqueued_messages_that_load_as_nothing_are_reported_dropped() {
    for (name, path) in [
        (
            "enqueued_messages_that_do_not_validate",
            "$[1].content.messages[0].content",
        ),
        ("enqueued_within_enqueued", "$[1].content.messages[1]"),
        ("enqueued_activity_without_messages", "$[1]"),
        ("enqueued_message_without_an_id", "$[1].content.messages[0]"),
    ] {
        let case = cases().into_iter().find(|case| case.name == name).unwrap();
        let (read, report) = read(&case);
        read.unwrap_or_else(|err| panic!("{name}: {err:?}"));
        assert!(
            dropped(&report).iter().any(|(at, _)| *at == path),
            "{name}: {:?}",
            report.losses
        );
    }
}

#[test]
fn an_enqueued_activity_keeps_the_ids_of_its_messages_not_its_own() {
    let case = cases()
        .into_iter()
        .find(|case| case.name == "enqueued_after_a_response")
        .unwrap();
    let (read, report) = read(&case);
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
