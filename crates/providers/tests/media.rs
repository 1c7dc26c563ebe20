//! Files and media, exported as pydantic-ai 2.68.0 sends them: images, PDFs and text files as
//! bytes, image and document URLs, images a tool returned; and refused where pydantic-ai refuses
//! them or would download them first (msgflow never downloads).
//!
//! The `media-*.json` histories in `tests/fixtures/providers/` and the requests (or refusals) next
//! to them (`media-*.expected.json`) are both written by pydantic-ai (`generate_media.py` runs
//! `oracle/providers_oracle.py`'s mapping on each, with downloads refused): msgflow's exports must
//! equal them.

use std::path::Path;

use msgflow_providers::{export, ExportError, Provider};
use serde_json::Value;

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/providers"))
}

fn fixture(name: &str) -> (Vec<msgflow_wire::ModelMessage>, Value) {
    let history = std::fs::read(fixtures().join(format!("media-{name}.json"))).unwrap();
    let expected = std::fs::read(fixtures().join(format!("media-{name}.expected.json"))).unwrap();
    (
        msgflow_wire::from_slice(&history).unwrap(),
        serde_json::from_slice(&expected).unwrap(),
    )
}

/// The export of fixture `name` to `provider`, checked equal to pydantic-ai's request.
fn export_equal_to_pydantic_ai(name: &str, provider: Provider) -> Value {
    let (history, expected) = fixture(name);
    let actual = export(&history, provider).unwrap_or_else(|error| panic!("{name} / {provider}: {error}"));
    assert_eq!(actual, expected[provider.name()]["request"], "{name} / {provider}");
    actual
}

/// msgflow's refusal of fixture `name` for `provider`, where pydantic-ai refuses too: as
/// pydantic-ai's own, or as a download it would make (its oracle's `DownloadRefused`).
fn refusal(name: &str, provider: Provider) -> String {
    let (history, expected) = fixture(name);
    let refused = expected[provider.name()]["refused"]
        .as_str()
        .unwrap_or_else(|| panic!("pydantic-ai refuses {name} / {provider}"));
    match export(&history, provider) {
        Err(error @ ExportError::NeedsDownload { .. }) if refused.starts_with("DownloadRefused") => error.to_string(),
        Err(error @ ExportError::Refused { .. }) if !refused.starts_with("DownloadRefused") => error.to_string(),
        other => panic!("{name} / {provider}: msgflow does not refuse as pydantic-ai does ({refused}): {other:?}"),
    }
}

#[test]
fn images_and_pdfs_go_to_every_provider_as_pydantic_ai_sends_them() {
    let claude = export_equal_to_pydantic_ai("images-and-pdfs", Provider::Anthropic);
    let blocks = &claude["messages"][0]["content"];
    assert_eq!(blocks[1]["source"]["type"], "base64");
    assert_eq!(
        blocks[2]["source"],
        serde_json::json!({"type": "url", "url": "https://example.com/photo.jpg"})
    );
    assert_eq!(blocks[3]["type"], "document");
    let chat = export_equal_to_pydantic_ai("images-and-pdfs", Provider::OpenAiChat);
    let parts = &chat["messages"][0]["content"];
    assert_eq!(parts[1]["image_url"]["detail"], "high");
    assert!(parts[1]["image_url"]["url"]
        .as_str()
        .unwrap()
        .starts_with("data:image/png;base64,iVBORw0KGgo"));
    assert_eq!(parts[3]["file"]["filename"], "filename.pdf");
    let responses = export_equal_to_pydantic_ai("images-and-pdfs", Provider::OpenAiResponses);
    assert_eq!(responses["input"][0]["content"][2]["detail"], "auto");
    insta::assert_json_snapshot!(
        "images-and-pdfs",
        serde_json::json!({"anthropic": claude, "openai-chat": chat, "openai-responses": responses})
    );
}

