//! Every provider rule has a fixture (`tests/fixtures/providers/<rule>/`): `rejected.json`, a
//! history the provider's API rejects, and `fixed.json`, its minimal fix. The check of the
//! rejected one and its provider repair are pinned by insta; the fix passes the check.
//!
//! A rejected history too large to commit (`gemini/inline-data-too-large`: over 100 MB of inline
//! data; OpenAI's 50 MB of images and 32 MB of files; Anthropic's 32 MB request) is built here
//! from its `fixed.json`, by growing its first binary item past the limit ([`GROWN`]).

use std::path::{Path, PathBuf};

use msgflow_providers::rules::rules;
use msgflow_providers::{check, repair, Provider};
use msgflow_sanitize::RepairOptions;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/providers")
}

fn load(path: &Path) -> Vec<msgflow_wire::ModelMessage> {
    msgflow_wire::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The fixtures whose rejected history is built from `fixed.json`: the directory and the size in
/// bytes its first binary item grows to (zero bytes after the item's own).
const GROWN: &[(&str, usize)] = &[
    // 104,857,600 characters of base64 hold 78,643,200 bytes: one more passes Gemini's limit.
    ("gemini-inline-data-too-large", 78_643_201),
    // A `data:image/png;base64,` URI of 52,428,802 characters: past OpenAI's 50 MB of images.
    ("openai-chat-images-too-large", 39_321_584),
    ("openai-responses-images-too-large", 39_321_584),
    // A PDF whose base64 alone is Anthropic's 32 MB: the rest of the request passes it.
    ("anthropic-request-too-large", 25_165_824),
    // One byte past OpenAI's 32 MB of files.
    ("openai-chat-files-too-large", 33_554_433),
    ("openai-responses-files-too-large", 33_554_433),
];

/// A fixture's rejected history: `rejected.json`, or for a [`GROWN`] fixture its `fixed.json` with
/// the first binary item grown.
fn load_rejected(dir: &Path) -> Vec<msgflow_wire::ModelMessage> {
    let name = dir.file_name().unwrap().to_string_lossy();
    let Some(&(_, size)) = GROWN.iter().find(|(grown, _)| *grown == name) else {
        return load(&dir.join("rejected.json"));
    };
    let mut history = load(&dir.join("fixed.json"));
    let binary = history
        .iter_mut()
        .find_map(|message| match message {
            msgflow_wire::ModelMessage::Request(request) => request.parts.iter_mut().find_map(|part| match part {
                msgflow_wire::ModelRequestPart::UserPrompt(user) => match &mut user.content {
                    msgflow_wire::UserPromptContent::Items(items) => items.iter_mut().find_map(|item| match item {
                        msgflow_wire::UserContent::Binary(binary) => Some(binary),
                        _ => None,
                    }),
                    msgflow_wire::UserPromptContent::Text(_) => None,
                },
                _ => None,
            }),
            msgflow_wire::ModelMessage::Response(_) => None,
        })
        .expect("a grown fixture has a binary item");
    let mut bytes = binary.data.decode().unwrap();
    bytes.resize(size, 0);
    binary.data = msgflow_wire::Base64Data::from_bytes(&bytes);
    history
}

/// `anthropic/final-assistant-trailing-whitespace` -> the fixture directory's name.
fn fixture_dir(rule_id: &str) -> PathBuf {
    fixtures().join(rule_id.replace('/', "-"))
}

#[test]
fn every_rule_has_its_fixture_and_is_found_there() {
    for provider in Provider::ALL {
        for rule in rules(provider) {
            let dir = fixture_dir(rule.id);
            let grown = GROWN.iter().any(|(name, _)| dir.ends_with(name));
            assert!(
                dir.join("rejected.json").is_file() || grown,
                "{}: no fixture in {}",
                rule.id,
                dir.display()
            );
            let violations = check(&load_rejected(&dir), provider).unwrap();
            assert!(
                violations.iter().any(|violation| violation.rule.id == rule.id),
                "{}: the rejected fixture does not break it: {violations:?}",
                rule.id
            );
            let fixed = check(&load(&dir.join("fixed.json")), provider).unwrap();
            assert!(
                fixed.is_empty(),
                "{}: the fixed fixture still breaks {fixed:?}",
                rule.id
            );
        }
    }
}

#[test]
fn rule_reports_are_pinned() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let provider = Provider::ALL
            .into_iter()
            .find(|provider| name.starts_with(&format!("{provider}-")))
            .unwrap();
        let rejected = load_rejected(&dir);
        let violations = check(&rejected, provider).unwrap();
        insta::assert_json_snapshot!(format!("check-{name}"), violations);
        let repaired = repair(rejected, provider, &RepairOptions::default()).unwrap();
        let report = serde_json::json!({
            "changes": repaired.report.changes.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "provider_changes": repaired.provider_changes,
            "unfixed": repaired.unfixed,
        });
        // A `serde_json::Value` is printed by serde_json itself (insta's serializer would spell its
        // numbers as serde_json's private arbitrary-precision maps).
        insta::assert_snapshot!(format!("repair-{name}"), serde_json::to_string_pretty(&report).unwrap());
        // Whatever repair leaves is only what its table says it cannot fix.
        for unfixed in &repaired.unfixed {
            assert!(!unfixed.violation.rule.fixable || unfixed.violation.rule.id == "anthropic/whitespace-only-text");
        }
        assert!(
            check(&repaired.history, provider)
                .unwrap()
                .iter()
                .all(|v| !v.rule.fixable),
            "{name}"
        );
    }
}

