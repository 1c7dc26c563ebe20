//! The parts pydantic-ai's UI adapters carry through the client (compaction, the tool-availability,
//! capability-load and model-settings deltas, harness retry feedback in both voices, text with
//! citations, typed tool parts, legacy retry prompts as the parts pydantic-ai loads them as), one case each in `tests/data/ui_parts.json`: `to` writes exactly what pydantic-ai
//! 2.68.0's `dump_messages` writes for the case (recorded by `oracle/ui_parts_expected.py`; AG-UI
//! message ids aside, which pydantic-ai makes random), `from` reads back the parts its
//! `load_messages` reads (in its order: a delta in a user message goes ahead of the prompt), and the lossless
//! form gives the history back unchanged. The generated histories are checked against pydantic-ai
//! itself by `cargo xtask conformance --only vercel-ui` / `--only ag-ui`.

use msgflow_formats::{ag_ui, vercel_ui, ConvertOptions, LossKind, Report};
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
        "uploaded_file_without_a_media_type",
        "tool_return_with_metadata",
        "tool_return_with_an_mcp_app",
        "typed_tool_search_parts",
        "typed_capability_load_parts",
        "typed_builtin_tool_search_parts",
        "legacy_tool_retry_with_validation_errors",
        "legacy_tool_retry_text",
        "legacy_retry_prompt_text",
        "legacy_retry_prompt_validation_errors",
        "tool_return_with_files",
        "native_tool_return_with_files",
        "failed_and_retried_tool_returns_with_files",
    ] {
        assert!(names.iter().any(|name| name == expected), "missing case {expected}");
    }
}

