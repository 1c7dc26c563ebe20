//! `from anthropic` and `from openai-chat` on the requests of a run that defers tools (part of
//! the formats check).
//!
//! msgflow's own export declares no tools, so the round trip the rest of the check runs never
//! meets what pydantic-ai writes when a request withholds tool schemas: on a model that reveals
//! tools by reference (`claude-opus-4-8`), a local tool search's result as `tool_reference`
//! blocks and the tools a `ToolAvailabilityDeltaPart` reveals as `tool_addition` blocks of a
//! `system` entry (`AnthropicModel._map_message`); on one that does not (`claude-sonnet-4-5`),
//! each delta projected onto a search exchange of its own (`prepare_messages`); on OpenAI Chat, a
//! system message naming the tools. Here pydantic-ai writes them itself: seeded histories of tool
//! searches, their results and deltas (some naming the search call that revealed their tools),
//! naming declared, deferred and unknown tools, are mapped by the oracle with those tools declared
//! (`providers_oracle.py`, a case's `tools`) on each of those models. msgflow reads each request back; pydantic-ai must load that history and map it, with
//! the same tools, to the very request read.

use std::path::Path;

use anyhow::{bail, Context, Result};
use msgflow_formats::openai_chat::ShapeError;
use msgflow_formats::{anthropic, openai_chat, Report};
use msgflow_wire::ModelMessage;
use proptest::prelude::RngExt;
use proptest::test_runner::TestRng;
use serde_json::{json, Value};

use super::{framed, without_keys};
use crate::conformance_providers::{json_equal, run_oracle};

/// Seeded histories per run (each mapped on both models).
const HISTORY_COUNT: usize = 600;
/// A format's `from`.
type From = fn(&Value, usize, &mut Report) -> Result<Vec<ModelMessage>, ShapeError>;

/// The oracle's models (`providers_oracle.py --models`), each with the `from` of its requests: one
/// that reveals deferred tools by reference, one that does not, and OpenAI Chat (a delta as a
/// system message naming the tools).
const MODELS: [(&str, From); 3] = [
    ("anthropic+tool-references", anthropic::from_value),
    ("anthropic", anthropic::from_value),
    ("openai-chat", openai_chat::from_value),
];
/// Declared without `defer_loading` (Anthropic refuses a request whose tools are all deferred).
const VISIBLE: [&str; 2] = ["lookup", "search_tools"];
/// Declared with `defer_loading=True`.
const DEFERRED: [&str; 4] = ["alpha", "beta", "gamma", "get-weather_v2"];
/// Named by searches and deltas but declared by no request: pydantic-ai leaves their references out.
const UNKNOWN: &str = "ghost";
/// A fixed timestamp for every part and response that has one.
const TIMESTAMP: &str = "2026-01-02T03:04:05Z";
/// Mismatches shown in detail.
const SHOWN: usize = 8;

/// What one model's request of a history holds of the blocks this check is about.
#[derive(Default)]
struct Counts {
    references: usize,
    additions: usize,
}

