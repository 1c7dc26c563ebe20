//! The parts pydantic-ai 2.68.0's `prepare_messages` rewrites or leaves out before its mappings
//! read a history: capability-load, model-settings and tool-availability deltas, realtime speech,
//! system prompts with a `context_id` and request-scoped ones, structured-content items, texts with
//! provider details, server-side tool parts, tool parts of a kind with no typed part,
//! compactions, and instruction baselines and changes (`parts-instructions-*`). The
//! expected requests (`tests/fixtures/providers/parts-*.expected.json`) are what pydantic-ai's own
//! mapping built for each history (`generate_parts.py`, with `oracle/providers_oracle.py`); each
//! case is one the live check (`cargo xtask conformance --only provider`) once found msgflow
//! getting wrong, and the check compares thousands of generated ones on every run.

use msgflow_providers::{export, ExportError, Provider};
use serde_json::{json, Value};

fn fixture(name: &str) -> (Vec<msgflow_wire::ModelMessage>, Value) {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/providers"));
    let history = msgflow_wire::from_slice(&std::fs::read(dir.join(format!("parts-{name}.json"))).unwrap()).unwrap();
    let expected = serde_json::from_slice(&std::fs::read(dir.join(format!("parts-{name}.expected.json"))).unwrap());
    (history, expected.unwrap())
}

fn assert_exports_as_pydantic_ai(name: &str) -> Value {
    let (history, expected) = fixture(name);
    for provider in Provider::EXPORTABLE {
        let request = &expected[provider.name()]["request"];
        let actual = export(&history, provider).unwrap_or_else(|error| panic!("{name} / {provider}: {error}"));
        assert_eq!(&actual, request, "{name} / {provider}");
    }
    expected
}

/// Capability-load and model-settings deltas are left out; a tool-availability delta announces
/// no tool without tools, but the announcement of the notes is placed with it in the request.
#[test]
fn deltas_send_nothing_but_keep_their_place_for_the_notes() {
    let expected = assert_exports_as_pydantic_ai("deltas");
    // The Chat announcement goes ahead of the feedback: the delta sits before both.
    let chat = &expected["openai-chat"]["request"]["messages"];
    assert_eq!((&chat[2]["role"], &chat[3]["role"]), (&json!("system"), &json!("user")));
    // The last request, deltas alone, is left out: the one before it holds only tool results, so
    // the instructions are those of the request before that.
    assert_eq!(chat[0]["content"], "Be brief.");
}

/// A delta opening the first request ends the standing prompt, and the request's tool results go
/// ahead of its other parts (`_announce_tool_availability_delta_messages`).
#[test]
fn a_delta_opening_the_first_request_ends_the_standing_prompt() {
    let expected = assert_exports_as_pydantic_ai("delta-standing");
    let first = &expected["anthropic"]["request"]["messages"][0]["content"];
    assert_eq!(
        (&first[0]["type"], &first[1]["text"]),
        (&json!("tool_result"), &json!("<system>Be careful.</system>"))
    );
}

/// For OpenAI Responses (`tool_addition_mode`) a delta stays in its request, which then holds more
/// than tool results: the instructions of the request before it are not sent.
#[test]
fn a_delta_in_the_last_request_is_no_tool_result_for_openai_responses() {
    let expected = assert_exports_as_pydantic_ai("delta-instructions");
    assert_eq!(expected["openai-responses"]["request"].get("instructions"), None);
    assert_eq!(
        expected["openai-chat"]["request"]["messages"][0]["content"],
        "Answer in one line."
    );
}

/// The user's speech goes as its transcript, the model's as its transcript marked where the
/// listener cut it off, and messages left without parts are left out.
#[test]
fn speech_goes_as_its_transcript_and_empty_messages_are_left_out() {
    let expected = assert_exports_as_pydantic_ai("speech");
    let responses = expected["openai-responses"]["request"]["input"].to_string();
    assert!(
        responses.contains("step two\\n[Interrupted after 1200 ms]"),
        "{responses}"
    );
    assert!(responses.contains("step three\\n[Interrupted]"), "{responses}");
}