#[test]
fn vercel_ui_writes_each_part_as_pydantic_ai_and_reads_it_back() {
    for case in cases() {
        let options = ConvertOptions::default();
        let mut report = Report::default();
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

/// Tool parts without a `tool_call_id`: pydantic-ai makes up a random `pyd_ai_...` id on load;
/// msgflow writes `msgflow_call_<message>_<part>` in its place and reports it invented.
#[test]
fn a_tool_call_without_an_id_is_written_with_a_made_up_id_reported_invented() {
    let history: Vec<ModelMessage> = msgflow_wire::from_str(
        r#"[{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi", "timestamp": "2025-01-02T03:04:05Z"}]},
            {"kind": "response", "timestamp": "2025-01-02T03:04:05Z", "parts": [{"part_kind": "tool-call", "tool_name": "f", "args": {"a": 1}}]}]"#,
    )
    .unwrap();
    let options = ConvertOptions::default();
    let mut report = Report::default();
    let ui = vercel_ui::to_value(&history, 0, &options, &mut report).unwrap();
    assert_eq!(ui[1]["parts"][0]["toolCallId"], "msgflow_call_1_0");
    let mut report_agui = Report::default();
    let messages = ag_ui::to_value(&history, 0, &options, &mut report_agui).unwrap();
    assert_eq!(messages[1]["toolCalls"][0]["id"], "msgflow_call_1_0");
    for report in [report, report_agui] {
        let invented = report
            .losses
            .iter()
            .find(|loss| loss.path == "$[1].parts[0].tool_call_id")
            .unwrap_or_else(|| panic!("no loss at the id: {:?}", report.losses));
        assert_eq!(invented.kind, msgflow_formats::LossKind::Invented);
    }
    // The lossless forms give the history back without the id.
    let kept = vercel_ui::to_value(&history, 0, &lossless(), &mut Report::default()).unwrap();
    let back = vercel_ui::from_value(&kept, 0, &lossless(), &mut Report::default()).unwrap();
    assert_eq!(
        msgflow_wire::to_string(&back).unwrap(),
        msgflow_wire::to_string(&history).unwrap()
    );
    let kept = ag_ui::to_value(&history, 0, &lossless(), &mut Report::default()).unwrap();
    let back = ag_ui::from_value(&kept, 0, &lossless(), &mut Report::default()).unwrap();
    assert_eq!(
        msgflow_wire::to_string(&back).unwrap(),
        msgflow_wire::to_string(&history).unwrap()
    );
}

/// What pydantic-ai 2.68.0 does not convert, one case each: msgflow refuses it for both UI formats,
/// with pydantic-ai's reason where pydantic-ai does not load the history at all.
#[test]
fn what_pydantic_ai_does_not_convert_is_refused_with_its_reason() {
    const PROMPT: &str = r#"{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi", "timestamp": "2025-01-02T03:04:05Z"}]}"#;
    let cases = [
        (
            "a legacy retry prompt holding neither text nor validation errors",
            r#"{"kind": "request", "parts": [{"part_kind": "retry-prompt", "tool_name": "f", "tool_call_id": "c", "content": [{"not": "an error"}]}]}"#,
            "pydantic-ai 2.68.0 does not load a legacy retry prompt",
            ["$[1].parts[0].content", "$[1].parts[0].content"],
        ),
        (
            "a typed call whose arguments do not fit its TypedDict",
            r#"{"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "search_tools", "tool_call_id": "c", "tool_kind": "tool-search", "args": {"queries": "not a list"}}]}"#,
            "pydantic-ai 2.68.0 does not load a `ToolSearchCallPart` whose `args` does not fit `ToolSearchArgs`",
            ["$[1].parts[0].args", "$[1].parts[0].args"],
        ),
    ];
    for (name, message, expected, [vercel_path, agui_path]) in cases {
        let history: Vec<ModelMessage> = match msgflow_wire::from_str(&format!("[{PROMPT}, {message}]")) {
            Ok(history) => history,
            Err(err) => panic!("{name}: {err}"),
        };
        let options = ConvertOptions::default();
        for (format, path, err) in [
            (
                "vercel-ui",
                vercel_path,
                vercel_ui::to_value(&history, 0, &options, &mut Report::default()).unwrap_err(),
            ),
            (
                "ag-ui",
                agui_path,
                ag_ui::to_value(&history, 0, &options, &mut Report::default()).unwrap_err(),
            ),
        ] {
            assert!(err.message.contains(expected), "{name} ({format}): {}", err.message);
            assert!(
                err.message.ends_with(&format!("to {format}")),
                "{name}: {}",
                err.message
            );
            assert_eq!(err.path, path, "{name} ({format})");
        }
    }
}

/// Retry feedback without a timestamp (a `retry-feedback` part, or a legacy retry prompt read as
/// one): pydantic-ai stamps it with the time it loads the history and writes that stamp for the
/// front end; msgflow writes the time of the conversion, and reports the timestamp invented (or,
/// for the legacy prompt, the part changed into feedback).
#[test]
fn retry_feedback_without_a_timestamp_is_stamped_with_the_conversion_time() {
    const BEFORE: &str = r#"{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi", "timestamp": "2025-01-02T03:04:05Z"}]},
        {"kind": "response", "parts": [{"part_kind": "text", "content": "x"}], "timestamp": "2025-01-02T03:04:05Z"}"#;
    for feedback in [
        r#"{"part_kind": "retry-feedback", "content": "again", "retry": {"cause": "model_retry"}}"#,
        r#"{"part_kind": "retry-prompt", "content": "again"}"#,
    ] {
        let history: Vec<ModelMessage> =
            msgflow_wire::from_str(&format!(r#"[{BEFORE}, {{"kind": "request", "parts": [{feedback}]}}]"#)).unwrap();
        let options = ConvertOptions::default();
        let started = msgflow_wire::Timestamp::now();
        let mut vercel_report = Report::default();
        let vercel = vercel_ui::to_value(&history, 0, &options, &mut vercel_report).unwrap();
        let mut ag_ui_report = Report::default();
        let ag_ui = ag_ui::to_value(&history, 0, &options, &mut ag_ui_report).unwrap();
        let ended = msgflow_wire::Timestamp::now();
        let ag_ui_claim: serde_json::Value =
            serde_json::from_str(ag_ui[2]["encryptedValue"].as_str().expect("the feedback's claim")).unwrap();
        for (format, stamp, report) in [
            (
                "vercel-ui",
                &vercel[2]["parts"][0]["providerMetadata"]["pydantic_ai"]["retry_feedback"]["timestamp"],
                vercel_report,
            ),
            (
                "ag-ui",
                &ag_ui_claim["pydantic_ai"]["retry_feedback"]["timestamp"],
                ag_ui_report,
            ),
        ] {
            let stamp = stamp
                .as_str()
                .unwrap_or_else(|| panic!("{format}: no stamp in {vercel} / {ag_ui}"));
            assert!(
                stamp.ends_with('Z') && stamp.len() == "2025-01-02T03:04:05.678901Z".len(),
                "{format}: {stamp}"
            );
            assert!(
                started.as_written() <= stamp && stamp <= ended.as_written(),
                "{format}: {stamp} not within the conversion"
            );
            // The stamp is reported, or the whole part is (a legacy retry prompt comes back as
            // another kind of part, stamp and all).
            assert!(
                report.losses.iter().any(|loss| (loss.path == "$[2].parts[0].timestamp"
                    && loss.kind == LossKind::Invented)
                    || (loss.path == "$[2].parts[0]" && loss.what.contains("became a `retry-feedback`"))),
                "{format}: {:?}",
                report.losses
            );
        }
    }
}
