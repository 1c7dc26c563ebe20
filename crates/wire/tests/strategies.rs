//! The generated strategies (`msgflow_wire::arbitrary`) reach the corners the differential
//! checks against pydantic-ai rely on, and the pydantic flavour keeps pydantic-ai's rules.

use std::collections::{BTreeMap, BTreeSet};

use msgflow_wire::arbitrary::{history, user_content, Flavour};
use msgflow_wire::*;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::Value;

/// How many histories a coverage test draws (deterministically).
const DRAWN: usize = 400;

/// The JSON of `DRAWN` histories of a flavour and of `DRAWN` user content items (which a history
/// holds only a few of), from a deterministic runner.
fn drawn(flavour: Flavour) -> Vec<Value> {
    let mut runner = TestRunner::deterministic();
    let histories = history(flavour);
    let items = user_content(flavour);
    let mut out = Vec::new();
    for _ in 0..DRAWN {
        let messages = histories.new_tree(&mut runner).expect("a history").current();
        out.push(serde_json::from_str(&non_finite_as_null(&to_vec(&messages).expect("writable"))).expect("JSON"));
        let item = items.new_tree(&mut runner).expect("an item").current();
        let text = serde_json::to_vec(&item).expect("writable");
        out.push(serde_json::from_str(&non_finite_as_null(&text)).expect("JSON"));
    }
    out
}