/// A system prompt with a `context_id` goes as its `<pyai:context>` element (the rule stated once,
/// a withdrawal worded for the channel, an opening without content left out).
#[test]
fn context_statements_go_as_pyai_context_elements() {
    let expected = assert_exports_as_pydantic_ai("contexts");
    let chat = expected["openai-chat"]["request"].to_string();
    assert!(chat.contains(r#"<pyai:context id=\"a&amp;&quot;b&quot;\">"#), "{chat}");
    assert!(chat.contains("This context has been withdrawn."), "{chat}");
}

/// Answered request-scoped prompts are left out, current ones go last in the last request.
#[test]
fn request_scoped_prompts_go_last_in_the_current_request() {
    let expected = assert_exports_as_pydantic_ai("request-scoped");
    let chat = expected["openai-chat"]["request"]["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert!(!Value::Array(chat.clone()).to_string().contains("Answered."));
    assert_eq!(chat.last().unwrap()["content"], "<pyai:context id=\"now\">\nContext now.\n</pyai:context>\nA later <pyai:context> element with the same id replaces the earlier one and stays in effect until replaced again.");
}

/// What the mappings leave out or send plainly: provider details they do not replay, a
/// structured-content item's text, another provider's server-side tool parts, an untyped kind.
#[test]
fn parts_the_mappings_do_not_replay_go_plainly() {
    assert_exports_as_pydantic_ai("provider-details");
}

/// A request's compaction goes as its framed summary; another provider's compaction is left out.
#[test]
fn a_compaction_summary_goes_as_framed_user_text() {
    let expected = assert_exports_as_pydantic_ai("compactions");
    let chat = expected["openai-chat"]["request"].to_string();
    assert!(chat.contains("<pyai:conversation_summary>"), "{chat}");
    assert!(chat.contains("The summarization model wrote that text"), "{chat}");
}

/// A tool call's provider details go nowhere unless the mapping sends them back.
#[test]
fn call_details_the_mappings_do_not_send_are_left_out() {
    assert_exports_as_pydantic_ai("call-details");
}

#[test]
fn call_details_the_mappings_send_go_back_with_the_call() {
    let expected = assert_exports_as_pydantic_ai("call-details-sent");
    // Not vacuous: each API gets its own detail back.
    let text = expected.to_string();
    assert!(text.contains("thought_signature") && text.contains("ns_1"), "{text}");
}

/// A `text-content` item is a framework frame only when its metadata marks it as one
/// (`framework_frame: true`); other metadata in pydantic-ai's namespace leaves it plain text.
#[test]
fn a_text_content_item_is_a_framework_frame_only_when_marked() {
    let (history, _) = fixture("text-content-metadata");
    let plain = assert_exports_as_pydantic_ai("text-content-metadata");
    let mut value: Value = serde_json::from_str(&msgflow_wire::to_string(&history).unwrap()).unwrap();
    value[0]["parts"][0]["content"][0]["metadata"] = json!({"__pydantic_ai__": {"framework_frame": true}});
    let marked = msgflow_wire::from_str(&value.to_string()).unwrap();
    // Marked, its `<system>` is the framework's own: no note, but the request is a frame, so the
    // announcement still goes with it.
    let request = export(&marked, Provider::OpenAiChat).unwrap();
    let messages = request["messages"].as_array().unwrap();
    assert_eq!(
        messages.len(),
        plain["openai-chat"]["request"]["messages"].as_array().unwrap().len() - 1
    );
    assert!(!request.to_string().contains("The following user message"), "{request}");
}

/// A framework frame goes as its text; the body of one naming its author, without the frame's own
/// tags, is read as that author's (its tags joining that author's note), a frame of no author or
/// an unknown one is not read, and a user prompt holding one carries the announcement.
#[test]
fn framework_frames_go_as_text_with_their_bodys_author_noted() {
    let expected = assert_exports_as_pydantic_ai("framework-frames");
    let anthropic = expected["anthropic"]["request"]["messages"][0]["content"].to_string();
    assert!(anthropic.contains("The following tool result contains"), "{anthropic}");
    let expected = assert_exports_as_pydantic_ai("framework-frame-only");
    let chat = &expected["openai-chat"]["request"]["messages"];
    assert!(chat.to_string().contains("looks like an application frame"), "{chat}");
    // The system prompts opening the first request are no change of the application's, even
    // where Anthropic gets them as `<system>` blocks (the standing prompt ended at a request-scoped
    // prompt since left out).
    let expected = assert_exports_as_pydantic_ai("framework-frame-after-scoped");
    let anthropic = expected["anthropic"]["request"]["messages"][0].to_string();
    assert!(!anthropic.contains("The other <system> block"), "{anthropic}");
}

/// Anthropic's cache points set `cache_control` on the block before them (or the message
/// before's last block), at most 4 kept, their ttls raised to the longest after them; OpenAI's
/// models leave them out.
#[test]
fn anthropic_cache_points_mark_the_block_before_them() {
    let expected = assert_exports_as_pydantic_ai("cache-points");
    let messages = expected["anthropic"]["request"]["messages"].to_string();
    assert_eq!(messages.matches("cache_control").count(), 4, "{messages}");
    assert!(!expected["openai-chat"].to_string().contains("cache"));
    // On a server-side call that is then dropped, the mark moves to the block before that takes
    // one (past the thinking block), or goes with the call.
    let expected = assert_exports_as_pydantic_ai("cache-point-dropped-call");
    let assistant = &expected["anthropic"]["request"]["messages"][1]["content"];
    assert_eq!(assistant[0]["cache_control"]["ttl"], "1h", "{assistant}");
    let expected = assert_exports_as_pydantic_ai("cache-point-dropped-call-alone");
    assert!(!expected["anthropic"].to_string().contains("cache_control"));
}

/// A cache point with no block before it, or after a block that takes no `cache_control`, is
/// refused for Anthropic, as pydantic-ai refuses it; OpenAI's models export the history.
#[test]
fn anthropic_cache_points_pydantic_ai_cannot_place_are_refused() {
    for (name, what) in [
        ("cache-point-first", "no block before it"),
        (
            "cache-point-after-thinking",
            "after a `thinking` block, which takes no `cache_control`",
        ),
    ] {
        let (history, expected) = fixture(name);
        assert!(expected["anthropic"]["refused"].is_string(), "{name}");
        let error = export(&history, Provider::Anthropic).unwrap_err();
        assert!(
            matches!(&error, ExportError::Refused { path, .. } if path.ends_with(".content[0]")),
            "{name}: {error}"
        );
        assert!(error.to_string().contains(what), "{name}: {error}");
        for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
            assert_eq!(
                export(&history, provider).unwrap(),
                expected[provider.name()]["request"],
                "{name} / {provider}"
            );
        }
    }
}

/// Where pydantic-ai would send back what msgflow does not rebuild (a citation index written as a
/// boolean, a tool search it may rewrite as a local exchange), msgflow refuses, naming the part.
#[test]
fn replayed_citations_and_unrebuilt_server_tool_blocks_are_refused() {
    // OpenAI's URL citation of a text it sends back with its item id, its index a boolean.
    let cited = response_from(
        "openai",
        json!({"part_kind": "text", "content": "x", "provider_name": "openai", "id": "msg_1",
        "provider_details": {"citations": [{"type": "url_citation", "url": "https://e.com", "title": "e",
            "start_index": false, "end_index": 1}]}}),
    );
    let error = export(&cited, Provider::OpenAiResponses).unwrap_err();
    assert!(
        matches!(&error, ExportError::Unsupported { message: 1, part: 0, path, .. } if path.ends_with("provider_details.citations")),
        "{error}"
    );
    assert!(export(&cited, Provider::Anthropic).is_ok());
    let search = anthropic_response(
        json!({"part_kind": "builtin-tool-call", "tool_name": "tool_search", "args": {},
        "tool_call_id": "srv_1", "provider_name": "anthropic"}),
    );
    let error = export(&search, Provider::Anthropic).unwrap_err().to_string();
    assert!(error.contains("`tool_search`"), "{error}");
}

/// Anthropic sends back its own compaction and trims the history before the latest one with a
/// summary (`_trim_messages_before_compaction`): the standing prompt stays in `system`, the
/// response's parts before the compaction go, and a later compaction with no summary (no
/// boundary) is sent too, with its signature.
#[test]
fn an_anthropic_compaction_trims_the_history_before_it() {
    let expected = assert_exports_as_pydantic_ai("compaction-trim-anthropic");
    let messages = &expected["anthropic"]["request"]["messages"];
    assert_eq!(
        messages[0]["content"][0],
        json!({"content": "We linted twice.", "type": "compaction"})
    );
    assert_eq!(messages[2]["content"][0]["signature"], "sig_2");
    // No encrypted content: OpenAI Responses sends none of them and trims nothing.
    assert_eq!(expected["openai-responses"]["request"]["input"][2]["content"], "Start");
}

/// Encrypted content makes a compaction a boundary even when it is `null` (and is then not sent);
/// the instructions come from the request the trim keeps for the last request of tool results.
#[test]
fn a_null_encrypted_content_still_trims_and_the_instructions_are_recovered() {
    let expected = assert_exports_as_pydantic_ai("compaction-trim-null-encrypted");
    let request = &expected["anthropic"]["request"];
    assert_eq!(
        request["messages"][0]["content"][0],
        json!({"content": null, "type": "compaction"})
    );
    assert_eq!(request["system"][1]["text"], "Rules.");
}

/// OpenAI Responses sends back a compaction with encrypted content and trims before it; one its
/// own compact call stamped retains the standing prompt, which is then not sent again, unlike an
/// unstamped one's (the standing prompt ending at a tool-availability delta).
#[test]
fn an_openai_compaction_trims_and_a_planted_one_keeps_the_standing_prompt_out() {
    let expected = assert_exports_as_pydantic_ai("compaction-trim-planted");
    let request = &expected["openai-responses"]["request"];
    assert_eq!(
        request["input"][0],
        json!({"id": "cmp_2", "encrypted_content": "enc_2", "type": "compaction"})
    );
    assert_eq!(request["instructions"], "Newer rules.");
    let expected = assert_exports_as_pydantic_ai("compaction-trim-unplanted");
    let input = &expected["openai-responses"]["request"]["input"];
    assert_eq!(
        (&input[1]["content"], &input[2]["type"]),
        (&json!("Also standing."), &json!("compaction"))
    );
    // Anthropic trims at the later compaction, whose summary makes it a boundary for it.
    assert_eq!(
        expected["anthropic"]["request"]["messages"][0]["content"][0]["content"],
        "Summary two."
    );
}

/// A user prompt, then an Anthropic response of `part` alone.
fn anthropic_response(part: Value) -> Vec<msgflow_wire::ModelMessage> {
    response_from("anthropic", part)
}

/// A user prompt, then a response of `part` alone from `provider_name`.
fn response_from(provider_name: &str, part: Value) -> Vec<msgflow_wire::ModelMessage> {
    let value = json!([
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "q", "timestamp": "2025-01-01T00:00:00Z"}]},
        {"kind": "response", "parts": [part], "provider_name": provider_name, "timestamp": "2025-01-01T00:00:00Z"}
    ]);
    msgflow_wire::from_str(&value.to_string()).unwrap()
}

