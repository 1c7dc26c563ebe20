//! Property tests: on arbitrary histories of requests and responses with calls, results,
//! legacy retries, feedback, user prompts and reused ids, repair leaves no dangling call or
//! orphan, is idempotent, and loses nothing.

mod common;

use std::collections::HashMap;

use msgflow_sanitize::{check, normalisations, repair, Change, MoveReason, RepairOptions, ViolationKind};
use msgflow_wire::{
    Field, ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart, NativeToolCallPart, RawJson,
    RetryPromptPart, TextPart, ToolAvailabilityDeltaPart,
};
use proptest::prelude::*;

const IDS: &[&str] = &["a", "b", "c", "d"];

fn id() -> impl Strategy<Value = String> {
    prop::sample::select(IDS).prop_map(str::to_owned)
}

fn request_part() -> impl Strategy<Value = ModelRequestPart> {
    prop_oneof![
        3 => id().prop_map(|id| common::ret(&id)),
        1 => id().prop_map(|id| common::retry(&id)),
        2 => "[a-z]{1,3}".prop_map(|text| common::user(&text)),
        1 => Just(common::feedback()),
        1 => Just({
            let mut retry = RetryPromptPart::new(RawJson::string("tool-less"));
            retry.timestamp = common::time();
            ModelRequestPart::RetryPrompt(retry)
        }),
        1 => Just(ModelRequestPart::ToolAvailabilityDelta(ToolAvailabilityDeltaPart::new())),
    ]
}

fn response_part() -> impl Strategy<Value = ModelResponsePart> {
    prop_oneof![
        4 => id().prop_map(|id| common::call(&id)),
        1 => Just(ModelResponsePart::Text(TextPart::new("t".to_owned()))),
        1 => id().prop_map(|id| {
            let mut part = NativeToolCallPart::new("web_search".to_owned());
            part.tool_call_id = Field::Present(id);
            ModelResponsePart::BuiltinToolCall(part)
        }),
    ]
}

