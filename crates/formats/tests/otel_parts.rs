//! The request parts msgflow writes to otel as pydantic-ai 2.68.0's instrumentation records them
//! (`InstrumentationSettings.messages_to_otel_messages`): one test per part shape, the expected
//! messages printed by pydantic-ai itself for a request holding that one part, and each read back
//! to a history whose span is the same. Refusals name pydantic-ai's reason where it raises too.

use msgflow_formats::{convert, convert_with, ConvertOptions, Format, Output};
use serde_json::Value;

fn options(version: u8) -> ConvertOptions {
    ConvertOptions {
        otel_version: version,
        ..ConvertOptions::default()
    }
}

/// The span document of a history in JSON text, at `version`.
fn to_otel(history: &str, version: u8) -> Result<Value, String> {
    let converted =
        convert_with(history, Format::PydanticAi, Format::Otel, &options(version)).map_err(|err| err.to_string())?;
    let Output::Documents(documents) = converted.output else {
        panic!("otel output is documents")
    };
    Ok(documents.into_iter().next().expect("one document"))
}

fn request(part: &str) -> String {
    format!(r#"[{{"kind": "request", "parts": [{part}]}}]"#)
}

/// `part` alone in a request gives the `expected` input messages at version 5 (and the role
/// `role_6` at version 6), and the history read back from them gives the same messages.
fn check(part: &str, expected: &str, role_6: &str) {
    let expected: Value = serde_json::from_str(expected).unwrap();
    let span = to_otel(&request(part), 5).unwrap();
    assert_eq!(span["gen_ai.input.messages"], expected);
    assert_eq!(
        to_otel(&request(part), 6).unwrap()["gen_ai.input.messages"][0]["role"],
        role_6
    );
    let back = convert(&span.to_string(), Format::Otel, Format::PydanticAi).unwrap();
    let Output::Histories(histories) = back.output else {
        panic!("pydantic-ai output is histories")
    };
    let history = msgflow_wire::to_string(&histories[0]).unwrap();
    assert_eq!(
        to_otel(&history, 5).unwrap()["gen_ai.input.messages"],
        expected,
        "{history}"
    );
}

macro_rules! converted {
    ($($name:ident: $part:expr, $expected:expr, $role_6:expr;)*) => {
        $(#[test]
        fn $name() {
            check($part, $expected, $role_6);
        })*
    };
}

// Expected values printed by `InstrumentationSettings(version=v)._input_messages_json` of pydantic-ai 2.68.0.
converted! {
    structured_content_without_its_text_is_rendered_as_pydantic_ai_renders_it_on_load:
        r#"{"part_kind": "user-prompt", "content": [{"kind": "structured-content", "value": {"a": 1.50, "b": "<x>"}, "description": "State"}]}"#,
        r#"[{"role": "user", "parts": [{"type": "text", "content": "State\n{\"a\":1.5,\"b\":\"\\u003cx\\u003e\"}"}]}]"#,
        "user";
    instruction_delta_replaces_a_block:
        r#"{"part_kind": "instruction-delta", "id": "toolset:fs", "content": "Use /tmp."}"#,
        r#"[{"role": "system", "parts": [{"type": "text", "content": "<pyai:context id=\"toolset:fs\">\nUse /tmp.\n</pyai:context>"}]}]"#,
        "system";
    instruction_delta_withdraws_a_block:
        r#"{"part_kind": "instruction-delta", "id": "agent:style", "content": null}"#,
        r#"[{"role": "system", "parts": [{"type": "text", "content": "<pyai:context id=\"agent:style\">\nThis context has been withdrawn.\n</pyai:context>"}]}]"#,
        "system";
    instruction_delta_of_an_unknown_namespace_names_no_id:
        r#"{"part_kind": "instruction-delta", "id": "plugin:x", "content": "a < b"}"#,
        r#"[{"role": "system", "parts": [{"type": "text", "content": "<pyai:context>\na < b\n</pyai:context>"}]}]"#,
        "system";
    instruction_delta_of_a_null_id_names_no_id:
        r#"{"part_kind": "instruction-delta", "id": null, "content": "c"}"#,
        r#"[{"role": "system", "parts": [{"type": "text", "content": "<pyai:context>\nc\n</pyai:context>"}]}]"#,
        "system";
    instruction_delta_id_is_html_escaped:
        r#"{"part_kind": "instruction-delta", "id": "agent:a&\"b", "content": "d"}"#,
        r#"[{"role": "system", "parts": [{"type": "text", "content": "<pyai:context id=\"agent:a&amp;&quot;b\">\nd\n</pyai:context>"}]}]"#,
        "system";
    structured_content_is_its_text:
        r#"{"part_kind": "user-prompt", "content": ["see", {"kind": "structured-content", "value": {"a": 1}, "content": "{\"a\":1}", "tag": null}]}"#,
        r#"[{"role": "user", "parts": [{"type": "text", "content": "see"}, {"type": "text", "content": "{\"a\":1}"}]}]"#,
        "user";
    legacy_retry_with_error_details:
        r#"{"part_kind": "retry-prompt", "tool_name": "fetch", "tool_call_id": "call_1", "content": [{"type": "missing", "loc": ["a"], "msg": "Field required", "input": {}, "ctx": {"x": 1}}, {"type": "missing", "loc": ["b"], "msg": "Field required", "input": {}}]}"#,
        r#"[{"role": "user", "parts": [{"type": "tool_call_response", "id": "call_1", "name": "fetch", "result": [{"type": "missing", "loc": ["a"], "msg": "Field required", "input": {}}, {"type": "missing", "loc": ["b"], "msg": "Field required"}]}]}]"#,
        "tool";
    tool_return_binary_is_its_dump:
        r#"{"part_kind": "tool-return", "tool_name": "fetch", "tool_call_id": "call_1", "content": [{"kind": "binary", "data": "aGVsbG8", "media_type": "text/plain"}]}"#,
        r#"[{"role": "user", "parts": [{"type": "tool_call_response", "id": "call_1", "name": "fetch", "result": [{"data": "aGVsbG8=", "media_type": "text/plain", "vendor_metadata": null, "kind": "binary", "identifier": "aaf4c6"}]}]}]"#,
        "tool";
    tool_return_unrecorded_http_url_resets_force_download:
        r#"{"part_kind": "tool-return", "tool_name": "fetch", "tool_call_id": "call_1", "content": {"chart": {"kind": "image-url", "url": "https://example.com/chart.png", "media_type": null, "force_download": true}}}"#,
        r#"[{"role": "user", "parts": [{"type": "tool_call_response", "id": "call_1", "name": "fetch", "result": {"chart": {"url": "https://example.com/chart.png", "force_download": false, "vendor_metadata": null, "kind": "image-url", "media_type": "image/png", "identifier": "c198f8"}}}]}]"#,
        "tool";
    tool_return_unrecorded_other_url_stays_data:
        r#"{"part_kind": "tool-return", "tool_name": "fetch", "tool_call_id": "call_1", "content": [{"kind": "image-url", "url": "s3://bucket/chart.png", "media_type": null}]}"#,
        r#"[{"role": "user", "parts": [{"type": "tool_call_response", "id": "call_1", "name": "fetch", "result": [{"kind": "image-url", "url": "s3://bucket/chart.png", "media_type": null}]}]}]"#,
        "tool";
    tool_return_recorded_url_is_its_dump:
        r#"{"part_kind": "tool-return", "tool_name": "fetch", "tool_call_id": "call_1", "content": [{"url": "https://example.com/chart.png", "force_download": true, "vendor_metadata": null, "kind": "image-url", "media_type": null, "identifier": "chart"}], "content_file_digests": ["6263d64d3a01a038664c2188ee273a52aecc33f10f22ae51eec0d5c02d433d9b"]}"#,
        r#"[{"role": "user", "parts": [{"type": "tool_call_response", "id": "call_1", "name": "fetch", "result": [{"url": "https://example.com/chart.png", "force_download": true, "vendor_metadata": null, "kind": "image-url", "media_type": "image/png", "identifier": "chart"}]}]}]"#,
        "tool";
    tool_return_unlisted_url_stays_data:
        r#"{"part_kind": "tool-return", "tool_name": "fetch", "tool_call_id": "call_1", "content": [{"url": "https://example.com/chart.png", "force_download": true, "vendor_metadata": null, "kind": "image-url", "media_type": null, "identifier": "other"}], "content_file_digests": ["6263d64d3a01a038664c2188ee273a52aecc33f10f22ae51eec0d5c02d433d9b"]}"#,
        r#"[{"role": "user", "parts": [{"type": "tool_call_response", "id": "call_1", "name": "fetch", "result": [{"url": "https://example.com/chart.png", "force_download": true, "vendor_metadata": null, "kind": "image-url", "media_type": null, "identifier": "other"}]}]}]"#,
        "tool";
    tool_return_url_without_media_type_stays_data:
        r#"{"part_kind": "tool-return", "tool_name": "fetch", "tool_call_id": "call_1", "content": [{"kind": "document-url", "url": "https://example.com/r.pdf"}]}"#,
        r#"[{"role": "user", "parts": [{"type": "tool_call_response", "id": "call_1", "name": "fetch", "result": [{"kind": "document-url", "url": "https://example.com/r.pdf"}]}]}]"#,
        "tool";
    tool_return_text_item_stays_data:
        r#"{"part_kind": "tool-return", "tool_name": "fetch", "tool_call_id": "call_1", "content": [{"kind": "text-content", "content": "hi", "metadata": null}]}"#,
        r#"[{"role": "user", "parts": [{"type": "tool_call_response", "id": "call_1", "name": "fetch", "result": [{"kind": "text-content", "content": "hi", "metadata": null}]}]}]"#,
        "tool";
    tool_return_unrecorded_url_drops_keys_it_does_not_declare:
        r#"{"part_kind": "tool-return", "tool_name": "fetch", "tool_call_id": "call_1", "content": [{"kind": "image-url", "url": "https://x/a.png", "media_type": null, "title": "t"}]}"#,
        r#"[{"role": "user", "parts": [{"type": "tool_call_response", "id": "call_1", "name": "fetch", "result": [{"url": "https://x/a.png", "force_download": false, "vendor_metadata": null, "kind": "image-url", "media_type": "image/png", "identifier": "50173a"}]}]}]"#,
        "tool";
    tool_return_url_with_an_empty_media_type_stays_data:
        r#"{"part_kind": "tool-return", "tool_name": "fetch", "tool_call_id": "call_1", "content": [{"kind": "image-url", "url": "https://x/a.png", "media_type": ""}]}"#,
        r#"[{"role": "user", "parts": [{"type": "tool_call_response", "id": "call_1", "name": "fetch", "result": [{"kind": "image-url", "url": "https://x/a.png", "media_type": ""}]}]}]"#,
        "tool";
    tool_return_binary_that_is_not_base64_stays_data:
        r#"{"part_kind": "tool-return", "tool_name": "fetch", "tool_call_id": "call_1", "content": {"bad": {"kind": "binary", "data": "YR==", "media_type": "image/png"}}}"#,
        r#"[{"role": "user", "parts": [{"type": "tool_call_response", "id": "call_1", "name": "fetch", "result": {"bad": {"kind": "binary", "data": "YR==", "media_type": "image/png"}}}]}]"#,
        "tool";
    tool_return_recorded_uploaded_file_is_its_dump:
        r#"{"part_kind": "tool-return", "tool_name": "fetch", "tool_call_id": "call_1", "content": {"kind": "uploaded-file", "file_id": "file_011", "provider_name": "anthropic", "media_type": "application/pdf"}, "content_file_digests": ["7fd9ceb82d8ccf058c6cff1421c9bd6da6fd059f470fc0ffb0d975a7e8cacdd5"]}"#,
        r#"[{"role": "user", "parts": [{"type": "tool_call_response", "id": "call_1", "name": "fetch", "result": {"file_id": "file_011", "provider_name": "anthropic", "vendor_metadata": null, "kind": "uploaded-file", "media_type": "application/pdf", "identifier": "702ae0"}}]}]"#,
        "tool";
}

macro_rules! refused {
    ($($name:ident: $part:expr, $reason:expr;)*) => {
        $(#[test]
        fn $name() {
            let err = to_otel(&request($part), 5).unwrap_err();
            assert!(err.contains($reason), "{err}");
        })*
    };
}

refused! {
    instruction_id_in_its_object_form_is_refused:
        r#"{"part_kind": "instruction-delta", "id": {"source": {"id": "x"}, "name": null}, "content": "c"}"#,
        "object form";
    structured_content_under_a_framing_tag_without_its_text_is_refused_as_pydantic_ai_refuses_it:
        r#"{"part_kind": "user-prompt", "content": [{"kind": "structured-content", "value": 1, "tag": "system"}]}"#,
        "`StructuredContent.tag` cannot be 'system', a built-in framing tag.";
    an_unknown_part_kind_is_refused_as_pydantic_ai_refuses_it:
        r#"{"part_kind": "hologram-projection", "content": "x"}"#,
        "pydantic-ai 2.68.0 does not load a `hologram-projection` part (an unknown `part_kind`)";
    legacy_retry_content_pydantic_ai_does_not_load_is_refused:
        r#"{"part_kind": "retry-prompt", "tool_name": "t", "tool_call_id": "c", "content": [{"loc": ["a"]}]}"#,
        "pydantic-ai 2.68.0 does not load a legacy retry prompt";
}