#[test]
fn a_text_file_with_a_lookalike_gets_pydantic_ais_note_for_files() {
    for provider in Provider::EXPORTABLE {
        let exported = export_equal_to_pydantic_ai("text-file", provider);
        assert!(
            exported.to_string().contains("The rest of the file is unaffected."),
            "{provider}"
        );
    }
    let chat = export_equal_to_pydantic_ai("text-file", Provider::OpenAiChat);
    let inlined = chat["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|message| message["role"] == "user")
        .unwrap();
    assert!(inlined["content"][1]["text"]
        .as_str()
        .unwrap()
        .starts_with("-----BEGIN FILE id=\""));
}

#[test]
fn a_tool_screenshot_goes_in_the_tool_result_or_for_chat_completions_in_a_framed_user_message() {
    let claude = export_equal_to_pydantic_ai("tool-screenshot", Provider::Anthropic);
    assert_eq!(claude["messages"][2]["content"][0]["content"][1]["type"], "image");
    let responses = export_equal_to_pydantic_ai("tool-screenshot", Provider::OpenAiResponses);
    let output = &responses["input"][2]["output"];
    assert_eq!(output[1]["type"], "input_image");
    // Chat Completions' tool messages take text: the tool message refers to the file, which follows
    // in a user message of its own, framed (after the announcement of what frames and notes mean).
    let chat = export_equal_to_pydantic_ai("tool-screenshot", Provider::OpenAiChat);
    let messages = chat["messages"].as_array().unwrap();
    assert_eq!(messages[2]["content"], "[\"Captured.\",\"See file e97f8a.\"]");
    assert_eq!(messages[3]["role"], "system");
    let framed = &messages[4]["content"];
    assert_eq!(
        framed[0]["text"],
        "<pyai:tool_result tool_name=\"screenshot\" tool_call_id=\"toolu_01\" file_id=\"e97f8a\">"
    );
    assert_eq!(framed[1]["type"], "image_url");
    assert_eq!(framed[2]["text"], "</pyai:tool_result>");
}

#[test]
fn a_tool_svg_with_a_lookalike_gets_the_tools_note() {
    // Found by `cargo xtask conformance`: msgflow read the SVG as an image with no text.
    for provider in Provider::EXPORTABLE {
        let exported = export_equal_to_pydantic_ai("tool-svg-lookalike", provider).to_string();
        assert!(
            exported.contains("tool result from `render` (call `toolu_02`)"),
            "{provider}"
        );
    }
    // gpt-4o gets the SVG inlined as text in the relocated user message, after a note of its own
    // saying "following".
    let chat = export_equal_to_pydantic_ai("tool-svg-lookalike", Provider::OpenAiChat).to_string();
    assert!(chat.contains("The following tool result from `render`"), "{chat}");
    assert!(chat.contains("-----BEGIN FILE id="), "{chat}");
}

#[test]
fn urls_pydantic_ai_would_download_are_refused_with_their_path() {
    let anthropic = refusal("urls-to-download", Provider::Anthropic);
    assert!(anthropic.contains("$[0].parts[0].content[1]"), "{anthropic}");
    assert!(
        anthropic.contains("AudioUrl is not supported in Anthropic user prompts"),
        "{anthropic}"
    );
    let chat = refusal("urls-to-download", Provider::OpenAiChat);
    assert!(
        chat.contains("would download") && chat.contains("never downloads"),
        "{chat}"
    );
    let responses = refusal("urls-to-download", Provider::OpenAiResponses);
    assert!(
        responses.contains("$[2].parts[0].content[1]") && responses.contains("force_download"),
        "{responses}"
    );
}

/// pydantic-ai refuses some URL items before it would download them: a video URL on every
/// provider whatever its `force_download`, and a document URL whose media type it cannot infer on
/// Chat Completions (it reads the type first). msgflow refuses them as pydantic-ai's own refusals,
/// not as downloads, and sends the document URL to OpenAI Responses as pydantic-ai does.
#[test]
fn items_pydantic_ai_refuses_before_downloading_are_its_refusals() {
    for provider in Provider::EXPORTABLE {
        let video = refusal("video-url-forced", provider);
        assert!(video.contains("VideoUrl is not supported"), "{provider}: {video}");
    }
    for provider in [Provider::Anthropic, Provider::OpenAiChat] {
        let document = refusal("document-url-no-media-type", provider);
        assert!(document.contains("media type"), "{provider}: {document}");
    }
    export_equal_to_pydantic_ai("document-url-no-media-type", Provider::OpenAiResponses);
}

/// pydantic-ai's mapping refuses a file a tool returned when it maps that result: a JSON file on
/// Anthropic and OpenAI Responses, which take only images and documents there (gpt-4o inlines it
/// in the user message it moves it to). So a URL it would download in an earlier message is what
/// stops it first (found by the live check).
#[test]
fn a_tool_file_is_refused_where_its_result_is_mapped() {
    for provider in [Provider::Anthropic, Provider::OpenAiResponses] {
        let json = refusal("tool-json-file", provider);
        assert!(json.contains("$[2].parts[0].content[1]"), "{provider}: {json}");
    }
    let chat = export_equal_to_pydantic_ai("tool-json-file", Provider::OpenAiChat).to_string();
    assert!(chat.contains("-----BEGIN FILE id="), "{chat}");
    for provider in Provider::EXPORTABLE {
        let first = refusal("download-before-tool-file", provider);
        assert!(first.contains("$[0].parts[0].content[1]"), "{provider}: {first}");
    }
}

/// A `force_download` pydantic-ai's lax mode reads as a bool is that bool: `"off"` sends the URL,
/// `1` downloads it first (refused: msgflow never downloads), and a value it does not load is
/// refused as such.
#[test]
fn a_force_download_pydantic_ai_reads_as_a_bool_is_that_bool() {
    let with = |force_download: Value| {
        let history = serde_json::json!([{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": [
            "See this.",
            {"kind": "image-url", "url": "https://example.com/a.png", "force_download": force_download},
        ], "timestamp": "2026-03-14T09:00:00Z"}]}]);
        msgflow_wire::from_str(&history.to_string()).unwrap()
    };
    let sent = export(&with(Value::from("off")), Provider::Anthropic).unwrap();
    assert_eq!(
        sent["messages"][0]["content"][1]["source"]["url"],
        "https://example.com/a.png"
    );
    let downloaded = export(&with(Value::from(1)), Provider::Anthropic).unwrap_err();
    assert!(
        matches!(&downloaded, ExportError::NeedsDownload { path, .. } if path == "$[0].parts[0].content[1]"),
        "{downloaded}"
    );
    let unloadable = export(&with(Value::from("maybe")), Provider::Anthropic).unwrap_err();
    assert!(
        matches!(&unloadable, ExportError::Unsupported { path, .. } if path.starts_with("$[0].parts[0].content[1]")),
        "{unloadable}"
    );
    assert!(unloadable.to_string().contains("does not load"), "{unloadable}");
}
