//! Whether a compact JSON text is already the text pydantic-ai would write for the value it holds,
//! so that the mappings can send it as it is instead of building a `serde_json::Value` and
//! writing it again ([`crate::prepare::json_text`]).
//!
//! A history's JSON values ([`msgflow_wire::RawJson`]) are kept as written, without their
//! whitespace. pydantic-ai reads them into Python values and dumps those (`to_json`: compact,
//! non-ASCII as it is). The two texts differ only where reading changes something: an escape
//! other than the one serde_json (and pydantic-core) writes, a number Python reads as another
//! (`-0`, floats), an object with a key written twice (the last value wins, at the first key's
//! place), nesting past serde_json's recursion limit. [`is_dumped_form`] answers `true` only
//! when the text has none of these; anything else goes the long way, which is exact.

/// Nesting deeper than this is left to the long way (serde_json's own limit is 128).
const MAX_DEPTH: usize = 100;

/// Whether `text`, valid compact JSON, equals the JSON text [`crate::prepare::json_text`] writes
/// for the value it parses to (for a container, its rendering).
///
/// ```ignore
/// assert!(is_dumped_form(r#"{"path":"a.py","lines":[1,2]}"#));
/// assert!(!is_dumped_form(r#"{"a":1,"a":2}"#)); // Python keeps the last `a`
/// assert!(!is_dumped_form(r#"{"x":1.50}"#)); // Python writes `1.5`
/// ```
pub(crate) fn is_dumped_form(text: &str) -> bool {
    let mut keys = Vec::new();
    let bytes = text.as_bytes();
    value_end(bytes, 0, 0, &mut keys) == Some(bytes.len())
}

/// The items of a list in dumped form, as written.
pub(crate) fn list_items(list: &str) -> impl Iterator<Item = &str> {
    let bytes = list.as_bytes();
    let mut keys = Vec::new();
    // Past the `[`; `None` once past the `]`.
    let mut next = (list.starts_with('[') && list != "[]").then_some(1);
    std::iter::from_fn(move || {
        let start = next?;
        let end = value_end(bytes, start, 1, &mut keys)?;
        next = (bytes.get(end) == Some(&b',')).then_some(end + 1);
        list.get(start..end)
    })
}

/// The end of the value starting at `at`, when it is in dumped form.
fn value_end<'a>(bytes: &'a [u8], at: usize, depth: usize, keys: &mut Vec<&'a [u8]>) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' => {
            if depth >= MAX_DEPTH {
                return None;
            }
            let first_key = keys.len();
            let mut at = at + 1;
            if bytes.get(at) == Some(&b'}') {
                return Some(at + 1);
            }
            loop {
                let key_end = string_end(bytes, at)?;
                let key = &bytes[at..key_end];
                // A key written twice is read once (the last value, at the first place). In
                // dumped form a string has one spelling, so equal keys are equal bytes.
                if keys[first_key..].contains(&key) {
                    return None;
                }
                keys.push(key);
                if bytes.get(key_end) != Some(&b':') {
                    return None;
                }
                at = value_end(bytes, key_end + 1, depth + 1, keys)?;
                match bytes.get(at)? {
                    b',' => at += 1,
                    b'}' => {
                        keys.truncate(first_key);
                        return Some(at + 1);
                    }
                    _ => return None,
                }
            }
        }
        b'[' => {
            if depth >= MAX_DEPTH {
                return None;
            }
            let mut at = at + 1;
            if bytes.get(at) == Some(&b']') {
                return Some(at + 1);
            }
            loop {
                at = value_end(bytes, at, depth + 1, keys)?;
                match bytes.get(at)? {
                    b',' => at += 1,
                    b']' => return Some(at + 1),
                    _ => return None,
                }
            }
        }
        b't' => literal_end(bytes, at, b"true"),
        b'f' => literal_end(bytes, at, b"false"),
        b'n' => literal_end(bytes, at, b"null"),
        b'-' | b'0'..=b'9' => integer_end(bytes, at),
        // `NaN`, `Infinity`, whitespace: not dumped form.
        _ => None,
    }
}

fn literal_end(bytes: &[u8], at: usize, literal: &[u8]) -> Option<usize> {
    bytes[at..].starts_with(literal).then_some(at + literal.len())
}

/// The end of an integer Python writes back as it is: not `-0` (Python's `0`), no fraction or
/// exponent (a float is written in its shortest form, which may differ).
fn integer_end(bytes: &[u8], at: usize) -> Option<usize> {
    let digits_start = at + usize::from(bytes[at] == b'-');
    let digits = bytes[digits_start..]
        .iter()
        .take_while(|byte| byte.is_ascii_digit())
        .count();
    let end = digits_start + digits;
    let leading_zero = digits > 1 && bytes[digits_start] == b'0';
    let negative_zero = digits_start > at && &bytes[digits_start..end] == b"0";
    if digits == 0 || leading_zero || negative_zero || matches!(bytes.get(end), Some(b'.' | b'e' | b'E')) {
        return None;
    }
    Some(end)
}

