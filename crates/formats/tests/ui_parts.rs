//! The parts pydantic-ai's UI adapters carry through the client (compaction, the tool-availability,
//! capability-load and model-settings deltas, harness retry feedback in both voices, text with
//! citations), one case each in `tests/data/ui_parts.json`: `to` writes exactly what pydantic-ai
//! 2.68.0's `dump_messages` writes for the case (recorded by `oracle/ui_parts_expected.py`; AG-UI
//! message ids aside, which pydantic-ai makes random), `from` reads back the parts its
//! `load_messages` reads (in its order: a delta in a user message goes ahead of the prompt), and the lossless
//! form gives the history back unchanged. The generated histories are checked against pydantic-ai
//! itself by `cargo xtask conformance --only vercel-ui` / `--only ag-ui`.

use msgflow_formats::{ag_ui, vercel_ui, ConvertOptions, Report};
use msgflow_wire::ModelMessage;
use serde_json::Value;

struct Case {
    name: String,
    history: Vec<ModelMessage>,
    vercel: Value,
    agui: Value,
    /// The part kinds of what pydantic-ai's `load_messages` reads back from its own dump.
    vercel_parts: Vec<String>,
    agui_parts: Vec<String>,
    /// A case msgflow does not convert to vercel-ui yet (typed tool parts).
    vercel_refuses: bool,
}

fn cases() -> Vec<Case> {
    let text = include_str!("data/ui_parts.json");
    let cases: Vec<Value> = serde_json::from_str(text).expect("the cases are JSON");
    cases
        .into_iter()
        .map(|case| Case {
            name: case["name"].as_str().expect("a case has a name").to_owned(),
            history: msgflow_wire::from_str(&case["history"].to_string()).expect("a case's history loads"),
            vercel: case["vercel"].clone(),
            agui: case["agui"].clone(),
            vercel_parts: serde_json::from_value(case["vercel_parts"].clone()).expect("part kinds"),
            agui_parts: serde_json::from_value(case["agui_parts"].clone()).expect("part kinds"),
            vercel_refuses: case["vercel_refuses"] == true,
        })
        .collect()
}

/// The part kinds of a history, in order.
fn part_kinds(history: &[ModelMessage]) -> Vec<String> {
    let value: Value = serde_json::from_str(&msgflow_wire::to_string(history).unwrap()).unwrap();
    value
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|message| message["parts"].as_array().unwrap().iter())
        .map(|part| part["part_kind"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn without_ids(mut messages: Value) -> Value {
    for message in messages.as_array_mut().into_iter().flatten() {
        if let Some(object) = message.as_object_mut() {
            object.remove("id");
        }
    }
    messages
}

fn lossless() -> ConvertOptions {
    ConvertOptions {
        lossless: true,
        ..ConvertOptions::default()
    }
}

#[test]
fn every_case_is_there() {
    let names: Vec<String> = cases().into_iter().map(|case| case.name).collect();
    for expected in [
        "compaction_in_a_request",
        "compaction_in_a_response",
        "tool_availability_delta",
        "capability_load_delta",
        "model_settings_delta",
        "retry_feedback_model_retry",
        "retry_feedback_no_output",
        "retry_feedback_validation_errors",
        "text_with_citations",
        "structured_content_in_a_prompt",
        "retried_tool_return_with_retry",
        "uploaded_file_in_a_prompt",
        "tool_return_with_metadata",
        "typed_tool_search_parts",
    ] {
        assert!(names.iter().any(|name| name == expected), "missing case {expected}");
    }
}

#[test]
fn vercel_ui_writes_each_part_as_pydantic_ai_and_reads_it_back() {
    for case in cases() {
        let options = ConvertOptions::default();
        let mut report = Report::default();
        if case.vercel_refuses {
            let err = vercel_ui::to_value(&case.history, 0, &options, &mut report).unwrap_err();
            assert!(err.message.contains("typed tool call"), "{}: {err:?}", case.name);
            continue;
        }
        let ui = vercel_ui::to_value(&case.history, 0, &options, &mut report)
            .unwrap_or_else(|err| panic!("{}: {err:?}", case.name));
        assert_eq!(ui, case.vercel, "{}: not what dump_messages writes", case.name);
        let back = vercel_ui::from_value(&ui, 0, &options, &mut Report::default())
            .unwrap_or_else(|err| panic!("{}: {err:?}", case.name));
        assert_eq!(part_kinds(&back), case.vercel_parts, "{}", case.name);

        let mut report = Report::default();
        let ui = vercel_ui::to_value(&case.history, 0, &lossless(), &mut report).unwrap();
        assert!(report.is_lossless(), "{}: {:?}", case.name, report.losses);
        let back = vercel_ui::from_value(&ui, 0, &lossless(), &mut Report::default()).unwrap();
        assert_eq!(
            msgflow_wire::to_string(&back).unwrap(),
            msgflow_wire::to_string(&case.history).unwrap(),
            "{}: the lossless form changed the history",
            case.name
        );
    }
}

#[test]
fn ag_ui_writes_each_part_as_pydantic_ai_and_reads_it_back() {
    for case in cases() {
        let options = ConvertOptions::default();
        let mut report = Report::default();
        let messages = ag_ui::to_value(&case.history, 0, &options, &mut report)
            .unwrap_or_else(|err| panic!("{}: {err:?}", case.name));
        assert_eq!(
            without_ids(messages.clone()),
            without_ids(case.agui.clone()),
            "{}: not what dump_messages writes",
            case.name
        );
        let back = ag_ui::from_value(&messages, 0, &options, &mut Report::default())
            .unwrap_or_else(|err| panic!("{}: {err:?}", case.name));
        assert_eq!(part_kinds(&back), case.agui_parts, "{}", case.name);

        let mut report = Report::default();
        let messages = ag_ui::to_value(&case.history, 0, &lossless(), &mut report).unwrap();
        assert!(report.is_lossless(), "{}: {:?}", case.name, report.losses);
        let back = ag_ui::from_value(&messages, 0, &lossless(), &mut Report::default()).unwrap();
        assert_eq!(
            msgflow_wire::to_string(&back).unwrap(),
            msgflow_wire::to_string(&case.history).unwrap(),
            "{}: the lossless form changed the history",
            case.name
        );
    }
}
