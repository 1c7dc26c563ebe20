//! Seeded file and media items for the provider check: `BinaryContent` of many media types (small
//! random bytes, text-like files with lookalikes, bytes that are not UTF-8), URL items of every
//! kind (with and without `force_download`, an explicit or inferred media type, YouTube and
//! unguessable URLs), uploaded files of every provider, cache points, each with and without
//! `vendor_metadata` (OpenAI's image `detail`).

use msgflow_wire::Base64Data;
use serde_json::{json, Value};

use super::texts::{text, LOOKALIKES};
use super::Rng;

/// Media types of binary content: what each API takes, what pydantic-ai refuses for some, and
/// types no mapping sends.
/// A `force_download` value pydantic-ai's lax mode reads as a bool (`str_as_bool`, `int_as_bool`,
/// a float 0.0 or 1.0), which it dumps back as `true` or `false`.
fn lax_force_download(rng: &mut Rng) -> Value {
    match rng.below(7) {
        0 => json!("yes"),
        1 => json!("OFF"),
        2 => json!("T"),
        3 => json!(0),
        4 => json!(1),
        5 => json!(1.0),
        _ => json!("0"),
    }
}

const BINARY_TYPES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/svg+xml",
    "image/heic",
    "image/bmp",
    "application/pdf",
    "text/plain",
    "text/plain; charset=utf-8",
    "text/csv",
    "text/markdown",
    "text/html",
    "application/json",
    "application/xml",
    "application/yaml",
    "application/msword",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/zip",
    "application/x-unknown",
    "audio/wav",
    "audio/mpeg",
    "audio/mp3",
    "audio/ogg",
    "audio/flac",
    "video/mp4",
    "video/webm",
    "",
];

const URLS: &[&str] = &[
    "https://example.com/chart.png",
    "https://example.com/photo.JPG",
    "https://example.com/report.pdf",
    "https://example.com/notes.txt",
    "https://example.com/data.csv",
    "https://example.com/song.mp3",
    "https://example.com/voice.wav",
    "https://example.com/clip.mp4",
    "https://example.com/page.html",
    "https://example.com/noext",
    "https://example.com/a.png?size=2#x",
    "https://youtu.be/dQw4w9WgXcQ",
    "https://www.youtube.com/watch?v=abc",
    "gs://bucket/report.pdf",
    "s3://bucket/image.webp",
];

const URL_MEDIA_TYPES: &[&str] = &[
    "image/png",
    "application/pdf",
    "text/plain",
    "audio/mpeg",
    "video/mp4",
    "application/msword",
    "",
];

const FILE_IDS: &[&str] = &[
    "file-abc123",
    "file-img.png",
    "photo.jpg",
    "report.pdf",
    "gs://bucket/report.pdf",
    "notes.txt",
    "clip.mp4",
];

const UPLOAD_PROVIDERS: &[&str] = &["anthropic", "openai", "openai", "anthropic", "google-gla"];

/// `vendor_metadata`: absent, null, empty, OpenAI's `detail` (also an odd value), other keys.
fn vendor_metadata(rng: &mut Rng, item: &mut Value) {
    let metadata = match rng.below(8) {
        0 => return,
        1 | 2 => Value::Null,
        3 => json!({}),
        4 => json!({"detail": *rng.pick(&["low", "high", "auto"])}),
        5 => json!({"detail": "high", "other": 1}),
        6 => json!({"source": "camera"}),
        _ => json!({"detail": "original"}),
    };
    item["vendor_metadata"] = metadata;
}

/// Small random bytes for `media_type`: UTF-8 text (sometimes with lookalikes, sometimes not valid
/// UTF-8) for text-like types, random bytes otherwise.
fn data(rng: &mut Rng, media_type: &str) -> Vec<u8> {
    let text_like = media_type.starts_with("text/") || media_type.contains("json") || media_type.contains("ml");
    if text_like && !rng.chance(10) {
        let mut body = text(rng);
        if rng.chance(15) {
            body.push(' ');
            let lookalike: &&str = rng.pick(LOOKALIKES);
            body.push_str(lookalike);
        }
        return body.into_bytes();
    }
    let length = rng.below(48);
    let mut bytes: Vec<u8> = (0..length).map(|_| rng.next() as u8).collect();
    if text_like {
        // Not UTF-8: pydantic-ai fails to decode it where it sends the text.
        bytes.push(0xff);
    }
    bytes
}

