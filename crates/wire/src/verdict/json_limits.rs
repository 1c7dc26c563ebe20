//! The JSON-level limits of pydantic-core 2.50.5's parser (jiter), checked in the opaque values
//! msgflow carries at any depth and with any content. Typed structure cannot break them: msgflow
//! reads it with serde_json, which refuses lone surrogates, and limits it to 128 levels.
//!
//! * Nesting: jiter's recursion limit; a value inside more than 200 arrays and objects is
//!   `json_invalid` ("recursion limit exceeded"). The limit is on what a container holds, not on
//!   the container: an empty array or object may open at level 201. Probed with `validate_json`
//!   on a request's `metadata` (2 levels down): 198 nested objects or arrays around a number load
//!   (or are a `dict_type`), 199 are `json_invalid`; 199 around an empty `[]` or `{}` load, 200 do
//!   not.
//! * Integers: a literal of more than 4300 digits is `json_invalid` ("number out of range"),
//!   Python's `int` string-conversion limit.
//! * Escapes: a `\u` escape of a lone UTF-16 surrogate (a high one not followed by a low one, or
//!   a low one alone) is `json_invalid`, in keys and values alike.
//!
//!
//! What jiter does not refuse, although it is out of the ordinary, was asked of the oracle
//! (pydantic-ai 2.68.0, pydantic-core 2.50.5): duplicate keys (the last value wins), integers
//! beyond 64 bits up to 4300 digits, `-0`, `1e400` and `1e-400` (floats that overflow to
//! infinity or underflow to zero), surrogate pairs, and values up to 200 levels deep all load.
//!
//! Each check first rules itself out from cheap facts, so that a value's text is read only where
//! it could break a limit: what the scan on reading recorded ([`crate::raw::Shape`]: the value's
//! kind, an upper bound of its nesting, whether a string in it may hold a `\u` escape), its
//! length, and for long ones the digit runs through every 4301st byte. A string longer than the
//! reader looks at is searched for `\u` from its first backslash.

use memchr::memmem;

use super::lax::MAX_INT_DIGITS;
use crate::RawJson;

/// jiter's nesting limit: the arrays and objects (the document's own array included) a value may
/// be inside.
pub(super) const MAX_JSON_DEPTH: usize = 200;

/// The `json_invalid` message for `raw` (a compact JSON value `depth()` containers deep, asked
/// only of a value that may nest deeply), if pydantic-core's parser would refuse it.
pub(super) fn check(raw: &RawJson, depth: impl FnOnce() -> usize) -> Option<&'static str> {
    let shape = raw.shape();
    let length = raw.text_len();
    // The text is read only when the facts its scan recorded on reading allow a refusal.
    match shape.first {
        b'"' => {}
        b'{' | b'[' => {
            if length > MAX_INT_DIGITS && too_many_digits(raw.get().as_bytes()) {
                return Some("Invalid JSON: number out of range");
            }
            // Each level opens and closes a bracket: a shorter value cannot overflow the room
            // left, nor one whose recorded bound is within it. The typed structure is at most
            // `MAX_DEPTH` deep, so a value within the room left below that needs no `depth()`.
            let fits = |room: usize| usize::from(shape.depth_bound) <= room || length <= 2 * room;
            if !fits(MAX_JSON_DEPTH - crate::MAX_DEPTH) {
                let room = MAX_JSON_DEPTH.saturating_sub(depth());
                let bytes = raw.get().as_bytes();
                // Containers open `room + 1` deep: refused when one holds a value (one opening
                // deeper still is inside such a container).
                if !fits(room)
                    && crate::raw::nests_deeper_than(bytes, room)
                    && (crate::raw::nests_deeper_than(bytes, room + 1) || holds_a_value_at(bytes, room + 1))
                {
                    return Some("Invalid JSON: recursion limit exceeded");
                }
            }
        }
        _ => {
            let long_integer = length > MAX_INT_DIGITS && too_many_digits(raw.get().as_bytes());
            return long_integer.then_some("Invalid JSON: number out of range");
        }
    }
    if shape.unicode_escape {
        let bytes = raw.get().as_bytes();
        // Nothing before the first backslash can be an escape.
        if let Some(first) = memchr::memchr(b'\\', bytes) {
            if has_lone_surrogate(&bytes[first..]) {
                return Some("Invalid JSON: lone surrogate in hex escape");
            }
        }
    }
    None
}

/// Whether a container opening `level` deep in the compact JSON value `bytes` (the value's own
/// brackets are level 1) holds anything: `[]` and `{}` hold nothing. Only for values that nest
/// that deep, which are walked bracket by bracket.
fn holds_a_value_at(bytes: &[u8], level: usize) -> bool {
    let (mut depth, mut at) = (0usize, 0);
    while at < bytes.len() {
        match bytes[at] {
            b'"' => at = string_end(bytes, at),
            b'[' | b'{' => {
                depth += 1;
                if depth == level && !matches!(bytes.get(at + 1), Some(b']' | b'}')) {
                    return true;
                }
                at += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                at += 1;
            }
            _ => at += 1,
        }
    }
    false
}

