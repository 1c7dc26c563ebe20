//! Server-side tool parts and typed tool parts as pydantic-ai 2.68.0's mappings send them back:
//! Anthropic's own blocks, OpenAI Responses' items by id, replayed citations, tool searches
//! (native or translated to the local `search_tools` exchange), capability loads, and the parts
//! pydantic-ai fails to map. The expected requests are what pydantic-ai's own mapping built
//! (`tests/fixtures/providers/parts-*.expected.json`, see `parts.rs`).

mod parts_fixtures;

use msgflow_providers::{export, ExportError, Provider};
use serde_json::json;

use parts_fixtures::{anthropic_response, assert_exports_as_pydantic_ai, fixture, response_from};

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

/// When the only request holds nothing but request-scoped prompts, they join the tool search's
/// request after it and the first request is left out: that result's request is the first one
/// sent, before a compaction trim too, and the instructions go with the request left out.
#[test]
fn request_scoped_prompts_leave_the_only_request_for_a_tool_search_result() {
    let expected = assert_exports_as_pydantic_ai("typed-native-search-after-scoped-first");
    let anthropic = &expected["anthropic"]["request"]["messages"];
    assert_eq!(anthropic[0]["content"][0]["name"], "search_tools");
    assert_eq!(anthropic[1]["content"][1]["text"], "<system>Only now.</system>");
    // The request left out takes its instructions: none are sent, and no announcement.
    let expected = assert_exports_as_pydantic_ai("typed-native-search-after-scoped-first-instructions");
    assert_eq!(expected["anthropic"]["request"].get("system"), None);
    let expected = assert_exports_as_pydantic_ai("typed-native-search-after-scoped-first-compaction");
    let chat = &expected["openai-chat"]["request"]["messages"];
    assert_eq!((&chat[0]["role"], &chat[1]["role"]), (&json!("tool"), &json!("system")));
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
