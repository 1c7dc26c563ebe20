//! Parity tests against pydantic-ai 2.68.0 on CPython 3.11.7.
//!
//! How the expected values were obtained: a venv with `pydantic-ai-slim==2.68.0`; `mimetypes.knownfiles = []` set
//! before importing `pydantic_ai.messages` (so `_mime_types` is the platform-independent baseline table); then
//! * `GUESS_CASES`: `_mime_types.guess_type(s)[0]`;
//! * `VIDEO_CASES`: `VideoUrl(u).is_youtube` (`False` when it raises) and `VideoUrl(u).media_type` (`None` when it
//!   raises `ValueError`, which the dump writes as `null`);
//! * `UPLOADED_CASES`: `UploadedFile(f, "openai").media_type` (`None` when it raises);
//! * `PATH_CASES`: `_mime_types.guess_type(pathlib.Path(p))[0] or "application/octet-stream"` (what `from_path` does
//!   once the file exists);
//! * `FORMAT_CASES`: `_document_format(t)`, `BinaryContent(b"", media_type=t).format`,
//!   `UploadedFile("x", "openai", media_type=t).format` (`None` when they raise) and `.is_document`;
//! * digests: `ModelMessagesTypeAdapter.dump_json` of a request holding a `ToolReturnPart` with the content, reading
//!   back `content` and `content_file_digests`.
//!
//! The tables were printed by a throwaway script (`gen_cases.py`, kept outside the repository) and pasted here.

use msgflow_media::*;
use proptest::prelude::*;
use serde_json::{json, Value};

