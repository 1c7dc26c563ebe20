//! Worked examples of repair (verified against pydantic-ai-slim 2.68.0),
//! in both modes, plus the wire form of synthesized parts and merged requests.

mod common;

use common::{history, notation};
use msgflow_sanitize::{check, repair, Change, RepairOptions, PYDANTIC_AI_SYNTHESIZED_CONTENT};
use msgflow_wire::{Field, ModelMessage, RawJson};

fn options(repair_last_response: bool) -> RepairOptions {
    RepairOptions {
        content: PYDANTIC_AI_SYNTHESIZED_CONTENT.to_owned(),
        repair_last_response,
        ..RepairOptions::default()
    }
}

/// Repairs `input` in one mode, compares with `expected`, and checks the output is a fixed point.
fn assert_repairs(input: &str, expected: &str, repair_last_response: bool) {
    let options = options(repair_last_response);
    let repaired = repair(history(input), &options);
    assert_eq!(
        notation(&repaired.history),
        expected,
        "repairing {input} (repair_last_response={repair_last_response})"
    );
    let again = repair(repaired.history.clone(), &options);
    assert_eq!(
        again.history, repaired.history,
        "repair is not idempotent on {expected}"
    );
    assert!(
        again.report.is_empty(),
        "second repair reported changes: {}",
        again.report
    );
}

const EXAMPLES: &[(&str, &str, &str)] = &[
    // (input, default, frontier kept)
    (
        r#"R[user] S[call a, call b] R[ret a, user "next"]"#,
        r#"R[user] S[call a, call b] R[ret a, synth b, user "next"]"#,
        r#"R[user] S[call a, call b] R[ret a, user "next"]"#,
    ),
    (
        "R[user] S[call a] S[text]",
        "R[user] S[call a] R[synth a] S[text]",
        "R[user] S[call a] R[synth a] S[text]",
    ),
    ("R[user] S[call a]", "R[user] S[call a] R[synth a]", "R[user] S[call a]"),
    (
        "R[ret z] S[call z] R[ret z]",
        "S[call z] R[ret z]",
        "S[call z] R[ret z]",
    ),
    (
        r#"S[call a] R[ret a] S[call a] R[user "x"]"#,
        r#"S[call a] R[ret a] S[call a] R[synth a, user "x"]"#,
        r#"S[call a] R[ret a] S[call a] R[user "x"]"#,
    ),
    (
        "S[call a] S[call a] R[ret a]",
        "S[call a] R[synth a] S[call a] R[ret a]",
        "S[call a] R[synth a] S[call a] R[ret a]",
    ),
    (
        "S[call a, call a] R[ret a]",
        "S[call a, call a] R[ret a, synth a]",
        "S[call a, call a] R[ret a]",
    ),
    (
        r#"S[call a] R[user "x"] R[ret a]"#,
        r#"S[call a] R[ret a, user "x"]"#,
        r#"S[call a] R[ret a, user "x"]"#,
    ),
    (
        "S[call a] R[ret a] R[ret a]",
        "S[call a] R[ret a, ret a]",
        "S[call a] R[ret a, ret a]",
    ),
    // Synthesized order: the id seen first as a call comes first (verified against pydantic-ai).
    (
        "S[call b] R[ret b] S[call a, call b]",
        "S[call b] R[ret b] S[call a, call b] R[synth b, synth a]",
        "S[call b] R[ret b] S[call a, call b]",
    ),
];

#[test]
fn worked_examples_default_mode() {
    for (input, default, _) in EXAMPLES {
        assert_repairs(input, default, true);
    }
}

#[test]
fn worked_examples_frontier_kept() {
    for (input, _, kept) in EXAMPLES {
        assert_repairs(input, kept, false);
    }
}

#[test]
fn repaired_examples_pass_the_pairing_checks() {
    use msgflow_sanitize::ViolationKind::{DanglingCall, OrphanReturn};
    for (input, _, _) in EXAMPLES {
        let repaired = repair(history(input), &options(true));
        let left: Vec<_> = check(&repaired.history)
            .into_iter()
            .filter(|v| matches!(v.kind, DanglingCall | OrphanReturn))
            .collect();
        assert!(left.is_empty(), "{input}: {left:?}");
    }
}

