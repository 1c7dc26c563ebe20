//! The builders against pydantic-ai 2.68.0 (CPython 3.11.7, `target/venv`).
//!
//! How the expected values were obtained: `oracle/oracle_common.py` imported first (so the mime table is the
//! 169-entry baseline), then for each item built in Python as noted next to it,
//! `pydantic.TypeAdapter(type(item)).dump_json(item)` (the same bytes the item has inside a
//! `ModelMessagesTypeAdapter.dump_json` history). The files for `from_path` were `photo.PNG` holding
//! `b"\x89PNG\r\n\x1a\nhello"` and `Makefile` holding `b"all: x\n"`, written by this test the same way.

use msgflow_media::*;
use msgflow_wire::{
    AudioUrl, BinaryContent, CachePointTtl, DocumentUrl, ForceDownload, ImageUrl, ModelMessage, ModelRequest,
    ModelRequestPart, Timestamp, UploadedFile, UploadedFileProviderName, UserContent, VideoUrl,
};
use proptest::prelude::*;
use serde_json::{json, Value};

fn dumped<T: serde::Serialize + ?Sized>(item: &T) -> String {
    serde_json::to_string(item).unwrap()
}

#[test]
fn url_items_match_pydantic_ai() {
    // ImageUrl("https://example.com/chart.png")
    let image = FileItem::image_url("https://example.com/chart.png").build().unwrap();
    assert_eq!(
        dumped(&image),
        r#"{"url":"https://example.com/chart.png","force_download":false,"vendor_metadata":null,"kind":"image-url","media_type":"image/png","identifier":"c198f8"}"#
    );
    // ImageUrl("https://example.com/noext"): inference fails, the dump writes null.
    let no_extension = FileItem::image_url("https://example.com/noext").build().unwrap();
    assert_eq!(
        dumped(&no_extension),
        r#"{"url":"https://example.com/noext","force_download":false,"vendor_metadata":null,"kind":"image-url","media_type":null,"identifier":"eed4ca"}"#
    );
    // ImageUrl("https://example.com/chart.png?size=2"): Python 3.11 keeps the query in the extension.
    let with_query = FileItem::image_url("https://example.com/chart.png?size=2")
        .build()
        .unwrap();
    assert_eq!(
        dumped(&with_query),
        r#"{"url":"https://example.com/chart.png?size=2","force_download":false,"vendor_metadata":null,"kind":"image-url","media_type":null,"identifier":"e7dd3f"}"#
    );
    // AudioUrl("https://example.com/a.mp3", media_type="audio/wav", identifier="abc", force_download="allow-local",
    //          vendor_metadata={"detail": "high", "n": 1.5})
    let audio: AudioUrl = FileItem::audio_url("https://example.com/a.mp3")
        .media_type("audio/wav")
        .identifier("abc")
        .force_download(ForceDownload::AllowLocal)
        .vendor_metadata(json!({"detail": "high", "n": 1.5}))
        .build()
        .unwrap();
    assert_eq!(
        dumped(&audio),
        r#"{"url":"https://example.com/a.mp3","force_download":"allow-local","vendor_metadata":{"detail":"high","n":1.5},"kind":"audio-url","media_type":"audio/wav","identifier":"abc"}"#
    );
    // VideoUrl("https://youtu.be/x", force_download=True)
    let youtube: VideoUrl = FileItem::video_url("https://youtu.be/x")
        .force_download(ForceDownload::Yes)
        .build()
        .unwrap();
    assert_eq!(
        dumped(&youtube),
        r#"{"url":"https://youtu.be/x","force_download":true,"vendor_metadata":null,"kind":"video-url","media_type":"video/mp4","identifier":"e75c9d"}"#
    );
    // VideoUrl("https://example.com/clip.3gp"): the kind does not constrain the guess.
    let clip = FileItem::video_url("https://example.com/clip.3gp").build().unwrap();
    assert_eq!(
        dumped(&clip),
        r#"{"url":"https://example.com/clip.3gp","force_download":false,"vendor_metadata":null,"kind":"video-url","media_type":"audio/3gpp","identifier":"f0cdad"}"#
    );
    // DocumentUrl("https://example.com/report.pdf", media_type="", identifier=""): empty overrides fall back.
    let document: DocumentUrl = FileItem::document_url("https://example.com/report.pdf")
        .media_type("")
        .identifier("")
        .force_download(ForceDownload::No)
        .build()
        .unwrap();
    assert_eq!(
        dumped(&document),
        r#"{"url":"https://example.com/report.pdf","force_download":false,"vendor_metadata":null,"kind":"document-url","media_type":"application/pdf","identifier":"a5f6ba"}"#
    );
}

