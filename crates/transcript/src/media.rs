//! Binary items and URLs: images inline as `data:` URLs (bounded), other files as downloadable
//! `data:` links with their media type and size, URLs as links that are never fetched.

use msgflow_wire::BinaryContent;

use crate::escape::{push_escaped, push_link};

/// Image types shown inline. SVG is not among them: it is offered as a download, like any file
/// whose content the browser would interpret as more than pixels.
const INLINE_IMAGE_TYPES: [&str; 5] = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"];

/// The decoded size of base64 text, from its length (decoding only to count is wasteful).
pub fn decoded_size(base64: &str) -> usize {
    let padding = base64.bytes().rev().take_while(|byte| *byte == b'=').count();
    (base64.len() / 4 * 3 + base64.len() % 4 * 3 / 4).saturating_sub(padding)
}

/// `bytes` for people: `512 B`, `3.4 KiB`, `1.2 MiB`.
pub fn human_size(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let value = bytes as f64;
    if value < KIB {
        format!("{bytes} B")
    } else if value < KIB * KIB {
        format!("{:.1} KiB", value / KIB)
    } else {
        format!("{:.1} MiB", value / KIB / KIB)
    }
}

/// Whether `media_type` is a plain `type/subtype` token that can sit in a `data:` URL as is.
fn is_token_media_type(media_type: &str) -> bool {
    let mut halves = media_type.splitn(2, '/');
    let token = |text: Option<&str>| {
        text.is_some_and(|text| {
            !text.is_empty()
                && text
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || b"!#$&^_.+-".contains(&byte))
        })
    };
    token(halves.next()) && token(halves.next())
}

/// The base64 text of `data` in the standard alphabet (pydantic serialises bytes URL-safe), or
/// `None` when it holds anything but base64 characters.
fn standard_base64(data: &str) -> Option<String> {
    let mut text = String::with_capacity(data.len());
    for byte in data.bytes() {
        text.push(match byte {
            b'-' => '+',
            b'_' => '/',
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'+' | b'/' | b'=' => char::from(byte),
            _ => return None,
        });
    }
    Some(text)
}

/// Appends a binary item: an inline image, or a download link, or (too large, or not base64)
/// only its description.
pub fn push_binary(out: &mut String, item: &BinaryContent, max_embedded: usize) {
    let media_type = item.media_type.as_str();
    let size = decoded_size(item.data.as_str());
    out.push_str("<div class=\"media\"><span class=\"badge\">");
    push_escaped(out, media_type);
    out.push_str("</span> <span class=\"size\">");
    out.push_str(&human_size(size));
    out.push_str("</span>");
    if let Some(identifier) = item.identifier.get() {
        out.push_str(" <span class=\"meta\">");
        push_escaped(out, identifier);
        out.push_str("</span>");
    }
    let embeddable = size <= max_embedded && is_token_media_type(media_type);
    let data = if embeddable {
        standard_base64(item.data.as_str())
    } else {
        None
    };
    match data {
        Some(data) if INLINE_IMAGE_TYPES.contains(&media_type.to_ascii_lowercase().as_str()) => {
            out.push_str("<br><img class=\"inline-image\" alt=\"image from the history\" src=\"data:");
            out.push_str(media_type);
            out.push_str(";base64,");
            out.push_str(&data);
            out.push_str("\">");
        }
        Some(data) => {
            out.push_str(" <a class=\"download\" download=\"");
            push_escaped(out, item.identifier.get().map_or("file", String::as_str));
            out.push_str("\" href=\"data:");
            out.push_str(media_type);
            out.push_str(";base64,");
            out.push_str(&data);
            out.push_str("\">download</a>");
        }
        None if size > max_embedded => out.push_str(" <span class=\"note\">(too large to embed)</span>"),
        None => out.push_str(" <span class=\"note\">(not embedded: not plain base64 of a plain media type)</span>"),
    }
    out.push_str("</div>");
}

/// Appends a URL item (`image-url`, `document-url`, ...): its kind, media type and the URL as a
/// link, never loaded.
pub fn push_url_item(out: &mut String, kind: &str, url: &str, media_type: Option<&str>) {
    out.push_str("<div class=\"media\"><span class=\"badge\">");
    push_escaped(out, kind);
    out.push_str("</span> ");
    if let Some(media_type) = media_type {
        out.push_str("<span class=\"meta\">");
        push_escaped(out, media_type);
        out.push_str("</span> ");
    }
    push_link(out, url, url);
    out.push_str("</div>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_come_from_the_base64_length() {
        assert_eq!(decoded_size("aGVsbG8="), 5);
        assert_eq!(decoded_size("aGVsbG8"), 5);
        assert_eq!(decoded_size(""), 0);
        assert_eq!(human_size(5), "5 B");
        assert_eq!(human_size(3 * 1024 + 512), "3.5 KiB");
    }

    #[test]
    fn only_plain_media_types_and_base64_are_embedded() {
        assert!(is_token_media_type("image/png"));
        assert!(is_token_media_type("application/vnd.ms-excel"));
        assert!(!is_token_media_type("image/png\" onerror=\"x"));
        assert!(!is_token_media_type("image/png;charset=x"));
        assert!(!is_token_media_type("png"));
        assert_eq!(standard_base64("ab-_=").as_deref(), Some("ab+/="));
        assert_eq!(standard_base64("ab\"<"), None);
    }
}
