//! The `parts-` histories of the provider check: the core histories with the parts pydantic-ai's
//! `prepare_messages` rewrites or leaves out before its mappings read them, each where a history
//! puts it: capability-load, model-settings and tool-availability deltas (sometimes a request of
//! deltas alone), realtime speech (the user's, with and without a transcript or its audio; the
//! model's, cut off by the listener), system prompts with a `context_id` (opened, restated,
//! withdrawn, opened empty) and request-scoped ones (answered and current), structured-content
//! items, texts with provider details, server-side tool calls and returns of every provider, and
//! tool parts of a kind pydantic-ai has no typed part for, compactions (a request's summary, a
//! response's compaction of every provider).

use serde_json::{json, Value};

use super::{text, Rng, STAMP};

/// A request part `prepare_messages` rewrites or leaves out, for position `index` of the history.
pub(super) fn request_part(rng: &mut Rng) -> Value {
    match rng.below(10) {
        9 => {
            // A compaction's summary, sent as user text (its lookalikes noted as the summarizer's).
            let content = if rng.chance(20) { Value::Null } else { json!(text(rng)) };
            json!({"part_kind": "compaction", "content": content})
        }
        0 => json!({"part_kind": "capability-load-delta", "loaded": ["docs"], "tool_call_id": "call_cap"}),
        1 => {
            let settings = rng
                .pick(&[json!({"thinking": "high"}), json!({"temperature": 0.5}), json!({})])
                .clone();
            json!({"part_kind": "model-settings-delta", "settings": settings, "top_level": rng.chance(50)})
        }
        2 => {
            let tool_call_id = if rng.chance(50) {
                json!("call_reveal")
            } else {
                Value::Null
            };
            json!({"part_kind": "tool-availability-delta", "tools_added": ["search", "run_shell"],
                "tool_call_id": tool_call_id})
        }
        3 | 4 => {
            let mut part = json!({"part_kind": "speech", "speaker": "user"});
            match rng.below(4) {
                0 => part["transcript"] = Value::Null,
                1 => part["transcript"] = json!(""),
                _ => part["transcript"] = json!(text(rng)),
            }
            if rng.chance(30) {
                // Retained audio, which none of the three profiles sends (`supports_audio_input`).
                part["audio"] = json!({"kind": "binary", "data": "UklGRg==", "media_type": "audio/wav"});
            }
            part
        }
        5 | 6 => context_prompt(rng),
        7 => {
            let mut part = json!({"part_kind": "system-prompt", "content": text(rng), "scope": "request",
                "timestamp": STAMP});
            if rng.chance(25) {
                part["context_id"] = json!(*rng.pick(&["reminder", "state"]));
            }
            part
        }
        _ => {
            let content = json!([text(rng), {"kind": "structured-content", "content": format!("<state>{}</state>", text(rng)),
                "value": {"open": ["a.rs"]}, "tag": "state"}]);
            json!({"part_kind": "user-prompt", "content": content, "timestamp": STAMP})
        }
    }
}

/// A system prompt stating the block its `context_id` names (sometimes empty: a withdrawal, or
/// an opening with nothing to state).
pub(super) fn context_prompt(rng: &mut Rng) -> Value {
    let content = if rng.chance(25) { String::new() } else { text(rng) };
    let id = *rng.pick(&["plan", "repo", "a&\"b\""]);
    json!({"part_kind": "system-prompt", "content": content, "context_id": id, "timestamp": STAMP})
}

/// A response part `prepare_messages` or the mappings rewrite or leave out.
pub(super) fn response_part(rng: &mut Rng, next_id: &mut usize) -> Value {
    let provider = || json!("google-gla");
    match rng.below(7) {
        6 => {
            // A compaction of the provider's own (sent back, and refused) or another's (left out).
            let mut part = json!({"part_kind": "compaction", "content": text(rng),
                "provider_name": *rng.pick(&["anthropic", "openai", "google-gla"])});
            if rng.chance(50) {
                part["provider_details"] = json!({"encrypted_content": "enc_1"});
            }
            part
        }
        0 | 1 => {
            let mut part = json!({"part_kind": "speech", "speaker": "assistant"});
            part["transcript"] = if rng.chance(20) { Value::Null } else { json!(text(rng)) };
            if rng.chance(30) {
                part["interrupted_at_ms"] = json!(rng.below(5000));
            }
            part
        }
        2 => {
            let details = rng
                .pick(&[
                    json!({"logprobs": []}),
                    json!({"phase": "commentary"}),
                    json!({"citations": []}),
                    json!({"citations": [{"type": "web_search_result_location", "url": "https://e.com", "title": "e",
                        "cited_text": "x", "encrypted_index": "abc"}]}),
                    json!({"citations": [{"type": "url_citation", "url": "https://e.com", "title": "e",
                        "start_index": 0, "end_index": 0}]}),
                ])
                .clone();
            let mut part = json!({"part_kind": "text", "content": text(rng), "provider_details": details});
            let name = *rng.pick(&["openai", "anthropic", "google-gla"]);
            part["provider_name"] = json!(name);
            if rng.chance(40) {
                *next_id += 1;
                part["id"] = json!(format!("msg_{next_id}"));
            }
            part
        }
        3 | 4 => {
            *next_id += 1;
            let id = format!("srv_{next_id}");
            let name = *rng.pick(&[
                "web_search",
                "code_execution",
                "image_generation",
                "web_fetch",
                "mcp_server:docs",
            ]);
            let provider_name = if rng.chance(70) {
                provider()
            } else {
                json!(*rng.pick(&["anthropic", "openai"]))
            };
            let kind = if rng.chance(50) {
                "builtin-tool-call"
            } else {
                "builtin-tool-return"
            };
            if kind == "builtin-tool-call" {
                json!({"part_kind": kind, "tool_name": name, "args": {"query": text(rng)}, "tool_call_id": id,
                    "provider_name": provider_name})
            } else {
                json!({"part_kind": kind, "tool_name": name, "content": {"status": "completed"}, "tool_call_id": id,
                    "provider_name": provider_name, "timestamp": STAMP})
            }
        }
        _ => {
            *next_id += 1;
            let mut part = json!({"part_kind": "tool-call", "tool_name": "lint", "args": {},
                "tool_call_id": format!("call_k{next_id}"), "tool_kind": "my-kind"});
            if rng.chance(50) {
                // Provider details of a call: OpenAI's namespace and Chat's extra content.
                part["provider_details"] = rng
                    .pick(&[
                        json!({"namespace": "ns"}),
                        json!({"extra_content": {"google": {"thought_signature": "s"}}}),
                        json!({"other": 1}),
                    ])
                    .clone();
                part["provider_name"] = json!(*rng.pick(&["openai", "google-gla", "anthropic"]));
            }
            part
        }
    }
}