#[test]
fn binary_items_match_pydantic_ai() {
    // BinaryContent(b"hello", media_type="text/plain")
    let text = FileItem::binary(&b"hello"[..], "text/plain").build().unwrap();
    assert_eq!(
        dumped(&text),
        r#"{"data":"aGVsbG8=","media_type":"text/plain","vendor_metadata":null,"kind":"binary","identifier":"aaf4c6"}"#
    );
    // BinaryContent(b"\xfb\xff", media_type="image/png", identifier="img-1", vendor_metadata={"detail": "low"})
    let image = FileItem::binary(vec![0xfb, 0xff], "image/png")
        .identifier("img-1")
        .vendor_metadata(json!({"detail": "low"}))
        .build()
        .unwrap();
    assert_eq!(
        dumped(&image),
        r#"{"data":"-_8=","media_type":"image/png","vendor_metadata":{"detail":"low"},"kind":"binary","identifier":"img-1"}"#
    );
    // BinaryContent.from_data_uri("data:image/png;base64,aGk=")
    let from_uri = FileItem::binary_from_data_uri("data:image/png;base64,aGk=")
        .build()
        .unwrap();
    assert_eq!(
        dumped(&from_uri),
        r#"{"data":"aGk=","media_type":"image/png","vendor_metadata":null,"kind":"binary","identifier":"c22b5f"}"#
    );
    let refused = FileItem::binary_from_data_uri("data:text/plain,hi")
        .build()
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "Data URI must be base64-encoded (expected \";base64,\" marker)"
    );
}

