//! `BinaryContent.from_data_uri` (`messages.py:846-856`).

use crate::error::MediaError;

/// Parses a data URI the way `BinaryContent.from_data_uri` does, returning `(media_type, data)`.
///
/// The rules, exactly: the string must start with `data:` (case-sensitive) and contain `;base64,`; the media type
/// is everything between `data:` and the **first** `;base64,` (unchecked, possibly empty or with parameters); the
/// rest is percent-decoded (`urllib.parse.unquote_to_bytes`: `%XX` with two hex digits becomes a byte, anything
/// else stays) and then decoded by `base64.b64decode` in its default, lenient mode: characters outside the
/// standard alphabet (including `-` and `_`) are skipped, and the first complete padding ends the input.
///
/// # Errors
///
/// The `MediaError::DataUri*` and `MediaError::Base64*` variants, carrying Python's messages.
///
/// ```
/// use msgflow_media::parse_data_uri;
///
/// let (media_type, data) = parse_data_uri("data:image/png;base64,aGk=").unwrap();
/// assert_eq!((media_type.as_str(), data.as_slice()), ("image/png", &b"hi"[..]));
/// assert_eq!(parse_data_uri("data:text/plain;base64,a%47k=").unwrap().1, b"hi");
/// assert_eq!(parse_data_uri("data:text/plain,hi").unwrap_err().to_string(),
///            "Data URI must be base64-encoded (expected \";base64,\" marker)");
/// ```
pub fn parse_data_uri(uri: &str) -> Result<(String, Vec<u8>), MediaError> {
    let body = uri.strip_prefix("data:").ok_or(MediaError::DataUriMissingPrefix)?;
    let (media_type, encoded) = body.split_once(";base64,").ok_or(MediaError::DataUriNotBase64)?;
    let data = python_b64decode(&unquote_to_bytes(encoded))?;
    Ok((media_type.to_owned(), data))
}

/// `urllib.parse.unquote_to_bytes` on a `str`: UTF-8 encode, then replace each `%XX` (two hex digits, either case)
/// by its byte. A decoded `%` is not decoded again.
fn unquote_to_bytes(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        if byte == b'%' {
            let high = bytes.get(index + 1).and_then(|b| hex_value(*b));
            let low = bytes.get(index + 2).and_then(|b| hex_value(*b));
            if let (Some(high), Some(low)) = (high, low) {
                decoded.push(high << 4 | low);
                index += 3;
                continue;
            }
        }
        decoded.push(byte);
        index += 1;
    }
    decoded
}

fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

/// `base64.b64decode(text)` of a `str`, as pydantic-ai's UI adapters decode the base64 data a message carries:
/// a character outside ASCII is refused, and the rest is decoded in the default, lenient mode of
/// [`parse_data_uri`] (characters outside the standard alphabet skipped, the first complete padding ends the
/// input).
///
/// # Errors
///
/// [`MediaError::Base64NonAscii`] and the `MediaError::Base64*` variants of the decoding, with Python's messages.
///
/// ```
/// use msgflow_media::b64decode;
///
/// assert_eq!(b64decode("aGk=").unwrap(), b"hi");
/// // A URL where base64 was expected decodes as its alphabet's letters do.
/// assert_eq!(b64decode("https://example.com/api/doc?id=7").unwrap().len(), 20);
/// assert_eq!(b64decode("aGk").unwrap_err().to_string(), "Incorrect padding");
/// assert_eq!(b64decode("aGké=").unwrap_err().to_string(), "string argument should contain only ASCII characters");
/// ```
pub fn b64decode(text: &str) -> Result<Vec<u8>, MediaError> {
    if !text.is_ascii() {
        return Err(MediaError::Base64NonAscii);
    }
    python_b64decode(text.as_bytes())
}