/// Anthropic's own web search, web fetch and MCP parts go back to it as `server_tool_use`,
/// `mcp_tool_use` and their result blocks (with the caller of a call made from code execution);
/// an advisor call, a tool no mapping knows and a result of the wrong shape send nothing, and a
/// call nothing answers is dropped before the user turn after it. OpenAI leaves them all out.
#[test]
fn anthropic_server_tool_parts_go_back_as_its_blocks() {
    let expected = assert_exports_as_pydantic_ai("native-anthropic");
    let anthropic = expected["anthropic"]["request"].to_string();
    for block in [
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "caller",
    ] {
        assert!(anthropic.contains(block), "{block}: {anthropic}");
    }
    assert!(!anthropic.contains("srv_7"), "{anthropic}");
    assert!(!expected["openai-responses"]["request"].to_string().contains("srv_"));
}

/// OpenAI's own server-side tool parts go back to OpenAI Responses as the items its server resolves
/// by id (a result's status written to its call's item); a call without what its item needs, a
/// web fetch and the results send nothing. Anthropic and OpenAI Chat leave them out.
#[test]
fn openai_server_tool_parts_go_back_to_openai_responses_as_its_items() {
    let expected = assert_exports_as_pydantic_ai("native-openai");
    let responses = expected["openai-responses"]["request"].to_string();
    for item in [
        "web_search_call",
        "code_interpreter_call",
        "file_search_call",
        "image_generation_call",
        "mcp_list_tools",
        "mcp_call",
        "\"failed\"",
    ] {
        assert!(responses.contains(item), "{item}: {responses}");
    }
    for left_out in ["ci_2", "mcp_3", "wf_1"] {
        assert!(!responses.contains(left_out), "{left_out}: {responses}");
    }
    assert!(!expected["anthropic"]["request"].to_string().contains("_call"));
}

/// Anthropic's web search citations go back with their text when the part's own citations cover
/// it whole (in code points), rebuilt from their string fields; a text cited in part, or with no
/// range, goes without them.
#[test]
fn anthropic_web_search_citations_go_back_with_a_text_they_cover() {
    let expected = assert_exports_as_pydantic_ai("cited-text");
    let turn = &expected["anthropic"]["request"]["messages"][1]["content"];
    assert_eq!(turn[0]["citations"].as_array().map(Vec::len), Some(2), "{turn}");
    assert_eq!(turn[1]["citations"].as_array().map(Vec::len), Some(1), "{turn}");
    assert!(
        turn[2].get("citations").is_none() && turn[3].get("citations").is_none(),
        "{turn}"
    );
}

/// OpenAI's URL citations whose range (in code points) still holds their URL, and its file
/// citations, go back as the annotations of a text sent with its item id; the others are left out.
#[test]
fn openai_citations_go_back_as_the_annotations_of_their_text() {
    let expected = assert_exports_as_pydantic_ai("responses-citations");
    let annotations = &expected["openai-responses"]["request"]["input"][1]["content"][0]["annotations"];
    assert_eq!(annotations.as_array().map(Vec::len), Some(3), "{annotations}");
}

/// Anthropic's code execution goes back as `server_tool_use` and the result block of its tool
/// variant (recorded, named, or read from the result's content type); a result that is neither
/// an object nor a list sends nothing.
#[test]
fn anthropic_code_execution_goes_back_as_the_block_of_its_variant() {
    let expected = assert_exports_as_pydantic_ai("native-code-execution");
    let turn = expected["anthropic"]["request"]["messages"][1]["content"].to_string();
    for block in [
        "\"code_execution_tool_result\"",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
    ] {
        assert!(turn.contains(block), "{block}: {turn}");
    }
    assert!(!turn.contains("not an object"), "{turn}");
}

/// A server-side call nothing answers stays when only tool results follow it.
#[test]
fn an_unpaired_server_call_stays_when_only_tool_results_follow() {
    let expected = assert_exports_as_pydantic_ai("native-unpaired-last");
    assert!(expected["anthropic"]["request"].to_string().contains("server_tool_use"));
}

/// The MCP corners pydantic-ai fails on are refused: a tool named `mcp_server` without a server id
/// (its call), and an Anthropic result without the `content` and `is_error` it reads.
#[test]
fn mcp_parts_pydantic_ai_fails_on_are_refused() {
    let unnamed = anthropic_response(
        json!({"part_kind": "builtin-tool-call", "tool_name": "mcp_server", "args": {"tool_name": "t", "tool_args": {}},
        "tool_call_id": "srv_1", "provider_name": "anthropic"}),
    );
    let error = export(&unnamed, Provider::Anthropic).unwrap_err().to_string();
    assert!(error.contains("without a server id"), "{error}");
    let partial = anthropic_response(
        json!({"part_kind": "builtin-tool-return", "tool_name": "mcp_server:docs", "content": {"content": []},
        "tool_call_id": "srv_1", "provider_name": "anthropic", "timestamp": "2025-01-01T00:00:00Z"}),
    );
    let error = export(&partial, Provider::Anthropic).unwrap_err().to_string();
    assert!(error.contains("`is_error`"), "{error}");
    assert!(export(&partial, Provider::OpenAiChat).is_ok());
    // OpenAI Responses reads the server id before the arguments: an MCP call without arguments
    // fails too (found by the live check).
    let bare = response_from(
        "openai",
        json!({"part_kind": "builtin-tool-call", "tool_name": "mcp_server", "args": {},
        "tool_call_id": "mcp_1", "provider_name": "openai"}),
    );
    let error = export(&bare, Provider::OpenAiResponses).unwrap_err().to_string();
    assert!(error.contains("without a server id"), "{error}");
    assert!(export(&bare, Provider::Anthropic).is_ok());
}

