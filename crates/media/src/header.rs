//! What a file's own header says about it: an image's dimensions, a PDF's page count, a WAV
//! file's duration. Token counts (`msgflow-context`) and provider media rules
//! (`msgflow-providers`) read them from the bytes instead of guessing; nothing here decodes a
//! whole file.

/// Width and height from a PNG, GIF, JPEG or WebP header.
pub fn image_dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    let be32 = |at: usize| Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let le16 = |at: usize| Some(u32::from(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?)));
    let be16 = |at: usize| Some(u32::from(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?)));
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.get(12..16) == Some(b"IHDR") {
        return Some((be32(16)?, be32(20)?));
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return Some((le16(6)?, le16(8)?));
    }
    if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        return match bytes.get(12..16)? {
            b"VP8 " => Some((le16(26)? & 0x3fff, le16(28)? & 0x3fff)),
            b"VP8L" => {
                let bits = u32::from_le_bytes(bytes.get(21..25)?.try_into().ok()?);
                Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
            }
            b"VP8X" => {
                let le24 = |at: usize| {
                    let b = bytes.get(at..at + 3)?;
                    Some(u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16)
                };
                Some((le24(24)? + 1, le24(27)? + 1))
            }
            _ => None,
        };
    }
    if bytes.starts_with(b"\xff\xd8") {
        // Walk the JPEG segments to the first start-of-frame marker.
        let mut at = 2;
        while at + 4 <= bytes.len() {
            if bytes[at] != 0xff {
                return None;
            }
            let marker = bytes[at + 1];
            if marker == 0xff {
                at += 1;
                continue;
            }
            let length = be16(at + 2)? as usize;
            let is_frame = matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc);
            if is_frame {
                return Some((be16(at + 7)?, be16(at + 5)?));
            }
            at += 2 + length;
        }
    }
    None
}

/// The page count of a PDF: its `/Type /Page` objects (not `/Pages`).
pub fn pdf_pages(bytes: &[u8]) -> Option<usize> {
    let mut pages = 0;
    let mut rest = bytes;
    while let Some(at) = find(rest, b"/Type") {
        rest = &rest[at + 5..];
        let value = rest
            .iter()
            .position(|&b| !b.is_ascii_whitespace())
            .map_or(&[][..], |skip| &rest[skip..]);
        if value.starts_with(b"/Page") && !value.get(5).is_some_and(|&b| b.is_ascii_alphanumeric()) {
            pages += 1;
        }
    }
    (pages > 0).then_some(pages)
}

/// The number of frames (image descriptors) of a GIF, walking its blocks: more than one is an
/// animation, which OpenAI's vision input refuses. `None` for bytes that are not a whole GIF.
///
/// ```
/// // A 1x1 GIF with one frame: header, screen descriptor, one image, the trailer.
/// let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;";
/// assert_eq!(msgflow_media::gif_frames(gif), Some(1));
/// ```
pub fn gif_frames(bytes: &[u8]) -> Option<usize> {
    if !(bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a")) {
        return None;
    }
    // A color table of 3 * 2^(n+1) bytes follows a descriptor whose flags set bit 7.
    let table = |flags: u8| {
        if flags & 0x80 != 0 {
            3 << ((flags & 0x07) + 1)
        } else {
            0
        }
    };
    // Data sub-blocks: a length byte, that many bytes, until a zero length.
    let skip_sub_blocks = |mut at: usize| loop {
        let length = usize::from(*bytes.get(at)?);
        at += 1 + length;
        if length == 0 {
            return Some(at);
        }
    };
    let mut at = 13 + table(*bytes.get(10)?);
    let mut frames = 0;
    loop {
        match *bytes.get(at)? {
            // An extension: its label, then its sub-blocks.
            0x21 => at = skip_sub_blocks(at + 2)?,
            // An image: a 9-byte descriptor, its color table, the LZW code size, its data.
            0x2C => {
                frames += 1;
                at = skip_sub_blocks(at + 10 + table(*bytes.get(at + 9)?) + 1)?;
            }
            0x3B => return Some(frames),
            _ => return None,
        }
    }
}

/// The duration of a PCM WAV file, from its `fmt ` byte rate and `data` size.
pub fn wav_seconds(bytes: &[u8]) -> Option<f64> {
    if !(bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WAVE")) {
        return None;
    }
    let le32 = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let (mut at, mut byte_rate, mut data) = (12, None, None);
    while at + 8 <= bytes.len() {
        let size = le32(at + 4)? as usize;
        match bytes.get(at..at + 4)? {
            b"fmt " => byte_rate = le32(at + 16),
            b"data" => data = Some(size),
            _ => {}
        }
        at += 8 + size + size % 2;
    }
    let byte_rate = byte_rate.filter(|&rate| rate > 0)?;
    Some(data? as f64 / f64::from(byte_rate))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}