/// The value of a standard-alphabet base64 character.
fn base64_value(byte: u8) -> Option<u8> {
    match byte {
        b'A'..=b'Z' => Some(byte - b'A'),
        b'a'..=b'z' => Some(byte - b'a' + 26),
        b'0'..=b'9' => Some(byte - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// `base64.b64decode(data)` with default arguments: CPython 3.11's `binascii.a2b_base64(data, strict_mode=False)`.
fn python_b64decode(input: &[u8]) -> Result<Vec<u8>, MediaError> {
    let mut output = Vec::with_capacity(input.len() / 4 * 3 + 2);
    let mut quad_position = 0u8;
    let mut left_bits = 0u8;
    let mut pads = 0u8;
    for &byte in input {
        if byte == b'=' {
            // A pad completes the quantum once the quantum has at least two characters and enough pads follow;
            // then decoding stops and the rest of the input is ignored.
            if quad_position >= 2 {
                pads += 1;
                if quad_position + pads >= 4 {
                    return Ok(output);
                }
            }
            continue;
        }
        let Some(value) = base64_value(byte) else { continue };
        pads = 0;
        match quad_position {
            0 => {
                quad_position = 1;
                left_bits = value;
            }
            1 => {
                quad_position = 2;
                output.push(left_bits << 2 | value >> 4);
                left_bits = value & 0x0f;
            }
            2 => {
                quad_position = 3;
                output.push(left_bits << 4 | value >> 2);
                left_bits = value & 0x03;
            }
            _ => {
                quad_position = 0;
                output.push(left_bits << 6 | value);
                left_bits = 0;
            }
        }
    }
    match quad_position {
        0 => Ok(output),
        1 => Err(MediaError::Base64InvalidLength(output.len() / 3 * 4 + 1)),
        _ => Err(MediaError::Base64IncorrectPadding),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values: `BinaryContent.from_data_uri(...)` with pydantic-ai 2.68.0 on CPython 3.11.7 (the media type
    // and `.data`, or `str(exception)`).
    #[test]
    fn data_uri_matches_pydantic_ai() {
        let ok = |uri: &str| parse_data_uri(uri).unwrap();
        let err = |uri: &str| parse_data_uri(uri).unwrap_err().to_string();
        assert_eq!(ok("data:;base64,"), (String::new(), vec![]));
        // The rest after the first marker keeps `x;base64,` and its letters count as data.
        assert_eq!(err("data:a;b;base64,x;base64,aGk="), "Incorrect padding");
        assert_eq!(
            err("data:a;b;base64,;base64,aGk="),
            "Invalid base64-encoded string: number of data characters (9) cannot be 1 more than a multiple of 4"
        );
        assert_eq!(
            ok("data:image/png;base64,aG k=\n"),
            ("image/png".to_owned(), b"hi".to_vec())
        );
        assert_eq!(ok("data:x;base64,aGk=ignored"), ("x".to_owned(), b"hi".to_vec()));
        assert_eq!(ok("data:x;base64,aG==aGk="), ("x".to_owned(), b"h".to_vec()));
        assert_eq!(ok("data:x;base64,a=Gk="), ("x".to_owned(), b"hi".to_vec()));
        // URL-safe characters are not in the alphabet and are skipped, leaving one data character.
        assert_eq!(
            err("data:x;base64,-_8="),
            "Invalid base64-encoded string: number of data characters (1) cannot be 1 more than a multiple of 4"
        );
        assert_eq!(ok("data:x;base64,%2B%2f8="), ("x".to_owned(), vec![0xfb, 0xff]));
        assert_eq!(err("DATA:x;base64,aGk="), "Data URI must start with \"data:\"");
        assert_eq!(
            err("data:x;BASE64,aGk="),
            "Data URI must be base64-encoded (expected \";base64,\" marker)"
        );
        assert_eq!(err("data:x;base64,aGk"), "Incorrect padding");
        assert_eq!(ok("data:x;base64,aGk=a"), ("x".to_owned(), b"hi".to_vec()));
        assert_eq!(err("data:x;base64,aGlhbaGlhb"), "Incorrect padding");
        assert_eq!(
            err("data:x;base64,aGlhb"),
            "Invalid base64-encoded string: number of data characters (5) cannot be 1 more than a multiple of 4"
        );
    }
}
