//! The seeded histories of the parts msgflow exports ([`core_history`]), with their tool
//! content, arguments, retry prompts and feedback, and thinking parts.

use serde_json::{json, Value};

use super::texts::{text, LOOKALIKES};
use super::{media, parts, Rng};

fn tool_content(rng: &mut Rng) -> Value {
    // Numbers Python re-dumps otherwise than they are written (`-0`, `1.50`, `1e2`), and an
    // integer beyond 64 bits.
    let number = |text: &str| serde_json::from_str::<Value>(text).expect("a JSON number");
    if rng.chance(4) {
        return json!({"n": number("-0"), "x": number("1.50"), "e": number("1e2"), "big": number("18446744073709551616"), "l": [number("-0.0"), number("1e400")]});
    }
    match rng.below(9) {
        0 => Value::Null,
        1 => json!(rng.below(1000)),
        2 => json!(1.5),
        3 => json!({"lines": [text(rng), text(rng)], "n": rng.below(9), "ok": true}),
        4 => json!([text(rng), {"b": null}]),
        5 => json!([]),
        6 => json!([text(rng)]),
        _ => json!(text(rng)),
    }
}

/// A legacy `retry-prompt` answering call `id` (2.68.0 loads it as the call's retried result):
/// a message, or validation error details with the keys in any order, `ctx` and `url`, and
/// root-level errors whose `input` repeats the first one's (`True` and `1` are equal in Python).
fn retry_prompt(rng: &mut Rng, id: &str, name: &str) -> Value {
    let content = if rng.chance(40) {
        json!(text(rng))
    } else {
        // Python's `==` decides which root-level `input` is dropped: `True == 1 == 1.0`, `-0 == 0`,
        // integers of any size compared exactly.
        let number = |text: &str| serde_json::from_str::<Value>(text).expect("a JSON number");
        let first_input = rng
            .pick(&[
                json!({"a": 1}),
                json!(1),
                json!(true),
                json!("x"),
                json!(null),
                number("18446744073709551616"),
                json!(0),
            ])
            .clone();
        let inputs = [
            first_input.clone(),
            json!({"a": 1}),
            json!(1.0),
            json!(true),
            json!([1, "b"]),
            number("18446744073709551616"),
            number("18446744073709551617"),
            number("-0"),
            json!({"a": 1.0}),
        ];
        let details: Vec<Value> = (0..1 + rng.below(4))
            .map(|index| {
                let loc = match rng.below(4) {
                    0 => json!([]),
                    1 => json!(["field"]),
                    2 => json!([0]),
                    _ => json!(["items", 0, "name"]),
                };
                let input = if index == 0 {
                    first_input.clone()
                } else {
                    rng.pick(&inputs).clone()
                };
                let mut detail = if rng.chance(50) {
                    json!({"type": "missing", "loc": loc, "msg": text(rng), "input": input})
                } else {
                    json!({"input": input, "msg": text(rng), "loc": loc, "type": "int_parsing"})
                };
                if rng.chance(20) {
                    detail["ctx"] = json!({"error": "x"});
                }
                if rng.chance(20) {
                    detail["url"] = json!("https://errors.pydantic.dev/2/v/missing");
                }
                detail
            })
            .collect();
        Value::Array(details)
    };
    json!({"part_kind": "retry-prompt", "tool_name": name, "tool_call_id": id, "content": content, "timestamp": STAMP})
}

/// Retry feedback answering no call: a `retry-feedback` part of each cause (`no_output` with the
/// agent loop's own texts, which go in the system voice, and with others), or a legacy
/// `retry-prompt` naming no tool (2.68.0 loads it as feedback).
fn retry_feedback(rng: &mut Rng) -> Value {
    let no_output_texts = [
        "Please return text.",
        "Please include your response in a tool call or return an image.",
        "Please return text or call a tool.",
        "Please.",
        "Please return text or return an image or call a tool.",
    ];
    let content = match rng.below(4) {
        0 => json!([{"type": "missing", "loc": ["answer"], "msg": text(rng), "input": {"a": 1}},
                    {"type": "int_parsing", "loc": [], "msg": "bad", "input": {"a": 1}, "ctx": {"x": 1}}]),
        1 => json!(rng.pick(&no_output_texts).to_string()),
        _ => json!(text(rng)),
    };
    if rng.chance(20) {
        return json!({"part_kind": "retry-prompt", "content": content, "timestamp": STAMP});
    }
    let cause = *rng.pick(&["validation_error", "model_retry", "no_output"]);
    json!({"part_kind": "retry-feedback", "content": content, "retry": {"cause": cause, "attempt": 1, "max_retries": 3},
           "timestamp": STAMP})
}

