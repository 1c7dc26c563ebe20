//! `from anthropic` on the shapes Anthropic requests take, one per test, the located errors, and
//! `to` on what a history holds that a request does not.

use msgflow_formats::{anthropic, convert, Format, LossKind, Report};
use serde_json::{json, Value};

/// The history `from` makes of `request`, as JSON, and its report.
fn from(request: Value) -> (Value, Report) {
    let mut report = Report::default();
    let history = anthropic::from_value(&request, 0, &mut report).expect("a valid Anthropic request");
    let text = msgflow_wire::to_string(&history).unwrap();
    assert!(msgflow_wire::verdict::verdict(&history).is_loadable(), "{text}");
    assert!(msgflow_sanitize::check(&history).is_empty(), "{text}");
    (serde_json::from_str(&text).unwrap(), report)
}

fn error(request: Value) -> (String, String) {
    let err = anthropic::from_value(&request, 0, &mut Report::default()).expect_err("an invalid request");
    (err.path, err.message)
}

#[test]
fn system_string_blocks_and_bare_arrays() {
    let (history, report) = from(json!({
        "model": "claude", "system": "be brief",
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    }));
    assert_eq!(history[0]["parts"][0]["part_kind"], "system-prompt");
    assert_eq!(history[0]["parts"][1]["content"], "hi");
    assert_eq!(history[1]["parts"][0]["content"], "hello");
    assert!(report.losses.iter().any(|loss| loss.path == "$.model"));
    // Text blocks: the system prompt's, then the instructions' (of the last request).
    let (history, _) = from(json!({
        "system": [{"type": "text", "text": "sys"}, {"type": "text", "text": "do this"}],
        "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
                     {"role": "user", "content": "c"}]
    }));
    assert_eq!(history[0]["parts"][0]["content"], "sys");
    assert_eq!(history[2]["instructions"], "do this");
    let (history, _) = from(json!([{"role": "user", "content": [{"type": "text", "text": "x"}]}]));
    assert_eq!(history[0]["parts"][0]["content"], "x");
}

#[test]
fn tool_use_and_results_with_errors_and_retries() {
    let (history, _) = from(json!({"messages": [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "checking"},
            {"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "t2", "name": "weather", "input": {}},
            {"type": "tool_use", "id": "t3", "name": "weather", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "sunny"}], "is_error": false},
            {"type": "tool_result", "tool_use_id": "t2", "content": "boom", "is_error": true},
            {"type": "tool_result", "tool_use_id": "t3", "is_error": true,
             "content": [{"type": "text", "text": "bad city\n\nFix the errors and try again."}]}]}
    ]}));
    let results = &history[2]["parts"];
    assert_eq!(history[1]["parts"][1]["args"], json!({"city": "Paris"}));
    assert_eq!(
        (results[0]["tool_name"].as_str(), results[0]["content"].as_str()),
        (Some("weather"), Some("sunny"))
    );
    assert_eq!(results[1]["outcome"], "failed");
    assert_eq!(
        (results[2]["part_kind"].as_str(), results[2]["content"].as_str()),
        (Some("retry-prompt"), Some("bad city"))
    );
}

#[test]
fn thinking_redacted_thinking_and_carried_reasoning() {
    let (history, _) = from(json!({"messages": [
        {"role": "user", "content": "think"},
        {"role": "user", "content": [{"type": "text", "text": "<assistant_thinking>\nother model\n</assistant_thinking>"}]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "redacted_thinking", "data": "secret"},
            {"type": "text", "text": "done"}]}
    ]}));
    let parts = &history[1]["parts"];
    assert_eq!(history.as_array().unwrap().len(), 2);
    assert_eq!(
        (parts[0]["content"].as_str(), parts[0]["provider_name"].as_str()),
        (Some("other model"), None)
    );
    assert_eq!(
        (parts[1]["signature"].as_str(), parts[1]["provider_name"].as_str()),
        (Some("sig"), Some("anthropic"))
    );
    assert_eq!(
        (parts[2]["id"].as_str(), parts[2]["signature"].as_str()),
        (Some("redacted_thinking"), Some("secret"))
    );
}