/// Harness feedback after a request-scoped prompt in the first request is in the request's
/// opening run of system prompts (every `SystemPromptPart` continues it): `<system>`-tagged user
/// text, not a system message.
#[test]
fn feedback_after_a_request_scoped_prompt_is_framed_user_text() {
    let expected = assert_exports_as_pydantic_ai("feedback-after-scoped");
    let chat = expected["openai-chat"]["request"]["messages"].to_string();
    assert!(
        chat.contains("<system>Please return text or call a tool.</system>"),
        "{chat}"
    );
}

/// Arguments holding `NaN` (which msgflow reads, as pydantic-ai does) are refused, not sent as
/// invalid JSON: pydantic-core reads them as floats, which each SDK writes its own way.
#[test]
fn arguments_holding_nan_are_refused_not_called_invalid() {
    for args in [r#"{"x":NaN}"#, r#""{\"x\": Infinity}""#] {
        let json = format!(
            r#"[{{"parts":[{{"content":"go","part_kind":"user-prompt"}}],"kind":"request"}},{{"parts":[{{"tool_name":"t","args":{args},"tool_call_id":"c1","part_kind":"tool-call"}}],"kind":"response"}},{{"parts":[{{"tool_name":"t","content":"ok","tool_call_id":"c1","part_kind":"tool-return"}}],"kind":"request"}}]"#
        );
        let history = msgflow_wire::from_str(&json).unwrap();
        for provider in Provider::EXPORTABLE {
            let error = export(&history, provider).unwrap_err();
            assert!(error.to_string().contains("NaN"), "{provider}: {error}");
        }
    }
    // Not an object: invalid JSON in pydantic-ai too, sent as such.
    let json = r#"[{"parts":[{"content":"go","part_kind":"user-prompt"}],"kind":"request"},{"parts":[{"tool_name":"t","args":"[NaN]","tool_call_id":"c1","part_kind":"tool-call"}],"kind":"response"},{"parts":[{"tool_name":"t","content":"ok","tool_call_id":"c1","part_kind":"tool-return"}],"kind":"request"}]"#;
    let history = msgflow_wire::from_str(json).unwrap();
    assert!(export(&history, Provider::Anthropic)
        .unwrap()
        .to_string()
        .contains("INVALID_JSON"));
}

/// Instruction state (`_project_instruction_state`): baselines are never sent and the requests'
/// `instructions` go as written; a change of the current window is a system prompt of its
/// block's `<pyai:context>` element, or a `<pyai:context_diff>` against the text it replaces
/// (`base_hash`) when that is shorter; a withdrawal is worded for the channel; a change of an
/// unknown namespace or without an id is left out.
#[test]
fn instruction_changes_of_the_window_go_as_context_elements() {
    let expected = assert_exports_as_pydantic_ai("instructions-window");
    let chat = expected["openai-chat"]["request"]["messages"].to_string();
    assert!(
        chat.contains("<pyai:context_diff id=\\\"capability:plan\\\">\\n--- before\\n+++ after\\n@@ -2,5 +2,5 @@"),
        "{chat}"
    );
    assert!(!chat.contains("Newer") && !chat.contains("Lost"), "{chat}");
    assert!(
        chat.contains("id=\\\"agent:tone\\\">\\nBe \\\"warm\\\" & <brief>"),
        "{chat}"
    );
    let anthropic = expected["anthropic"]["request"].to_string();
    assert!(
        anthropic.contains("the withdrawal stays in effect until replaced again"),
        "{anthropic}"
    );
    // The rendered change keeps the position of the delta as written (after the tool return).
    let (history, _) = fixture("instructions-window");
    let exported = msgflow_providers::openai_chat::export(&history).unwrap();
    let diff_at = exported
        .request
        .messages
        .iter()
        .position(|message| serde_json::to_string(message).unwrap().contains("pyai:context_diff"));
    let origin = &exported.origins[diff_at.unwrap()];
    assert_eq!((origin.start.message, origin.start.part), (2, 1));
}

/// Changes from before the latest baseline are superseded, and in the request the window opens
/// at only those after the baseline count.
#[test]
fn instruction_changes_before_the_window_are_left_out() {
    let expected = assert_exports_as_pydantic_ai("instructions-superseded");
    let chat = expected["openai-chat"]["request"].to_string();
    assert!(!chat.contains("Old plan") && !chat.contains("Older plan"), "{chat}");
    assert!(chat.contains("Plan C") && chat.contains("Plan D"), "{chat}");
}

/// A compaction ends the instruction window: the change before it is left out, the one after it
/// has no baseline value to be a diff against.
#[test]
fn a_compaction_ends_the_instruction_window() {
    let expected = assert_exports_as_pydantic_ai("instructions-compaction");
    let chat = expected["openai-chat"]["request"].to_string();
    assert!(!chat.contains("Notes 2") && chat.contains("Notes 3"), "{chat}");
}

/// A loaded capability's block is stated across windows until a compaction; its first change
/// goes in full, the next one as a diff against it.
#[test]
fn a_loaded_capabilitys_block_is_stated_across_windows() {
    let expected = assert_exports_as_pydantic_ai("instructions-loaded");
    let chat = expected["openai-chat"]["request"]["messages"].to_string();
    assert!(
        chat.contains("<pyai:context id=\\\"capability:docs\\\">\\nStep 1"),
        "{chat}"
    );
    assert!(
        chat.contains("<pyai:context_diff id=\\\"capability:docs\\\">"),
        "{chat}"
    );
}

/// The instruction fallback reads the projected requests: a request left with tool results only
/// once its baseline is dropped takes the instructions before it; a change makes a request more
/// than tool results.
#[test]
fn the_instruction_fallback_reads_the_projected_requests() {
    let expected = assert_exports_as_pydantic_ai("instructions-fallback");
    assert_eq!(
        expected["openai-responses"]["request"]["instructions"],
        "Answer in one line."
    );
    let expected = assert_exports_as_pydantic_ai("instructions-change-last");
    assert_eq!(expected["openai-responses"]["request"].get("instructions"), None);
}