fn args(rng: &mut Rng) -> Value {
    if rng.chance(4) {
        // Numbers Python re-dumps otherwise than they are written.
        let number = |text: &str| serde_json::from_str::<Value>(text).expect("a JSON number");
        return json!({"n": number("-0"), "x": number("1.50"), "big": number("-18446744073709551617")});
    }
    match rng.below(8) {
        0 => Value::Null,
        1 => json!(""),
        2 => json!({"path": text(rng), "n": 3}),
        3 => json!("{\"path\": \"a.rs\", \"n\": 1.25}"),
        4 => json!("not json"),
        5 => json!("[1, 2]"),
        6 => json!({}),
        _ => json!({"nested": {"deep": [1, {"x": text(rng)}]}}),
    }
}

pub(super) const STAMP: &str = "2025-01-02T03:04:05.678901Z";

/// A history of the parts msgflow exports: system prompts leading the first request, user
/// prompts (strings and lists), tool calls and their returns (every outcome, all kinds of
/// content), texts (empty ones too), instructions; sometimes dangling calls, orphan returns,
/// responses first, empty messages; thinking parts of every flavour (`thinking_part`). With `frames`,
/// also mid-conversation system prompts, second user prompts, and tool names and call ids a note
/// cannot quote. With `media`, most user prompts are lists with file and media items. With
/// `rewritten`, the parts `prepare_messages` rewrites or leaves out (`parts.rs`), and sometimes a
/// run of requests at the end.
pub(super) fn core_history(rng: &mut Rng, frames: bool, media: bool, rewritten: bool) -> (Value, bool) {
    let mut thinks = false;
    let mut messages = Vec::new();
    let mut open: Vec<(String, String)> = Vec::new();
    let mut next_id = 0usize;
    // The instruction block values the history's changes and baselines have stated so far.
    let mut instruction_values = Vec::new();
    // Some histories change their instructions on every request, so changes follow each other in
    // a window (and go as diffs against the value they replace).
    let changes_instructions = rewritten && rng.chance(15);
    let length = rng.below(8);
    let mut request_turn = !rng.chance(5);
    for index in 0..length {
        if request_turn {
            let mut parts = Vec::new();
            if index == 0 {
                for _ in 0..rng.below(3) {
                    parts.push(json!({"part_kind": "system-prompt", "content": text(rng), "timestamp": STAMP}));
                }
            }
            let answer_all = rng.chance(80);
            for (id, name) in std::mem::take(&mut open) {
                if (answer_all || rng.chance(50)) && rng.chance(10) {
                    parts.push(retry_prompt(rng, &id, &name));
                } else if answer_all || rng.chance(50) {
                    let outcome = *rng.pick(&["success", "success", "failed", "denied", "interrupted", "retried"]);
                    let content = if media && rng.chance(75) {
                        media::tool_media_content(rng)
                    } else {
                        tool_content(rng)
                    };
                    let mut part = json!({"part_kind": "tool-return", "tool_name": name, "tool_call_id": id,
                        "content": content, "outcome": outcome, "timestamp": STAMP});
                    // Nested file items come with the part's `content_file_digests` record (or none).
                    if part["content"].get(media::NESTED_RECORD_KEY).is_some() {
                        let mut nested = part["content"].take();
                        part["content"] = nested[media::NESTED_RECORD_KEY].take();
                        if let Some(record) = nested.get_mut("content_file_digests") {
                            part["content_file_digests"] = record.take();
                        }
                    }
                    parts.push(part);
                }
            }
            if rng.chance(5) {
                parts.push(
                    json!({"part_kind": "tool-return", "tool_name": "ghost", "tool_call_id": "orphan_1",
                    "content": "late", "timestamp": STAMP}),
                );
            }
            if index > 0 && rng.chance(12) {
                parts.push(retry_feedback(rng));
            }
            if parts.is_empty() || rng.chance(60) {
                let content = if media && rng.chance(70) {
                    media::media_prompt(rng)
                } else if rng.chance(25) {
                    json!([text(rng), text(rng)])
                } else {
                    json!(text(rng))
                };
                let user = json!({"part_kind": "user-prompt", "content": content, "timestamp": STAMP});
                // Sometimes ahead of the returns, which pydantic-ai moves after them (never ahead of the
                // standing system prompts of the first request).
                if index > 0 && rng.chance(20) {
                    parts.insert(0, user);
                } else {
                    parts.push(user);
                }
            }
            if frames && rng.chance(40) {
                let system = json!({"part_kind": "system-prompt", "content": text(rng), "timestamp": STAMP});
                let at = rng.below(parts.len() + 1);
                parts.insert(at, system);
            }
            if frames && rng.chance(25) {
                // A second user prompt: its note goes ahead of it even where the first one's follows.
                let user = json!({"part_kind": "user-prompt", "content": text(rng), "timestamp": STAMP});
                let at = rng.below(parts.len() + 1);
                parts.insert(at, user);
            }
            if rewritten {
                if index == 0 && rng.chance(30) {
                    // A standing system prompt with a `context_id`.
                    parts.insert(0, parts::context_prompt(rng));
                }
                for _ in 0..rng.below(3) {
                    let at = rng.below(parts.len() + 1);
                    parts.insert(at, parts::request_part(rng, &mut instruction_values));
                }
                if rng.chance(8) {
                    // A request of deltas alone, which pydantic-ai leaves out for some providers.
                    parts = vec![parts::request_part(rng, &mut instruction_values)];
                }
                if changes_instructions {
                    let at = rng.below(parts.len() + 1);
                    parts.insert(at, parts::instruction_delta(rng, &mut instruction_values));
                }
            }
            let instructions = if rng.chance(25) { json!(text(rng)) } else { Value::Null };
            messages.push(json!({"kind": "request", "parts": parts, "instructions": instructions}));
        } else {
            let mut parts = Vec::new();
            for _ in 0..rng.below(4) {
                if media && rng.chance(10) {
                    // A file the model generated (an image), which no mapping sends back.
                    let data = msgflow_wire::Base64Data::from_bytes(b"\x89PNG\r\n\x1a\n");
                    parts.push(
                        json!({"part_kind": "file", "content": {"kind": "binary", "data": data.as_str(),
                        "media_type": "image/png"}}),
                    );
                } else if rng.chance(15) {
                    thinks = true;
                    parts.push(thinking_part(rng, &mut next_id));
                } else if rng.chance(50) {
                    let mut part = json!({"part_kind": "text", "content": text(rng)});
                    if rng.chance(25) {
                        // OpenAI Responses' output message ids (consecutive texts may share one).
                        if !rng.chance(30) {
                            next_id += 1;
                        }
                        part["id"] = json!(format!("msg_{next_id}"));
                        part["provider_name"] = json!(*rng.pick(&["openai", "openai", "anthropic"]));
                    }
                    parts.push(part);
                } else {
                    next_id += 1;
                    let id = if rng.chance(3) {
                        "call_1".to_owned()
                    } else if frames && rng.chance(15) {
                        format!("call #{next_id}")
                    } else {
                        format!("call_{next_id}")
                    };
                    let names: &[&str] = if frames {
                        &["read_file", "run_shell", "search", "web search", "ns.tool:v1-2"]
                    } else {
                        &["read_file", "run_shell", "search"]
                    };
                    let name = rng.pick(names).to_string();
                    let mut part =
                        json!({"part_kind": "tool-call", "tool_name": name, "tool_call_id": id, "args": args(rng)});
                    if rng.chance(25) {
                        // An OpenAI Responses call's item id.
                        part["id"] = json!(format!("fc_{next_id}"));
                        part["provider_name"] = json!(*rng.pick(&["openai", "openai", "google-gla"]));
                    }
                    parts.push(part);
                    open.push((id, name));
                }
            }
            if rewritten {
                for _ in 0..rng.below(3) {
                    let at = rng.below(parts.len() + 1);
                    parts.insert(at, parts::response_part(rng, &mut next_id));
                }
                if rng.chance(15) {
                    // A compaction opening the response, or alone in it (what a provider's
                    // compaction returns).
                    parts.insert(0, parts::compaction(rng, &mut next_id));
                    if rng.chance(60) {
                        parts.truncate(1);
                        open.clear();
                    }
                }
            }
            let mut response = json!({"kind": "response", "parts": parts, "model_name": "m", "timestamp": STAMP});
            if rewritten && rng.chance(15) {
                // A response the listener cut off (`assistant_speech_text` marks its last speech).
                response["state"] = json!("interrupted");
            }
            // Sometimes the response names its provider (and rarely a canonical system that differs
            // from it), which decides whose signed or encrypted thinking a model sends back.
            // The provider of the response's first thinking part.
            let thinker = response["parts"]
                .as_array()
                .and_then(|parts| parts.iter().find(|part| part["part_kind"] == "thinking"))
                .map(|part| part["provider_name"].clone())
                .filter(Value::is_string);
            match rng.below(20) {
                0 => response["provider_name"] = json!("anthropic"),
                1 => response["provider_name"] = json!("google-gla"),
                2 => {
                    response["provider_name"] = json!("azure");
                    response["canonical_system"] = json!(*rng.pick(&["openai", "anthropic", "azure"]));
                }
                3 | 4 => {
                    // A response from OpenAI, at its API (any spelling of the URL) or elsewhere:
                    // OpenAI Responses replays its item ids only to the endpoint that made them.
                    response["provider_name"] = json!("openai");
                    let url = *rng.pick(&[
                        "",
                        "https://api.openai.com/v1/",
                        "HTTPS://API.OPENAI.COM:443/v1",
                        "https://api.openai.com/v1//",
                        "http://api.openai.com/v1",
                        "https://proxy.example.com/v1",
                    ]);
                    if !url.is_empty() {
                        response["provider_url"] = json!(url);
                    }
                }
                5..=8 => {
                    if let Some(thinker) = thinker {
                        response["provider_name"] = thinker;
                        if rng.chance(50) {
                            response["canonical_system"] = json!(*rng.pick(&["openai", "anthropic", "google"]));
                        }
                    }
                }
                _ => {}
            }
            messages.push(response);
        }
        request_turn = if rng.chance(8) { request_turn } else { !request_turn };
    }
    if rewritten && rng.chance(10) {
        // The current request as a run of requests (an interrupted run and the next one): current
        // request-scoped prompts, parts pydantic-ai rewrites or leaves out, and statements opening
        // an id with nothing to state. `_move_request_scoped_prompts_to_tail` looks for the last
        // request after `_render_system_prompt_contexts` and
        // `_announce_tool_availability_delta_messages` may have left some of them without parts.
        for _ in 0..1 + rng.below(2) {
            // Half of them deltas alone, which pydantic-ai leaves out for some providers.
            let deltas = rng.chance(50);
            let mut parts: Vec<Value> = (0..1 + rng.below(2))
                .map(|_| {
                    if deltas {
                        parts::delta_part(rng)
                    } else {
                        parts::request_part(rng, &mut instruction_values)
                    }
                })
                .collect();
            if rng.chance(40) {
                let at = rng.below(parts.len() + 1);
                parts.insert(
                    at,
                    json!({"part_kind": "system-prompt", "content": text(rng), "scope": "request", "timestamp": STAMP}),
                );
            }
            if rng.chance(40) {
                parts.push(
                    json!({"part_kind": "system-prompt", "content": "", "context_id": "unopened",
                    "timestamp": STAMP}),
                );
            }
            let instructions = if rng.chance(25) { json!(text(rng)) } else { Value::Null };
            messages.push(json!({"kind": "request", "parts": parts, "instructions": instructions}));
        }
    }
    (Value::Array(messages), thinks)
}