#[test]
fn images_and_documents_every_source() {
    let (history, report) = from(json!({"messages": [{"role": "user", "content": [
        {"type": "text", "text": "look"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
        {"type": "image", "source": {"type": "url", "url": "https://x.test/cat.png"}},
        {"type": "document", "source": {"type": "url", "url": "https://x.test/paper.pdf"}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "plain"}},
        {"type": "document", "source": {"type": "file", "file_id": "file_1"}},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="},
         "cache_control": {"type": "ephemeral"}}
    ]}]}));
    let items = history[0]["parts"][0]["content"].as_array().unwrap();
    let kinds: Vec<&str> = items
        .iter()
        .map(|item| item.get("kind").and_then(Value::as_str).unwrap_or("text"))
        .collect();
    assert_eq!(
        kinds,
        [
            "text",
            "binary",
            "image-url",
            "document-url",
            "binary",
            "uploaded-file",
            "binary"
        ]
    );
    assert_eq!(items[4]["media_type"], "text/plain");
    let cache = report
        .losses
        .iter()
        .find(|loss| loss.path.ends_with(".cache_control"))
        .expect("reported");
    assert_eq!(
        (cache.kind, cache.path.as_str()),
        (LossKind::Dropped, "$.messages[0].content[6].cache_control")
    );
}

#[test]
fn files_in_tool_results_are_recorded_as_pydantic_ai_records_them() {
    let (history, _) = from(json!({"messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "fetch", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
            {"type": "text", "text": "chart"},
            {"type": "image", "source": {"type": "url", "url": "https://x.test/chart.png"}},
            {"type": "document", "source": {"type": "file", "file_id": "file_1"}}]}]}
    ]}));
    let result = &history[1]["parts"][0];
    // Every key of the dump, so that pydantic-ai reads them as files and not as JSON data.
    let image = &result["content"][1];
    assert_eq!(
        (image["media_type"].as_str(), image["force_download"].as_bool()),
        (Some("image/png"), Some(false))
    );
    assert!(msgflow_media::is_recorded_file_item(image), "{image}");
    assert!(
        msgflow_media::is_recorded_file_item(&result["content"][2]),
        "{}",
        result["content"][2]
    );
    assert_eq!(result["content_file_digests"].as_array().map(Vec::len), Some(2));
}

#[test]
fn server_tools_mcp_citations_and_compaction() {
    let (history, report) = from(json!({"messages": [
        {"role": "user", "content": "search"},
        {"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [{"type": "web_search_result", "url": "u", "title": "t", "encrypted_content": "e"}]},
            {"type": "server_tool_use", "id": "s2", "name": "bash_code_execution", "input": {"command": "ls"}},
            {"type": "bash_code_execution_tool_result", "tool_use_id": "s2", "content": {"type": "bash_code_execution_result", "stdout": "", "stderr": "", "return_code": 0, "content": []}},
            {"type": "mcp_tool_use", "id": "m1", "name": "lookup", "server_name": "srv", "input": {"k": 1}},
            {"type": "mcp_tool_result", "tool_use_id": "m1", "content": [{"type": "text", "text": "r"}], "is_error": false},
            {"type": "text", "text": "cited", "citations": [
                {"type": "web_search_result_location", "url": "u", "title": "t", "cited_text": "c", "encrypted_index": "i"},
                {"type": "char_location", "cited_text": "d", "document_index": 0, "start_char_index": 0, "end_char_index": 1}]},
            {"type": "compaction", "content": "summary", "encrypted_content": "enc"}
        ]}
    ]}));
    let parts = &history[1]["parts"];
    assert_eq!(
        (parts[0]["tool_name"].as_str(), parts[1]["tool_name"].as_str()),
        (Some("web_search"), Some("web_search"))
    );
    assert_eq!(
        parts[2]["provider_details"],
        json!({"anthropic_tool_name": "bash_code_execution"})
    );
    assert_eq!(
        parts[3]["provider_details"],
        json!({"anthropic_tool_name": "bash_code_execution"})
    );
    assert_eq!(parts[4]["tool_name"], "mcp_server:srv");
    assert_eq!(
        (
            parts[5]["tool_name"].as_str(),
            parts[5]["content"]["is_error"].as_bool()
        ),
        (Some("mcp_server:srv"), Some(false))
    );
    assert_eq!(
        parts[6]["citations"][0]["anchor"],
        json!({"start": 0, "end": 5, "kind": "content"})
    );
    assert_eq!(parts[6]["provider_details"]["citations"].as_array().unwrap().len(), 1);
    assert!(report
        .losses
        .iter()
        .any(|loss| loss.path == "$.messages[1].content[6].citations[1]"));
    assert_eq!(parts[7]["provider_details"], json!({"encrypted_content": "enc"}));
}

