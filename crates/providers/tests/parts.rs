//! The parts pydantic-ai 2.68.0's `prepare_messages` rewrites or leaves out before its mappings
//! read a history: capability-load, model-settings and tool-availability deltas, realtime speech,
//! system prompts with a `context_id` and request-scoped ones, structured-content items, texts with
//! provider details, server-side tool parts, tool parts of a kind with no typed part,
//! compactions, and instruction baselines and changes (`parts-instructions-*`). The
//! expected requests (`tests/fixtures/providers/parts-*.expected.json`) are what pydantic-ai's own
//! mapping built for each history (`generate_parts.py`, with `oracle/providers_oracle.py`); each
//! case is one the live check (`cargo xtask conformance --only provider`) once found msgflow
//! getting wrong, and the check compares thousands of generated ones on every run.

mod parts_fixtures;

use msgflow_providers::{export, ExportError, Provider};
use serde_json::{json, Value};

use parts_fixtures::{anthropic_response, assert_exports_as_pydantic_ai, fixture, response_from};

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

/// A structured-content item stored without its text is sent the text pydantic-ai renders for it
/// on load (the value printed by pydantic-ai 2.68.0); one under a framing tag does not load.
#[test]
fn structured_content_without_its_text_is_sent_as_pydantic_ai_renders_it() {
    let history = |item: &str| {
        msgflow_wire::from_str(&format!(
            r#"[{{"kind": "request", "parts": [{{"part_kind": "user-prompt", "content": [{item}]}}]}}]"#
        ))
        .unwrap()
    };
    let unrendered =
        history(r#"{"kind": "structured-content", "value": {"a": 1.50, "b": "<x>"}, "description": "State"}"#);
    let request = export(&unrendered, Provider::OpenAiChat).unwrap();
    assert_eq!(
        request["messages"][0]["content"],
        json!([{"type": "text", "text": "State\n{\"a\":1.5,\"b\":\"\\u003cx\\u003e\"}"}])
    );
    let framing = history(r#"{"kind": "structured-content", "value": 1, "tag": "system"}"#);
    let err = export(&framing, Provider::OpenAiChat).unwrap_err();
    assert!(matches!(err, ExportError::Refused { .. }), "{err}");
    assert_eq!(err.path(), Some("$[0].parts[0].content[0].tag"));
    assert!(err.to_string().contains("a built-in framing tag"), "{err}");
}

#[test]
fn a_part_or_item_of_a_kind_pydantic_ai_does_not_have_is_refused_as_pydantic_ai_refuses_it() {
    let cases = [
        (
            r#"[{"kind": "request", "parts": [{"part_kind": "hologram", "content": "x"}]}]"#,
            "$[0].parts[0]",
        ),
        (
            r#"[{"kind": "response", "parts": [{"part_kind": "hologram", "content": "x"}]}]"#,
            "$[0].parts[0]",
        ),
        (
            r#"[{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": ["hi", {"kind": "sticker"}]}]}]"#,
            "$[0].parts[0].content[1]",
        ),
    ];
    for (text, path) in cases {
        let history = msgflow_wire::from_str(text).unwrap();
        for provider in [Provider::Anthropic, Provider::OpenAiChat, Provider::OpenAiResponses] {
            let err = export(&history, provider).unwrap_err();
            assert!(matches!(err, ExportError::Refused { .. }), "{err}");
            assert_eq!(err.path(), Some(path), "{err}");
            assert!(err.to_string().contains("does not load"), "{err}");
        }
    }
}