/// Items every mapping sends (or nearly): most items are drawn from these, so that most media
/// histories export, and the rest of the pools check the refusals.
fn sendable_item(rng: &mut Rng) -> Value {
    let mut item = match rng.below(6) {
        0 | 1 => {
            let media_type = *rng.pick(&["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"]);
            let bytes = data(rng, media_type);
            json!({"kind": "binary", "data": Base64Data::from_bytes(&bytes).as_str(), "media_type": media_type})
        }
        2 | 3 => json!({"kind": "image-url", "url": *rng.pick(&URLS[..3])}),
        4 => json!({"kind": "document-url", "url": "https://example.com/report.pdf"}),
        _ => {
            let bytes = data(rng, "text/plain");
            json!({"kind": "binary", "data": Base64Data::from_bytes(&bytes).as_str(), "media_type": "text/plain"})
        }
    };
    vendor_metadata(rng, &mut item);
    item
}

/// One file or media item of a user prompt.
pub(super) fn media_item(rng: &mut Rng) -> Value {
    if rng.chance(70) {
        return sendable_item(rng);
    }
    match rng.below(20) {
        0..=8 => {
            let media_type = *rng.pick(BINARY_TYPES);
            let bytes = data(rng, media_type);
            let mut item = json!({"kind": "binary", "data": Base64Data::from_bytes(&bytes).as_str(),
                "media_type": media_type});
            vendor_metadata(rng, &mut item);
            if rng.chance(20) {
                item["identifier"] = json!(*rng.pick(&["my-file", "a1b2c3", "report \"q1\""]));
            }
            item
        }
        9..=16 => {
            let kind = *rng.pick(&["image-url", "image-url", "document-url", "audio-url", "video-url"]);
            let mut item = json!({"kind": kind, "url": *rng.pick(URLS)});
            match rng.below(7) {
                0 => item["force_download"] = json!(true),
                1 => item["force_download"] = json!("allow-local"),
                2 => item["force_download"] = json!(false),
                3 => item["force_download"] = lax_force_download(rng),
                _ => {}
            }
            if rng.chance(30) {
                item["media_type"] = json!(*rng.pick(URL_MEDIA_TYPES));
            }
            vendor_metadata(rng, &mut item);
            item
        }
        17 | 18 => {
            let mut item = json!({"kind": "uploaded-file", "file_id": *rng.pick(FILE_IDS),
                "provider_name": *rng.pick(UPLOAD_PROVIDERS)});
            if rng.chance(30) {
                item["media_type"] = json!(*rng.pick(&["image/png", "application/pdf", "text/plain", "audio/mpeg"]));
            }
            vendor_metadata(rng, &mut item);
            item
        }
        19 if rng.chance(50) => json!({"kind": "cache-point"}),
        _ => {
            // A typed text item: sent as its text (a framework frame's metadata is refused).
            let metadata = rng
                .pick(&[
                    json!(null),
                    json!({"source": "ui"}),
                    json!("note"),
                    json!({"__pydantic_ai__": {"framework_frame": true}}),
                    // pydantic-ai's namespace without the mark (`is True`): a text like any other.
                    json!({"__pydantic_ai__": {"framework_frame": 1}}),
                    json!({"__pydantic_ai__": {"run": "r1"}}),
                ])
                .clone();
            json!({"kind": "text-content", "content": text(rng), "metadata": metadata})
        }
    }
}

/// A list user prompt with media: texts and one to three file items, in any order.
pub(super) fn media_prompt(rng: &mut Rng) -> Value {
    let mut items = Vec::new();
    if rng.chance(70) {
        items.push(json!(text(rng)));
    }
    for _ in 0..1 + rng.below(3) {
        items.push(media_item(rng));
    }
    if rng.chance(30) {
        items.push(json!(text(rng)));
    }
    Value::Array(items)
}