#[test]
fn errors_name_the_path_and_what_was_expected() {
    assert_eq!(
        error(json!({"messages": [{"role": "robot", "content": "x"}]})),
        (
            "$.messages[0].role".to_owned(),
            "unknown role `robot`: expected user, assistant or system".to_owned()
        )
    );
    let (path, message) = error(json!({"messages": [{"role": "user", "content": [{"type": "video"}]}]}));
    assert_eq!(path, "$.messages[0].content[0].type");
    assert!(
        message.contains("expected text, image, document or tool_result"),
        "{message}"
    );
    let (path, _) = error(json!({"messages": [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "f", "input": "{}"}]}]}));
    assert_eq!(path, "$.messages[0].content[0].input");
    let (path, message) = error(json!({"messages": [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "not base64!"}}]}]}));
    assert_eq!(path, "$.messages[0].content[0].source.data");
    assert!(message.starts_with("not base64"), "{message}");
    assert_eq!(error(json!({"model": "x"})).0, "$");
    // A response passed for a request is named as one.
    let (path, message) = error(json!({"id": "msg_1", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": "hi"}]}));
    assert_eq!(path, "$");
    assert!(message.contains("this is a Messages response"), "{message}");
    // Located by line and column in the input, through `convert`.
    let text = "{\"messages\": [\n  {\"role\": \"user\", \"content\": 3}\n]}";
    let err = convert(text, Format::Anthropic, Format::PydanticAi).unwrap_err();
    assert_eq!(
        (err.path.as_str(), err.position.map(|(line, _)| line)),
        ("$.messages[0].content", Some(2))
    );
}

#[test]
fn to_reports_what_the_request_cannot_hold() {
    let history = msgflow_wire::from_str(
        r#"[{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi", "timestamp": "2025-01-01T00:00:00Z"}]},
            {"kind": "response", "parts": [{"part_kind": "text", "content": "hello"}], "model_name": "claude-x",
             "timestamp": "2025-01-01T00:00:01Z"}]"#,
    )
    .unwrap();
    let mut report = Report::default();
    let sent = anthropic::to_value(&history, 0, &mut report).unwrap();
    assert_eq!(
        sent["messages"][1],
        json!({"role": "assistant", "content": [{"type": "text", "text": "hello"}]})
    );
    let paths: Vec<&str> = report.losses.iter().map(|loss| loss.path.as_str()).collect();
    assert!(paths.contains(&"$[1].model_name"), "{paths:?}");
    assert!(paths.contains(&"$[0].parts[0].timestamp"), "{paths:?}");
}

#[test]
fn no_value_of_a_real_request_replaced_by_another_shape_panics() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/formats/anthropic");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        assert!(std::env::var_os("CI").is_none(), "{} is missing", dir.display());
        return;
    };
    let replacements = [
        json!(null),
        json!(1),
        json!("x"),
        json!([]),
        json!({}),
        json!([{"type": "text"}]),
    ];
    for entry in entries {
        let original: Value = serde_json::from_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap();
        let mut pointers = Vec::new();
        collect_pointers(&original, String::new(), &mut pointers);
        for pointer in &pointers {
            for replacement in &replacements {
                let mut mutated = original.clone();
                *mutated.pointer_mut(pointer).expect("a pointer of the value") = replacement.clone();
                // An error or a history, never a panic; a history always loads.
                if let Ok(history) = anthropic::from_value(&mutated, 0, &mut Report::default()) {
                    assert!(msgflow_wire::verdict::verdict(&history).is_loadable(), "{pointer}");
                }
            }
        }
    }
}

