//! Python's `json.dumps(value, sort_keys=True, separators=(",", ":"))` (default `ensure_ascii=True`) for JSON
//! values: the canonical form pydantic-ai hashes for `content_file_digests` (`messages.py:1269-1282`).

use serde_json::{Number, Value};
use std::fmt::Write as _;

/// Serializes `value` exactly as CPython 3.11's
/// `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)` does for the equivalent Python
/// object (`json.loads` of the same JSON).
///
/// * Object keys sorted by code point; no whitespace.
/// * Strings: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`; every other character outside `' '..='~'` (C0 controls,
///   DEL, all non-ASCII) as `\uXXXX` with **lowercase** hex, non-BMP characters as a UTF-16 surrogate pair.
/// * Integers exactly as written (`u64`/`i64`; with serde_json's `arbitrary_precision` feature, any size).
/// * Floats as Python `repr(float)`: shortest round-trip digits, plain notation with `.0` for integral values
///   when the decimal exponent is in `-4..=15` (`100.0`, `0.0001`, `1e+16` is the first exponent form),
///   otherwise `d.ddde±XX` with at least two exponent digits (`1e-05`, `1e-07`, `1.5e+300`); `-0.0` stays `-0.0`.
///
/// Cases that cannot be exact: without `arbitrary_precision`, serde_json parses an integer beyond the `u64`/`i64`
/// range as a float, so Python's exact `2**70` (`1180591620717411303424`) comes out as `1.1805916207174113e+21`,
/// and a JSON number written as an integral float (`1.0`) is still a float here, as in Python. NaN and infinities
/// cannot occur in a `serde_json::Value` (pydantic-ai writes them as `null` before hashing anyway).
///
/// ```
/// use msgflow_media::python_json_dumps_sorted_ascii;
/// use serde_json::json;
///
/// let value = json!({"b": [1, 1e-7, 1e16, 100.0], "a": "é😀\u{7f}"});
/// assert_eq!(
///     python_json_dumps_sorted_ascii(&value),
///     r#"{"a":"\u00e9\ud83d\ude00\u007f","b":[1,1e-07,1e+16,100.0]}"#
/// );
/// ```
pub fn python_json_dumps_sorted_ascii(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, &SORTED_COMPACT);
    out
}

/// Serializes `value` as CPython 3.11's plain `json.dumps(value)` does: keys in their order, `", "`
/// between items and `": "` after keys, and strings and numbers as [`python_json_dumps_sorted_ascii`]
/// writes them. pydantic-ai writes the `encrypted_value` blobs of its AG-UI messages this way
/// (`pydantic_ai.ui.ag_ui._utils`).
///
/// ```
/// use msgflow_media::python_json_dumps_ascii;
/// use serde_json::json;
///
/// let value = json!({"b": [1, 2.5], "a": "é"});
/// assert_eq!(python_json_dumps_ascii(&value), r#"{"b": [1, 2.5], "a": "\u00e9"}"#);
/// ```
pub fn python_json_dumps_ascii(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, &DEFAULT_SPACED);
    out
}

/// How `json.dumps` was called: `sort_keys` and `separators`.
struct Style {
    sort_keys: bool,
    item_separator: &'static str,
    key_separator: &'static str,
}

const SORTED_COMPACT: Style = Style {
    sort_keys: true,
    item_separator: ",",
    key_separator: ":",
};

const DEFAULT_SPACED: Style = Style {
    sort_keys: false,
    item_separator: ", ",
    key_separator: ": ",
};

fn write_value(out: &mut String, value: &Value, style: &Style) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => write_number(out, number),
        Value::String(text) => write_string(out, text),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(style.item_separator);
                }
                write_value(out, item, style);
            }
            out.push(']');
        }
        Value::Object(map) => {
            // Sorted here rather than relying on the map: `preserve_order` may be enabled elsewhere in the build.
            // UTF-8 byte order equals code point order, which is Python's `str` order.
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if style.sort_keys {
                entries.sort_unstable_by_key(|(key, _)| *key);
            }
            out.push('{');
            for (index, (key, item)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push_str(style.item_separator);
                }
                write_string(out, key);
                out.push_str(style.key_separator);
                write_value(out, item, style);
            }
            out.push('}');
        }
    }
}

fn write_number(out: &mut String, number: &Number) {
    if let Some(unsigned) = number.as_u64() {
        let _ = write!(out, "{unsigned}");
    } else if let Some(signed) = number.as_i64() {
        let _ = write!(out, "{signed}");
    } else {
        let text = number.to_string();
        let digits = text.strip_prefix('-').unwrap_or(&text);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            // Only reachable with `arbitrary_precision`: an integer too large for 64 bits, kept exact.
            out.push_str(&text);
        } else if let Some(float) = number.as_f64() {
            write_python_float_repr(out, float);
        } else {
            out.push_str(&text);
        }
    }
}