/// Runs the check with the histories drawn from `rng`.
pub(super) fn run(python: &Path, dir: &Path, rng: &mut TestRng) -> Result<()> {
    let tools = json!({"visible": VISIBLE, "deferred": DEFERRED});
    let histories: Vec<Value> = (0..HISTORY_COUNT).map(|_| history(rng)).collect();
    let first = oracle_requests(python, dir, "first", &histories, &tools)?;

    // msgflow reads each model's request; the oracle maps what it read with the same tools.
    let mut read_back = Vec::new();
    let mut sent = Vec::new();
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    for (index, answer) in first.iter().enumerate() {
        for (model, from) in MODELS {
            let name = format!("deferred-{index} on {model}");
            let request = match (answer[model].get("request"), answer[model].get("refused")) {
                (Some(request), _) => without_keys(request.clone(), &["cache_control"]),
                (None, refused) => {
                    failures.push(format!(
                        "{name}: pydantic-ai refuses the generated history: {}",
                        refused.or(answer[model].get("invalid")).unwrap_or(&Value::Null)
                    ));
                    continue;
                }
            };
            count_blocks(&request, &mut counts);
            match from(&request, 0, &mut Report::default()) {
                Ok(history) => {
                    read_back.push(serde_json::from_str::<Value>(&msgflow_wire::to_string(&history)?)?);
                    sent.push((name, model, request));
                }
                Err(err) => failures.push(format!("{name}: msgflow cannot read pydantic-ai's request: {err:?}")),
            }
        }
    }
    let second = oracle_requests(python, dir, "second", &read_back, &tools)?;
    let (mut equal, mut loaded) = (0usize, 0usize);
    for ((name, model, request), answer) in sent.iter().zip(&second) {
        let answer = &answer[*model];
        match answer.get("request") {
            // Framed text is read back as the text it is (as in the rest of the check): it must load.
            Some(_) if framed(request) => loaded += 1,
            Some(again) if json_equal(&without_keys(again.clone(), &["cache_control"]), request) => equal += 1,
            Some(again) => failures.push(format!(
                "{name}: pydantic-ai maps what msgflow read to another request\n  read:        {request}\n  pydantic-ai: {again}"
            )),
            None => failures.push(format!("{name}: pydantic-ai does not take what msgflow read: {answer}")),
        }
    }
    println!(
        "deferred tools: {HISTORY_COUNT} histories on {} models: {equal} requests read back and mapped by \
         pydantic-ai to the very request, {loaded} framed ones loaded ({} tool_reference blocks, {} tool_addition blocks \
         among them)",
        MODELS.len(),
        counts.references,
        counts.additions
    );
    if !failures.is_empty() {
        for failure in failures.iter().take(SHOWN) {
            println!("FAIL {failure}");
        }
        bail!(
            "deferred tools: {} of {} requests differ",
            failures.len(),
            HISTORY_COUNT * MODELS.len()
        );
    }
    // The check is about these blocks: a run that writes too few of them checked nothing.
    if counts.references < HISTORY_COUNT / 4 || counts.additions < HISTORY_COUNT / 4 {
        bail!("deferred tools: too few tool_reference or tool_addition blocks written");
    }
    Ok(())
}

/// The oracle's requests of `histories`, each with `tools` declared, on [`MODELS`].
fn oracle_requests(python: &Path, dir: &Path, pass: &str, histories: &[Value], tools: &Value) -> Result<Vec<Value>> {
    let cases_path = dir.join(format!("cases-deferred-tools-{pass}.jsonl"));
    let mut lines = String::new();
    for (index, history) in histories.iter().enumerate() {
        lines.push_str(&serde_json::to_string(
            &json!({"name": format!("deferred-{index}"), "history": history, "tools": tools}),
        )?);
        lines.push('\n');
    }
    std::fs::write(&cases_path, lines).with_context(|| format!("writing {}", cases_path.display()))?;
    let out_path = dir.join(format!("oracle-deferred-tools-{pass}.jsonl"));
    let models: Vec<&str> = MODELS.iter().map(|(model, _)| *model).collect();
    let answers = run_oracle(python, &cases_path, &out_path, &models)?;
    if answers.len() != histories.len() {
        bail!("the oracle answered {} of {} cases", answers.len(), histories.len());
    }
    Ok(answers)
}

fn count_blocks(request: &Value, counts: &mut Counts) {
    match request {
        Value::Object(object) => {
            match object.get("type").and_then(Value::as_str) {
                Some("tool_reference") if object.contains_key("tool_name") => counts.references += 1,
                Some("tool_addition") => counts.additions += 1,
                _ => {}
            }
            object.values().for_each(|value| count_blocks(value, counts));
        }
        Value::Array(items) => items.iter().for_each(|value| count_blocks(value, counts)),
        _ => {}
    }
}

/// A history of user turns, tool searches (typed `ToolSearchCallPart`/`ToolSearchReturnPart`, as
/// pydantic-ai's `search_tools` writes them), calls of the declared tools and deltas revealing
/// tools, in the order a run makes them.
fn history(rng: &mut TestRng) -> Value {
    let mut messages = Vec::new();
    let mut request = Vec::new();
    if rng.random_bool(0.3) {
        request.push(json!({"part_kind": "system-prompt", "content": "You find tools.", "timestamp": TIMESTAMP}));
    }
    request.push(user_prompt(rng));
    let turns = rng.random_range(1..=4);
    // The searches of the last response: a delta may name the call that revealed its tools.
    let mut searches: Vec<String> = Vec::new();
    for turn in 0..turns {
        maybe_delta(rng, &mut request, &searches);
        messages.push(json!({"kind": "request", "parts": std::mem::take(&mut request)}));
        let (response, calls) = response(rng, turn);
        messages.push(response);
        searches = calls
            .iter()
            .filter(|(_, is_search)| *is_search)
            .map(|(id, _)| id.clone())
            .collect();
        for (call_id, is_search) in calls {
            request.push(if is_search {
                search_return(rng, &call_id)
            } else {
                json!({"part_kind": "tool-return", "tool_name": "lookup", "content": "found",
                       "tool_call_id": call_id, "timestamp": TIMESTAMP})
            });
        }
        if request.is_empty() || rng.random_bool(0.3) {
            request.push(user_prompt(rng));
        }
    }
    maybe_delta(rng, &mut request, &searches);
    if rng.random_bool(0.8) {
        messages.push(json!({"kind": "request", "parts": request}));
    }
    Value::Array(messages)
}