/// msgflow's output with the `NaN` / `Infinity` literals it carries (odd numbers of the any
/// flavour, which pydantic-ai reads as floats) as `null`, so that serde_json reads it: these tests
/// look at keys and strings only.
fn non_finite_as_null(output: &[u8]) -> String {
    let text = std::str::from_utf8(output).expect("UTF-8");
    let mut out = String::with_capacity(text.len());
    let (mut rest, mut in_string, mut escaped) = (text, false, false);
    while let Some(c) = rest.chars().next() {
        if !in_string {
            if let Some(literal) = ["-Infinity", "Infinity", "NaN"]
                .into_iter()
                .find(|l| rest.starts_with(l))
            {
                out.push_str("null");
                rest = &rest[literal.len()..];
                continue;
            }
        }
        match c {
            '"' if !escaped => in_string = !in_string,
            _ => {}
        }
        escaped = in_string && c == '\\' && !escaped;
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Every string value found under each key, anywhere in the values.
fn strings_by_key(values: &[Value]) -> BTreeMap<String, BTreeSet<String>> {
    fn walk(value: &Value, out: &mut BTreeMap<String, BTreeSet<String>>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    if let Value::String(text) = child {
                        out.entry(key.clone()).or_default().insert(text.clone());
                    }
                    walk(child, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            _ => {}
        }
    }
    let mut out = BTreeMap::new();
    values.iter().for_each(|value| walk(value, &mut out));
    out
}

/// Every number's text, anywhere in the values.
fn numbers(values: &[Value]) -> Vec<String> {
    fn walk(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Number(number) => out.push(number.to_string()),
            Value::Object(map) => map.values().for_each(|child| walk(child, out)),
            Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    values.iter().for_each(|value| walk(value, &mut out));
    out
}

fn missing(seen: &BTreeMap<String, BTreeSet<String>>, key: &str, expected: &[&str]) -> Vec<String> {
    let found = seen.get(key).cloned().unwrap_or_default();
    expected
        .iter()
        .filter(|value| !found.contains(**value))
        .map(|value| format!("{key}={value}"))
        .collect()
}

/// The union tags and enum literals of the schema, by the key that holds them.
fn literals() -> Vec<(&'static str, Vec<&'static str>)> {
    let request_tags: Vec<&str> = ModelRequestPart::KNOWN_TAGS
        .iter()
        .copied()
        .filter(|tag| *tag != "retry-prompt")
        .collect();
    let part_tags: Vec<&str> = request_tags
        .iter()
        .chain(ModelResponsePart::KNOWN_TAGS)
        .copied()
        .chain(InstructionBlock::KNOWN_TAGS.iter().copied())
        .collect();
    let kinds: Vec<&str> = ModelMessage::KNOWN_TAGS
        .iter()
        .chain(UserContent::KNOWN_TAGS)
        .chain(CitationSource::KNOWN_TAGS)
        .chain(CitationAnchor::KNOWN_TAGS)
        .copied()
        .collect();
    let outcomes: Vec<&str> = ToolReturnOutcome::KNOWN
        .iter()
        .chain(ModelRequestAttemptOutcome::KNOWN)
        .copied()
        .collect();
    let states: Vec<&str> = ModelRequestState::KNOWN
        .iter()
        .chain(ModelResponseState::KNOWN)
        .copied()
        .collect();
    vec![
        ("part_kind", part_tags),
        ("kind", kinds),
        ("finish_reason", FinishReason::KNOWN.to_vec()),
        ("state", states),
        ("outcome", outcomes),
        ("scope", SystemPromptScope::KNOWN.to_vec()),
        ("ttl", CachePointTtl::KNOWN.to_vec()),
        ("speaker", Speaker::KNOWN.to_vec()),
        ("granularity", SpeechTimestampGranularity::KNOWN.to_vec()),
        ("on_change", InstructionChangePolicy::KNOWN.to_vec()),
        ("provider_name", UploadedFileProviderName::KNOWN.to_vec()),
        ("thinking", ThinkingEffort::KNOWN.to_vec()),
        ("cause", RetryCause::KNOWN.to_vec()),
    ]
}

#[test]
fn pydantic_flavour_writes_every_tag_and_literal_and_nothing_else() {
    let values = drawn(Flavour::Pydantic);
    let seen = strings_by_key(&values);
    let mut gaps = Vec::new();
    for (key, expected) in literals() {
        gaps.extend(missing(&seen, key, &expected));
        // Tags and enum values the schema does not list never appear (only `provider_name` is
        // also free text elsewhere).
        if key != "provider_name" {
            let extra: Vec<&String> = seen
                .get(key)
                .into_iter()
                .flatten()
                .filter(|value| !expected.contains(&value.as_str()))
                .collect();
            assert!(
                extra.is_empty(),
                "unlisted {key} values in the pydantic flavour: {extra:?}"
            );
        }
    }
    assert!(
        gaps.is_empty(),
        "never generated in {DRAWN} pydantic histories: {gaps:?}"
    );
}

#[test]
fn any_flavour_adds_unknown_tags_values_legacy_parts_and_keys() {
    let values = drawn(Flavour::Any);
    let seen = strings_by_key(&values);
    let mut gaps = Vec::new();
    for (key, expected) in literals() {
        gaps.extend(missing(&seen, key, &expected));
    }
    assert!(
        gaps.is_empty(),
        "never generated in {DRAWN} any-flavour histories: {gaps:?}"
    );
    let has = |key: &str, prefix: &str| {
        seen.get(key)
            .is_some_and(|found| found.iter().any(|v| v.starts_with(prefix)))
    };
    assert!(has("part_kind", "retry-prompt"), "no legacy retry-prompt part");
    assert!(has("part_kind", "hologram_"), "no part of an unknown kind");
    assert!(
        has("kind", "hologram_"),
        "no content item or citation member of an unknown kind"
    );
    assert!(has("finish_reason", "future_"), "no unknown enum value");
    let text = values.iter().map(Value::to_string).collect::<String>();
    assert!(text.contains("\"x_future_"), "no unknown extra key");
}

#[test]
fn integers_reach_beyond_64_bits_in_both_signs() {
    let numbers = numbers(&drawn(Flavour::Pydantic));
    let huge = |negative: bool| {
        numbers.iter().any(|text| {
            let digits = text.strip_prefix('-').unwrap_or(text);
            text.starts_with('-') == negative
                && digits.bytes().all(|byte| byte.is_ascii_digit())
                && digits.parse::<u64>().is_err()
        })
    };
    assert!(huge(false), "no integer above u64::MAX");
    assert!(huge(true), "no integer below -u64::MAX");
    for boundary in ["9223372036854775808", "-9223372036854775809", "18446744073709551616"] {
        assert!(
            numbers.iter().any(|text| text == boundary),
            "never generated {boundary}"
        );
    }
}

#[test]
fn timestamps_come_in_every_spelling_pydantic_ai_writes() {
    let seen = strings_by_key(&drawn(Flavour::Pydantic));
    let stamps = seen.get("timestamp").cloned().unwrap_or_default();
    let has = |what: &str, test: &dyn Fn(&str) -> bool| {
        assert!(stamps.iter().any(|stamp| test(stamp)), "no timestamp {what}");
    };
    has("in UTC (`Z`)", &|stamp| stamp.ends_with('Z'));
    has("with an offset", &|stamp| {
        stamp.len() > 6 && matches!(stamp.as_bytes()[stamp.len() - 6], b'+' | b'-')
    });
    has("without an offset", &|stamp| {
        !stamp.ends_with('Z') && stamp.len() == "2025-01-02T03:04:05".len()
    });
    has("with microseconds", &|stamp| stamp.contains('.'));
}

/// The part and message rules pydantic-ai's validators enforce, on one generated history.
fn check_pydantic_rules(messages: &[ModelMessage]) -> Result<(), TestCaseError> {
    for message in messages {
        match message {
            ModelMessage::Request(request) => {
                prop_assert!(!request.parts.is_empty());
                for part in &request.parts {
                    match part {
                        ModelRequestPart::Speech(speech) => prop_assert_eq!(&speech.speaker, &Speaker::User),
                        ModelRequestPart::Compaction(compaction) => {
                            prop_assert!(compaction.id.is_null() && compaction.provider_name.is_null());
                            prop_assert!(compaction.provider_details.is_null());
                        }
                        ModelRequestPart::ToolReturn(part) => {
                            let structured = part.content.is_object() || part.content.is_array();
                            prop_assert_eq!(part.content_file_digests.is_present(), structured);
                            prop_assert!(part.tool_call_id.is_present());
                        }
                        ModelRequestPart::RetryPrompt(_) | ModelRequestPart::Unknown(_) => {
                            return Err(TestCaseError::fail(format!(
                                "a part pydantic-ai does not write: {part:?}"
                            )))
                        }
                        ModelRequestPart::UserPrompt(user) => {
                            if let UserPromptContent::Items(items) = &user.content {
                                for item in items {
                                    check_file_item(item)?;
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            ModelMessage::Response(response) => {
                prop_assert!(!response.parts.is_empty());
                for part in &response.parts {
                    match part {
                        ModelResponsePart::Speech(speech) => prop_assert_eq!(&speech.speaker, &Speaker::Assistant),
                        ModelResponsePart::Text(text) => {
                            for citation in text.citations.get().into_iter().flatten() {
                                prop_assert!(!citation.sources.is_empty());
                                if let Some(anchor) = citation.anchor.get() {
                                    let (start, end) = match anchor {
                                        CitationAnchor::Content(anchor) => (&anchor.start, &anchor.end),
                                        CitationAnchor::Marker(anchor) => (&anchor.start, &anchor.end),
                                        CitationAnchor::Unknown(_) => {
                                            return Err(TestCaseError::fail("an unknown anchor"))
                                        }
                                    };
                                    let (start, end) = (start.to_i64(), end.to_i64());
                                    prop_assert!(matches!((start, end), (Some(s), Some(e)) if 0 <= s && s < e));
                                }
                            }
                        }
                        ModelResponsePart::ToolCall(call) => prop_assert!(call.tool_call_id.is_present()),
                        ModelResponsePart::Unknown(_) => return Err(TestCaseError::fail("an unknown part")),
                        _ => {}
                    }
                }
            }
        }
    }
    Ok(())
}

/// File items carry the `media_type` and `identifier` pydantic-ai would otherwise compute.
fn check_file_item(item: &UserContent) -> Result<(), TestCaseError> {
    let (media_type, identifier) = match item {
        UserContent::ImageUrl(item) => (item.media_type.is_present(), item.identifier.is_present()),
        UserContent::AudioUrl(item) => (item.media_type.is_present(), item.identifier.is_present()),
        UserContent::VideoUrl(item) => (item.media_type.is_present(), item.identifier.is_present()),
        UserContent::DocumentUrl(item) => (item.media_type.is_present(), item.identifier.is_present()),
        UserContent::UploadedFile(item) => (item.media_type.is_present(), item.identifier.is_present()),
        UserContent::Binary(item) => (true, item.identifier.is_present()),
        _ => (true, true),
    };
    prop_assert!(
        media_type && identifier,
        "a file item without its computed fields: {:?}",
        item
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn pydantic_flavour_keeps_pydantic_ais_rules(messages in history(Flavour::Pydantic)) {
        check_pydantic_rules(&messages)?;
    }
}

#[test]
fn tool_returns_answer_earlier_calls() {
    let mut runner = TestRunner::deterministic();
    let strategy = history(Flavour::Pydantic);
    let mut answered = 0;
    for _ in 0..DRAWN {
        let messages = strategy.new_tree(&mut runner).expect("a history").current();
        // Calls not yet answered, in order.
        let mut open: Vec<String> = Vec::new();
        for message in &messages {
            match message {
                ModelMessage::Response(response) => {
                    for part in &response.parts {
                        if let ModelResponsePart::ToolCall(call) = part {
                            open.extend(call.tool_call_id.get().cloned());
                        }
                    }
                }
                ModelMessage::Request(request) => {
                    for part in &request.parts {
                        let ModelRequestPart::ToolReturn(tool_return) = part else {
                            continue;
                        };
                        if open.is_empty() {
                            continue;
                        }
                        let oldest = open.remove(0);
                        assert_eq!(
                            tool_return.tool_call_id.get(),
                            Some(&oldest),
                            "a tool return does not answer the oldest open call in {messages:?}"
                        );
                        answered += 1;
                    }
                }
            }
        }
    }
    assert!(answered > 0, "no tool return answers a call in {DRAWN} histories");
}

#[test]
fn any_flavour_timestamps_include_spellings_pydantic_ai_normalises() {
    let seen = strings_by_key(&drawn(Flavour::Any));
    let stamps = seen.get("timestamp").cloned().unwrap_or_default();
    for spelling in [
        "2025-01-02 03:04:05",
        "2025-01-02",
        "2025-01-02t03:04:05z",
        "2025-12-31T23:59:60Z",
        "2025-01-02T03:04:05.123Z",
        "2025-01-02T03:04:05.1234567+01:00",
    ] {
        assert!(stamps.contains(spelling), "never generated the timestamp {spelling:?}");
    }
}