#[test]
fn binary_from_path_matches_pydantic_ai() {
    let directory = std::env::temp_dir().join(format!("msgflow-media-builders-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let photo = directory.join("photo.PNG");
    std::fs::write(&photo, b"\x89PNG\r\n\x1a\nhello").unwrap();
    let makefile = directory.join("Makefile");
    std::fs::write(&makefile, b"all: x\n").unwrap();

    // BinaryContent.from_path(".../photo.PNG")
    assert_eq!(
        dumped(&FileItem::binary_from_path(&photo).build().unwrap()),
        r#"{"data":"iVBORw0KGgpoZWxsbw==","media_type":"image/png","vendor_metadata":null,"kind":"binary","identifier":"f0fce5"}"#
    );
    // BinaryContent.from_path(".../Makefile"): no extension, octet-stream.
    assert_eq!(
        dumped(&FileItem::binary_from_path(&makefile).build().unwrap()),
        r#"{"data":"YWxsOiB4Cg==","media_type":"application/octet-stream","vendor_metadata":null,"kind":"binary","identifier":"85b208"}"#
    );
    let missing = directory.join("missing.png");
    assert!(matches!(
        FileItem::binary_from_path(&missing).build(),
        Err(BuildError::FileNotFound(path)) if path == missing
    ));
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn uploaded_files_match_pydantic_ai() {
    // UploadedFile("file-abc123", "openai")
    let plain = FileItem::uploaded_file("file-abc123", UploadedFileProviderName::Openai)
        .build()
        .unwrap();
    assert_eq!(
        dumped(&plain),
        r#"{"file_id":"file-abc123","provider_name":"openai","vendor_metadata":null,"kind":"uploaded-file","media_type":"application/octet-stream","identifier":"3a1a6c"}"#
    );
    // UploadedFile("gs://bucket/report.pdf?alt=media", "google-vertex")
    let with_path: UploadedFile = FileItem::uploaded_file(
        "gs://bucket/report.pdf?alt=media",
        UploadedFileProviderName::GoogleVertex,
    )
    .build()
    .unwrap();
    assert_eq!(
        dumped(&with_path),
        r#"{"file_id":"gs://bucket/report.pdf?alt=media","provider_name":"google-vertex","vendor_metadata":null,"kind":"uploaded-file","media_type":"application/pdf","identifier":"ce9b2b"}"#
    );
    // UploadedFile("files/x.pdf", "anthropic", media_type="", identifier="", vendor_metadata={"k": [1, None]}):
    // an empty media type is kept (an `is not None` test), an empty identifier is not.
    let empty = FileItem::uploaded_file("files/x.pdf", UploadedFileProviderName::Anthropic)
        .media_type("")
        .identifier("")
        .vendor_metadata(json!({"k": [1, null]}))
        .build()
        .unwrap();
    assert_eq!(
        dumped(&empty),
        r#"{"file_id":"files/x.pdf","provider_name":"anthropic","vendor_metadata":{"k":[1,null]},"kind":"uploaded-file","media_type":"","identifier":"066ffd"}"#
    );
    // UploadedFile("gs://[bucket/x.pdf", "bedrock", media_type="application/pdf") dumps; without the media type
    // the dump raises "Invalid IPv6 URL".
    let explicit = FileItem::uploaded_file("gs://[bucket/x.pdf", UploadedFileProviderName::Bedrock)
        .media_type("application/pdf")
        .build()
        .unwrap();
    assert_eq!(
        dumped(&explicit),
        r#"{"file_id":"gs://[bucket/x.pdf","provider_name":"bedrock","vendor_metadata":null,"kind":"uploaded-file","media_type":"application/pdf","identifier":"b3e459"}"#
    );
    assert!(matches!(
        FileItem::uploaded_file("gs://[bucket/x.pdf", UploadedFileProviderName::Openai).build(),
        Err(BuildError::UnparsableFileId(_))
    ));
    // UploadedFile("f", "nope") is a literal_error.
    assert!(matches!(
        FileItem::uploaded_file("f", UploadedFileProviderName::from_wire("nope")).build(),
        Err(BuildError::UnknownProvider(name)) if name == "nope"
    ));
}

#[test]
fn vendor_metadata_must_be_an_object() {
    // ImageUrl(..., vendor_metadata=5) and BinaryContent(..., vendor_metadata=[1]) are dict_type errors.
    let error = FileItem::image_url("https://example.com/a.png")
        .vendor_metadata(5)
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "vendor_metadata must be a JSON object or null, got a number"
    );
    assert!(FileItem::binary(vec![1], "x/y")
        .vendor_metadata(json!([1]))
        .build()
        .is_err());
    // vendor_metadata=None is the default.
    let null = FileItem::image_url("https://example.com/a.png")
        .vendor_metadata(Value::Null)
        .build()
        .unwrap();
    assert!(null.vendor_metadata.is_null());
    let other = ForceDownload::Other(msgflow_wire::RawJson::string("yes"));
    assert!(matches!(
        FileItem::image_url("https://example.com/a.png")
            .force_download(other)
            .build(),
        Err(BuildError::ForceDownload(_))
    ));
}

#[test]
fn text_structured_and_cache_points_match_pydantic_ai() {
    // TextContent("hello", metadata={"source": "ui"})
    assert_eq!(
        dumped(&text_content("hello", json!({"source": "ui"}))),
        r#"{"content":"hello","metadata":{"source":"ui"},"kind":"text-content"}"#
    );
    // TextContent("hello")
    assert_eq!(
        dumped(&text_content("hello", Value::Null)),
        r#"{"content":"hello","metadata":null,"kind":"text-content"}"#
    );
    // StructuredContent(value={"a": 1, "b": "<x>&", "f": 1e16, "u": "é"})
    let plain = structured_content(json!({"a": 1, "b": "<x>&", "f": 1e16, "u": "é"}))
        .build()
        .unwrap();
    assert_eq!(
        dumped(&plain),
        r#"{"content":"{\"a\":1,\"b\":\"\\u003cx\\u003e\\u0026\",\"f\":1e+16,\"u\":\"é\"}","metadata":null,"kind":"structured-content","value":{"a":1,"b":"<x>&","f":1e+16,"u":"é"},"tag":null,"description":null}"#
    );
    // StructuredContent(value={"state": "open"}, tag="ui_state", description="The UI state", metadata=[1])
    let tagged = structured_content(json!({"state": "open"}))
        .tag("ui_state")
        .description("The UI state")
        .metadata(json!([1]))
        .build()
        .unwrap();
    assert_eq!(
        dumped(&tagged),
        r#"{"content":"The UI state\n<ui_state>{\"state\":\"open\"}</ui_state>","metadata":[1],"kind":"structured-content","value":{"state":"open"},"tag":"ui_state","description":"The UI state"}"#
    );
    // StructuredContent(value=[1, 2], content="one, two")
    let given = structured_content(json!([1, 2])).content("one, two").build().unwrap();
    assert_eq!(
        dumped(&given),
        r#"{"content":"one, two","metadata":null,"kind":"structured-content","value":[1,2],"tag":null,"description":null}"#
    );
    // StructuredContent(value=1, tag="_private"): a legacy name, accepted with a deprecation warning.
    assert_eq!(
        structured_content(1)
            .tag("_private")
            .build()
            .unwrap()
            .content
            .get()
            .map(String::as_str),
        Some("<_private>1</_private>")
    );
    // The ValueError messages of StructuredContent(value=1, tag=...).
    let refused = |tag: &str| structured_content(1).tag(tag).build().unwrap_err().to_string();
    assert_eq!(
        refused("Bad-Tag"),
        "`StructuredContent.tag` must be lowercase snake_case, like `judge_feedback`; got 'Bad-Tag'."
    );
    assert_eq!(
        refused("system"),
        "`StructuredContent.tag` cannot be 'system', a built-in framing tag."
    );
    assert_eq!(
        refused("pyai:x"),
        "`StructuredContent.tag` cannot start with 'pyai:', which is reserved for Pydantic AI; got 'pyai:x'."
    );
    // CachePoint() and CachePoint(ttl="1h")
    assert_eq!(dumped(&cache_point(None)), r#"{"kind":"cache-point","ttl":"5m"}"#);
    assert_eq!(
        dumped(&cache_point(Some(CachePointTtl::V1h))),
        r#"{"kind":"cache-point","ttl":"1h"}"#
    );
}

#[test]
fn tool_returns_match_pydantic_ai() {
    let timestamp = || Timestamp::parse("2025-01-02T03:04:05Z").unwrap();
    let image = serde_json::to_value(FileItem::image_url("https://example.com/chart.png").build().unwrap()).unwrap();
    let uploaded = serde_json::to_value(
        FileItem::uploaded_file("file-abc123", UploadedFileProviderName::Openai)
            .build()
            .unwrap(),
    )
    .unwrap();
    let binary = serde_json::to_value(FileItem::binary(&b"hi"[..], "text/plain").build().unwrap()).unwrap();

    // ToolReturnPart("fetch", [img, BinaryContent(b"hi", media_type="text/plain"), {"nested": up, "again": img}],
    //                tool_call_id="call_1", timestamp=datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    let files = tool_return(
        "fetch",
        "call_1",
        json!([image.clone(), binary, {"nested": uploaded, "again": image.clone()}]),
        timestamp(),
    );
    assert_eq!(
        dumped(&files),
        r#"{"tool_name":"fetch","content":[{"url":"https://example.com/chart.png","force_download":false,"vendor_metadata":null,"kind":"image-url","media_type":"image/png","identifier":"c198f8"},{"data":"aGk=","media_type":"text/plain","vendor_metadata":null,"kind":"binary","identifier":"c22b5f"},{"nested":{"file_id":"file-abc123","provider_name":"openai","vendor_metadata":null,"kind":"uploaded-file","media_type":"application/octet-stream","identifier":"3a1a6c"},"again":{"url":"https://example.com/chart.png","force_download":false,"vendor_metadata":null,"kind":"image-url","media_type":"image/png","identifier":"c198f8"}}],"tool_call_id":"call_1","tool_kind":null,"metadata":null,"timestamp":"2025-01-02T03:04:05Z","outcome":"success","retry":null,"part_kind":"tool-return","content_file_digests":["99f181ba0fc0abbafe8b51089d7463e4a11e7bcc72a5a65d63d4e7445f73ea46","a7e1d1ec13a575d91d39a3b16c398e4fad2ee3e522ec586d26712eb179dba9f4"]}"#
    );
    // content="done", 3, None: no key.
    let tail = r#","tool_call_id":"call_1","tool_kind":null,"metadata":null,"timestamp":"2025-01-02T03:04:05Z","outcome":"success","retry":null,"part_kind":"tool-return"}"#;
    for (content, text) in [(json!("done"), r#""done""#), (json!(3), "3"), (Value::Null, "null")] {
        assert_eq!(
            dumped(&tool_return("fetch", "call_1", content, timestamp())),
            format!(r#"{{"tool_name":"fetch","content":{text}{tail}"#)
        );
    }
    // content={"rows": [1, 2]}: an empty record.
    assert_eq!(
        dumped(&tool_return("fetch", "call_1", json!({"rows": [1, 2]}), timestamp())),
        r#"{"tool_name":"fetch","content":{"rows":[1,2]},"tool_call_id":"call_1","tool_kind":null,"metadata":null,"timestamp":"2025-01-02T03:04:05Z","outcome":"success","retry":null,"part_kind":"tool-return","content_file_digests":[]}"#
    );
    // content=ImageUrl(...) itself.
    let single = tool_return("fetch", "call_1", image, timestamp());
    assert_eq!(
        single
            .content_file_digests
            .get()
            .and_then(|digests| digests.record())
            .as_deref(),
        Some(&["a7e1d1ec13a575d91d39a3b16c398e4fad2ee3e522ec586d26712eb179dba9f4".to_owned()][..])
    );
    // Recomputing on the built part gives the same record.
    let mut recomputed = files.clone();
    recomputed.content_file_digests = msgflow_wire::Field::Absent;
    record_content_file_digests(&mut recomputed);
    assert_eq!(recomputed, files);
}

/// Wraps items in a one-message history, as the wire crate writes and reads them.
fn history_of(items: Vec<UserContent>) -> Vec<ModelMessage> {
    let part = user_prompt(items, Timestamp::parse("2025-01-02T03:04:05Z").unwrap());
    vec![ModelMessage::from(ModelRequest::new(vec![
        ModelRequestPart::UserPrompt(part),
    ]))]
}

fn force_download_strategy() -> impl Strategy<Value = ForceDownload> {
    prop_oneof![
        Just(ForceDownload::No),
        Just(ForceDownload::Yes),
        Just(ForceDownload::AllowLocal)
    ]
}

fn metadata_strategy() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        ("[a-z]{1,8}", any::<i64>(), "\\PC{0,8}").prop_map(|(key, number, text)| json!({ key: number, "t": text })),
    ]
}

proptest! {
    #[test]
    fn identifiers_are_stable_lowercase_hex(url in "\\PC{0,40}", data in proptest::collection::vec(any::<u8>(), 0..64)) {
        for identifier in [identifier_for_url(&url), identifier_for_bytes(&data), identifier_for_file_id(&url)] {
            prop_assert_eq!(identifier.len(), 6);
            prop_assert!(identifier.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        }
        prop_assert_eq!(identifier_for_url(&url), identifier_for_url(&url));
        let built = FileItem::image_url(url.clone()).build().unwrap();
        let again = FileItem::image_url(url.clone()).build().unwrap();
        prop_assert_eq!(built.identifier.get(), again.identifier.get());
        prop_assert_eq!(built.identifier.get(), Some(&identifier_for_url(&url)));
        let binary = FileItem::binary(data.clone(), "x/y").build().unwrap();
        prop_assert_eq!(binary.identifier.get(), Some(&identifier_for_bytes(&data)));
    }

    #[test]
    fn built_items_survive_the_wire(
        url in "(https://example\\.com/|files/|)[a-z.]{0,12}(\\.png|\\.pdf|\\.mp3|\\.mp4|\\.tgz|)",
        media_type in proptest::option::of("[a-z]{0,5}/[a-z]{1,5}"),
        identifier in proptest::option::of("[a-z0-9-]{0,8}"),
        force_download in force_download_strategy(),
        metadata in metadata_strategy(),
        data in proptest::collection::vec(any::<u8>(), 0..32),
    ) {
        fn with<T: UrlItem>(
            builder: UrlItemBuilder<T>,
            media_type: &Option<String>,
            identifier: &Option<String>,
            force_download: &ForceDownload,
            metadata: &Value,
        ) -> T {
            let mut builder = builder.force_download(force_download.clone()).vendor_metadata(metadata.clone());
            if let Some(media_type) = media_type {
                builder = builder.media_type(media_type.clone());
            }
            if let Some(identifier) = identifier {
                builder = builder.identifier(identifier.clone());
            }
            builder.build().unwrap()
        }
        let mut uploaded = FileItem::uploaded_file(url.clone(), UploadedFileProviderName::Google)
            .vendor_metadata(metadata.clone());
        let mut binary = FileItem::binary(data, "application/octet-stream").vendor_metadata(metadata.clone());
        if let Some(media_type) = &media_type {
            uploaded = uploaded.media_type(media_type.clone());
            binary = binary.media_type(media_type.clone());
        }
        if let Some(identifier) = &identifier {
            uploaded = uploaded.identifier(identifier.clone());
            binary = binary.identifier(identifier.clone());
        }
        let image: ImageUrl = with(FileItem::image_url(url.clone()), &media_type, &identifier, &force_download, &metadata);
        let audio: AudioUrl = with(FileItem::audio_url(url.clone()), &media_type, &identifier, &force_download, &metadata);
        let video: VideoUrl = with(FileItem::video_url(url.clone()), &media_type, &identifier, &force_download, &metadata);
        let document: DocumentUrl =
            with(FileItem::document_url(url.clone()), &media_type, &identifier, &force_download, &metadata);
        let binary: BinaryContent = binary.build().unwrap();
        let items = vec![
            image.into_user_content(),
            audio.into_user_content(),
            video.into_user_content(),
            document.into_user_content(),
            binary.into_user_content(),
            uploaded.build().unwrap().into_user_content(),
            text_content(url.clone(), metadata.clone()).into_user_content(),
            structured_content(metadata.clone()).build().unwrap().into_user_content(),
            cache_point(None).into_user_content(),
        ];
        let history = history_of(items);
        let bytes = msgflow_wire::to_vec(&history).unwrap();
        let parsed = msgflow_wire::from_slice(&bytes).unwrap();
        prop_assert_eq!(&parsed, &history);
        prop_assert_eq!(msgflow_wire::to_vec(&parsed).unwrap(), bytes);
    }
}