#[test]
fn violations_name_the_history_message_and_part_and_quote_the_error() {
    let history = load(&fixture_dir("anthropic/tool-use-without-result").join("rejected.json"));
    let violations = check(&history, Provider::Anthropic).unwrap();
    assert_eq!(violations.len(), 1);
    assert_eq!((violations[0].message, violations[0].part), (1, Some(0)));
    assert_eq!(
        violations[0].provider_error,
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01. \
         Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    );
}

/// A history of one call with `id` answered in the next request, and `extra` more messages.
fn call_and_result(id: &str, extra: serde_json::Value) -> Vec<msgflow_wire::ModelMessage> {
    let mut value = serde_json::json!([
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "go"}]},
        {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "t", "args": {}, "tool_call_id": id}]},
        {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "t", "content": "ok", "tool_call_id": id}]}
    ]);
    value
        .as_array_mut()
        .unwrap()
        .extend(extra.as_array().unwrap().iter().cloned());
    msgflow_wire::from_str(&value.to_string()).unwrap()
}

#[test]
fn a_renamed_call_keeps_its_results_and_takes_no_id_in_use() {
    let long = "fc_0f0e50a1476a6c35006912c58dc9f8819192c25864eb16f07f";
    // `call.1` would become `call_1`, which another call already has: the hashed id instead.
    let history = call_and_result(
        "call.1",
        serde_json::json!([
            {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "t", "args": {}, "tool_call_id": "call_1"}]},
            {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "t", "content": "ok", "tool_call_id": "call_1"}]}
        ]),
    );
    let repaired = repair(history, Provider::Anthropic, &RepairOptions::default()).unwrap();
    let change = &repaired.provider_changes[0];
    let new_id = change.replaced_by.clone().unwrap();
    assert!(new_id.starts_with("call_") && new_id != "call_1", "{new_id}");
    let json = msgflow_wire::to_string(&repaired.history).unwrap();
    assert_eq!(
        json.matches(&format!("\"{new_id}\"")).count(),
        2,
        "the call and its result: {json}"
    );
    assert!(repaired.unfixed.is_empty() && check(&repaired.history, Provider::Anthropic).unwrap().is_empty());
    // The same for a Responses id sent to Chat Completions.
    let repaired = repair(
        call_and_result(long, serde_json::json!([])),
        Provider::OpenAiChat,
        &RepairOptions::default(),
    )
    .unwrap();
    assert_eq!(repaired.provider_changes[0].removed, long);
    assert!(check(&repaired.history, Provider::OpenAiChat).unwrap().is_empty());
}