const GUESS_CASES: &[(&str, Option<&str>)] = &[
    ("", None),
    ("https:", None),
    ("https://", None),
    ("data:", None),
    ("x.png", Some("image/png")),
    ("X.PNG", Some("image/png")),
    ("a.JpG", Some("image/jpeg")),
    ("a.tar.gz", Some("application/x-tar")),
    ("a.tar.GZ", None),
    ("a.tgz", Some("application/x-tar")),
    ("a.TGZ", Some("application/x-tar")),
    ("a.svgz", Some("image/svg+xml")),
    ("a.tar.Z", Some("application/x-tar")),
    ("a.tar.z", None),
    ("a.txz", Some("application/x-tar")),
    ("a.tbz2", Some("application/x-tar")),
    ("a.taz", Some("application/x-tar")),
    ("a.tz", Some("application/x-tar")),
    ("a.gz", None),
    ("a.png.gz", Some("image/png")),
    ("a.png.br", Some("image/png")),
    ("a.pdf.bz2", Some("application/pdf")),
    ("a.md.xz", Some("text/markdown")),
    (".png", None),
    ("..png", None),
    ("a..png", Some("image/png")),
    ("a.", None),
    ("dir.png/file", None),
    ("dir.png/", None),
    ("https://example.com", None),
    ("https://example.png", Some("image/png")),
    ("https://example.com/a.png?x=1", None),
    ("https://example.com/a.png#frag", None),
    ("https://example.com/a.png;p", None),
    ("C:\\\\Users\\\\me\\\\photo.JPG", Some("image/jpeg")),
    ("C:/Users/me/photo.jpg", Some("image/jpeg")),
    ("\\\\\\\\server\\\\share\\\\doc.pdf", Some("application/pdf")),
    ("/a.b/c", None),
    ("/a.b/c.d", None),
    ("file:///tmp/a.mp3", Some("audio/mpeg")),
    ("s3://bucket/key.webm", Some("video/webm")),
    ("gs://b/x.three_gp", Some("video/3gpp")),
    ("data:image/png;base64,AAA", Some("image/png")),
    ("data:image/png,AAA", Some("image/png")),
    ("DATA:Image/PNG;x=y,AAA", Some("Image/PNG")),
    ("data:a=b/c,x", Some("text/plain")),
    ("data:nocomma", None),
    ("data:plain,x", Some("text/plain")),
    ("data:,x", Some("text/plain")),
    ("data:;base64,x", Some("text/plain")),
    ("a.Ksh", Some("text/plain")),
    ("a.3gp", Some("audio/3gpp")),
    ("a.mp4", Some("video/mp4")),
    ("a.m4a", None),
    ("a.svg", Some("image/svg+xml")),
    ("a.yml", Some("application/yaml")),
    ("a.xml", Some("application/xml")),
    ("a.webp", Some("image/webp")),
    ("a.mkv", Some("video/x-matroska")),
    ("a.js", Some("application/javascript")),
    ("a.markdown", None),
    ("a.rst", None),
    ("a.opus", Some("audio/opus")),
    ("a.c", Some("text/plain")),
    ("/:x.png", Some("image/png")),
    ("a:b:c.wav", Some("audio/wav")),
    ("1:2.flac", Some("audio/flac")),
    (":.pdf", Some("application/pdf")),
    ("a b.txt", Some("text/plain")),
    ("a.txt ", None),
    (
        "a.docx",
        Some("application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    ),
];
const VIDEO_CASES: &[(&str, bool, Option<&str>)] = &[
    ("https://youtu.be/x", true, Some("video/mp4")),
    ("https://YOUTUBE.com/watch?v=1", true, Some("video/mp4")),
    ("https://www.youtube.com/watch", true, Some("video/mp4")),
    ("https://m.youtube.com/x", true, Some("video/mp4")),
    ("https://music.youtube.com/x", false, None),
    ("https://user:pw@youtube.com:8080/x", true, Some("video/mp4")),
    ("https://youtube.com.evil.com/x.mp4", false, Some("video/mp4")),
    ("//youtu.be/x", true, Some("video/mp4")),
    ("youtu.be/x", false, None),
    ("https://[::1]/a.mp4", false, Some("video/mp4")),
    ("https://[::1/a.mp4", false, None),
    ("https://yo／utube.com/a.mp4", false, None),
    ("https://example.com/v.MOV", false, Some("video/quicktime")),
    ("https://example.com/v", false, None),
    ("https://example.com/clip.3gp", false, Some("audio/3gpp")),
    ("ftp://youtube.com/x.png", true, Some("video/mp4")),
    ("https://youtu.be:notaport/x", true, Some("video/mp4")),
];
const UPLOADED_CASES: &[(&str, Option<&str>)] = &[
    ("file-abc123", Some("application/octet-stream")),
    ("x.pdf", Some("application/pdf")),
    ("gs://bucket/dir/report.PDF", Some("application/pdf")),
    ("s3://b/k.png?versionId=3", Some("image/png")),
    (
        "https://generativelanguage.googleapis.com/v1beta/files/abc",
        Some("application/octet-stream"),
    ),
    ("files/abc:def.png", Some("image/png")),
    ("file;x.png", Some("application/octet-stream")),
    ("doc.pdf;v=1", Some("application/pdf")),
    ("https://h/a.mp3#t", Some("audio/mpeg")),
    ("data:image/png;base64,xx", Some("application/octet-stream")),
    ("C:\\\\x\\\\a.wav", Some("audio/wav")),
    ("https://[::1]/a.png", Some("image/png")),
    ("https://[bad/a.png", None),
];
const PATH_CASES: &[(&str, &str)] = &[
    ("", "application/octet-stream"),
    (".", "application/octet-stream"),
    ("/", "application/octet-stream"),
    ("a.png/", "image/png"),
    ("a.png/.", "image/png"),
    ("//x.png", "image/png"),
    ("dir//photo.JPEG", "image/jpeg"),
    ("./notes.md", "text/markdown"),
    ("/tmp/Makefile", "application/octet-stream"),
    ("archive.tar.gz", "application/x-tar"),
    ("data:image/png,x", "image/png"),
];
/// (media type, `_document_format`, `BinaryContent.format`, `UploadedFile.format`, `BinaryContent.is_document`).
type FormatCase = (
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
    bool,
);

const FORMAT_CASES: &[FormatCase] = &[
    // (media type, DocumentUrl-rule format, BinaryContent.format, UploadedFile.format, BinaryContent.is_document)
    ("application/pdf", Some("pdf"), Some("pdf"), Some("pdf"), true),
    ("text/plain", Some("txt"), Some("txt"), Some("txt"), true),
    ("text/xml", Some("xml"), Some("xml"), None, false),
    ("application/xml", Some("xml"), Some("xml"), None, false),
    ("audio/x-wav", Some("wav"), None, None, false),
    ("audio/x-aiff", Some("aif"), None, None, false),
    ("application/postscript", Some("ps"), Some("ps"), None, true),
    ("application/octet-stream", Some("bin"), Some("bin"), None, true),
    ("application/javascript", Some("js"), Some("js"), None, true),
    ("APPLICATION/XML", Some("xsl"), Some("xsl"), None, true),
    ("Application/Pdf", Some("pdf"), Some("pdf"), None, true),
    ("application/vnd.ms-powerpoint", Some("ppt"), Some("ppt"), None, true),
    ("application/x-pKcs12", Some("p12"), Some("p12"), None, true),
    ("text/csv", Some("csv"), Some("csv"), Some("csv"), true),
    ("application/json", Some("json"), Some("json"), None, false),
    ("application/yaml", Some("yaml"), Some("yaml"), None, false),
    ("application/zip", Some("zip"), Some("zip"), None, true),
    ("image/png", Some("png"), Some("png"), Some("png"), false),
    ("image/svg+xml", Some("svg"), None, None, false),
    ("audio/ogg", Some("oga"), Some("oga"), Some("oga"), false),
    ("audio/mpeg", Some("mp3"), Some("mp3"), Some("mp3"), false),
    (
        "video/3gpp",
        Some("three_gp"),
        Some("three_gp"),
        Some("three_gp"),
        false,
    ),
    ("video/mp4", Some("mp4"), Some("mp4"), Some("mp4"), false),
    ("message/rfc822", Some("eml"), Some("eml"), None, true),
    ("application/x-unknown", None, None, None, false),
    ("", None, None, None, false),
    ("application/", None, None, None, false),
    ("/xml", None, None, None, false),
    ("application/ld+json", None, None, None, false),
    ("text/markdown; charset=utf-8", None, None, None, false),
    ("application/toml", Some("toml"), Some("toml"), None, false),
    ("application/rtf", Some("rtf"), Some("rtf"), None, true),
    ("application/msword", Some("doc"), Some("doc"), Some("doc"), true),
];

#[test]
fn guess_media_type_matches_python() {
    for (input, expected) in GUESS_CASES {
        assert_eq!(guess_media_type(input), *expected, "guess_media_type({input:?})");
    }
}

#[test]
fn video_urls_match_pydantic_ai() {
    for (url, youtube, media_type) in VIDEO_CASES {
        assert_eq!(is_youtube_url(url), *youtube, "is_youtube_url({url:?})");
        assert_eq!(
            infer_url_media_type(UrlKind::Video, url).as_deref(),
            *media_type,
            "VideoUrl({url:?})"
        );
    }
}

#[test]
fn non_video_kinds_never_use_the_youtube_rule() {
    // `ImageUrl("https://youtu.be/x").media_type` raises in pydantic-ai: no extension, no YouTube special case.
    assert_eq!(infer_url_media_type(UrlKind::Image, "https://youtu.be/x"), None);
    // `AudioUrl("https://[::1/a.mp3").media_type` is `audio/mpeg`: only `VideoUrl` parses the URL.
    assert_eq!(
        infer_url_media_type(UrlKind::Audio, "https://[::1/a.mp3").as_deref(),
        Some("audio/mpeg")
    );
    // `ImageUrl("https://x/a.pdf").media_type` is `application/pdf`: the kind does not constrain the type.
    assert_eq!(
        infer_url_media_type(UrlKind::Image, "https://x/a.pdf").as_deref(),
        Some("application/pdf")
    );
    assert_eq!(
        UrlKind::from_kind_tag(UrlKind::Document.kind_tag()),
        Some(UrlKind::Document)
    );
}

#[test]
fn uploaded_file_media_types_match_pydantic_ai() {
    for (file_id, expected) in UPLOADED_CASES {
        assert_eq!(
            uploaded_file_media_type(file_id).ok().as_deref(),
            *expected,
            "UploadedFile({file_id:?})"
        );
    }
    // `UploadedFile("x.pdf", "openai", media_type="").media_type == ""`: `is not None`, not truthiness.
    assert_eq!(uploaded_file_item_media_type(Some(""), "x.pdf").unwrap(), "");
    // `ImageUrl("https://x/a.png", media_type="").media_type == "image/png"`: truthiness.
    assert_eq!(
        url_item_media_type(UrlKind::Image, Some(""), "https://x/a.png").as_deref(),
        Some("image/png")
    );
}

#[test]
fn from_path_media_types_match_pydantic_ai() {
    for (path, expected) in PATH_CASES {
        assert_eq!(media_type_from_path(path), *expected, "from_path({path:?})");
    }
}

#[test]
fn formats_match_pydantic_ai() {
    for (media_type, document, binary, uploaded, is_doc) in FORMAT_CASES {
        assert_eq!(
            document_format(media_type).ok(),
            *document,
            "_document_format({media_type:?})"
        );
        assert_eq!(
            binary_format(media_type).ok(),
            *binary,
            "BinaryContent.format {media_type:?}"
        );
        assert_eq!(
            uploaded_file_format(media_type).ok(),
            *uploaded,
            "UploadedFile.format {media_type:?}"
        );
        assert_eq!(is_document(media_type), *is_doc, "is_document({media_type:?})");
    }
}

#[test]
fn url_item_formats_and_errors() {
    // `ImageUrl(..., media_type=t).format` etc.: plain dict lookups, `KeyError` otherwise.
    assert_eq!(image_format("image/webp").unwrap(), "webp");
    assert_eq!(audio_format("audio/aac").unwrap(), "aac");
    assert_eq!(video_format("video/x-matroska").unwrap(), "mkv");
    assert_eq!(
        image_format("image/PNG").unwrap_err(),
        MediaError::UnknownImageMediaType("image/PNG".to_owned())
    );
    assert_eq!(
        audio_format("audio/wave").unwrap_err().to_string(),
        "Unknown audio media type: audio/wave"
    );
    assert_eq!(
        video_format("video/avi").unwrap_err().to_string(),
        "Unknown video media type: video/avi"
    );
    // `DocumentUrl("https://x/a", media_type="application/x-unknown").format` raises
    // `ValueError("Unknown document media type: application/x-unknown")`.
    assert_eq!(
        document_format("application/x-unknown").unwrap_err().to_string(),
        "Unknown document media type: application/x-unknown"
    );
    // `BinaryContent(b"", media_type="image/bmp").format` raises `ValueError("Unknown media type: image/bmp")`.
    assert_eq!(
        binary_format("image/bmp").unwrap_err().to_string(),
        "Unknown media type: image/bmp"
    );
    assert_eq!(
        uploaded_file_format("image/bmp").unwrap_err().to_string(),
        "Unknown media type: image/bmp"
    );
    assert!(is_image("image/bmp") && is_audio("audio/x") && is_video("video/x") && !is_video("Video/x"));
}

// `_multi_modal_content_identifier(...)` in pydantic-ai 2.68.0.
#[test]
fn identifiers_match_pydantic_ai() {
    assert_eq!(identifier_for_url("https://example.com/cat.png"), "750ff4");
    assert_eq!(identifier_for_url("https://example.com/x.png"), "f27cce");
    assert_eq!(identifier_for_url("https://youtu.be/x"), "e75c9d");
    assert_eq!(identifier_for_bytes(b""), "da39a3");
    assert_eq!(identifier_for_bytes(b"\x00\xff"), "aa3e5d");
    assert_eq!(identifier_for_file_id("file-abc123"), "3a1a6c");
    assert_eq!(
        effective_identifier(Some(""), || identifier_for_file_id("file-abc123")),
        "3a1a6c"
    );
    // The computed value is only used when the explicit one is falsy; this one would fail the assertion.
    assert_eq!(effective_identifier(Some("keep"), || "computed".to_owned()), "keep");
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

const IMAGE_DUMP: &str = r#"{"url": "https://example.com/x.png", "force_download": false, "vendor_metadata": null, "kind": "image-url", "media_type": "image/png", "identifier": "f27cce"}"#;
const UPLOADED_DUMP: &str = r#"{"file_id": "file-abc123", "provider_name": "openai", "vendor_metadata": null, "kind": "uploaded-file", "media_type": "application/octet-stream", "identifier": "3a1a6c"}"#;

#[test]
fn single_item_digests_match_pydantic_ai() {
    let image = parse(IMAGE_DUMP);
    assert_eq!(
        file_item_digest(&image),
        "458b1a5a065c7457767aa58d943375ab2d8fc6a10306b60c81a3044b9ed43542"
    );
    assert_eq!(content_file_digests(&image), vec![file_item_digest(&image)]);
    let uploaded = parse(UPLOADED_DUMP);
    assert_eq!(
        content_file_digests(&uploaded),
        vec!["99f181ba0fc0abbafe8b51089d7463e4a11e7bcc72a5a65d63d4e7445f73ea46".to_owned()]
    );
}

#[test]
fn nested_content_digests_match_pydantic_ai() {
    // Content: {"a": [img, {"b": img}], "c": [VideoUrl(youtu.be, vendor_metadata floats + non-ASCII),
    // DocumentUrl(noext, force_download="allow-local"), BinaryContent(vendor_metadata with a file-ish dict), up]}.
    let content = parse(
        r#"{"a": [{"url": "https://example.com/x.png", "force_download": false, "vendor_metadata": null, "kind": "image-url", "media_type": "image/png", "identifier": "f27cce"}, {"b": {"url": "https://example.com/x.png", "force_download": false, "vendor_metadata": null, "kind": "image-url", "media_type": "image/png", "identifier": "f27cce"}}], "c": [{"url": "https://youtu.be/x", "force_download": false, "vendor_metadata": {"fps": 1e-07, "label": "café 😀", "big": 1e+16, "n": 100.0}, "kind": "video-url", "media_type": "video/mp4", "identifier": "e75c9d"}, {"url": "https://example.com/noext", "force_download": "allow-local", "vendor_metadata": null, "kind": "document-url", "media_type": null, "identifier": "eed4ca"}, {"data": "AP8=", "media_type": "image/png", "vendor_metadata": {"inner": {"kind": "image-url"}}, "kind": "binary", "identifier": "aa3e5d"}, {"file_id": "file-abc123", "provider_name": "openai", "vendor_metadata": null, "kind": "uploaded-file", "media_type": "application/octet-stream", "identifier": "3a1a6c"}]}"#,
    );
    assert_eq!(
        content_file_digests(&content),
        [
            "1eea645dea6e1e2197d5b94503977df95c38cd92ab05130a3fbae0a5a56e3818",
            "458b1a5a065c7457767aa58d943375ab2d8fc6a10306b60c81a3044b9ed43542",
            "4dfffbabb4fee9505584b34cb7f707e5c5680b318338da57bc599fed8558b88e",
            "99f181ba0fc0abbafe8b51089d7463e4a11e7bcc72a5a65d63d4e7445f73ea46",
        ]
    );
    assert!(content_needs_file_digests(&content));
}

#[test]
fn content_without_recorded_files_has_empty_digests() {
    // pydantic-ai writes `"content_file_digests": []` for each of these.
    let binary_only = parse(
        r#"[{"data": "AP8=", "media_type": "image/png", "vendor_metadata": {"inner": {"kind": "image-url"}}, "kind": "binary", "identifier": "aa3e5d"}]"#,
    );
    assert!(content_file_digests(&binary_only).is_empty());
    assert!(content_file_digests(&json!([1, "x"])).is_empty());
    assert!(content_file_digests(&json!([{"kind": "image-url", "url": "https://example.com/x.png"}])).is_empty());
    // An extra key makes it plain data, but a real item inside it still counts.
    let mut with_extra = parse(IMAGE_DUMP);
    with_extra["extra"] = parse(IMAGE_DUMP);
    assert_eq!(
        content_file_digests(&with_extra),
        vec![file_item_digest(&parse(IMAGE_DUMP))]
    );
    // A scalar content gets no key at all.
    assert!(!content_needs_file_digests(&json!("text")) && !content_needs_file_digests(&json!(null)));
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// `value` with every number replaced by the one it denotes (integers stay exact).
fn by_value(value: &Value) -> Value {
    match value {
        Value::Number(number) => match (number.as_i64(), number.as_u64()) {
            (Some(n), _) => json!(n),
            (None, Some(n)) => json!(n),
            _ => json!(number.as_f64().expect("a finite number")),
        },
        Value::Array(items) => Value::Array(items.iter().map(by_value).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), by_value(v))).collect()),
        other => other.clone(),
    }
}

proptest! {
    #[test]
    fn identifiers_are_six_lowercase_hex_digits_and_stable(data in prop::collection::vec(any::<u8>(), 0..256),
                                                            text in any::<String>()) {
        for identifier in [identifier_for_bytes(&data), identifier_for_url(&text), identifier_for_file_id(&text)] {
            prop_assert_eq!(identifier.len(), 6);
            prop_assert!(identifier.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        }
        prop_assert_eq!(identifier_for_bytes(&data), identifier_for_bytes(&data));
        prop_assert_eq!(identifier_for_url(&text), identifier_for_file_id(&text));
        prop_assert_eq!(identifier_for_url(&text), identifier_for_bytes(text.as_bytes()));
    }

    #[test]
    fn python_dumps_parses_back_to_an_equal_value(value in arbitrary_json()) {
        let dumped = python_json_dumps_sorted_ascii(&value);
        prop_assert!(dumped.is_ascii());
        let reparsed: Value = serde_json::from_str(&dumped).unwrap();
        // Python spells exponents `e-07` where Rust writes `e-7`; with serde_json's
        // `arbitrary_precision` a Number keeps its spelling, so compare by value.
        prop_assert_eq!(by_value(&reparsed), by_value(&value));
    }

    #[test]
    fn media_functions_never_panic(text in any::<String>()) {
        let _ = guess_media_type(&text);
        let _ = is_youtube_url(&text);
        let _ = uploaded_file_media_type(&text);
        let _ = media_type_from_path(&text);
        let _ = parse_data_uri(&text);
        let _ = binary_format(&text);
        let _ = is_document(&text);
    }
}