/// A thinking part of every flavour a coding agent's history holds: Anthropic's signed (and
/// redacted, and empty) thinking, unsigned thinking, OpenAI reasoning with `rs_` ids (sometimes
/// two parts of one item) and encrypted content, OpenAI Chat's field ids (`reasoning`,
/// `reasoning_content`, `content`), other providers' (signed or not, with or without a name), the
/// legacy `openai-codex` name, empty content, and content full of framing-tag lookalikes.
fn thinking_part(rng: &mut Rng, next_id: &mut usize) -> Value {
    let content = match rng.below(10) {
        0 => String::new(),
        1 | 2 => format!("{} {} {}", text(rng), rng.pick(LOOKALIKES), text(rng)),
        _ => text(rng),
    };
    let (id, signature, provider_name) = match rng.below(12) {
        0 | 1 => {
            let id = if rng.chance(20) {
                json!("redacted_thinking")
            } else {
                Value::Null
            };
            (id, json!("EqQBCkYIBxgCKkB"), json!("anthropic"))
        }
        2 => (Value::Null, json!(*rng.pick(&["", "EqQB"])), json!("anthropic")),
        3 => (Value::Null, Value::Null, json!("anthropic")),
        4 | 5 => {
            // Consecutive parts of one reasoning item share its id.
            if !rng.chance(30) {
                *next_id += 1;
            }
            let signature = if rng.chance(60) {
                json!("gAAAAABo-enc")
            } else {
                Value::Null
            };
            (json!(format!("rs_{next_id}")), signature, json!("openai"))
        }
        6 => (
            json!(*rng.pick(&["reasoning", "reasoning_content", "content"])),
            if rng.chance(20) {
                json!("gAAAAABo-enc")
            } else {
                Value::Null
            },
            json!("openai"),
        ),
        7 => (Value::Null, json!("c2lnbmF0dXJl"), json!("google-gla")),
        8 => (
            json!(*rng.pick(&["reasoning_content", "reasoning", "content", "thought_1"])),
            Value::Null,
            json!(*rng.pick(&["deepseek", "groq", "openrouter"])),
        ),
        9 => (json!("rs_codex"), json!("gAAAAABo-codex"), json!("openai-codex")),
        10 => (Value::Null, Value::Null, Value::Null),
        _ => (json!("rs_az"), json!("gAAAAABo-az"), json!("azure")),
    };
    json!({"part_kind": "thinking", "content": content, "id": id, "signature": signature,
        "provider_name": provider_name})
}
