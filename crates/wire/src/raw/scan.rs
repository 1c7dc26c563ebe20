//! What reading a raw value finds out about its bytes: whether it needs compacting, a bound of its
//! nesting, whether it holds a `\u` escape (the verdict's [`Shape`]), where a string ends, and the
//! compaction itself.

use super::blocks::{any_block, BlockState, Classes};
use super::Shape;

/// Where the string starting after an opening quote at `start` ends (the index after its
/// closing quote), or the end of the input.
///
/// Only quotes stop the search: a quote is the closing one when an even number of backslashes
/// precede it. Tool output is full of `\n` escapes, so this is much faster than stopping at
/// every backslash.
pub(crate) fn skip_string(bytes: &[u8], start: usize) -> usize {
    // Keys and short values end within a few bytes, where a plain loop beats starting a
    // vectorised search.
    let mut i = start;
    let short_end = (start + SHORT_STRING).min(bytes.len());
    while i < short_end {
        match bytes.get(i) {
            Some(b'"') => return i + 1,
            Some(b'\\') => i += 2,
            _ => i += 1,
        }
    }
    while let Some(rest) = bytes.get(i..) {
        let Some(offset) = memchr::memchr(b'"', rest) else {
            return bytes.len();
        };
        let at = i + offset;
        let backslashes = bytes
            .get(start..at)
            .map_or(0, |before| before.iter().rev().take_while(|&&b| b == b'\\').count());
        if backslashes % 2 == 0 {
            return at + 1;
        }
        i = at + 1;
    }
    bytes.len()
}

/// The index of the first byte at or after `at` that is not JSON whitespace (or the length).
pub(crate) fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\n' | b'\r' | b'\t')) {
        at += 1;
    }
    at
}

/// How far [`skip_string`] looks byte by byte before it searches.
const SHORT_STRING: usize = 16;

/// What [`scan`] found in a value.
pub(super) struct Scan {
    /// Whitespace outside strings: the value must be compacted.
    pub(super) whitespace: bool,
    pub(super) shape: Shape,
}

/// Classifies a value read: whitespace outside its strings (to compact it), an upper bound of
/// its nesting and whether it holds a `\u` escape (for the verdict's JSON limits).
///
/// Called on every opaque value read, so it classifies 64 bytes at a time, simdjson's first
/// stage in miniature (SIMD through `wide`'s safe API, a plain loop on targets without): see
/// [`BlockState::classify`]. Outside strings, valid JSON has no byte up to the space but
/// whitespace. The nesting bound is counted per block: the depth at its start plus its opening
/// brackets bounds the depth inside it, so no block is walked bracket by bracket.
pub(super) fn scan(bytes: &[u8]) -> Scan {
    let first = bytes.first().copied().unwrap_or(b'n');
    // A raw value starts at its first token: only arrays and objects can hold whitespace.
    if !matches!(first, b'{' | b'[') {
        return Scan {
            whitespace: false,
            shape: Shape {
                depth_bound: 0,
                // Told exactly for a string short enough to look at while it is in the cache;
                // the verdict searches a longer one itself (in order, which is fast).
                unicode_escape: first == b'"' && (bytes.len() > SHORT_ESCAPE_SCAN || may_hold_unicode_escape(bytes)),
                first,
                plain_int_values: false,
            },
        };
    }
    let mut state = BlockState::default();
    // Each level opens and closes a bracket: a value of `n` bytes nests at most `n / 2` deep,
    // which for a short one (most values) is bound enough.
    if bytes.len() <= 2 * SHALLOW {
        let (mut whitespace, mut unicode_escape) = (false, false);
        any_block(bytes, |block| {
            let classes = state.classify::<true>(block);
            whitespace |= classes.whitespace != 0;
            unicode_escape |= classes.escaped_u != 0;
            false
        });
        return Scan {
            whitespace,
            shape: Shape {
                depth_bound: u8::try_from(bytes.len() / 2).unwrap_or(u8::MAX),
                unicode_escape,
                first,
                plain_int_values: first == b'{' && holds_only_plain_integers(bytes),
            },
        };
    }
    let (mut whitespace, mut unicode_escape) = (false, false);
    let (mut depth, mut bound) = (0usize, 0usize);
    any_block(bytes, |block| {
        let classes = state.classify::<true>(block);
        whitespace |= classes.whitespace != 0;
        unicode_escape |= classes.escaped_u != 0;
        let opens = classes.opens.count_ones() as usize;
        bound = bound.max(depth + opens);
        depth = (depth + opens).saturating_sub(classes.closes.count_ones() as usize);
        false
    });
    Scan {
        whitespace,
        shape: Shape {
            depth_bound: u8::try_from(bound).unwrap_or(u8::MAX),
            unicode_escape,
            first,
            plain_int_values: first == b'{' && bytes.len() <= PLAIN_INTEGERS_SCAN && holds_only_plain_integers(bytes),
        },
    }
}

