//! Seeded file and media items for the provider check: `BinaryContent` of many media types (small
//! random bytes, text-like files with lookalikes, bytes that are not UTF-8), URL items of every
//! kind (with and without `force_download`, an explicit or inferred media type, YouTube and
//! unguessable URLs), uploaded files of every provider, cache points, each with and without
//! `vendor_metadata` (OpenAI's image `detail`).

use msgflow_wire::Base64Data;
use serde_json::{json, Value};

use super::{text, Rng, LOOKALIKES};

/// Media types of binary content: what each API takes, what pydantic-ai refuses for some, and
/// types no mapping sends.
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
            match rng.below(6) {
                0 => item["force_download"] = json!(true),
                1 => item["force_download"] = json!("allow-local"),
                2 => item["force_download"] = json!(false),
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
/// binary files (which it leaves to pydantic-ai), alone or in a list with text and data.
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
    match rng.below(10) {
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
        // Nested: pydantic-ai rebuilds it and re-serialises it in the output's text; msgflow refuses.
        6 => json!({"shots": [binary(rng)], "n": 1}),
        0 => binary(rng),
        1 => json!([binary(rng)]),
        2 => json!([binary(rng), binary(rng)]),
        3 => json!([text(rng), binary(rng), {"rows": 3}]),
        4 => json!([binary(rng), text(rng)]),
        _ => json!(["see the screenshot", binary(rng), text(rng), [1, 2]]),
    }
}