/// The JSON pointer of every value inside `value` (not the root).
fn collect_pointers(value: &Value, at: String, pointers: &mut Vec<String>) {
    let children: Vec<(String, &Value)> = match value {
        Value::Object(object) => object
            .iter()
            .map(|(key, inner)| (key.replace('~', "~0").replace('/', "~1"), inner))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(index, inner)| (index.to_string(), inner))
            .collect(),
        _ => return,
    };
    for (key, inner) in children {
        let pointer = format!("{at}/{key}");
        pointers.push(pointer.clone());
        collect_pointers(inner, pointer, pointers);
    }
}

#[test]
fn message_batches_lines_convert_one_history_each() {
    let lines = concat!(
        r#"{"custom_id": "a", "params": {"model": "claude", "max_tokens": 10, "messages": [{"role": "user", "content": "one"}]}}"#,
        "\n",
        r#"{"custom_id": "b", "params": {"model": "claude", "max_tokens": 10, "system": "s", "messages": [{"role": "user", "content": "two"}]}}"#,
        "\n"
    );
    let converted = convert(lines, Format::Anthropic, Format::PydanticAi).unwrap();
    let msgflow_formats::Output::Histories(histories) = &converted.output else {
        unreachable!()
    };
    assert_eq!(histories.iter().map(Vec::len).collect::<Vec<_>>(), [1, 1]);
    let custom = converted
        .report
        .losses
        .iter()
        .find(|loss| loss.path == "$.custom_id")
        .expect("reported");
    assert_eq!(
        (custom.document, custom.what.as_str()),
        (0, "batch field `custom_id` (a history holds messages only)")
    );
    assert!(converted
        .report
        .losses
        .iter()
        .any(|loss| loss.document == 1 && loss.path == "$.params.model"));
}

