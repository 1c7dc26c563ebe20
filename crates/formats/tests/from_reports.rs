//! `from` is never silent: what of its input the history it makes does not hold is reported
//! (dropped or changed) at its path or a path above it.
//!
//! * Every data value: a value is in the history when the history holds it anywhere, as a string,
//!   a number or a boolean (a JSON text's values counted as well, a base64 text in either
//!   alphabet, padded or not, and a data URI by its base64). The values that name a UI shape
//!   rather than hold data (a `role`, a `type`, a tool part's `state`) and timestamps are not
//!   checked, nor what pydantic-ai reads into another form the other tests pin (`ui_inputs.rs`,
//!   `ui_parts.rs`): a JavaScript byte array read as its bytes, the text pydantic-ai renders for
//!   retry feedback, a native tool call's id `pyd_ai_builtin|<provider>|<id>` (its provider and id
//!   are checked), a URL's media type pydantic-ai infers from it. On the real files of
//!   `../shared/formats` in every format, the client inputs of `tests/data` and the UI messages
//!   msgflow writes, as pydantic-ai's `dump_messages` does, for seeded generated histories.
//! * Every UI message's `id`, counted (two messages of one id are two ids), and a Vercel message's
//!   application `metadata`: a history message holds one id, and pydantic-ai's builder puts
//!   consecutive UI messages of one side into one history message (`MessagesBuilder.add` extends
//!   the last one), each writing its id (`set_ui_message_id`) and metadata
//!   (`apply_message_metadata`) over the earlier one's. On generated runs of messages and the
//!   cases where pydantic-ai loses an id.

use std::collections::{HashMap, HashSet};

use msgflow_formats::{convert_with, ConvertOptions, Converted, Format, LossKind, Output, Report};
use msgflow_wire::arbitrary::{history, Flavour};
use proptest::prelude::*;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Value};

mod common;

/// Keys whose values name a shape rather than hold data (`providerExecuted`, OTel's `builtin`: a
/// native tool's part; `approved`, Anthropic's `is_error`: what the outcome says; `modality`: what
/// the media type says; `user_prompt_start`: where a request's next prompt begins), and `timestamp`s, which pydantic-ai writes again as it holds them (`tests/vercel_ui.rs`
/// pins what each spelling loads as).
const SKIPPED_KEYS: &[&str] = &[
    "role",
    "type",
    "state",
    "activityType",
    "activity_type",
    "providerExecuted",
    "approved",
    "user_prompt_start",
    "builtin",
    "modality",
    "is_error",
    "timestamp",
];

/// Seeded generated histories written as each UI format.
const GENERATED: usize = 1000;

/// The values a history holds, each under a tag of its kind.
#[derive(Default)]
struct Held(HashSet<String>);

impl Held {
    fn of(value: &Value) -> Self {
        let mut held = Held::default();
        held.add(value);
        held
    }

    fn add(&mut self, value: &Value) {
        match value {
            Value::Object(object) => object.values().for_each(|item| self.add(item)),
            Value::Array(items) => items.iter().for_each(|item| self.add(item)),
            Value::String(text) => {
                if let Some(parsed) = json_text(text) {
                    self.add(&parsed);
                }
                self.0.insert(format!("base64:{}", base64_normalized(text)));
                self.0.insert(format!("string:{text}"));
            }
            Value::Number(number) => {
                self.0.insert(number_tag(number));
            }
            Value::Bool(flag) => {
                self.0.insert(format!("bool:{flag}"));
            }
            Value::Null => {}
        }
    }

    fn has_string(&self, text: &str) -> bool {
        self.0.contains(&format!("string:{text}"))
    }

    fn has_base64(&self, text: &str) -> bool {
        self.0.contains(&format!("base64:{}", base64_normalized(text)))
    }
}

fn number_tag(number: &serde_json::Number) -> String {
    format!("number:{}", number.as_f64().unwrap_or_default())
}