/// Tool output with file items: binary images and PDFs (which msgflow exports), sometimes other
/// binary files (which it leaves to pydantic-ai), alone or in a list with text and data, URL items
/// and uploaded files at the top level ([`top_level_file_content`]), or file items nested in an
/// object or a nested list (which pydantic-ai rebuilds and writes in the text).
pub(super) fn tool_media_content(rng: &mut Rng) -> Value {
    fn binary(rng: &mut Rng) -> Value {
        let media_type = if rng.chance(85) {
            *rng.pick(&["image/png", "image/jpeg", "image/webp", "image/gif", "application/pdf"])
        } else {
            *rng.pick(&[
                "audio/wav",
                "video/mp4",
                "text/plain",
                "text/csv",
                "application/msword",
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                "application/zip",
                "image/svg+xml",
                "application/json",
                "text/markdown",
            ])
        };
        let bytes = data(rng, media_type);
        let mut item = json!({"kind": "binary", "data": Base64Data::from_bytes(&bytes).as_str(),
            "media_type": media_type});
        vendor_metadata(rng, &mut item);
        if rng.chance(20) {
            item["identifier"] = json!("shot-1");
        }
        item
    }
    // Half of them hold URL items or uploaded files at the top level, which reach the mappings only
    // when they load as files.
    match rng.below(24) {
        12..=23 => {
            let binary = binary(rng);
            top_level_file_content(rng, binary)
        }
        // A text file, often with a lookalike: pydantic-ai reads it for lookalikes with the tool's text.
        8 | 9 => {
            let media_type = *rng.pick(&["text/plain", "text/plain", "text/csv", "text/markdown", "image/svg+xml"]);
            let mut body = text(rng);
            if rng.chance(60) {
                let lookalike: &&str = rng.pick(LOOKALIKES);
                body.push_str(lookalike);
            }
            let item = json!({"kind": "binary", "data": Base64Data::from_bytes(body.as_bytes()).as_str(),
                "media_type": media_type});
            json!([text(rng), item])
        }
        // Audio of over a thousand bytes: pydantic-ai's note says its size with a thousands separator.
        7 => {
            let bytes: Vec<u8> = (0..1000 + rng.below(2000)).map(|_| rng.next() as u8).collect();
            json!(["recorded", {"kind": "binary", "data": Base64Data::from_bytes(&bytes).as_str(), "media_type": "audio/wav"}])
        }
        // Nested: pydantic-ai rebuilds it and re-serialises it in the output's text.
        6 | 10 | 11 => {
            let binary = binary(rng);
            nested_file_content(rng, binary)
        }
        0 => binary(rng),
        1 => json!([binary(rng)]),
        2 => json!([binary(rng), binary(rng)]),
        3 => json!([text(rng), binary(rng), {"rows": 3}]),
        4 => json!([binary(rng), text(rng)]),
        _ => json!(["see the screenshot", binary(rng), text(rng), [1, 2]]),
    }
}

