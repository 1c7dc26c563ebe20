//! Files and media inside tool results as pydantic-ai 2.68.0 rebuilds them on load
//! (`ToolReturnContent`, `content_file_digests`) and its mappings send them, and tool parts
//! without ids. The expected requests are what pydantic-ai's own mapping built
//! (`tests/fixtures/providers/parts-*.expected.json`).

mod parts_fixtures;

use msgflow_providers::{export, ExportError, Provider};
use serde_json::Value;

use parts_fixtures::{assert_exports_as_pydantic_ai, fixture};

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