#[test]
fn synthesized_result_and_new_request_are_byte_exact() {
    let repaired = repair(
        history(r#"R[user] S[call a, call b] R[ret a, user "next"]"#),
        &options(true),
    );
    let third = msgflow_wire::to_string(&repaired.history[2..]).expect("serialisable");
    let expected = r#"[{"parts":[{"tool_name":"t","content":"ok","tool_call_id":"a","tool_kind":null,"metadata":null,"timestamp":"2025-01-02T00:00:00Z","outcome":"success","retry":null,"part_kind":"tool-return"},{"tool_name":"t","content":"The tool call was interrupted before a result was produced.","tool_call_id":"b","tool_kind":null,"metadata":{"pydantic_ai_synthesized_tool_return":true},"timestamp":"2025-01-02T00:00:00Z","outcome":"interrupted","retry":null,"part_kind":"tool-return"},{"content":"next","timestamp":"2025-01-02T00:00:00Z","part_kind":"user-prompt"}],"timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}]"#;
    assert_eq!(third, expected);

    let repaired = repair(history("R[user] S[call a]"), &options(true));
    let appended = msgflow_wire::to_string(&repaired.history[2..]).expect("serialisable");
    assert!(appended.ends_with(r#""part_kind":"tool-return"}],"timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}]"#), "{appended}");
}

#[test]
fn default_content_is_pydantic_ais_text_and_any_other_is_kept() {
    let repaired = repair(history("R[user] S[call a]"), &RepairOptions::default());
    let text = msgflow_wire::to_string(&repaired.history).expect("serialisable");
    assert!(
        text.contains(r#""content":"The tool call was interrupted before a result was produced.""#),
        "{text}"
    );
    let aborted = RepairOptions {
        content: "[Aborted by user]".to_owned(),
        ..RepairOptions::default()
    };
    let repaired = repair(history("R[user] S[call a]"), &aborted);
    let text = msgflow_wire::to_string(&repaired.history).expect("serialisable");
    assert!(text.contains(r#""content":"[Aborted by user]""#), "{text}");
}

#[test]
fn merged_request_fields_follow_pydantic_ai_and_the_rest_is_reported() {
    let mut input = history(r#"S[call a] R[user "x"] R[ret a]"#);
    if let Some(ModelMessage::Request(first)) = input.get_mut(1) {
        first.instructions = Field::Present("I".to_owned());
        first.run_id = Field::Present("r1".to_owned());
        first.conversation_id = Field::Present("c1".to_owned());
        first.metadata = Field::Present(RawJson::from_json_text(r#"{"app":1,"__pydantic_ai__":{"k":1}}"#).unwrap());
    }
    if let Some(ModelMessage::Request(second)) = input.get_mut(2) {
        second.run_id = Field::Present("r2".to_owned());
        second.metadata = Field::Present(RawJson::from_json_text(r#"{"__pydantic_ai__":{"j":2}}"#).unwrap());
    }
    let repaired = repair(input, &options(true));
    let merged = msgflow_wire::to_string(&repaired.history[1..]).expect("serialisable");
    assert!(
        merged.ends_with(r#""timestamp":null,"instructions":"I","kind":"request","run_id":null,"conversation_id":null,"metadata":{"__pydantic_ai__":{"k":1,"j":2}},"state":"complete"}]"#),
        "{merged}"
    );
    assert_eq!(notation(&repaired.history), r#"S[call a] R[ret a, user "x"]"#);
    let merge = repaired.report.changes.iter().find_map(|change| match change {
        Change::MergedRequests {
            output_message,
            input_messages,
            originals,
        } => Some((*output_message, input_messages.clone(), originals.clone())),
        _ => None,
    });
    let (output_message, input_messages, originals) = merge.expect("a merge is reported");
    assert_eq!((output_message, input_messages), (1, vec![1, 2]));
    assert_eq!(originals[0]["run_id"], "r1");
    assert_eq!(originals[0]["conversation_id"], "c1");
    assert_eq!(originals[0]["metadata"]["app"], 1);
    assert_eq!(originals[1]["run_id"], "r2");
    assert!(originals[0].get("parts").is_none());
    let moved = repaired.report.changes.iter().any(|change| {
        matches!(
            change,
            Change::MovedPart {
                input_message: 2,
                input_part: 0,
                output_message: 1,
                output_part: 0,
                ..
            }
        )
    });
    assert!(moved, "{}", repaired.report);
}

#[test]
fn report_lists_removals_with_the_whole_part() {
    let repaired = repair(history("R[ret z] S[call z] R[ret z]"), &options(true));
    let changes = &repaired.report.changes;
    assert!(
        matches!(&changes[0], Change::RemovedOrphanReturn { input_message: 0, input_part: 0, tool_call_id: Some(id), part } if id == "z" && **part == common::ret("z"))
    );
    assert!(matches!(
        &changes[1],
        Change::RemovedEmptyRequest { input_message: 0, .. }
    ));
    assert_eq!(changes.len(), 2, "{}", repaired.report);
    let json = serde_json::to_value(&repaired.report).expect("serialisable");
    assert_eq!(json["changes"][0]["change"], "removed-orphan-return");
    assert_eq!(json["changes"][0]["part"]["part_kind"], "tool-return");
    assert!(repaired.report.to_string().lines().count() == 2);
}

#[test]
fn trailing_emptied_request_is_kept() {
    let repaired = repair(history("R[user] S[text] R[ret q]"), &options(true));
    assert_eq!(notation(&repaired.history), "R[user] S[text] R[]");
}

#[test]
fn parts_between_results_move_after_them() {
    let repaired = repair(
        history(r#"S[call a, call b] R[ret a, user "x", ret b, user "y"]"#),
        &options(true),
    );
    assert_eq!(
        notation(&repaired.history),
        r#"S[call a, call b] R[ret a, ret b, user "x", user "y"]"#
    );
    let moved: Vec<_> = repaired
        .report
        .changes
        .iter()
        .filter(|c| matches!(c, Change::MovedPart { .. }))
        .collect();
    assert_eq!(moved.len(), 1, "{}", repaired.report);
}

#[test]
fn legacy_retry_prompts_answer_calls_and_feedback_does_not() {
    assert_repairs("S[call a] R[retry a]", "S[call a] R[retry a]", true);
    assert_repairs("S[call a] R[feedback]", "S[call a] R[synth a, feedback]", true);
    assert_repairs("R[retry q] S[text]", "S[text]", true);
}