/// The end of the string starting at `at` (its opening quote), when every escape in it is the
/// one serde_json writes: `\"`, `\\`, the five short control escapes, and `\u00xx` (lowercase)
/// for the other control characters. Anything else (`\/`, `\u00e9`, a surrogate pair) is
/// written differently once read.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut at = at + 1;
    loop {
        at += memchr::memchr2(b'"', b'\\', &bytes[at..])?;
        match bytes[at] {
            b'"' => break,
            _ => {
                at += match *bytes.get(at + 1)? {
                    b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                    b'u' => {
                        let hex = bytes.get(at + 2..at + 6)?;
                        let short = matches!(hex, b"0008" | b"0009" | b"000a" | b"000c" | b"000d");
                        let control = hex.starts_with(b"00")
                            && matches!(hex[2], b'0' | b'1')
                            && matches!(hex[3], b'0'..=b'9' | b'a'..=b'f');
                        if !control || short {
                            return None;
                        }
                        6
                    }
                    _ => return None,
                };
            }
        }
    }
    // The bytes between escapes are written as they are by both: valid JSON holds no raw
    // control character, and UTF-8 (DEL, U+2028 and the rest) is kept.
    Some(at + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prepare::json_text;
    use proptest::prelude::*;
    use serde_json::Value;

    /// The long way: the text read as Python reads it and written again (in a list, as
    /// `json_text` gives a string's own text, not its JSON).
    fn dumped(text: &str) -> Option<String> {
        let value = serde_json::from_str::<Value>(text).ok()?;
        let listed = json_text(&Value::Array(vec![value]));
        Some(listed[1..listed.len() - 1].to_owned())
    }

    #[test]
    fn the_common_shapes_are_in_dumped_form() {
        for text in [
            r#"{"path":"src/a.rs","old":"    })\n","new":"x\t\"y\"\\"}"#,
            r#"[{"line":328,"text":"def f() -> dict:  # ✓"},{"n":-12,"ok":true,"none":null}]"#,
            r#"{}"#,
            r#"[]"#,
            r#""plain""#,
            r#"{"big":123456789012345678901234567890,"ctl":"\u001f\u0000"}"#,
            r#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}"#,
        ] {
            assert!(is_dumped_form(text), "{text}");
            assert_eq!(dumped(text).as_deref(), Some(text));
        }
    }

    #[test]
    fn what_reading_changes_is_not() {
        for text in [
            r#"{"a":1,"a":2}"#,
            r#"{"x":1.50}"#,
            r#"{"x":1.5}"#,
            r#"{"x":1e2}"#,
            r#"-0"#,
            r#"{"s":"a\/b"}"#,
            r#"{"s":"\u00e9"}"#,
            r#"{"s":"\u000A"}"#,
            r#"{"s":"\u000a"}"#,
            r#"{"s":"\uD83D\uDE00"}"#,
            r#"{"s":"\u001F"}"#,
            r#"{"a":NaN}"#,
            r#"{"a": 1}"#,
            r#"{"a":1}x"#,
            r#"{"a":1"#,
        ] {
            assert!(!is_dumped_form(text), "{text}");
        }
    }

    /// Compact JSON texts built from pieces that reading changes and pieces it keeps.
    fn json_text_strategy() -> impl Strategy<Value = String> {
        let key = prop::sample::select(vec![r#""a""#, r#""b""#, r#""\u0061""#, r#""k\"""#, r#""é""#]);
        let string = prop::sample::select(vec![
            r#""x""#,
            r#""\n\t""#,
            r#""\/""#,
            r#""\u001f""#,
            r#""\u001F""#,
            r#""\u000a""#,
            r#""\u00e9""#,
            r#""\ud83d\ude00""#,
            r#""a\\u0062""#,
            "\"\u{7f}\u{2028}✓\"",
        ]);
        let number = prop::sample::select(vec![
            "0",
            "-0",
            "7",
            "-12",
            "1.0",
            "1.5",
            "1e2",
            "-0.0",
            "123456789012345678901234567890",
        ]);
        let leaf = prop_oneof![
            string.prop_map(str::to_owned),
            number.prop_map(str::to_owned),
            prop::sample::select(vec!["true", "false", "null"]).prop_map(str::to_owned),
        ];
        leaf.prop_recursive(4, 32, 4, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(|items| format!("[{}]", items.join(","))),
                prop::collection::vec((key.clone(), inner), 0..4).prop_map(|entries| {
                    let entries: Vec<String> = entries
                        .into_iter()
                        .map(|(key, value)| format!("{key}:{value}"))
                        .collect();
                    format!("{{{}}}", entries.join(","))
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// Dumped form is never claimed for a text the long way writes differently.
        #[test]
        fn a_text_in_dumped_form_is_written_back_as_it_is(text in json_text_strategy()) {
            if is_dumped_form(&text) {
                prop_assert_eq!(dumped(&text), Some(text.clone()));
            }
        }

        /// A dumped list's items are found as written, whatever they hold.
        #[test]
        fn a_dumped_lists_items_are_its_items(items in prop::collection::vec(json_text_strategy(), 1..5)) {
            let list = format!("[{}]", items.join(","));
            if is_dumped_form(&list) {
                prop_assert_eq!(list_items(&list).collect::<Vec<_>>(), items.iter().map(String::as_str).collect::<Vec<_>>());
            }
        }
    }
}