/// A JSON object's or array's text, read.
fn json_text(text: &str) -> Option<Value> {
    let trimmed = text.trim_start();
    if !trimmed.starts_with(['{', '[']) {
        return None;
    }
    serde_json::from_str::<Value>(text).ok()
}

/// Base64 in the standard alphabet, without padding.
fn base64_normalized(text: &str) -> String {
    text.trim_end_matches('=').replace('-', "+").replace('_', "/")
}

/// `path` and one key further, as msgflow's reports write it: `.key`, or `["key"]` for a key
/// that is not a plain name.
fn key_path(path: &str, key: &str) -> String {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", serde_json::to_string(key).expect("a key is JSON"))
    }
}

/// Whether a dropped or changed value is reported at `path` or above it.
fn reported(path: &str, report: &Report) -> bool {
    report.losses.iter().any(|loss| {
        loss.kind != LossKind::Invented
            && (path == loss.path
                || (path.starts_with(&loss.path) && matches!(path.as_bytes().get(loss.path.len()), Some(b'.' | b'['))))
    })
}

/// A JavaScript byte array (a `Uint8Array` as `JSON.stringify` writes it, a Node `Buffer`).
fn is_byte_array(value: &Value) -> bool {
    match value {
        Value::Object(object) if object.get("type").is_some_and(|kind| kind == "Buffer") => true,
        Value::Object(object) => {
            !object.is_empty() && object.keys().all(|key| key.bytes().all(|byte| byte.is_ascii_digit()))
        }
        _ => false,
    }
}

/// Whether a UI part or message claims retry feedback, whose text pydantic-ai renders from it.
fn claims_retry_feedback(object: &serde_json::Map<String, Value>) -> bool {
    let vercel = object
        .get("providerMetadata")
        .and_then(|metadata| metadata.get("pydantic_ai"))
        .and_then(|ours| ours.get("retry_feedback"))
        .is_some();
    let ag_ui = ["encryptedValue", "encrypted_value"].iter().any(|key| {
        object
            .get(*key)
            .and_then(Value::as_str)
            .is_some_and(|claim| claim.contains("retry_feedback"))
    });
    vercel || ag_ui
}