fn message() -> impl Strategy<Value = ModelMessage> {
    let instructions = prop_oneof![
        Just(Field::Null),
        Just(Field::Present(String::new())),
        Just(Field::Present("I".to_owned())),
        Just(Field::Present("J".to_owned()))
    ];
    let metadata = prop_oneof![
        Just(Field::Null),
        Just(Field::Present(RawJson::from_json_text(r#"{"app":1}"#).unwrap())),
        Just(Field::Present(
            RawJson::from_json_text(r#"{"__pydantic_ai__":{"k":1},"app":2}"#).unwrap()
        )),
    ];
    let request = (
        prop::collection::vec(request_part(), 0..4),
        instructions,
        metadata,
        any::<bool>(),
    )
        .prop_map(|(parts, instructions, metadata, with_run_id)| {
            let mut request = ModelRequest::new(parts);
            request.instructions = instructions;
            request.metadata = metadata;
            if with_run_id {
                request.run_id = Field::Present("run-1".to_owned());
                request.timestamp = common::time();
            }
            ModelMessage::from(request)
        });
    let response = (prop::collection::vec(response_part(), 0..4), any::<bool>()).prop_map(|(parts, synthetic)| {
        let mut response = ModelResponse::new(parts);
        response.timestamp = common::time();
        if !synthetic {
            response.model_name = Field::Present("m".to_owned());
        }
        ModelMessage::from(response)
    });
    prop_oneof![request, response]
}

fn history() -> impl Strategy<Value = Vec<ModelMessage>> {
    prop::collection::vec(message(), 0..12)
}

/// Every part of a history, serialised, counted.
fn part_counts<'a>(parts: impl Iterator<Item = String> + 'a) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for part in parts {
        *counts.entry(part).or_insert(0) += 1;
    }
    counts
}

fn all_parts(history: &[ModelMessage]) -> Vec<String> {
    history
        .iter()
        .flat_map(|message| match message {
            ModelMessage::Request(request) => request
                .parts
                .iter()
                .map(|part| serde_json::to_string(part).unwrap())
                .collect::<Vec<_>>(),
            ModelMessage::Response(response) => response
                .parts
                .iter()
                .map(|part| serde_json::to_string(part).unwrap())
                .collect::<Vec<_>>(),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn repaired_histories_have_no_dangling_calls_or_orphans(input in history()) {
        let repaired = repair(input, &RepairOptions::default());
        let left: Vec<_> = check(&repaired.history)
            .into_iter()
            .filter(|v| matches!(v.kind, ViolationKind::DanglingCall | ViolationKind::OrphanReturn))
            .collect();
        prop_assert!(left.is_empty(), "{:?}", left);
    }

    #[test]
    fn repair_is_idempotent(input in history(), repair_last_response in any::<bool>()) {
        let options = RepairOptions { repair_last_response, ..RepairOptions::default() };
        let once = repair(input, &options);
        let twice = repair(once.history.clone(), &options);
        prop_assert_eq!(&twice.history, &once.history);
        prop_assert!(twice.report.is_empty(), "{}", twice.report);
    }

    #[test]
    fn repair_loses_nothing(input in history(), repair_last_response in any::<bool>()) {
        let options = RepairOptions { repair_last_response, ..RepairOptions::default() };
        let mut expected = part_counts(all_parts(&input).into_iter());
        let repaired = repair(input, &options);
        for removed in repaired.report.removed_parts() {
            let key = serde_json::to_string(removed).unwrap();
            let count = expected.get_mut(&key);
            prop_assert!(count.as_ref().is_some_and(|c| **c > 0), "removed part not in the input: {}", key);
            if let Some(count) = count { *count -= 1; }
        }
        // Synthesized parts, located by the report, are the only additions.
        let mut output = repaired.history.clone();
        let mut synthesized = 0;
        let mut positions: Vec<(usize, usize)> = repaired.report.changes.iter().filter_map(|change| match change {
            Change::InsertedSyntheticReturn { output_message, output_part, .. } => Some((*output_message, *output_part)),
            _ => None,
        }).collect();
        positions.sort_unstable_by(|a, b| b.cmp(a));
        for (message, part) in positions {
            let Some(ModelMessage::Request(request)) = output.get_mut(message) else {
                prop_assert!(false, "synthesized result not in a request");
                unreachable!()
            };
            let removed = request.parts.remove(part);
            let is_synthesized = matches!(&removed, ModelRequestPart::ToolReturn(ret) if ret.metadata.get().is_some_and(|m| m.get().contains("pydantic_ai_synthesized_tool_return")));
            prop_assert!(is_synthesized, "the report points at a part that is not synthesized");
            synthesized += 1;
        }
        let actual = part_counts(all_parts(&output).into_iter());
        expected.retain(|_, count| *count > 0);
        prop_assert_eq!(actual, expected);
        let _ = synthesized;
    }

    /// `check` and `repair` agree on what a history needs: with no violation, repair's only
    /// changes are the merges `normalisations` notes, and the tool results a merge puts first.
    #[test]
    fn a_history_check_finds_nothing_in_is_changed_only_by_the_noted_merges(input in history()) {
        // About a third of the generated histories are clean; the others have nothing to agree on.
        if !check(&input).is_empty() {
            return Ok(());
        }
        let noted: Vec<Vec<usize>> = normalisations(&input).into_iter().map(|note| note.message_indices).collect();
        let changes = repair(input, &RepairOptions::default()).report.changes;
        let merged: Vec<Vec<usize>> = changes.iter().filter_map(|change| match change {
            Change::MergedRequests { input_messages, .. } | Change::MergedResponses { input_messages, .. } => Some(input_messages.clone()),
            _ => None,
        }).collect();
        for change in &changes {
            let part_of_a_merge = match change {
                Change::MergedRequests { .. } | Change::MergedResponses { .. } => true,
                // pydantic-ai's results-first sort of a merged request.
                Change::MovedPart { input_message, reason: MoveReason::ResultsFirst, .. } => {
                    merged.iter().any(|messages| messages.contains(input_message))
                }
                _ => false,
            };
            prop_assert!(part_of_a_merge, "not noted: {}", change);
        }
        prop_assert_eq!(merged, noted);
    }

    #[test]
    fn moved_parts_are_where_the_report_says(input in history()) {
        let repaired = repair(input.clone(), &RepairOptions::default());
        for change in &repaired.report.changes {
            if let Change::MovedPart { input_message, input_part, output_message, output_part, .. } = change {
                let ModelMessage::Request(before) = &input[*input_message] else { panic!("moved part not from a request") };
                let ModelMessage::Request(after) = &repaired.history[*output_message] else { panic!("moved part not in a request") };
                prop_assert_eq!(&before.parts[*input_part], &after.parts[*output_part]);
            }
        }
    }
}

#[test]
fn calls_without_an_id_are_closed_and_the_repair_is_stable() {
    let mut input = common::history("R[user] S[call a] R[user]");
    if let Some(ModelMessage::Response(response)) = input.get_mut(1) {
        if let Some(ModelResponsePart::ToolCall(call)) = response.parts.get_mut(0) {
            call.tool_call_id = Field::Absent;
        }
    }
    let violations = check(&input);
    assert_eq!(violations[0].kind, ViolationKind::DanglingCall);
    assert!(violations[0].detail.contains("no tool_call_id"));
    let once = repair(input, &RepairOptions::default());
    assert_eq!(
        common::notation(&once.history),
        "R[user] S[call msgflow_call_1_0] R[synth msgflow_call_1_0, user]"
    );
    assert!(
        matches!(&once.report.changes[0], Change::AssignedToolCallId { tool_call_id, .. } if tool_call_id == "msgflow_call_1_0")
    );
    assert!(check(&once.history).is_empty());
    let twice = repair(once.history.clone(), &RepairOptions::default());
    assert_eq!(twice.history, once.history);
    assert!(twice.report.is_empty());
}

/// The shapes a quadratic implementation would choke on, at 100,000 messages. Their time per
/// message is measured by `cargo bench -p msgflow-sanitize` (group `sanitize-hostile`), not here.
#[test]
fn a_hundred_thousand_messages_of_merge_chains_and_shadowed_ids_repair() {
    let repaired = repair(common::merge_chains_and_shadowed_ids(25_000), &RepairOptions::default());
    assert_eq!(repaired.history.len(), 50_000);
    assert!(check(&repaired.history)
        .iter()
        .all(|v| !matches!(v.kind, ViolationKind::DanglingCall | ViolationKind::OrphanReturn)));

    let repaired = repair(common::long_merge_chain(100_000), &RepairOptions::default());
    assert_eq!(repaired.history.len(), 2);
    let merged = match &repaired.history[1] {
        ModelMessage::Request(request) => request.parts.len(),
        ModelMessage::Response(_) => 0,
    };
    assert_eq!(merged, 200_000, "every part of the chain in one request");
}