/// A URL item or an uploaded file of any kind and provider for the top level of tool output: as a
/// user prompt writes it (its media type given or inferred, `force_download`, an identifier,
/// vendor metadata) or as pydantic-ai dumps it.
fn top_level_file_item(rng: &mut Rng) -> Value {
    if rng.chance(30) {
        let mut item = json!({"kind": "uploaded-file", "file_id": *rng.pick(FILE_IDS),
            "provider_name": *rng.pick(UPLOAD_PROVIDERS)});
        if rng.chance(40) {
            item["media_type"] = json!(*rng.pick(&["image/png", "application/pdf", "text/plain", "audio/mpeg", ""]));
        }
        if rng.chance(15) {
            item["identifier"] = json!("upload-1");
        }
        vendor_metadata(rng, &mut item);
        return item;
    }
    let kind = *rng.pick(&[
        "image-url",
        "image-url",
        "document-url",
        "document-url",
        "audio-url",
        "video-url",
    ]);
    let url = *rng.pick(URLS);
    let mut item = json!({"kind": kind, "url": url});
    if rng.chance(25) {
        // pydantic-ai's dump of the item: every key, its computed media type and identifier.
        item["force_download"] = json!(rng.chance(15));
        item["vendor_metadata"] = json!(null);
        item["media_type"] =
            json!(msgflow_media::UrlKind::from_kind_tag(kind)
                .and_then(|kind| msgflow_media::infer_url_media_type(kind, url)));
        item["identifier"] = json!(msgflow_media::identifier_for_url(url));
        return item;
    }
    // `_carries_media_type`: an item without a `media_type` key stays a mapping.
    item["media_type"] = match rng.below(5) {
        0 | 1 => json!(null),
        2 => json!(""),
        _ => json!(*rng.pick(URL_MEDIA_TYPES)),
    };
    if rng.chance(10) {
        item.as_object_mut().map(|map| map.remove("media_type"));
    }
    match rng.below(9) {
        0 => item["force_download"] = json!(true),
        1 => item["force_download"] = json!("allow-local"),
        2 => item["force_download"] = json!(false),
        // In tool output a value pydantic-ai does not load leaves the item a plain mapping.
        3 => item["force_download"] = json!(*rng.pick(&["yes", "Off", " 0 ", "maybe", "Allow-Local"])),
        _ => {}
    }
    if rng.chance(15) {
        item["identifier"] = json!(*rng.pick(&["doc-1", "", "a \"quoted\" id"]));
    }
    vendor_metadata(rng, &mut item);
    item
}

/// Tool output whose content, or an item of its content list, is a URL item or an uploaded file
/// ([`top_level_file_item`]), with texts, data and the `binary` item given around it, and the
/// `content_file_digests` record to write next to it: the digests of all of them (as pydantic-ai
/// records what a tool returned), of some, of none, or no record at all (a result saved before
/// records existed, in which only an `http(s)` URL item loads).
fn top_level_file_content(rng: &mut Rng, binary: Value) -> Value {
    let first = top_level_file_item(rng);
    let content = match rng.below(7) {
        0 | 1 => first,
        2 => json!([first]),
        3 => json!([text(rng), first]),
        4 => json!([first, top_level_file_item(rng), text(rng)]),
        5 => json!([first, binary, {"rows": 2}]),
        _ => json!([text(rng), first, [1, 2], top_level_file_item(rng)]),
    };
    let everything = rng.chance(75);
    let mut digests = Vec::new();
    collect_file_shaped(&content, &mut |item| {
        if everything || rng.chance(50) {
            digests.push(Value::String(msgflow_media::file_item_digest(item)));
        }
    });
    let record = match rng.below(10) {
        0..=6 => Some(Value::Array(digests)),
        7 => Some(json!([])),
        _ => None,
    };
    match record {
        Some(record) => json!({NESTED_RECORD_KEY: content, "content_file_digests": record}),
        None => json!({NESTED_RECORD_KEY: content}),
    }
}