/// The data values under `value` (at `path`) that are neither in the history nor reported.
fn unaccounted(value: &Value, path: &str, held: &Held, report: &Report, out: &mut Vec<String>) {
    if reported(path, report) {
        return;
    }
    match value {
        Value::Object(object) => {
            let rendered = claims_retry_feedback(object);
            for (key, item) in object {
                // A URL's media type is kept where it is not the one pydantic-ai infers from the
                // URL, and an OpenAI audio's `format` is its media type (`otel.rs`, `openai_chat_messy.rs`).
                let derived_media_type = (key == "mime_type"
                    && (object.contains_key("uri") || object.contains_key("url")))
                    || (key == "format" && path.ends_with(".input_audio"));
                let skipped = SKIPPED_KEYS.contains(&key.as_str())
                    || derived_media_type
                    || (rendered && matches!(key.as_str(), "text" | "content"))
                    || (key == "data" && is_byte_array(item));
                if !skipped {
                    unaccounted(item, &key_path(path, key), held, report, out);
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                unaccounted(item, &format!("{path}[{index}]"), held, report, out);
            }
        }
        Value::String(text) if text.is_empty() || held.has_string(text) => {}
        Value::String(text) => {
            let kept = if let Some(parsed) = json_text(text) {
                let mut inner = Vec::new();
                unaccounted(&parsed, path, held, report, &mut inner);
                inner.is_empty()
            } else if let Some(builtin) = text.strip_prefix("pyd_ai_builtin|") {
                // `parse_builtin_tool_call_id`: the provider, then the id (which may hold `|`).
                builtin
                    .split_once('|')
                    .is_some_and(|(provider, id)| held.has_string(provider) && held.has_string(id))
            } else if let Some((_, data)) = text.split_once(";base64,").filter(|_| text.starts_with("data:")) {
                held.has_base64(data)
            } else {
                held.has_base64(text)
            };
            if !kept {
                out.push(format!("{path}: {text:?}"));
            }
        }
        Value::Number(number) => {
            if !held.0.contains(&number_tag(number)) {
                out.push(format!("{path}: {number}"));
            }
        }
        Value::Bool(flag) => {
            if !held.0.contains(&format!("bool:{flag}")) {
                out.push(format!("{path}: {flag}"));
            }
        }
        Value::Null => {}
    }
}

/// What of the UI `input` `from` neither keeps nor reports (nothing where it refuses the input).
fn check(format: Format, input: &Value) -> Vec<String> {
    check_with(format, input, &ConvertOptions::default())
}

fn check_with(format: Format, input: &Value, options: &ConvertOptions) -> Vec<String> {
    check_text(format, &input.to_string(), options)
}

/// [`check`] of an input's text: one JSON document, or JSON Lines (each line a document, whose
/// losses the report locates by its index).
fn check_text(format: Format, text: &str, options: &ConvertOptions) -> Vec<String> {
    let Ok(converted) = convert_with(text, format, Format::PydanticAi, options) else {
        return Vec::new();
    };
    let Output::Histories(histories) = &converted.output else {
        panic!("a history is the output of `from`");
    };
    let documents: Vec<Value> = match serde_json::from_str(text) {
        Ok(document) => vec![document],
        Err(_) => text
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| serde_json::from_str(line).expect("a JSON line"))
            .collect(),
    };
    // OTel's runs are read across its documents: every history counts for each.
    let held = Held::of(&serde_json::to_value(histories).expect("histories are JSON"));
    let mut out = Vec::new();
    for (index, document) in documents.iter().enumerate() {
        let report = Report {
            losses: converted
                .report
                .losses
                .iter()
                .filter(|loss| loss.document == index)
                .cloned()
                .collect(),
        };
        let before = out.len();
        unaccounted(document, "$", &held, &report, &mut out);
        if documents.len() > 1 {
            for problem in &mut out[before..] {
                *problem = format!("line {}: {problem}", index + 1);
            }
        }
    }
    out
}