#[test]
fn tool_search_blocks_read_as_pydantic_ai_reads_a_response() {
    let (history, report) = from(json!({"messages": [
        {"role": "user", "content": "find a tool"},
        {"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "s1", "name": "tool_search_tool_bm25", "input": {"query": "pdf reader", "limit": 2},
             "caller": {"type": "code_execution_20250825", "tool_id": "c1"}},
            {"type": "tool_search_tool_result", "tool_use_id": "s1", "content": {"type": "tool_search_tool_search_result",
             "tool_references": [{"type": "tool_reference", "tool_name": "read_pdf"}]}},
            {"type": "server_tool_use", "id": "s2", "name": "tool_search_tool_regex", "input": {"pattern": "csv"}},
            {"type": "tool_search_tool_result", "tool_use_id": "s2", "content": {"type": "tool_search_tool_result_error",
             "error_code": "too_many_requests"}}
        ]}
    ]}));
    let parts = &history[1]["parts"];
    assert_eq!(
        (
            parts[0]["part_kind"].as_str(),
            parts[0]["tool_name"].as_str(),
            parts[0]["tool_kind"].as_str()
        ),
        (Some("builtin-tool-call"), Some("tool_search"), Some("tool-search"))
    );
    assert_eq!(parts[0]["args"], json!({"queries": ["pdf reader"]}));
    assert_eq!(
        parts[0]["provider_details"],
        json!({"strategy": "bm25", "anthropic_caller": {"type": "code_execution_20250825", "tool_id": "c1"}})
    );
    assert_eq!(parts[1]["content"], json!({"discovered_tools": [{"name": "read_pdf"}]}));
    assert_eq!(parts[1]["provider_details"], Value::Null);
    assert_eq!(
        (parts[2]["args"].clone(), parts[2]["provider_details"].clone()),
        (json!({"queries": ["csv"]}), json!({"strategy": "regex"}))
    );
    assert_eq!(parts[3]["content"], json!({"discovered_tools": []}));
    assert_eq!(
        parts[3]["provider_details"],
        json!({"error_code": "too_many_requests", "error_message": null})
    );
    // The query's companions have no place in the typed arguments.
    let dropped = report.paths(LossKind::Dropped);
    assert_eq!(dropped, ["$.messages[1].content[0].input.limit"]);
    // `normalize_tool_search_args`: a query that is not text is none, a missing one is empty.
    let none_found = json!({"type": "tool_search_tool_search_result", "tool_references": []});
    let (history, report) = from(json!({"messages": [
        {"role": "user", "content": "search"},
        {"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "s1", "name": "tool_search_tool_regex", "input": {"pattern": 7}},
            {"type": "tool_search_tool_result", "tool_use_id": "s1", "content": none_found},
            {"type": "server_tool_use", "id": "s2", "name": "tool_search_tool_regex", "input": {}},
            {"type": "tool_search_tool_result", "tool_use_id": "s2", "content": none_found}]}]}));
    assert_eq!(
        (&history[1]["parts"][0]["args"], &history[1]["parts"][2]["args"]),
        (&json!({"queries": []}), &json!({"queries": [""]}))
    );
    assert_eq!(
        report.paths(LossKind::Dropped),
        ["$.messages[1].content[0].input.pattern"]
    );
    assert!(report
        .paths(LossKind::Invented)
        .contains(&"$.messages[1].content[2].input"));
    let (path, message) = error(json!({"messages": [{"role": "assistant", "content": [
        {"type": "tool_search_tool_result", "tool_use_id": "s", "content": {"type": "nothing"}}]}]}));
    assert_eq!(path, "$.messages[0].content[0].content.type");
    assert!(message.contains("tool_search_tool_search_result"), "{message}");
    // What the API requires is refused where it is missing, not read as nothing found.
    for (content, at) in [
        (json!({"type": "tool_search_tool_search_result"}), "tool_references"),
        (
            json!({"type": "tool_search_tool_search_result", "tool_references": null}),
            "tool_references",
        ),
        (
            json!({"type": "tool_search_tool_result_error", "error_message": "slow down"}),
            "error_code",
        ),
        (
            json!({"type": "tool_search_tool_result_error", "error_code": 429}),
            "error_code",
        ),
    ] {
        let (path, message) = error(json!({"messages": [{"role": "assistant", "content": [
            {"type": "tool_search_tool_result", "tool_use_id": "s", "content": content}]}]}));
        assert_eq!(path, format!("$.messages[0].content[0].content.{at}"));
        assert!(message.contains(at), "{message}");
    }
}

/// pydantic-ai's own requests for histories of typed tool search parts (the provider fixtures,
/// recorded from `AnthropicModel`'s mapping) read back into histories it maps to the same
/// requests, but for the framed ones (which `cargo xtask conformance` checks to load).
#[test]
fn tool_search_requests_pydantic_ai_made_come_back_as_they_were_sent() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/providers");
    let (mut read, mut with_blocks) = (0, 0);
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("parts-typed-native-search") && name.ends_with(".expected.json")) {
            continue;
        }
        let expected: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let sent = expected["anthropic"]["request"].clone();
        let text = sent.to_string();
        with_blocks += usize::from(text.contains("\"tool_search_tool_result\""));
        if text.contains("<system>") {
            // Framed text reads back as the framed text, which is framed again when sent.
            continue;
        }
        // Some of them open with a tool search's result whose call the request does not hold.
        let history = anthropic::from_value(&sent, 0, &mut Report::default()).unwrap();
        assert!(msgflow_wire::verdict::verdict(&history).is_loadable(), "{name}");
        let again = anthropic::to_value(&history, 0, &mut Report::default()).unwrap();
        assert_eq!(again["messages"], sent["messages"], "{name}");
        read += 1;
    }
    assert!(read >= 2, "the tool search fixtures: {read} read");
    assert!(with_blocks >= 1, "no fixture request holds tool search blocks");
}