/// Python `repr(float)` for a finite float (`float_repr_style == 'short'`).
pub(crate) fn write_python_float_repr(out: &mut String, value: f64) {
    if !value.is_finite() {
        // Not reachable from a `serde_json::Value`; Python's `json.dumps` spelling, for completeness.
        out.push_str(if value.is_nan() {
            "NaN"
        } else if value > 0.0 {
            "Infinity"
        } else {
            "-Infinity"
        });
        return;
    }
    // Rust's `{:e}` gives the shortest round-trip digits, like Python's `repr`: `1.5e300`, `-1e-7`, `0e0`.
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, mantissa),
    };
    let mut digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    resolve_tie_to_even(value, exponent, &mut digits);
    // Python's `decpt`: the value is 0.DIGITS × 10^decpt.
    let decimal_point = exponent + 1;
    if negative {
        out.push('-');
    }
    let digit_count = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    if (-3..=16).contains(&decimal_point) {
        if decimal_point <= 0 {
            out.push_str("0.");
            for _ in decimal_point..0 {
                out.push('0');
            }
            out.push_str(&digits);
        } else if decimal_point >= digit_count {
            out.push_str(&digits);
            for _ in digit_count..decimal_point {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            let split = usize::try_from(decimal_point).unwrap_or(0);
            out.push_str(digits.get(..split).unwrap_or_default());
            out.push('.');
            out.push_str(digits.get(split..).unwrap_or_default());
        }
    } else {
        let (first, rest) = digits.split_at(digits.len().min(1));
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:02}", exponent.unsigned_abs());
    }
}

/// Rust's shortest formatting and Python's `repr` agree on the digit count, but when the float lies exactly halfway
/// between the two shortest candidates Rust rounds up and Python (David Gay's `dtoa`) picks the even last digit:
/// `-1009633898741077.25` is `…077.3` in Rust and `…077.2` in Python. Detect that exact tie from the float's exact
/// decimal expansion and switch to the even candidate.
fn resolve_tie_to_even(value: f64, exponent: i32, digits: &mut String) {
    let last_is_odd = digits.bytes().last().is_some_and(|digit| (digit - b'0') % 2 == 1);
    if !last_is_odd {
        return;
    }
    // 770 fractional digits cover the exact expansion of every f64 (at most 767 significant digits).
    let exact = format!("{:.770e}", value.abs());
    let Some((exact_mantissa, exact_exponent)) = exact.split_once('e') else {
        return;
    };
    if exact_exponent.parse::<i32>().ok() != Some(exponent) {
        return;
    }
    let exact_digits: Vec<u8> = exact_mantissa.bytes().filter(|b| *b != b'.').collect();
    let count = digits.len();
    let (Some(truncated), Some(remainder)) = (exact_digits.get(..count), exact_digits.get(count..)) else {
        return;
    };
    let is_exact_half = remainder.first() == Some(&b'5') && remainder.iter().skip(1).all(|digit| *digit == b'0');
    if !is_exact_half {
        return;
    }
    let truncated_is_even = truncated.last().is_some_and(|digit| (digit - b'0').is_multiple_of(2));
    let mut chosen = truncated.to_vec();
    if !truncated_is_even && !increment_decimal(&mut chosen) {
        return;
    }
    while chosen.len() > 1 && chosen.last() == Some(&b'0') {
        chosen.pop();
    }
    if let Ok(text) = String::from_utf8(chosen) {
        *digits = text;
    }
}

/// Adds one to a decimal digit string in place; `false` (and unchanged meaning) when it would overflow.
fn increment_decimal(digits: &mut [u8]) -> bool {
    for digit in digits.iter_mut().rev() {
        if *digit == b'9' {
            *digit = b'0';
        } else {
            *digit += 1;
            return true;
        }
    }
    false
}

fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(character),
            _ => {
                let mut units = [0u16; 2];
                for unit in character.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn float_repr(value: f64) -> String {
        let mut out = String::new();
        write_python_float_repr(&mut out, value);
        out
    }

    // Expected values: `repr(x)` in CPython 3.11.7.
    #[test]
    fn float_repr_matches_python() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (100.0, "100.0"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (1.2345678901234568e17, "1.2345678901234568e+17"),
            (0.0001, "0.0001"),
            (0.00015, "0.00015"),
            (1e-5, "1e-05"),
            (1e-7, "1e-07"),
            (9.99e-6, "9.99e-06"),
            (1.5e300, "1.5e+300"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (123456.789, "123456.789"),
            (1e100, "1e+100"),
            // Exactly halfway between two 17-digit candidates (…077.25, …266.25): Python keeps the even one.
            (-4_038_535_594_964_309.0 / 4.0, "-1009633898741077.2"),
            (-8_002_415_549_409_065.0 / 4.0, "-2000603887352266.2"),
        ];
        for (value, expected) in cases {
            assert_eq!(float_repr(*value), *expected, "{value:e}");
        }
    }

    // Expected values: `json.dumps(json.loads(s), sort_keys=True, separators=(",", ":"))` in CPython 3.11.7.
    #[test]
    fn dumps_matches_python() {
        let value: Value = serde_json::from_str(
            r#"{"z":null,"a":[true,false,-1,18446744073709551615,-9223372036854775808,0.5],
                "\u00e9":"\u0000\u001f\u007f\u0080\ud83d\ude00\"\\\/\b\f\n\r\t","":{}, "A":[]}"#,
        )
        .unwrap();
        assert_eq!(
            python_json_dumps_sorted_ascii(&value),
            r#"{"":{},"A":[],"a":[true,false,-1,18446744073709551615,-9223372036854775808,0.5],"z":null,"\u00e9":"\u0000\u001f\u007f\u0080\ud83d\ude00\"\\/\b\f\n\r\t"}"#
        );
        assert_eq!(python_json_dumps_sorted_ascii(&json!("\u{2028}")), r#""\u2028""#);
    }
}