#[test]
fn every_value_of_the_real_files_is_kept_or_reported() {
    let mut failures = Vec::new();
    let mut read = 0;
    let folders = [
        ("vercel-ui", Format::VercelUi),
        ("ag-ui", Format::AgUi),
        ("openai-chat", Format::OpenAiChat),
        ("anthropic", Format::Anthropic),
        ("otel", Format::Otel),
    ];
    for (folder, format) in folders {
        let Some(dir) = common::shared_formats_folder(folder) else {
            continue;
        };
        for entry in std::fs::read_dir(&dir).expect("the corpus folder reads") {
            let path = entry.expect("an entry").path();
            if path
                .extension()
                .is_none_or(|extension| extension != "json" && extension != "jsonl")
            {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a file");
            read += 1;
            for problem in check_text(format, &text, &ConvertOptions::default()) {
                failures.push(format!("{}: {problem}", path.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(read == 0 || read >= 20, "only {read} real UI files were read");
}

#[test]
fn every_value_of_the_client_inputs_and_part_cases_is_kept_or_reported() {
    let mut failures = Vec::new();
    for (format, text) in [
        (Format::AgUi, include_str!("data/ag_ui_inputs.json")),
        (Format::VercelUi, include_str!("data/vercel_ui_inputs.json")),
    ] {
        let cases: Vec<Value> = serde_json::from_str(text).expect("the cases are JSON");
        for case in cases {
            for problem in check(format, &case["messages"]) {
                failures.push(format!("{}: {problem}", case["name"]));
            }
        }
    }
    let cases: Vec<Value> = serde_json::from_str(include_str!("data/ui_parts.json")).expect("the cases are JSON");
    for case in cases {
        for (key, format) in [("vercel", Format::VercelUi), ("agui", Format::AgUi)] {
            for problem in check(format, &case[key]) {
                failures.push(format!("ui_parts {} ({key}): {problem}", case["name"]));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn every_value_of_pydantic_ai_s_dumps_is_kept_or_reported() {
    let seed = [73u8; 32];
    let mut runner = TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let strategy = history(Flavour::Pydantic);
    let with = |lossless: bool, vercel_sdk_version: u8| ConvertOptions {
        lossless,
        vercel_sdk_version,
        ..ConvertOptions::default()
    };
    // Not the lossless forms: their ids and records are what `to` writes again from the history
    // (the history they restore is the one written, `tests/vercel_ui.rs`, `tests/ag_ui.rs`). Nor
    // the provider formats and OTel, whose texts render thinking and retry feedback that
    // `from` splits back into parts (`conformance --only formats` and `--only otel` compare
    // `from(to(h))` with `h` through pydantic-ai).
    let forms = [
        (Format::VercelUi, with(false, 5)),
        (Format::VercelUi, with(false, 6)),
        (Format::AgUi, with(false, 5)),
    ];
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in 0..GENERATED {
        let text = msgflow_wire::to_string(&strategy.new_tree(&mut runner).expect("a history").current())
            .expect("a generated history serialises");
        for (format, options) in &forms {
            let Ok(converted) = convert_with(&text, Format::PydanticAi, *format, options) else {
                continue;
            };
            let Output::Documents(documents) = converted.output else {
                panic!("UI messages are the output of `to`");
            };
            checked += 1;
            for problem in check_with(*format, &documents[0], options) {
                failures.push(format!("case {case} ({format:?} {options:?}): {problem}"));
            }
        }
    }
    assert!(checked > GENERATED, "only {checked} dumps");
    failures.truncate(40);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// `from` of UI messages the format reads.
fn from(format: Format, input: &Value) -> Converted {
    convert_with(
        &input.to_string(),
        format,
        Format::PydanticAi,
        &ConvertOptions::default(),
    )
    .expect("the input loads")
}

/// The UI messages of an input (an array, or a body holding one) and their path.
fn messages_of(input: &Value) -> Option<(&[Value], &'static str)> {
    match input {
        Value::Array(messages) => Some((messages, "$")),
        Value::Object(body) => match body.get("messages") {
            Some(Value::Array(messages)) => Some((messages, "$.messages")),
            _ => None,
        },
        _ => None,
    }
}

fn dropped_paths(report: &Report) -> Vec<&str> {
    report.paths(LossKind::Dropped)
}

/// Every top-level UI message's string `id` is in the history's metadata or reported dropped at
/// `<message>.id` (or with its whole message), and (Vercel) every key of its application metadata is in the metadata of a
/// history message with its value or reported dropped at `<message>.metadata.<key>`. Returns
/// what does not hold.
fn ids_unaccounted(format: Format, input: &Value) -> Vec<String> {
    let Ok(converted) = convert_with(
        &input.to_string(),
        format,
        Format::PydanticAi,
        &ConvertOptions::default(),
    ) else {
        return Vec::new();
    };
    let Output::Histories(histories) = &converted.output else {
        panic!("a history is the output of `from`");
    };
    let history = serde_json::to_value(&histories[0]).expect("a history is JSON");
    let dropped = dropped_paths(&converted.report);
    let mut kept_ids: HashMap<String, usize> = HashMap::new();
    let mut kept_metadata: Vec<(String, Value)> = Vec::new();
    for message in history.as_array().into_iter().flatten() {
        let Some(metadata) = message.get("metadata").and_then(Value::as_object) else {
            continue;
        };
        for (key, value) in metadata {
            match (key.as_str(), value.get("ui_message_id").and_then(Value::as_str)) {
                ("__pydantic_ai__", Some(id)) => *kept_ids.entry(id.to_owned()).or_default() += 1,
                _ => kept_metadata.push((key.clone(), value.clone())),
            }
        }
    }
    let Some((messages, path)) = messages_of(input) else {
        return Vec::new();
    };
    let mut unaccounted = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let at = format!("{path}[{index}]");
        if let Some(id) = message.get("id").and_then(Value::as_str) {
            let id_path = format!("{at}.id");
            let kept = kept_ids.get_mut(id).filter(|count| **count > 0);
            let reported = dropped.contains(&id_path.as_str()) || dropped.contains(&at.as_str());
            match (reported, kept) {
                (true, _) => {}
                (false, Some(count)) => *count -= 1,
                (false, None) => unaccounted.push(format!("{id_path} ({id:?}) is neither kept nor reported")),
            }
        }
        if format != Format::VercelUi {
            continue;
        }
        for (key, value) in message.get("metadata").and_then(Value::as_object).into_iter().flatten() {
            if key == "pydantic_ai" || key == "__pydantic_ai__" {
                continue;
            }
            let metadata_path = key_path(&format!("{at}.metadata"), key);
            let kept = kept_metadata.iter().any(|(kept, held)| kept == key && held == value);
            if !kept && !dropped.contains(&metadata_path.as_str()) {
                unaccounted.push(format!("{metadata_path} is neither kept nor reported"));
            }
        }
    }
    unaccounted
}

#[test]
fn a_copilotkit_run_reports_the_tool_messages_id_its_next_user_message_replaces() {
    // The tool result and the user's next prompt go into one request, which keeps `user-2`.
    let input = json!([
        {"id": "user-1", "role": "user", "content": "Can you help me?"},
        {"id": "assistant-1", "role": "assistant", "content": "Yes",
         "toolCalls": [{"id": "tool-call-1", "type": "function",
                        "function": {"name": "helpFunction", "arguments": "{\"query\":\"help\"}"}}]},
        {"id": "tool-1", "role": "tool", "content": "Help result", "toolCallId": "tool-call-1"},
        {"id": "user-2", "role": "user", "content": "Thank you!"},
    ]);
    let converted = from(Format::AgUi, &input);
    assert_eq!(dropped_paths(&converted.report), ["$[2].id"]);
}

#[test]
fn an_empty_ag_ui_answer_and_the_answer_replacing_it_report_their_ids() {
    // pydantic-ai drops the empty answer's response for the next one's content, and the content
    // lands in a response its `last_modified` does not find: neither id is kept.
    let input = json!([
        {"id": "u", "role": "user", "content": "q"},
        {"id": "a1", "role": "assistant", "content": ""},
        {"id": "a2", "role": "assistant", "content": "x"},
    ]);
    let converted = from(Format::AgUi, &input);
    assert_eq!(dropped_paths(&converted.report), ["$[1].id", "$[2].id"]);
    let whats: Vec<&str> = converted.report.losses.iter().map(|loss| loss.what.as_str()).collect();
    assert!(
        whats.iter().any(|what| what.contains("empty AG-UI assistant answer")),
        "{whats:?}"
    );
    assert!(
        whats.iter().any(|what| what.contains("replaces the empty one")),
        "{whats:?}"
    );
}

#[test]
fn merged_vercel_messages_report_the_metadata_and_timestamp_the_later_one_replaces() {
    let input = json!([
        {"id": "u1", "role": "user", "metadata": {"a": 1, "pydantic_ai": {"timestamp": "2024-01-01T00:00:00Z"}},
         "parts": [{"type": "text", "text": "a"}]},
        {"id": "u2", "role": "user", "metadata": {"b": 2, "pydantic_ai": {"timestamp": "2024-01-02T00:00:00Z"}},
         "parts": [{"type": "text", "text": "b"}]},
    ]);
    let converted = from(Format::VercelUi, &input);
    assert_eq!(
        dropped_paths(&converted.report),
        ["$[0].id", "$[0].metadata.a", "$[0].metadata.pydantic_ai.timestamp"]
    );
    // A later message without metadata or a timestamp leaves the earlier one's.
    let input = json!([
        {"id": "u1", "role": "user", "metadata": {"a": 1, "pydantic_ai": {"timestamp": "2024-01-01T00:00:00Z"}},
         "parts": [{"type": "text", "text": "a"}]},
        {"role": "user", "parts": [{"type": "text", "text": "b"}]},
    ]);
    let converted = from(Format::VercelUi, &input);
    assert!(dropped_paths(&converted.report).is_empty(), "{:?}", converted.report);
}

/// A run of UI messages, each of a role and with an id or not (and a Vercel message with or
/// without application metadata), as either format writes it.
fn ui_run(vercel: bool) -> impl Strategy<Value = Value> {
    let message = (0..3usize, any::<bool>(), any::<bool>(), 0..1000u32);
    proptest::collection::vec(message, 1..8).prop_map(move |specs| {
        let messages = specs
            .into_iter()
            .enumerate()
            .map(|(index, (role, with_id, with_metadata, seed))| {
                let role = ["user", "assistant", "system"][role];
                let text = format!("text {index}");
                let mut message = if vercel {
                    json!({"role": role, "parts": [{"type": "text", "text": text}]})
                } else {
                    json!({"role": role, "content": text})
                };
                if with_id {
                    message["id"] = json!(format!("m{index}"));
                }
                if vercel && with_metadata {
                    message["metadata"] = json!({format!("k{}", seed % 3): seed});
                }
                message
            })
            .collect();
        Value::Array(messages)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_generated_vercel_messages_id_and_metadata_is_kept_or_reported(input in ui_run(true)) {
        let problems = ids_unaccounted(Format::VercelUi, &input);
        prop_assert!(problems.is_empty(), "{problems:?} in {input}");
    }

    #[test]
    fn every_generated_ag_ui_messages_id_is_kept_or_reported(input in ui_run(false)) {
        let problems = ids_unaccounted(Format::AgUi, &input);
        prop_assert!(problems.is_empty(), "{problems:?} in {input}");
    }
}

/// One input per kind of value pydantic-ai's loaders leave out, and the path `from` reports it
/// dropped at (each was dropped in silence before).
#[test]
fn what_the_loaders_leave_out_is_reported_where_it_is() {
    let call = |extra: Value| {
        let mut call = json!({"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}"}});
        for (key, value) in extra.as_object().unwrap() {
            call[key] = value.clone();
        }
        call
    };
    let cases: Vec<(Format, Value, &str)> = vec![
        // AG-UI: keys its models do not have, claims it does not read, an `error` of its own.
        (
            Format::AgUi,
            json!([{"id": "a", "role": "assistant", "toolCalls": [call(json!({"lang": "en"}))]}]),
            "$[0].toolCalls[0].lang",
        ),
        (
            Format::AgUi,
            json!([{"id": "a", "role": "assistant",
                    "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}", "x": 1}}]}]),
            "$[0].toolCalls[0].function.x",
        ),
        (
            Format::AgUi,
            json!([{"id": "a", "role": "assistant", "toolCalls": [call(json!({"encryptedValue": "opaque"}))]}]),
            "$[0].toolCalls[0].encryptedValue",
        ),
        (
            Format::AgUi,
            json!([{"id": "a", "role": "assistant",
                    "toolCalls": [call(json!({"encryptedValue": "{\"pydantic_ai\": {\"tool_kind\": \"acme\"}}"}))]}]),
            "$[0].toolCalls[0].encryptedValue",
        ),
        (
            Format::AgUi,
            json!([{"id": "a", "role": "assistant", "toolCalls": [call(json!({}))]},
                   {"id": "t", "role": "tool", "toolCallId": "c1", "content": "result", "error": "boom"}]),
            "$[1].error",
        ),
        (
            Format::AgUi,
            json!([{"id": "u", "role": "user", "encryptedValue": "opaque", "content": "hi"}]),
            "$[0].encryptedValue",
        ),
        (
            Format::AgUi,
            json!([{"id": "u", "role": "user", "content": [
                {"type": "image", "source": {"type": "url", "value": "https://x.test/a.png", "detail": "high"}}]}]),
            "$[0].content[0].source.detail",
        ),
        (
            Format::AgUi,
            json!([{"id": "r", "role": "reasoning", "content": "hmm", "encryptedValue": "{\"signature\": \"s\", \"x\": 1}"}]),
            "$[0].encryptedValue",
        ),
        (
            Format::AgUi,
            json!([{"id": "u", "role": "user", "content": "hi"},
                   {"id": "d", "role": "activity", "activityType": "pydantic_ai_tool_availability_delta",
                    "content": {"added": ["ok_tool", "not a tool name"]}}]),
            "$[1].content.added[1]",
        ),
        // Vercel: provider metadata it does not read, a state's keys, payloads, citations, files.
        (
            Format::VercelUi,
            json!([{"id": "a", "role": "assistant", "parts": [
                {"type": "text", "text": "hi", "providerMetadata": {"openai": {"itemId": "x"}}}]}]),
            "$[0].parts[0].providerMetadata.openai",
        ),
        (
            Format::VercelUi,
            json!([{"id": "a", "role": "assistant", "parts": [
                {"type": "text", "text": "hi", "providerMetadata": {"pydantic_ai": {"customer": "A"}}}]}]),
            "$[0].parts[0].providerMetadata.pydantic_ai.customer",
        ),
        (
            Format::VercelUi,
            json!([{"id": "a", "role": "assistant", "parts": [
                {"type": "tool-t", "toolCallId": "c1", "state": "output-available", "input": {}, "output": "r",
                 "errorText": "boom"}]}]),
            "$[0].parts[0].errorText",
        ),
        (
            Format::VercelUi,
            json!([{"id": "a", "role": "assistant", "parts": [
                {"type": "tool-t", "toolCallId": "c1", "state": "output-available", "input": {}, "output": "r",
                 "callProviderMetadata": {"pydantic_ai": {"outcome": "retried"}}}]}]),
            "$[0].parts[0].callProviderMetadata.pydantic_ai.outcome",
        ),
        (
            Format::VercelUi,
            json!([{"id": "u", "role": "user", "parts": [
                {"type": "text", "text": "retry", "providerMetadata": {"pydantic_ai": {"retry_feedback": {"content": 1}}}}]}]),
            "$[0].parts[0].providerMetadata.pydantic_ai.retry_feedback",
        ),
        (
            Format::VercelUi,
            json!([{"id": "u", "role": "user", "parts": [
                {"type": "file", "mediaType": "image/jpeg", "url": "data:image/png;base64,aGk="}]}]),
            "$[0].parts[0].mediaType",
        ),
        (
            Format::VercelUi,
            json!([{"id": "u", "role": "user", "parts": [
                {"type": "data-model-settings-delta", "data": {"settings": {"thinking": "low", "temperature": 1}}}]}]),
            "$[0].parts[0].data.settings.temperature",
        ),
        (
            Format::VercelUi,
            json!([{"id": "a", "role": "assistant", "parts": [
                {"type": "text", "text": "Paris", "providerMetadata": {"pydantic_ai": {"citations": [
                    {"sources": [{"kind": "web", "url": "https://x.test", "rank": 1}], "anchor": null}]}}}]}]),
            "$[0].parts[0].providerMetadata.pydantic_ai.citations[0].sources[0].rank",
        ),
        // OTel: a part's keys its type does not have.
        (
            Format::Otel,
            json!([{"role": "user", "parts": [{"type": "text", "content": "hi", "lang": "en"}]}]),
            "$[0].parts[0].lang",
        ),
    ];
    for (format, input, path) in cases {
        let converted = from(format, &input);
        let dropped = dropped_paths(&converted.report);
        assert!(dropped.contains(&path), "{format:?} {input}: {path} not in {dropped:?}");
    }
}