/// A request of an agent that defers its tools, as pydantic-ai 2.68 maps it for `claude-opus-4-8`
/// (`AnthropicModel._map_message` with `read_pdf` and `csv_tool` deferred; no system prompt, so no
/// `system`): a local tool search
/// answered by `tool_reference` blocks, and the tools later requests reveal as `tool_addition`
/// blocks of a `system` entry after their user turn. The history was: a prompt; a
/// `ToolSearchCallPart`; its `ToolSearchReturnPart` and a `ToolAvailabilityDeltaPart(["csv_tool"])`;
/// a text; a prompt and a `ToolAvailabilityDeltaPart(["read_pdf", "csv_tool"])`, of which only
/// `read_pdf` is rendered (`csv_tool` was revealed before).
#[test]
fn deferred_tool_blocks_read_as_the_parts_pydantic_ai_made_them_of() {
    let (history, report) = from(json!({"messages": [
        {"role": "user", "content": [{"text": "find a pdf tool", "type": "text"}]},
        {"role": "assistant", "content": [{"id": "c1", "type": "tool_use", "name": "search_tools", "input": {"queries": ["pdf"]}}]},
        {"role": "user", "content": [{"tool_use_id": "c1", "type": "tool_result",
            "content": [{"tool_name": "read_pdf", "type": "tool_reference"}], "is_error": false}]},
        {"role": "system", "content": [{"type": "tool_addition", "tool": {"type": "tool_reference", "name": "csv_tool"}}]},
        {"role": "assistant", "content": [{"text": "ok", "type": "text"}]},
        {"role": "user", "content": [{"text": "more", "type": "text"}]},
        {"role": "system", "content": [{"type": "tool_addition", "tool": {"type": "tool_reference", "name": "read_pdf"}}]}
    ]}));
    let kinds: Vec<Vec<&str>> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|message| {
            message["parts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|part| part["part_kind"].as_str().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            vec!["user-prompt"],
            vec!["tool-call"],
            vec!["tool-return", "tool-availability-delta"],
            vec!["text"],
            vec!["user-prompt", "tool-availability-delta"]
        ]
    );
    assert_eq!(history[1]["parts"][0]["tool_kind"], "tool-search");
    assert_eq!(
        history[2]["parts"][0],
        json!({"part_kind": "tool-return", "tool_name": "search_tools",
            "content": {"discovered_tools": [{"name": "read_pdf"}]}, "tool_call_id": "c1",
            "tool_kind": "tool-search", "content_file_digests": []})
    );
    assert_eq!(history[2]["parts"][1]["tools_added"], json!(["csv_tool"]));
    assert_eq!(history[4]["parts"][1]["tools_added"], json!(["read_pdf"]));
    assert!(report.paths(LossKind::Dropped).is_empty());
    // A system entry after a response is a request of its own; its texts are system prompts.
    let (history, report) = from(json!({"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "system", "content": [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}},
            {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "a"}},
            {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "b"}}]}
    ]}));
    assert_eq!(
        history[2]["parts"],
        json!([{"part_kind": "system-prompt", "content": "be brief"},
            {"part_kind": "tool-availability-delta", "tools_added": ["a", "b"]}])
    );
    assert_eq!(
        report.paths(LossKind::Dropped),
        ["$.messages[2].content[0].cache_control"]
    );
    assert!(report.paths(LossKind::Invented).contains(&"$.messages[2]"));
    // A call whose arguments are not a search's stays an untyped call (typed, it would not load).
    let (history, _) = from(json!({"messages": [
        {"role": "user", "content": "find"},
        {"role": "assistant", "content": [{"id": "c1", "type": "tool_use", "name": "search_tools", "input": {"q": 1}}]},
        {"role": "user", "content": [{"tool_use_id": "c1", "type": "tool_result",
            "content": [{"tool_name": "read_pdf", "type": "tool_reference"}]}]}
    ]}));
    assert_eq!(history[1]["parts"][0].get("tool_kind"), None);
    assert_eq!(history[2]["parts"][0]["tool_kind"], "tool-search");
    // What is not those blocks is refused where it is.
    for (message, at, expected) in [
        (
            json!({"role": "system", "content": "be brief"}),
            "$.messages[1].content",
            "array of blocks",
        ),
        (
            json!({"role": "system", "content": [{"type": "image"}]}),
            "$.messages[1].content[0].type",
            "tool_addition",
        ),
        (
            json!({"role": "system", "content": [{"type": "tool_addition", "tool": {"type": "tool_reference"}}]}),
            "$.messages[1].content[0].tool",
            "tool_reference",
        ),
        (
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c",
                "content": [{"type": "tool_reference", "tool_name": "a"}, {"type": "text", "text": "x"}]}]}),
            "$.messages[1].content[0].content[1]",
            "tool_reference",
        ),
    ] {
        let (path, message) = error(json!({"messages": [{"role": "user", "content": "hi"}, message]}));
        assert_eq!(path, at);
        assert!(message.contains(expected), "{message}");
    }
}