/// Whether the value holds an integer literal (outside strings) of more than 4300 digits. Any
/// such run covers a multiple of 4301, so only the runs of digits through bytes there are
/// measured; only a long enough run makes the value worth a walk.
fn too_many_digits(bytes: &[u8]) -> bool {
    let step = MAX_INT_DIGITS + 1;
    let long_run = (step - 1..bytes.len()).step_by(step).any(|at| {
        let digit = |i: &usize| bytes[*i].is_ascii_digit();
        let before = (0..at).rev().take_while(digit).count();
        let after = (at..bytes.len()).take_while(digit).count();
        before + after > MAX_INT_DIGITS
    });
    long_run
        && number_runs(bytes).any(|(start, end)| {
            let literal = &bytes[start..end];
            let integer = !literal.iter().any(|b| matches!(b, b'.' | b'e' | b'E'));
            integer && literal.iter().filter(|b| b.is_ascii_digit()).count() > MAX_INT_DIGITS
        })
}

/// The (start, end) of every number literal outside strings.
fn number_runs(bytes: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            match bytes[at] {
                b'"' => at = string_end(bytes, at),
                b'-' | b'0'..=b'9' => {
                    let start = at;
                    while at < bytes.len() && matches!(bytes[at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                        at += 1;
                    }
                    return Some((start, at));
                }
                _ => at += 1,
            }
        }
        None
    })
}

/// Just past the closing quote of the string opening at `at`.
fn string_end(bytes: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    while i < bytes.len() {
        match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
            None => return bytes.len(),
            Some(found) if bytes[i + found] == b'\\' => i += found + 2,
            Some(found) => return i + found + 1,
        }
    }
    bytes.len()
}

/// Whether a `\u` escape encodes a lone surrogate.
fn has_lone_surrogate(bytes: &[u8]) -> bool {
    let mut expect_low = false;
    let mut previous_end = 0;
    for at in memmem::find_iter(bytes, b"\\u") {
        // `\\u` is an escaped backslash followed by the letter u, not an escape.
        let backslashes = bytes[..at + 1].iter().rev().take_while(|&&b| b == b'\\').count();
        if backslashes % 2 == 0 {
            continue;
        }
        let Some(code) = bytes
            .get(at + 2..at + 6)
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u16::from_str_radix(hex, 16).ok())
        else {
            continue;
        };
        let adjacent = at == previous_end;
        if expect_low {
            if !(adjacent && (0xDC00..0xE000).contains(&code)) {
                return true;
            }
            expect_low = false;
        } else if (0xD800..0xDC00).contains(&code) {
            expect_low = true;
        } else if (0xDC00..0xE000).contains(&code) {
            return true;
        }
        previous_end = at + 6;
    }
    expect_low
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check of a value as msgflow reads it (with the shape its scan records), and of the
    /// same text built by msgflow (no shape: the verdict scans it all); both must agree.
    fn check(text: &str, depth: usize) -> Option<&'static str> {
        let read = RawJson::from_json_text(text).unwrap();
        let built = RawJson::trusted(read.get());
        let answer = super::check(&read, || depth);
        assert_eq!(answer, super::check(&built, || depth), "{text}");
        answer
    }

    #[test]
    fn surrogates_are_lone_as_jiter_sees_them() {
        for lone in [
            r#""\ud800x""#,
            r#""\udc00""#,
            r#"{"a\ud800":1}"#,
            r#""\ud800\u0041""#,
            r#""\ud800\ud800""#,
        ] {
            assert!(check(lone, 3).is_some(), "{lone}");
        }
        for fine in [r#""\ud83d\ude00""#, r#""\\ud800""#, r#""\u0041""#, r#""a\nb""#] {
            assert_eq!(check(fine, 3), None, "{fine}");
        }
    }

    #[test]
    fn depth_counts_from_where_the_value_is() {
        let nested = |levels: usize| format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
        // A tool return's metadata (4 levels down), as pydantic-ai answers it: a number inside
        // 196 arrays loads, inside 197 it does not; 197 around an empty array load, 198 do not.
        assert_eq!(check(&nested(196), 4), None);
        assert!(check(&nested(197), 4).is_some());
        let empty = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
        assert_eq!(check(&empty(197), 4), None);
        assert!(check(&empty(198), 4).is_some());
        let objects = |levels: usize| format!("{}{{}}{}", "{\"a\":".repeat(levels - 1), "}".repeat(levels - 1));
        assert_eq!(check(&objects(197), 4), None);
        assert!(check(&objects(198), 4).is_some());
        let in_strings = format!("\"{}\"", "[".repeat(500));
        assert_eq!(check(&in_strings, 4), None);
    }

    #[test]
    fn long_integer_literals_are_out_of_range() {
        assert!(check(&format!("[{}]", "9".repeat(4301)), 4).is_some());
        assert_eq!(check(&format!("[{}]", "9".repeat(4300)), 4), None);
        assert_eq!(check(&format!("[1.{}]", "0".repeat(5000)), 4), None);
        assert_eq!(check(&format!("\"{}\"", "9".repeat(5000)), 4), None);
    }
}