/// A change leading the first request is part of its standing prompt; a request of a baseline
/// alone is an empty request, which as the first request holds no standing prompt.
#[test]
fn instruction_changes_take_their_place_around_the_standing_prompt() {
    let expected = assert_exports_as_pydantic_ai("instructions-standing");
    let system = expected["anthropic"]["request"]["system"].as_str().unwrap();
    assert!(
        system.ends_with("<pyai:context id=\"capability:plan\">\nP2\n</pyai:context>\n\nStanding."),
        "{system}"
    );
    let expected = assert_exports_as_pydantic_ai("instructions-empty-request");
    assert_eq!(
        expected["anthropic"]["request"]["messages"][0]["content"][0]["text"],
        "<system>Standing.</system>"
    );
}

/// An instruction id in its object form (which pydantic-ai's validation also takes) is refused,
/// naming the part.
#[test]
fn an_instruction_id_in_object_form_is_refused() {
    let json = r#"[{"parts":[{"content":"go","part_kind":"user-prompt"},{"id":{"source":{"id":"x"},"name":null},"content":"c","part_kind":"instruction-delta"}],"kind":"request"}]"#;
    let history = msgflow_wire::from_str(json).unwrap();
    for provider in Provider::EXPORTABLE {
        let error = export(&history, provider).unwrap_err();
        assert!(
            matches!(&error, ExportError::Unsupported { message: 0, part: 1, path, .. } if path == "$[0].parts[1].id"),
            "{provider}: {error}"
        );
    }
}

/// A response's compaction ends the instruction window and every capability load: the loaded
/// block's first change is left out with the window before it, a later one is a change of the new
/// window, in full.
#[test]
fn a_compaction_ends_the_loads_of_capabilities_too() {
    let expected = assert_exports_as_pydantic_ai("instructions-load-compacted");
    let chat = expected["openai-chat"]["request"].to_string();
    assert!(!chat.contains("D1") && !chat.contains("A1"), "{chat}");
    assert!(
        chat.contains("<pyai:context id=\\\"capability:docs\\\">\\nD2"),
        "{chat}"
    );
}

/// A baseline recording a loaded capability's block makes it the prefix's: its next change is a
/// diff against the baseline's value.
#[test]
fn a_baseline_takes_over_a_loaded_capabilitys_block() {
    let expected = assert_exports_as_pydantic_ai("instructions-load-taken-over");
    let chat = expected["openai-chat"]["request"].to_string();
    assert!(
        chat.contains("<pyai:context_diff id=\\\"capability:docs\\\">"),
        "{chat}"
    );
}

/// The corners of ids and of `render`: ids with empty segments (`capability:` is a loaded block,
/// `capability:docs:` is not), escaped in the element; a change is a loaded block's only after
/// the load; a change equal to the value it replaces is an empty diff; the diff's length is
/// counted in code points (the full text is shorter here in code points, not in bytes).
#[test]
fn instruction_ids_and_diff_lengths_are_read_as_pydantic_ai_reads_them() {
    let expected = assert_exports_as_pydantic_ai("instructions-corners");
    let chat = expected["openai-chat"]["request"].to_string();
    assert!(
        !chat.contains("Before the load") && !chat.contains("Left out"),
        "{chat}"
    );
    assert!(chat.contains("<pyai:context id=\\\"capability:\\\">"), "{chat}");
    assert!(chat.contains("toolset:a&amp;&lt;&quot;b&#x27;&gt;"), "{chat}");
    assert!(
        chat.contains("<pyai:context_diff id=\\\"capability:docs\\\">\\n\\n</pyai:context_diff>"),
        "{chat}"
    );
    assert!(chat.contains("<pyai:context id=\\\"run:x\\\">"), "{chat}");
}

/// A first request after a response: `_wrap_non_leading_system_prompts` counts two standing
/// prompts before `_tool_results_first` moves the result ahead of them, so after the move the
/// first stays the system prompt and the second, pushed past the count, is a `<system>` block.
#[test]
fn a_standing_prompt_the_tool_results_push_back_is_wrapped() {
    let expected = assert_exports_as_pydantic_ai("standing-prompt-behind-results");
    let anthropic = &expected["anthropic"]["request"];
    assert!(anthropic["system"].as_str().unwrap().ends_with("Standing."));
    let blocks = &anthropic["messages"][1]["content"];
    assert_eq!(blocks[0]["type"], "tool_result");
    assert_eq!(blocks[1]["text"], "<system>Also standing.</system>");
}

/// A tool-availability delta's request, the history's first, opened by a request-scoped prompt:
/// that prompt ends the standing prompt before it moves to the tail, so
/// `_announce_tool_availability_delta_messages` sorts the tool result ahead of the conversation
/// prompt after it (found by the live check on an arbitrary history).
#[test]
fn a_request_scoped_prompt_ends_the_standing_prompt_the_delta_sort_keeps() {
    let expected = assert_exports_as_pydantic_ai("delta-after-request-scoped-prompt");
    let blocks = &expected["anthropic"]["request"]["messages"][0]["content"];
    assert_eq!(blocks[0]["type"], "tool_result");
    assert_eq!(blocks[1]["text"], "<system>Be careful.</system>");
}

/// The text of the tool result answering `call_1` in the OpenAI Responses request.
fn responses_tool_output(expected: &Value) -> String {
    let input = expected["openai-responses"]["request"]["input"].as_array().unwrap();
    let output = input
        .iter()
        .find(|item| item["type"] == "function_call_output")
        .map(|item| item["output"].clone())
        .unwrap();
    output.as_str().map_or_else(|| output.to_string(), str::to_owned)
}