/// A file-shaped object to nest in tool output: the `binary` item given, a URL item or an uploaded
/// file in pydantic-ai's dump form or in a shorter form (without `media_type`, with `null` or `""`,
/// `force_download`, an identifier, a key no dump writes), binary content with bad base64 or a key
/// of its own, or an object that only borrows a file `kind`.
fn nested_file_item(rng: &mut Rng, binary: Value) -> Value {
    match rng.below(12) {
        0..=2 => binary,
        3..=6 => {
            let kind = *rng.pick(&["image-url", "image-url", "document-url", "audio-url", "video-url"]);
            let url = *rng.pick(URLS);
            if rng.chance(40) {
                // A dump of a URL item pydantic-ai built: every key, computed media type and identifier.
                let mut item = json!({"url": url, "force_download": rng.chance(20), "vendor_metadata": null,
                    "kind": kind, "media_type": null, "identifier": msgflow_media::identifier_for_url(url)});
                if let Some(kind) = msgflow_media::UrlKind::from_kind_tag(kind) {
                    item["media_type"] = json!(msgflow_media::infer_url_media_type(kind, url));
                }
                if rng.chance(20) {
                    item["vendor_metadata"] = json!({"detail": "high"});
                }
                return item;
            }
            let mut item = json!({"kind": kind, "url": url});
            match rng.below(5) {
                0 => {}
                1 => item["media_type"] = json!(null),
                2 => item["media_type"] = json!(""),
                _ => item["media_type"] = json!(*rng.pick(URL_MEDIA_TYPES)),
            }
            match rng.below(7) {
                0 => item["force_download"] = json!(true),
                1 => item["force_download"] = json!("allow-local"),
                2 => item["force_download"] = lax_force_download(rng),
                _ => {}
            }
            if rng.chance(15) {
                item["identifier"] = json!("doc-1");
            }
            if rng.chance(10) {
                item["label"] = json!("not a dump key");
            }
            item
        }
        7 | 8 => {
            let mut item = json!({"kind": "uploaded-file", "file_id": *rng.pick(FILE_IDS),
                "provider_name": *rng.pick(UPLOAD_PROVIDERS)});
            if rng.chance(40) {
                item["media_type"] = json!(*rng.pick(&["image/png", "application/pdf", ""]));
            }
            if rng.chance(30) {
                item["vendor_metadata"] = json!(null);
            }
            item
        }
        9 => json!({"kind": "binary", "data": *rng.pick(&["!!", "YR==", "iVBO\nRw0KGgo="]), "media_type": "image/png"}),
        10 => {
            let mut item = binary;
            item["label"] = json!("a key BinaryContent does not declare");
            item
        }
        _ => {
            json!({"kind": *rng.pick(&["binary", "image-url", "text-content", "cache-point", "other"]), "label": "foo"})
        }
    }
}

/// Tool output holding file-shaped objects inside an object or a nested list, with the
/// `content_file_digests` record to write next to it: the digests of some of the URL and
/// uploaded-file objects (as a result pydantic-ai saved records them), sometimes of none, a digest of
/// nothing in the content, no record at all (a result saved before records existed) or one that is
/// no list.
pub(super) fn nested_file_content(rng: &mut Rng, binary: Value) -> Value {
    let first = nested_file_item(rng, binary.clone());
    let content = match rng.below(6) {
        0 => json!({"shots": [first], "n": 1}),
        1 => json!([[first], text(rng)]),
        2 => json!([text(rng), {"result": {"file": first, "ok": true}}]),
        3 => json!({"kind": "report", "attachment": first}),
        4 => {
            let second = nested_file_item(rng, binary);
            json!({"files": [first, second], "count": 2})
        }
        _ => json!({"a": {"b": [[first]]}}),
    };
    let mut digests = Vec::new();
    collect_file_shaped(&content, &mut |item| {
        if rng.chance(70) {
            digests.push(Value::String(msgflow_media::file_item_digest(item)));
        }
    });
    let record = match rng.below(10) {
        0..=4 => Some(Value::Array(digests)),
        5 => Some(json!([])),
        6 => Some(json!([
            "0000000000000000000000000000000000000000000000000000000000000000"
        ])),
        7 => Some(json!("not a list")),
        _ => None,
    };
    match record {
        Some(record) => json!({NESTED_RECORD_KEY: content, "content_file_digests": record}),
        None => json!({NESTED_RECORD_KEY: content}),
    }
}

/// The key under which [`nested_file_content`] hands its content and record to the history
/// builder, which writes them as the part's `content` and `content_file_digests`.
pub(super) const NESTED_RECORD_KEY: &str = "$msgflow-nested-content";

/// Calls `found` with every URL or uploaded-file object in `value`.
fn collect_file_shaped(value: &Value, found: &mut dyn FnMut(&Value)) {
    match value {
        Value::Object(map) => {
            if matches!(
                map.get("kind").and_then(Value::as_str),
                Some("image-url" | "audio-url" | "video-url" | "document-url" | "uploaded-file")
            ) {
                found(value);
            }
            map.values().for_each(|item| collect_file_shaped(item, found));
        }
        Value::Array(items) => items.iter().for_each(|item| collect_file_shaped(item, found)),
        _ => {}
    }
}
