//! The `parts-` histories of the provider check: the core histories with the parts pydantic-ai's
//! `prepare_messages` rewrites or leaves out before its mappings read them, each where a history
//! puts it: capability-load, model-settings and tool-availability deltas (sometimes a request of
//! deltas alone), realtime speech (the user's, with and without a transcript or its audio; the
//! model's, cut off by the listener), system prompts with a `context_id` (opened, restated,
//! withdrawn, opened empty) and request-scoped ones (answered and current), structured-content
//! items, texts with provider details, server-side tool calls and returns of every provider, and
//! tool parts of a kind pydantic-ai has no typed part for and of the typed kinds (capability loads
//! and tool searches, local and server-side), user prompts of framework frames and
//! cache points (`framed_prompt`), compactions (a request's summary, a response's compaction of
//! every provider, sent back with the trim before it or left out), and instruction state:
//! baselines (append-mode blocks, digests, empty ones) and changes (replacements with and without
//! the hash of the text they
//! replace, withdrawals, empty replacements, ids of every namespace, a loaded capability's block,
//! a newer version's namespace, none), whose windows the compactions and baselines end.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::history::STAMP;
use super::texts::{text, LOOKALIKES};
use super::Rng;

/// A request part `prepare_messages` rewrites or leaves out. `instruction_values` are the block
/// values the history has stated so far, which a change may record the hash of.
pub(super) fn request_part(rng: &mut Rng, instruction_values: &mut Vec<String>) -> Value {
    match rng.below(17) {
        15 | 16 => typed_tool_return(rng),
        13 | 14 => framed_prompt(rng),
        10 | 11 => instruction_delta(rng, instruction_values),
        12 => instruction_baseline(rng, instruction_values),
        9 => {
            // A compaction's summary, sent as user text (its lookalikes noted as the summarizer's).
            let content = if rng.chance(20) { Value::Null } else { json!(text(rng)) };
            json!({"part_kind": "compaction", "content": content})
        }
        0..=2 => delta_part(rng),
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

/// A delta part: a capability load or a settings change, which `prepare_messages` leaves out, or a
/// tool-availability delta, which announces no tool without tools (OpenAI Responses keeps it).
pub(super) fn delta_part(rng: &mut Rng) -> Value {
    match rng.below(3) {
        0 => json!({"part_kind": "capability-load-delta", "loaded": ["docs"], "tool_call_id": "call_cap"}),
        1 => {
            let settings = rng
                .pick(&[json!({"thinking": "high"}), json!({"temperature": 0.5}), json!({})])
                .clone();
            json!({"part_kind": "model-settings-delta", "settings": settings, "top_level": rng.chance(50)})
        }
        _ => {
            let tool_call_id = if rng.chance(50) {
                json!("call_reveal")
            } else {
                Value::Null
            };
            json!({"part_kind": "tool-availability-delta", "tools_added": ["search", "run_shell"],
                "tool_call_id": tool_call_id})
        }
    }
}

/// The ids instruction blocks are addressed by: each namespace pydantic-ai reads
/// (`capability:docs` is the loaded block of the capability the capability-load delta loads), a
/// newer version's namespace and a bare `run`, which load as no id.
const INSTRUCTION_IDS: &[&str] = &[
    "capability:plan",
    "capability:docs",
    "agent",
    "agent:tone",
    "toolset:repo:state",
    "run:notes",
    "future:x",
    "run",
];

/// A block's values: a long plan and two edits of it (so a change may be shorter as a diff), and
/// short texts, so that a change's `base_hash` is sometimes the hash of the value it replaces.
fn instruction_text(rng: &mut Rng) -> String {
    let plan = |changed: &[usize]| {
        (1..=24)
            .map(|step| {
                if changed.contains(&step) {
                    format!("Step {step}: rewrite <the> module & test")
                } else {
                    format!("Step {step}: check the module")
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    match rng.below(10) {
        0 | 1 => plan(&[]),
        2 | 3 => plan(&[4]),
        4 | 5 => plan(&[4, 19]),
        6 => "Be brief.".to_owned(),
        7 => String::new(),
        _ => text(rng),
    }
}

/// `_instruction_text_hash`.
fn instruction_text_hash(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// An `InstructionDeltaPart`: a replacement (often with the hash of a value stated before, which
/// may be the one it replaces), or a withdrawal.
pub(super) fn instruction_delta(rng: &mut Rng, instruction_values: &mut Vec<String>) -> Value {
    // Mostly one block, so that changes follow each other and a baseline's value.
    let id = if rng.chance(8) {
        Value::Null
    } else if rng.chance(50) {
        json!(INSTRUCTION_IDS[0])
    } else {
        json!(*rng.pick(INSTRUCTION_IDS))
    };
    // Most often the last value stated, the one a change of the same block replaces.
    let base_hash = if !instruction_values.is_empty() && rng.chance(70) {
        let replaced: &String = if rng.chance(60) {
            &instruction_values[instruction_values.len() - 1]
        } else {
            rng.pick(instruction_values)
        };
        json!(instruction_text_hash(replaced))
    } else if rng.chance(30) {
        json!(instruction_text_hash(&instruction_text(rng)))
    } else {
        Value::Null
    };
    let content = if rng.chance(20) {
        Value::Null
    } else {
        let content = instruction_text(rng);
        instruction_values.push(content.clone());
        json!(content)
    };
    json!({"part_kind": "instruction-delta", "id": id, "content": content, "base_hash": base_hash})
}

/// An `InstructionBaselinePart`: append-mode blocks in full and rewrite-mode ones as digests
/// (sometimes none: the baseline that ends a window).
fn instruction_baseline(rng: &mut Rng, instruction_values: &mut Vec<String>) -> Value {
    let blocks: Vec<Value> = (0..rng.below(4))
        .map(|_| {
            if rng.chance(30) {
                json!({"part_kind": "instruction-digest", "id": Value::Null, "dynamic": false,
                    "content_hash": instruction_text_hash(&text(rng))})
            } else {
                let id = if rng.chance(50) {
                    INSTRUCTION_IDS[0]
                } else {
                    *rng.pick(INSTRUCTION_IDS)
                };
                let content = instruction_text(rng);
                instruction_values.push(content.clone());
                json!({"part_kind": "instruction", "content": content, "id": id, "dynamic": true,
                    "on_change": "append"})
            }
        })
        .collect();
    json!({"part_kind": "instruction-baseline", "instructions": blocks})
}

/// A system prompt stating the block its `context_id` names (sometimes empty: a withdrawal, or
/// an opening with nothing to state).
pub(super) fn context_prompt(rng: &mut Rng) -> Value {
    let content = if rng.chance(25) { String::new() } else { text(rng) };
    let id = *rng.pick(&["plan", "repo", "a&\"b\""]);
    json!({"part_kind": "system-prompt", "content": content, "context_id": id, "timestamp": STAMP})
}

/// A response's compaction of the provider's own or another's, with or without a summary, encrypted
/// content (sometimes `null`), a signature, an id and the standing-prompt stamp of pydantic-ai's own
/// compact call: sent back (trimming the history before it) or left out. Named `azure` it is the
/// model's own only by the response's canonical system.
pub(super) fn compaction(rng: &mut Rng, next_id: &mut usize) -> Value {
    let content = match rng.below(5) {
        0 => Value::Null,
        1 => json!(""),
        _ => json!(text(rng)),
    };
    let mut part = json!({"part_kind": "compaction", "content": content,
        "provider_name": *rng.pick(&["anthropic", "openai", "google-gla", "anthropic", "openai", "azure"])});
    if rng.chance(60) {
        *next_id += 1;
        let mut details = serde_json::Map::new();
        if rng.chance(75) {
            let encrypted = if rng.chance(10) {
                Value::Null
            } else {
                json!(format!("enc_{next_id}"))
            };
            details.insert("encrypted_content".into(), encrypted);
        }
        if rng.chance(30) {
            details.insert("signature".into(), json!(format!("sig_{next_id}")));
        }
        if rng.chance(40) {
            details.insert("pydantic_ai_standing_prompt_planted".into(), json!(rng.chance(80)));
        }
        part["provider_details"] = Value::Object(details);
    }
    if rng.chance(50) {
        *next_id += 1;
        part["id"] = json!(format!("cmp_{next_id}"));
    }
    part
}

/// A response part `prepare_messages` or the mappings rewrite or leave out.
pub(super) fn response_part(rng: &mut Rng, next_id: &mut usize) -> Value {
    match rng.below(10) {
        8 => typed_tool_call(rng),
        9 => native_tool_search_part(rng, next_id),
        6 | 7 => compaction(rng, next_id),
        0 | 1 => {
            let mut part = json!({"part_kind": "speech", "speaker": "assistant"});
            part["transcript"] = if rng.chance(20) { Value::Null } else { json!(text(rng)) };
            if rng.chance(30) {
                part["interrupted_at_ms"] = json!(rng.below(5000));
            }
            part
        }
        2 => {
            let mut details = rng
                .pick(&[
                    json!({"logprobs": []}),
                    json!({"phase": "commentary"}),
                    json!({"citations": []}),
                    json!({"citations": [{"type": "web_search_result_location", "url": "https://e.com", "title": "e",
                        "cited_text": "x", "encrypted_index": "abc"}]}),
                    json!({"citations": [{"type": "web_search_result_location", "url": "https://e.com", "title": null,
                        "cited_text": "x", "encrypted_index": "abc"}, {"type": "char_location", "cited_text": "y"},
                        {"type": "web_search_result_location", "url": "https://f.com", "cited_text": "z"}]}),
                    json!({"citations": [{"type": "url_citation", "url": "https://e.com", "title": "e",
                        "start_index": 0, "end_index": 0}]}),
                    json!({"citations": [{"type": "file_citation", "file_id": "file_1", "filename": "a.md", "index": 2},
                        {"type": "file_citation", "file_id": "", "filename": "b.md", "index": 0}]}),
                ])
                .clone();
            let mut content = text(rng);
            if details["citations"][0]["type"] == "url_citation" && rng.chance(60) {
                // A link the text still holds, at its range in code points.
                let start = content.chars().count() + 1;
                content.push_str(" https://e.com");
                details["citations"][0]["start_index"] = json!(start);
                details["citations"][0]["end_index"] = json!(start + "https://e.com".len());
            }
            let length = content.chars().count();
            let mut part = json!({"part_kind": "text", "content": content, "provider_details": details});
            if length > 0 && rng.chance(50) {
                // The part's own citations, anchored to the whole text (`citations_fit_text`), to a part
                // of it, or to nothing.
                let source = json!({"kind": "web", "url": "https://e.com", "title": "e"});
                let anchor = match rng.below(4) {
                    0 if length > 1 => json!({"kind": "content", "start": 0, "end": length - 1}),
                    1 => Value::Null,
                    _ => json!({"kind": "content", "start": 0, "end": length}),
                };
                part["citations"] = json!([{"sources": [source], "anchor": anchor}]);
            }
            let name = *rng.pick(&["openai", "anthropic", "google-gla"]);
            part["provider_name"] = json!(name);
            if rng.chance(40) {
                *next_id += 1;
                part["id"] = json!(format!("msg_{next_id}"));
            }
            part
        }
        3 | 4 => native_tool_part(rng, next_id),
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

/// The call ids typed tool parts use, so that returns sometimes answer calls (`call_load` is the
/// `load_capability` exchange of the `docs` capability the instruction changes address).
const TYPED_CALL_IDS: [&str; 3] = ["call_t1", "call_t2", "call_load"];

/// A tool call of a typed kind (`LoadCapabilityCallPart`, `ToolSearchCallPart`): object arguments
/// with their declared key after extra ones (which pydantic-ai's TypedDict puts first), JSON-string
/// arguments (some that do not fit), none, the literal `tool_name` left out.
fn typed_tool_call(rng: &mut Rng) -> Value {
    let id = *rng.pick(&TYPED_CALL_IDS);
    let said = text(rng);
    let mut part = if id == "call_load" || rng.chance(40) {
        let args = rng
            .pick(&[
                json!({"reason": said, "id": "docs"}),
                json!({"id": "docs"}),
                json!("{\"id\": \"docs\", \"n\": 1.50}"),
                json!("{\"name\": \"docs\"}"),
                Value::Null,
            ])
            .clone();
        json!({"part_kind": "tool-call", "tool_name": "load_capability", "args": args, "tool_call_id": id,
            "tool_kind": "capability-load"})
    } else {
        let args = rng
            .pick(&[
                json!({"limit": 2.50, "queries": [said, "pdf"]}),
                json!({"queries": []}),
                json!("{\"queries\": [\"csv\", 3]}"),
                json!(""),
                Value::Null,
            ])
            .clone();
        json!({"part_kind": "tool-call", "tool_name": "search_tools", "args": args, "tool_call_id": id,
            "tool_kind": "tool-search"})
    };
    if rng.chance(20) {
        if let Some(part) = part.as_object_mut() {
            part.remove("tool_name");
        }
    }
    if rng.chance(30) {
        part["provider_name"] = json!(*rng.pick(&["openai", "anthropic"]));
        part["provider_details"] = json!({"namespace": "ns"});
    }
    part
}

/// A tool return of a typed kind (`LoadCapabilityReturnPart`, `ToolSearchReturnPart`): content
/// with its declared keys after extra ones, with lookalikes, and failed ones (base parts).
fn typed_tool_return(rng: &mut Rng) -> Value {
    let id = *rng.pick(&TYPED_CALL_IDS);
    let load = id == "call_load" || rng.chance(40);
    let (name, kind) = if load {
        ("load_capability", "capability-load")
    } else {
        ("search_tools", "tool-search")
    };
    let mut part = json!({"part_kind": "tool-return", "tool_name": name, "tool_call_id": id, "tool_kind": kind,
        "timestamp": STAMP});
    if rng.chance(15) {
        part["outcome"] = json!("failed");
        part["content"] = json!(text(rng));
        return part;
    }
    let (said, more) = (text(rng), text(rng));
    part["content"] = if load {
        rng.pick(&[
            json!({"extra": {"b": 1, "a": 2}, "instructions": said, "message": more}),
            json!({"message": "Loaded."}),
            json!({}),
        ])
        .clone()
    } else {
        rng.pick(&[
            json!({"message": said, "discovered_tools": [{"score": 0.50, "name": "read_pdf"}, {"name": "lint"}]}),
            json!({"discovered_tools": []}),
            json!({"note": said, "discovered_tools": [{"name": more}]}),
        ])
        .clone()
    };
    if rng.chance(20) {
        if let Some(part) = part.as_object_mut() {
            part.remove("tool_name");
        }
    }
    part
}

/// A server-side tool search's call or result (`NativeToolSearchCallPart`, `...ReturnPart`), of
/// Anthropic, OpenAI or another provider: Anthropic keeps the ones whose stateless artifacts it
/// takes, every other becomes the local exchange (a result a request of its own). Calls of both
/// strategies, with callers, JSON-string arguments; results with recorded errors.
fn native_tool_search_part(rng: &mut Rng, next_id: &mut usize) -> Value {
    let answers_last_call = *next_id > 0 && rng.chance(60);
    if !answers_last_call {
        *next_id += 1;
    }
    let id = format!("srv_{next_id}");
    let provider_name = *rng.pick(&["anthropic", "anthropic", "openai", "google-gla"]);
    let said = text(rng);
    let mut part = if answers_last_call {
        let content = rng
            .pick(&[
                json!({"discovered_tools": [{"name": "read_pdf"}], "message": said}),
                json!({"message": "None.", "discovered_tools": []}),
                json!({"discovered_tools": [{"rank": 1, "name": "lint"}], "extra": 2.50}),
            ])
            .clone();
        json!({"part_kind": "builtin-tool-return", "tool_name": "tool_search", "content": content,
            "tool_call_id": id, "tool_kind": "tool-search", "provider_name": provider_name, "timestamp": STAMP})
    } else {
        let args = rng
            .pick(&[
                json!({"limit": 1, "queries": [said, "csv"]}),
                json!({"queries": []}),
                json!("{\"queries\": [\"a\", 2, \"b\"]}"),
                json!("{\"pattern\": \"x\"}"),
                Value::Null,
            ])
            .clone();
        json!({"part_kind": "builtin-tool-call", "tool_name": "tool_search", "args": args, "tool_call_id": id,
            "tool_kind": "tool-search", "provider_name": provider_name})
    };
    match rng.below(8) {
        0 => part["provider_details"] = json!({"strategy": "regex"}),
        1 => part["provider_details"] = json!({"error_code": "unavailable", "error_message": "x"}),
        2 => {
            part["provider_details"] =
                json!({"anthropic_caller": {"type": "code_execution_20250825", "tool_id": "srv_0"}})
        }
        _ => {}
    }
    if rng.chance(15) {
        if let Some(part) = part.as_object_mut() {
            part.remove("tool_name");
        }
    }
    part
}

/// A server-side tool call or return of every tool name the mappings tell apart (web search and
/// fetch, code execution, file search, MCP with and without its server's tool or action, the
/// advisor, one no mapping knows, whose arguments are those of any of them), of this response's provider or another, with the content shapes Anthropic's blocks
/// take and others. A return often answers the last call made (its id), so that Anthropic's
/// unpaired calls are sometimes paired.
fn native_tool_part(rng: &mut Rng, next_id: &mut usize) -> Value {
    let answers_last_call = *next_id > 0 && rng.chance(50);
    if !answers_last_call {
        *next_id += 1;
    }
    let id = format!("srv_{next_id}");
    let name = *rng.pick(&[
        "web_search",
        "web_search",
        "web_fetch",
        "code_execution",
        "image_generation",
        "mcp_server:docs",
        "mcp_server",
        "advisor",
        "web_search_tool_result",
        "file_search",
        "bash_code_execution",
        "text_editor_code_execution",
        "code_execution_tool_result",
    ]);
    let provider_name = if rng.chance(30) {
        json!("google-gla")
    } else {
        json!(*rng.pick(&["anthropic", "openai"]))
    };
    let mut part = if answers_last_call || rng.chance(40) {
        let content = rng
            .pick(&[
                json!({"status": "completed"}),
                json!({"status": "failed", "sources": []}),
                json!([{"type": "web_search_result", "url": "https://e.com", "title": "e",
                    "encrypted_content": "enc", "page_age": null}]),
                json!({"type": "web_fetch_result", "url": "https://e.com", "content": {"type": "document",
                    "source": {"type": "text", "media_type": "text/plain", "data": "x"}}, "retrieved_at": 1.50}),
                json!({"content": [{"type": "text", "text": "found"}], "is_error": false}),
                json!({"type": "bash_code_execution_result", "stdout": "ok", "stderr": "", "return_code": 0,
                    "content": []}),
                json!("done"),
            ])
            .clone();
        json!({"part_kind": "builtin-tool-return", "tool_name": name, "content": content, "tool_call_id": id,
            "provider_name": provider_name, "timestamp": STAMP})
    } else {
        let query = text(rng);
        let args = rng
            .pick(&[
                json!({"query": query}),
                json!({"tool_name": "lookup", "tool_args": {"q": query}}),
                json!({"tool_name": "lookup"}),
                json!({"action": "call_tool", "tool_name": "lookup", "tool_args": {"q": query, "n": 1.50}}),
                json!({"action": "list_tools"}),
                json!({"container_id": "cntr_1", "code": "print(1)"}),
                json!({"queries": [query], "type": "search", "sources": null}),
                json!("{\"url\": \"https://e.com\"}"),
                Value::Null,
            ])
            .clone();
        json!({"part_kind": "builtin-tool-call", "tool_name": name, "args": args, "tool_call_id": id,
            "provider_name": provider_name})
    };
    match rng.below(10) {
        // `anthropic_caller_provider_details`: a call made from within code execution.
        0 | 1 => {
            part["provider_details"] =
                json!({"anthropic_caller": {"type": "code_execution_20250825", "tool_id": "srv_0"}})
        }
        // `anthropic_code_execution_tool_provider_details`: the code execution variant.
        2 => part["provider_details"] = json!({"anthropic_tool_name": "bash_code_execution"}),
        _ => {}
    }
    part
}

/// A list user prompt of texts, framework frames (`framework_frame_text`: of no author, of every
/// author pydantic-ai knows, of one it does not; with and without their own tags, as text or
/// structured content, next to metadata that only looks like the mark) and cache points (at the
/// start, in the middle, at the end, after a file, after another cache point; of both ttls).
fn framed_prompt(rng: &mut Rng) -> Value {
    let mut items = Vec::new();
    for _ in 0..1 + rng.below(5) {
        let item = match rng.below(10) {
            0..=3 => framework_frame(rng),
            4 | 5 => cache_point(rng),
            // A file none of the three downloads: an image's URL, a text file's bytes.
            6 => rng
                .pick(&[
                    json!({"kind": "image-url", "url": "https://example.com/cat.png"}),
                    json!({"kind": "binary", "data": "bm90ZXMgPHN5c3RlbT4=", "media_type": "text/plain"}),
                ])
                .clone(),
            _ => json!(text(rng)),
        };
        items.push(item);
        if rng.chance(15) {
            items.push(cache_point(rng));
        }
    }
    json!({"part_kind": "user-prompt", "content": items, "timestamp": STAMP})
}

fn cache_point(rng: &mut Rng) -> Value {
    match rng.below(3) {
        0 => json!({"kind": "cache-point"}),
        1 => json!({"kind": "cache-point", "ttl": "5m"}),
        _ => json!({"kind": "cache-point", "ttl": "1h"}),
    }
}

/// A text item marked as a frame (or with metadata that only resembles the mark).
fn framework_frame(rng: &mut Rng) -> Value {
    let author = rng
        .pick(&[
            None,
            Some(json!("user")),
            Some(json!("tool")),
            Some(json!("file")),
            Some(json!("summary")),
            Some(json!("retry")),
            Some(json!("thinking")),
            Some(json!("assistant")),
            Some(json!(1)),
        ])
        .clone();
    let mut namespace = json!({"framework_frame": true});
    if let Some(author) = author {
        namespace["framework_frame_author"] = author;
    }
    let metadata = match rng.below(10) {
        0 => json!({"app": "ui", "__pydantic_ai__": namespace}),
        // Not the mark (`is True`), or not where pydantic-ai reads it: a text like any other.
        1 => json!({"__pydantic_ai__": {"framework_frame": "true", "framework_frame_author": "tool"}}),
        2 => json!({"__pydantic_ai__": [namespace]}),
        3 => json!(["__pydantic_ai__"]),
        _ => json!({"__pydantic_ai__": namespace}),
    };
    let mut body = text(rng);
    if rng.chance(60) {
        // An ASCII one: msgflow refuses some of the others for the NFKC folding it does not
        // reproduce, which would hide the frame.
        let ascii: Vec<&str> = LOOKALIKES
            .iter()
            .copied()
            .filter(|lookalike| lookalike.is_ascii())
            .collect();
        body = format!("{body} {}", rng.pick(&ascii));
    }
    let content = match rng.below(6) {
        0 => format!("<pyai:tool_result tool_name=\"search\">\n{body}\n</pyai:tool_result>"),
        1 => format!("  <system>{body}</system>\n"),
        // Its own tags alone are no lookalike, a tag opening or closing it alone is stripped too.
        2 => "<system></system>".to_owned(),
        3 => format!("<pyai:retry_feedback>{body}"),
        4 => format!("{body}</system> <system>"),
        _ => body,
    };
    // A structured item's `content` is what it rendered (an empty one is rendered again).
    if rng.chance(20) && !content.is_empty() {
        json!({"kind": "structured-content", "content": content, "value": {"k": 1}, "metadata": metadata})
    } else {
        json!({"kind": "text-content", "content": content, "metadata": metadata})
    }
}