#[test]
fn an_uploaded_document_gets_a_media_type_only_where_its_id_names_another_kind() {
    let prompt = |file_id: &str| {
        json!([{"role": "user", "content": [
            {"type": "text", "text": "read this"},
            {"type": "document", "source": {"type": "file", "file_id": file_id}}]}])
    };
    // pydantic-ai infers `application/octet-stream` and `application/pdf`: a document either way.
    for file_id in ["file_011", "gs://b/report.pdf"] {
        let (history, report) = from(prompt(file_id));
        assert_eq!(
            history[0]["parts"][0]["content"][1]["media_type"],
            Value::Null,
            "{file_id}"
        );
        assert!(
            !report
                .paths(LossKind::Invented)
                .iter()
                .any(|path| path.contains("source")),
            "{file_id}"
        );
    }
    // A video's extension would make pydantic-ai refuse the upload, a picture's send an image.
    for file_id in ["gs://b/v.mp4", "a.png"] {
        let (history, report) = from(prompt(file_id));
        let item = &history[0]["parts"][0]["content"][1];
        assert_eq!(item["media_type"], "application/octet-stream", "{file_id}");
        assert!(
            report.paths(LossKind::Invented).contains(&"$[0].content[1].source"),
            "{file_id}: {report:?}"
        );
        let back = convert(&history.to_string(), Format::PydanticAi, Format::Anthropic).unwrap();
        let msgflow_formats::Output::Documents(requests) = back.output else {
            unreachable!()
        };
        assert_eq!(
            requests[0]["messages"][0]["content"][1]["type"], "document",
            "{file_id}"
        );
    }
}

#[test]
fn an_uploaded_image_gets_a_media_type_only_where_its_id_names_no_image() {
    let prompt = |file_id: &str| {
        json!([{"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "source": {"type": "file", "file_id": file_id}}]}])
    };
    let sent_as = |history: &Value| {
        let back = convert(&history.to_string(), Format::PydanticAi, Format::Anthropic).unwrap();
        let msgflow_formats::Output::Documents(requests) = back.output else {
            unreachable!()
        };
        requests[0]["messages"][0]["content"][1]["type"].clone()
    };
    // pydantic-ai infers `image/png` from the id: an image as it is, nothing invented.
    let (history, report) = from(prompt("gs://b/a.png"));
    assert_eq!(history[0]["parts"][0]["content"][1]["media_type"], Value::Null);
    assert!(
        report
            .paths(LossKind::Invented)
            .iter()
            .all(|path| !path.contains("source")),
        "{report:?}"
    );
    assert_eq!(sent_as(&history), "image");
    // Anthropic's own ids name no type (pydantic-ai would send a document): the image gets one.
    for file_id in ["file_011", "gs://b/report.pdf"] {
        let (history, report) = from(prompt(file_id));
        assert_eq!(
            history[0]["parts"][0]["content"][1]["media_type"], "image/*",
            "{file_id}"
        );
        assert!(
            report.paths(LossKind::Invented).contains(&"$[0].content[1].source"),
            "{file_id}: {report:?}"
        );
        assert_eq!(sent_as(&history), "image", "{file_id}");
    }
}