#[test]
fn a_call_id_another_call_shares_is_not_renamed() {
    let long = "fc_0f0e50a1476a6c35006912c58dc9f8819192c25864eb16f07f";
    let again = serde_json::json!([
        {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "t", "args": {}, "tool_call_id": long}]},
        {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "t", "content": "ok", "tool_call_id": long}]}
    ]);
    let repaired = repair(
        call_and_result(long, again),
        Provider::OpenAiChat,
        &RepairOptions::default(),
    )
    .unwrap();
    assert!(repaired.provider_changes.is_empty());
    assert_eq!(repaired.unfixed.len(), 2);
    assert!(repaired.unfixed[0].reason.contains("another call has the same id"));
}

/// A user prompt of `count` PNG images whose headers declare `side` x `side` pixels.
fn images_prompt(count: usize, side: u32) -> Vec<msgflow_wire::ModelMessage> {
    let mut png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
    png.extend(side.to_be_bytes());
    png.extend(side.to_be_bytes());
    png.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    let data = msgflow_wire::Base64Data::from_bytes(&png);
    let image = serde_json::json!({"kind": "binary", "data": data.as_str(), "media_type": "image/png"});
    let history = serde_json::json!([{"kind": "request", "parts": [
        {"part_kind": "user-prompt", "content": vec![image; count], "timestamp": "2026-03-14T09:00:00Z"}]}]);
    msgflow_wire::from_str(&history.to_string()).unwrap()
}

#[test]
fn more_than_twenty_images_lower_anthropic_dimension_limit_to_2000() {
    let ids = |history: &[msgflow_wire::ModelMessage]| -> Vec<String> {
        check(history, Provider::Anthropic)
            .unwrap()
            .into_iter()
            .map(|violation| violation.provider_error)
            .collect()
    };
    assert!(ids(&images_prompt(20, 2001)).is_empty());
    let many = ids(&images_prompt(21, 2001));
    assert_eq!(many.len(), 21);
    assert_eq!(
        many[20],
        "messages.0.content.20.image.source.base64.data: At least one of the image dimensions exceed max \
         allowed size for many-image requests: 2000 pixels"
    );
    assert!(ids(&images_prompt(21, 2000)).is_empty());
    assert_eq!(ids(&images_prompt(1, 8001)).len(), 1);
}

#[test]
fn images_a_tool_returns_are_checked_at_their_request_path() {
    let mut png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
    png.extend(9000u32.to_be_bytes());
    png.extend(10u32.to_be_bytes());
    let data = msgflow_wire::Base64Data::from_bytes(&png);
    let image = serde_json::json!({"kind": "binary", "data": data.as_str(), "media_type": "image/png"});
    let stamp = "2026-03-14T09:00:00Z";
    let history = serde_json::json!([
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Take a screenshot", "timestamp": stamp}]},
        {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "screenshot", "tool_call_id": "toolu_01", "args": {}}]},
        {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "screenshot", "tool_call_id": "toolu_01",
            "content": ["Here it is", image], "timestamp": stamp}]}
    ]);
    let history = msgflow_wire::from_str(&history.to_string()).unwrap();
    let violations = check(&history, Provider::Anthropic).unwrap();
    assert_eq!(violations.len(), 1);
    assert_eq!((violations[0].message, violations[0].part), (2, Some(0)));
    assert_eq!(
        violations[0].provider_error,
        "messages.2.content.0.content.1.image.source.base64.data: At least one of the image dimensions exceed max \
         allowed size: 8000 pixels"
    );
}