/// The longest object [`scan`] looks at for [`holds_only_plain_integers`].
pub(super) const PLAIN_INTEGERS_SCAN: usize = 1024;

/// Whether a compact object is `{"key":digits,...}` with only plain integer values (of at most
/// 4300 digits), as every usage's `details` is: the verdict's `dict[str, int]` needs no parse of
/// those.
pub(crate) fn holds_only_plain_integers(bytes: &[u8]) -> bool {
    let mut at = 1;
    loop {
        match bytes.get(at) {
            Some(b'}') => return at + 1 == bytes.len(),
            Some(b'"') => {}
            _ => return false,
        }
        // The key: a string without escapes.
        let Some(length) = memchr::memchr2(b'"', b'\\', &bytes[at + 1..]) else {
            return false;
        };
        at += 1 + length;
        if bytes.get(at) != Some(&b'"') || bytes.get(at + 1) != Some(&b':') {
            return false;
        }
        at += 2;
        if bytes.get(at) == Some(&b'-') {
            at += 1;
        }
        let digits = bytes[at.min(bytes.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 || digits > crate::verdict::MAX_INT_DIGITS {
            return false;
        }
        at += digits;
        if bytes.get(at) == Some(&b',') {
            at += 1;
        }
    }
}

/// The longest string whose `\u` escapes [`scan`] looks for.
const SHORT_ESCAPE_SCAN: usize = 1024;

/// Whether a backslash followed by `u` occurs in `bytes` (an escaped backslash before a `u`
/// counts too: the verdict tells them apart).
fn may_hold_unicode_escape(bytes: &[u8]) -> bool {
    memchr::memchr(b'\\', bytes).is_some_and(|at| bytes[at..].windows(2).any(|pair| pair == b"\\u"))
}

/// `true` when valid JSON text holds whitespace outside its strings.
#[cfg(test)]
fn needs_compaction(bytes: &[u8]) -> bool {
    scan(bytes).whitespace
}

/// A nesting bound below every room the verdict may find (jiter's 200 levels less msgflow's
/// typed [`crate::MAX_DEPTH`] and one): values of up to twice as many bytes are not counted.
const SHALLOW: usize = 200 - crate::MAX_DEPTH - 8;

/// Whether arrays and objects in the compact JSON value `bytes` nest more than `room` deep
/// (brackets inside strings do not count), for the loadability verdict's nesting limit when
/// the bound [`scan`] recorded is above `room`.
///
/// The same block classification as [`scan`]: a block whose opening brackets cannot take the
/// depth past `room` is passed over with two popcounts; only a block that could is walked
/// bracket by bracket.
pub(crate) fn nests_deeper_than(bytes: &[u8], room: usize) -> bool {
    let mut state = BlockState::default();
    let mut depth = 0usize;
    any_block(bytes, |block| {
        let Classes { opens, closes, .. } = state.classify::<true>(block);
        if depth + opens.count_ones() as usize <= room {
            depth = (depth + opens.count_ones() as usize).saturating_sub(closes.count_ones() as usize);
            return false;
        }
        let mut brackets = opens | closes;
        while brackets != 0 {
            let bit = brackets & brackets.wrapping_neg();
            if opens & bit != 0 {
                depth += 1;
                if depth > room {
                    return true;
                }
            } else {
                depth = depth.saturating_sub(1);
            }
            brackets ^= bit;
        }
        false
    })
}

/// Valid JSON text without its insignificant whitespace; strings and numbers as written.
pub(crate) fn compact(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        match byte {
            b'"' => {
                let end = skip_string(bytes, i + 1);
                out.extend_from_slice(bytes.get(i..end).unwrap_or_default());
                i = end;
            }
            b' ' | b'\n' | b'\r' | b'\t' => i += 1,
            _ => {
                out.push(byte);
                i += 1;
            }
        }
    }
    // Only ASCII whitespace was removed, between tokens, so the bytes are still UTF-8.
    String::from_utf8(out).unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The byte-by-byte definition [`needs_compaction`] must agree with.
    fn whitespace_outside_strings(text: &str) -> bool {
        let (mut in_string, mut escaped) = (false, false);
        for byte in text.bytes() {
            if escaped {
                escaped = false;
            } else if in_string && byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = !in_string;
            } else if !in_string && byte.is_ascii_whitespace() {
                return true;
            }
        }
        false
    }

    /// The deepest nesting of arrays and objects outside strings, and whether a `\\u` escape
    /// occurs, byte by byte: what [`scan`]'s shape must bound and tell.
    fn nesting_and_unicode_escape(text: &str) -> (usize, bool) {
        let (mut in_string, mut escaped) = (false, false);
        let (mut depth, mut deepest, mut unicode) = (0usize, 0usize, false);
        for byte in text.bytes() {
            if escaped {
                escaped = false;
                unicode |= byte == b'u';
            } else if in_string && byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = !in_string;
            } else if !in_string && matches!(byte, b'[' | b'{') {
                depth += 1;
                deepest = deepest.max(depth);
            } else if !in_string && matches!(byte, b']' | b'}') {
                depth -= 1;
            }
        }
        (deepest, unicode)
    }

    /// JSON values whose strings are dense in what the scanner must get right: quotes,
    /// backslash runs (which become longer runs once escaped), spaces, control characters and
    /// multi-byte UTF-8, long enough to cross the 64-byte blocks.
    fn tricky_values() -> impl Strategy<Value = serde_json::Value> {
        let string = "[\\\\\"a \n\t\u{1}u\u{e9}\u{1F600}]{0,150}".prop_map(serde_json::Value::String);
        let leaf = prop_oneof![
            string,
            any::<i64>().prop_map(serde_json::Value::from),
            Just(serde_json::Value::Null),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::Array),
                prop::collection::vec(("[a\\\\\" ]{0,70}", inner), 0..8)
                    .prop_map(|entries| serde_json::Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn block_scanner_agrees_with_the_byte_walk(value in tricky_values(), pad in 0_usize..64) {
            let compact = serde_json::to_string(&value).unwrap();
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            // Shift the text against the block boundaries: leading padding inside an array.
            let shifted = format!("[{}{compact}]", "0,".repeat(pad / 2));
            for text in [&compact, &pretty, &shifted] {
                let container = matches!(text.as_bytes().first(), Some(b'{' | b'['));
                let expected = container && whitespace_outside_strings(text);
                prop_assert_eq!(needs_compaction(text.as_bytes()), expected, "{}", text);
                if text.starts_with('"') {
                    let (_, unicode) = nesting_and_unicode_escape(text);
                    prop_assert!(scan(text.as_bytes()).shape.unicode_escape || !unicode, "{}", text);
                }
                if container {
                    let (deepest, unicode) = nesting_and_unicode_escape(text);
                    let shape = scan(text.as_bytes()).shape;
                    prop_assert!(usize::from(shape.depth_bound) >= deepest, "{}", text);
                    // Never a `\\u` escape missed; counted exactly where counted at all.
                    prop_assert!(shape.unicode_escape || !unicode, "{}", text);
                    prop_assert_eq!(shape.unicode_escape, unicode, "{}", text);
                    // The exact walk agrees at the depth itself.
                    prop_assert!(!nests_deeper_than(text.as_bytes(), deepest), "{}", text);
                    prop_assert_eq!(nests_deeper_than(text.as_bytes(), deepest.saturating_sub(1)), deepest > 0, "{}", text);
                }
            }
            prop_assert!(!needs_compaction(compact.as_bytes()));
        }
    }

    #[test]
    fn compaction_keeps_strings_and_numbers() {
        let text = "{ \"a b\" : [1E5 , \"x\\\" y\" ],\n\t\"c\":-0.0 }";
        assert!(needs_compaction(text.as_bytes()));
        assert_eq!(compact(text), "{\"a b\":[1E5,\"x\\\" y\"],\"c\":-0.0}");
        assert!(!needs_compaction(compact(text).as_bytes()));
    }
}