/// A binary item nested in an object is rebuilt (`ToolReturnContent`) and written in the output's
/// text as pydantic-ai dumps it: its keys in the dataclass's order, the key it does not declare
/// (with the lookalike in it) dropped, its data as URL-safe padded base64, its identifier computed.
#[test]
fn a_binary_item_nested_in_an_object_is_sent_as_its_dump() {
    let expected = assert_exports_as_pydantic_ai("tool-file-nested-in-object");
    let output = responses_tool_output(&expected);
    assert!(
        output.starts_with(r#"{"shots":[{"data":"iVBORw0KGgo"#)
            && output.contains(r#"42mNk-M9Q"#)
            && output.contains(r#"ErkJggg==","media_type":"image/png","vendor_metadata":null"#),
        "{output}"
    );
    assert!(
        output.contains(r#""kind":"binary","identifier":"4a5eb7"}],"n":1}"#),
        "{output}"
    );
    assert!(!output.contains("label"), "{output}");
}

/// In a nested list the item is data too, next to a file of the content list itself, which Chat
/// relocates to a user message and the others send as a file.
#[test]
fn a_binary_item_in_a_nested_list_is_data_next_to_a_top_level_file() {
    let expected = assert_exports_as_pydantic_ai("tool-file-nested-list");
    let chat = expected["openai-chat"]["request"]["messages"].to_string();
    assert!(chat.contains("See file 4a5eb7."), "{chat}");
    assert!(chat.contains(r#"[{\\\"data\\\":"#), "{chat}");
}

/// URL and uploaded-file items load as files only as the result's record says: recorded ones are
/// rebuilt (the URL item keeps its `force_download`), and under an empty record they stay as written.
#[test]
fn nested_url_items_are_rebuilt_only_when_recorded() {
    let recorded = responses_tool_output(&assert_exports_as_pydantic_ai("tool-file-nested-url-recorded"));
    assert!(
        recorded.contains(r#""upload":{"file_id":"file-abc123","provider_name":"openai","vendor_metadata":null,"kind":"uploaded-file","media_type":"application/octet-stream","identifier":"3a1a6c"}"#),
        "{recorded}"
    );
    assert!(
        recorded.contains(r#""other":{"kind":"image-url","url":"https://e.com/b.png","media_type":null}"#),
        "{recorded}"
    );
    let unrecorded = responses_tool_output(&assert_exports_as_pydantic_ai("tool-file-nested-url-not-recorded"));
    assert!(
        unrecorded.contains(r#""upload":{"kind":"uploaded-file","file_id":"file-abc123","provider_name":"openai"}"#),
        "{unrecorded}"
    );
}

/// A result saved before records existed rebuilds an `http(s)` URL item with a `media_type` key
/// (resetting `force_download`, dropping other keys) and nothing else.
#[test]
fn a_result_without_a_record_rebuilds_only_http_url_items() {
    let output = responses_tool_output(&assert_exports_as_pydantic_ai("tool-file-nested-url-unrecorded"));
    assert!(
        output.starts_with(r#"[{"a":{"url":"HTTPS://example.com/report.pdf","force_download":false,"vendor_metadata":null,"kind":"document-url","media_type":"application/pdf","identifier":"edfb27"}}"#),
        "{output}"
    );
    assert!(
        output.contains(r#"{"b":{"kind":"image-url","url":"gs://bucket/a.png""#),
        "{output}"
    );
}

/// A failed result's text holds the dumps; binary content whose data does not decode stays a
/// mapping, and the lookalike in it gets its note.
#[test]
fn undecodable_binary_content_stays_data_with_its_lookalike() {
    let expected = assert_exports_as_pydantic_ai("tool-file-nested-failed");
    let anthropic = expected["anthropic"]["request"]["messages"].to_string();
    assert!(
        anthropic.contains(r#"\"bad\":{\"kind\":\"binary\",\"data\":\"YR==\""#),
        "{anthropic}"
    );
    assert!(
        anthropic.contains("contains text written to look like instructions"),
        "{anthropic}"
    );
}

/// A `content_file_digests` list holding anything but strings is a history pydantic-ai does not
/// load: refused at the record.
#[test]
fn a_record_holding_other_than_strings_is_refused() {
    let history = msgflow_wire::from_str(
        r#"[{"kind":"request","parts":[{"part_kind":"tool-return","tool_name":"fetch","tool_call_id":"call_1","content":{"a":{"kind":"image-url","url":"https://e.com/a.png","media_type":null}},"content_file_digests":[1]}]}]"#,
    )
    .unwrap();
    for provider in Provider::EXPORTABLE {
        let error = export(&history, provider).unwrap_err();
        assert!(
            matches!(&error, ExportError::Unsupported { path, .. } if path == "$[0].parts[0].content_file_digests"),
            "{provider}: {error}"
        );
    }
}

/// pydantic-ai's typed local tool parts (`LoadCapabilityCallPart`, `LoadCapabilityReturnPart`,
/// `ToolSearchCallPart`, `ToolSearchReturnPart`) go as any call and return, their object arguments
/// and content validated as their kind's TypedDict: declared keys first, the extra ones after.
#[test]
fn typed_local_tool_parts_go_with_their_declared_keys_first() {
    let expected = assert_exports_as_pydantic_ai("typed-local");
    let chat = &expected["openai-chat"]["request"]["messages"];
    let calls = &chat[2]["tool_calls"];
    assert_eq!(calls[0]["function"]["arguments"], r#"{"id":"budget","reason":"asked"}"#);
    // JSON-string arguments are not validated: their keys stay in the order written. A left-out
    // `tool_name` is the class's literal.
    assert_eq!(calls[1]["function"]["arguments"], r#"{"why":1,"id":"web"}"#);
    assert_eq!(calls[4]["function"]["name"], "search_tools");
    // The results go in the order of their calls (`_order_tool_results_by_call`).
    assert_eq!(
        chat[3]["content"],
        r#"{"message":"Loaded budget.","instructions":"Use the budget tools.","extra":true}"#
    );
    assert_eq!(
        chat[5]["content"],
        r#"{"discovered_tools":[{"name":"read_pdf","score":0.5},{"name":"read_csv"}],"message":"Two found.","note":{"b":1,"a":2}}"#
    );
    // A failed tool-search return is a base part: its content as written, as an error.
    let anthropic = expected["anthropic"]["request"]["messages"][2]["content"].to_string();
    assert!(anthropic.contains("search failed"), "{anthropic}");
}

/// Server-side tool searches: Anthropic sends back its own (`server_tool_use` of the joined
/// queries, by strategy, and a `tool_search_tool_result`), every other becomes the local
/// `search_tools` exchange, its result a request of its own between the response's parts.
#[test]
fn server_side_tool_searches_go_back_native_or_as_the_local_exchange() {
    let expected = assert_exports_as_pydantic_ai("typed-native-search");
    let anthropic = &expected["anthropic"]["request"]["messages"];
    let turn = &anthropic[1]["content"];
    assert_eq!(turn[1]["name"], "tool_search_tool_bm25");
    assert_eq!(turn[1]["input"], json!({"query": "pdf reader"}));
    assert_eq!(turn[1]["caller"], json!({"type": "direct"}));
    assert_eq!(turn[2]["content"]["tool_references"], json!([]));
    assert_eq!(turn[3]["name"], "tool_search_tool_regex");
    assert_eq!(turn[3]["input"], json!({"pattern": "csv"}));
    assert_eq!(turn[4]["content"]["error_code"], "too_many_requests");
    // OpenAI's search, to Anthropic: a `search_tools` call, its result in a user turn of its own.
    assert_eq!(anthropic[3]["content"][0]["name"], "search_tools");
    assert_eq!(anthropic[4]["content"][0]["type"], "tool_result");
    let responses = &expected["openai-responses"]["request"]["input"];
    let calls = responses
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["name"] == "search_tools")
        .count();
    assert_eq!(calls, 4);
}

/// A server-side part of the `capability-load` kind has no typed class: sent as its tool's.
#[test]
fn a_server_side_capability_load_part_is_a_base_part() {
    let expected = assert_exports_as_pydantic_ai("typed-native-capability-load");
    let turn = &expected["anthropic"]["request"]["messages"][1]["content"];
    assert_eq!(turn[0]["type"], "server_tool_use");
    assert_eq!(turn[1]["type"], "web_search_tool_result");
}

/// A `load_capability` exchange loads its capability: its block's changes are stated whatever the
/// instruction window, while those of a capability whose load failed are not.
#[test]
fn a_load_capability_exchange_loads_the_capability_block() {
    let expected = assert_exports_as_pydantic_ai("typed-instructions-load");
    let chat = expected["openai-chat"]["request"].to_string();
    assert!(chat.contains("Track every cent."), "{chat}");
    assert!(!chat.contains("Cite sources."), "{chat}");
}

/// A tool search whose result becomes the first request: for Anthropic the history's standing
/// prompt is a `<system>` block, and the announcement joining that first request is the system
/// prompt.
#[test]
fn a_tool_search_result_ahead_of_the_first_request_becomes_the_first_request() {
    let expected = assert_exports_as_pydantic_ai("typed-native-search-first");
    let anthropic = &expected["anthropic"]["request"];
    assert!(anthropic["system"]
        .as_str()
        .unwrap()
        .starts_with("Mid-conversation system messages"));
    assert_eq!(
        anthropic["messages"][2]["content"][0]["text"],
        "<system>Be brief.</system>"
    );
}

/// A tool search's result after the last request is the last request, which the current
/// request-scoped prompts join; the request they leave without parts is left out.
#[test]
fn request_scoped_prompts_join_a_tool_search_result_after_the_last_request() {
    let expected = assert_exports_as_pydantic_ai("typed-native-search-after-scoped");
    let chat = &expected["openai-chat"]["request"]["messages"];
    assert_eq!(chat.as_array().unwrap().last().unwrap()["content"], "For this turn.");
    let expected = assert_exports_as_pydantic_ai("typed-native-search-after-scoped-only");
    let chat = &expected["openai-chat"]["request"]["messages"];
    assert_eq!(chat[3]["tool_calls"][0]["function"]["name"], "search_tools");
    assert_eq!(chat[5]["content"], "Only now.");
}

/// An answered request-scoped prompt is dropped before `_announce_tool_availability_delta_messages`
/// counts the standing prompt it keeps in front, so the system prompt after it stays ahead of the
/// tool result the sort moves (found by the live check).
#[test]
fn an_answered_request_scoped_prompt_ends_no_standing_prompt_for_the_delta_sort() {
    let expected = assert_exports_as_pydantic_ai("delta-after-answered-request-scoped-prompt");
    let chat = &expected["openai-chat"]["request"]["messages"];
    assert_eq!(
        (&chat[1]["content"], &chat[2]["role"]),
        (&json!("Also standing."), &json!("tool"))
    );
    let blocks = &expected["anthropic"]["request"]["messages"][0]["content"];
    assert_eq!(blocks[0]["text"], "<system>Also standing.</system>");
    assert_eq!(blocks[1]["type"], "tool_result");
}

/// A last request that a tool-availability delta and a context statement opening nothing leave
/// empty is gone before the current request-scoped prompt moves to the last request: the prompt
/// stays at the end of the request before it, and so do the instructions (found by the live check).
#[test]
fn a_request_left_empty_by_its_context_statements_takes_no_request_scoped_prompt() {
    let expected = assert_exports_as_pydantic_ai("scoped-prompt-before-emptied-last-request");
    let anthropic = &expected["anthropic"]["request"];
    assert!(anthropic.get("system").is_none(), "{anthropic}");
    let blocks = &anthropic["messages"][2]["content"];
    assert_eq!(
        (&blocks[0]["text"], &blocks[1]["text"]),
        (&json!("Next"), &json!("<system>Only for this turn.</system>"))
    );
    // Responses keeps the delta for its mapping, so the last request stays, with its instructions.
    assert_eq!(expected["openai-responses"]["request"]["instructions"], "Be exact.");
}

/// The model's speech without a transcript is taken out before a tool search is translated, so
/// it leaves no response ahead of the result's request; the speech with one is the response after.
#[test]
fn speech_without_a_transcript_makes_no_response_around_a_tool_search_result() {
    let expected = assert_exports_as_pydantic_ai("typed-native-search-speech");
    let chat = &expected["openai-chat"]["request"]["messages"];
    assert_eq!(chat[1]["tool_calls"][0]["function"]["name"], "search_tools");
    assert_eq!(chat[3]["content"], "Found it.");
}

/// A server-side part pydantic-ai fails on only when it maps it is refused only where the trim
/// before a compaction keeps it: before the boundary it is never mapped, and the request is sent.
#[test]
fn a_part_pydantic_ai_fails_to_map_is_refused_only_where_the_compaction_trim_keeps_it() {
    let expected = assert_exports_as_pydantic_ai("compaction-trim-drops-unmappable");
    assert_eq!(
        expected["anthropic"]["request"]["messages"][0]["content"][0]["type"],
        "compaction"
    );
    let (history, expected) = fixture("compaction-trim-keeps-unmappable");
    assert!(expected["anthropic"]["refused"].as_str().unwrap().contains("is_error"));
    let error = export(&history, Provider::Anthropic).unwrap_err();
    assert!(
        matches!(&error, ExportError::Refused { path, reason, .. }
            if path == "$[1].parts[1]" && reason.contains("`is_error`")),
        "{error}"
    );
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        assert_eq!(
            export(&history, provider).unwrap(),
            expected[provider.name()]["request"],
            "{provider}"
        );
    }
}

/// pydantic-ai maps a history in order and stops at the first part it fails on: a URL it would
/// download stops it before a later server-side part its mapping fails on, and the part before
/// the URL stops it first (found by review; OpenAI's mappings send neither part).
#[test]
fn the_first_part_pydantic_ai_fails_on_in_mapping_order_is_the_refusal() {
    let location = |name: &str, provider: Provider| {
        let (history, expected) = fixture(name);
        let refused = expected[provider.name()]["refused"].as_str().unwrap().to_owned();
        let error = export(&history, provider).unwrap_err();
        let downloads = matches!(error, ExportError::NeedsDownload { .. });
        assert_eq!(
            downloads,
            refused.starts_with("DownloadRefused"),
            "{name} / {provider}: {error}"
        );
        error.location().map(|at| (at.message, at.part))
    };
    for provider in Provider::EXPORTABLE {
        assert_eq!(
            location("unmappable-after-download", provider),
            Some((0, 0)),
            "{provider}"
        );
    }
    assert_eq!(
        location("unmappable-before-download", Provider::Anthropic),
        Some((1, 0))
    );
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        assert_eq!(
            location("unmappable-before-download", provider),
            Some((2, 0)),
            "{provider}"
        );
    }
}

/// A URL item at the top level of a tool result, recorded, is sent as a file: Anthropic's image
/// block by URL, Chat's relocated user message (the tool message saying `See file <identifier>.`),
/// Responses' `input_image`; audio and video become pydantic-ai's note, which names a URL's media
/// type when it is inferred and never a size.
#[test]
fn a_recorded_url_item_in_a_tool_result_is_sent_as_a_file() {
    let expected = assert_exports_as_pydantic_ai("tool-file-url-top-level");
    let anthropic = expected["anthropic"]["request"]["messages"].to_string();
    assert!(
        anthropic.contains(r#"{"source":{"type":"url","url":"https://example.com/chart.png"},"type":"image"}"#),
        "{anthropic}"
    );
    assert!(
        anthropic.contains("File song (audio/mpeg) was not sent: this model cannot read audio files."),
        "{anthropic}"
    );
    assert!(
        anthropic.contains("File eed4ca was not sent: this model cannot read video."),
        "{anthropic}"
    );
    let chat = expected["openai-chat"]["request"]["messages"].to_string();
    assert!(chat.contains("See file c198f8."), "{chat}");
    assert!(chat.contains(r#"file_id=\"c198f8\""#), "{chat}");
    let responses = responses_tool_output(&expected);
    assert!(
        responses.contains(r#""image_url":"https://example.com/chart.png","type":"input_image","detail":"high""#),
        "{responses}"
    );
}

/// Without a record an `http(s)` URL item loads as a file too, its `force_download` reset; a
/// failed result sends its error text, then the file.
#[test]
fn an_unrecorded_http_url_item_and_a_failed_result_send_their_files() {
    let unrecorded = assert_exports_as_pydantic_ai("tool-file-url-unrecorded");
    assert!(
        responses_tool_output(&unrecorded).contains("input_image"),
        "{unrecorded}"
    );
    let failed = assert_exports_as_pydantic_ai("tool-file-url-failed");
    assert!(
        responses_tool_output(&failed).starts_with(r#"[{"type":"input_text","text":"{\"error\":\"partial\"}"}"#),
        "{failed}"
    );
}

/// An uploaded file goes by its id to the provider whose store holds it; OpenAI's models refuse
/// it, as pydantic-ai does.
#[test]
fn an_uploaded_file_in_a_tool_result_goes_only_to_its_provider() {
    let (history, expected) = fixture("tool-file-uploaded-anthropic");
    assert_eq!(
        export(&history, Provider::Anthropic).unwrap(),
        expected["anthropic"]["request"]
    );
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        assert!(expected[provider.name()]["refused"].is_string(), "{provider}");
        let error = export(&history, provider).unwrap_err();
        assert!(
            error.to_string().contains("in `anthropic`'s file store"),
            "{provider}: {error}"
        );
    }
}

/// A URL pydantic-ai would download first (a PDF's on Chat, a `force_download` one everywhere) is
/// refused, as in a user prompt; the providers that take the URL get it.
#[test]
fn a_url_pydantic_ai_would_download_from_a_tool_result_is_refused() {
    let (history, expected) = fixture("tool-file-document-url");
    for provider in [Provider::Anthropic, Provider::OpenAiResponses] {
        assert_eq!(
            export(&history, provider).unwrap(),
            expected[provider.name()]["request"],
            "{provider}"
        );
    }
    assert!(expected["openai-chat"]["refused"].is_string());
    let error = export(&history, Provider::OpenAiChat).unwrap_err();
    assert!(matches!(error, ExportError::NeedsDownload { .. }), "{error}");
    let (history, expected) = fixture("tool-file-url-force-download");
    for provider in Provider::EXPORTABLE {
        assert!(expected[provider.name()]["refused"].is_string(), "{provider}");
        let error = export(&history, provider).unwrap_err();
        assert!(
            matches!(&error, ExportError::NeedsDownload { why, .. } if why == "`force_download`"),
            "{provider}: {error}"
        );
    }
}

/// pydantic-ai gives a tool part without an id a random one of its own on load (so a call and its
/// result without ids never share one); the export gives each `msgflow_call_<message>_<part>`,
/// the id `repair` gives such a call (`cargo xtask conformance --only realworld` compares it with
/// pydantic-ai's request, generated ids masked).
#[test]
fn a_tool_part_without_an_id_is_sent_with_one_of_its_own() {
    let history = msgflow_wire::from_str(
        r#"[{"kind":"request","parts":[{"part_kind":"user-prompt","content":"go"}]},
            {"kind":"response","parts":[{"part_kind":"tool-call","tool_name":"t","args":{}}]},
            {"kind":"request","parts":[{"part_kind":"tool-return","tool_name":"t","content":"ok","tool_call_id":""}]}]"#,
    )
    .unwrap();
    let request = export(&history, Provider::Anthropic).unwrap();
    assert_eq!(request["messages"][1]["content"][0]["id"], "msgflow_call_1_0");
    assert_eq!(request["messages"][2]["content"][0]["tool_use_id"], "msgflow_call_2_0");
    let chat = export(&history, Provider::OpenAiChat).unwrap();
    assert_eq!(chat["messages"][1]["tool_calls"][0]["id"], "msgflow_call_1_0");
}

/// A base `tool_search` part (no typed `tool-search` kind) is refused only where a mapping sends
/// it back by its name: one no mapping replays (no provider, no return) is left out, as pydantic-ai
/// leaves it out (found on pydantic-ai's own `test_tool_search.py` history by `cargo xtask
/// conformance --only realworld`).
#[test]
fn a_base_tool_search_part_no_mapping_replays_is_left_out() {
    let call = |provider: &str| {
        format!(
            r#"[{{"kind":"request","parts":[{{"part_kind":"user-prompt","content":"hi"}}]}},
                {{"kind":"response","parts":[{{"part_kind":"text","content":"ok"}},{{"part_kind":"builtin-tool-call","tool_name":"tool_search","args":{{}},"tool_call_id":"c3"{provider}}}]}}]"#
        )
    };
    let left_out = msgflow_wire::from_str(&call("")).unwrap();
    for provider in Provider::EXPORTABLE {
        let request = export(&left_out, provider).unwrap_or_else(|error| panic!("{provider}: {error}"));
        assert!(!request.to_string().contains("c3"), "{provider}: {request}");
    }
    let replayed = msgflow_wire::from_str(&call(r#","provider_name":"anthropic""#)).unwrap();
    let error = export(&replayed, Provider::Anthropic).unwrap_err().to_string();
    assert!(error.contains("`tool_search`"), "{error}");
}