fn user_prompt(rng: &mut TestRng) -> Value {
    let text = ["find a tool", "use what you found", "go on"][rng.random_range(0..3)];
    json!({"part_kind": "user-prompt", "content": text, "timestamp": TIMESTAMP})
}

/// A response of a text and/or calls; its calls as `(tool_call_id, whether a search)`.
fn response(rng: &mut TestRng, turn: usize) -> (Value, Vec<(String, bool)>) {
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    if rng.random_bool(0.4) {
        parts.push(json!({"part_kind": "text", "content": "Searching."}));
    }
    for call in 0..rng.random_range(0..=2) {
        let call_id = format!("call-{turn}-{call}");
        if rng.random_bool(0.7) {
            let query = ["alpha", "b", "anything"][rng.random_range(0..3)];
            parts.push(
                json!({"part_kind": "tool-call", "tool_name": "search_tools", "args": {"queries": [query]},
                              "tool_call_id": call_id, "tool_kind": "tool-search"}),
            );
            calls.push((call_id, true));
        } else {
            parts.push(
                json!({"part_kind": "tool-call", "tool_name": "lookup", "args": {"key": turn},
                              "tool_call_id": call_id}),
            );
            calls.push((call_id, false));
        }
    }
    if parts.is_empty() {
        parts.push(json!({"part_kind": "text", "content": "Done."}));
    }
    let response = json!({"kind": "response", "parts": parts, "model_name": "claude-opus-4-8",
                          "timestamp": TIMESTAMP});
    (response, calls)
}

/// A search's return: some tools found (declared or not), none, or none with its message.
fn search_return(rng: &mut TestRng, call_id: &str) -> Value {
    let found: Vec<Value> = names(rng).into_iter().map(|name| json!({"name": name})).collect();
    let mut content = json!({"discovered_tools": found});
    if found_nothing(&content) && rng.random_bool(0.5) {
        content["message"] = json!("No tools matched.");
    }
    json!({"part_kind": "tool-return", "tool_name": "search_tools", "content": content, "tool_call_id": call_id,
           "tool_kind": "tool-search", "timestamp": TIMESTAMP})
}

fn found_nothing(content: &Value) -> bool {
    content["discovered_tools"].as_array().is_some_and(Vec::is_empty)
}

/// Now and then a delta revealing some tools, at any place among the request's parts, now and then
/// naming one of `searches` (the calls of the last response that searched) as the call that
/// revealed them.
fn maybe_delta(rng: &mut TestRng, parts: &mut Vec<Value>, searches: &[String]) {
    if rng.random_bool(0.5) {
        let mut delta = json!({"part_kind": "tool-availability-delta", "tools_added": names(rng)});
        if !searches.is_empty() && rng.random_bool(0.4) {
            delta["tool_call_id"] = json!(searches[rng.random_range(0..searches.len())]);
        }
        let at = rng.random_range(0..=parts.len());
        parts.insert(at, delta);
    }
}

/// Up to three tool names, deferred ones most often, now and then a visible or an unknown one.
fn names(rng: &mut TestRng) -> Vec<&'static str> {
    let pool: Vec<&str> = DEFERRED
        .iter()
        .chain(&VISIBLE[..1])
        .chain([&UNKNOWN])
        .copied()
        .collect();
    let mut picked: Vec<&str> = Vec::new();
    for _ in 0..rng.random_range(0..=3) {
        let name = if rng.random_bool(0.7) {
            DEFERRED[rng.random_range(0..DEFERRED.len())]
        } else {
            pool[rng.random_range(0..pool.len())]
        };
        if !picked.contains(&name) {
            picked.push(name);
        }
    }
    picked
}
