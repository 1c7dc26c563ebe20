//! pydantic's lax-mode `int` (pydantic-core 2.50.5, `input/shared.rs` `str_as_int` /
//! `float_as_int`, reached from `validate_int` for JSON input): what an integer field accepts
//! besides a plain JSON integer, and the error for what it refuses.

/// Python's limit on the digits of an integer converted from text (`sys.get_int_max_str_digits`),
/// which pydantic-core applies to integer strings and jiter to integer literals.
pub(super) const MAX_INT_DIGITS: usize = 4300;

/// `int_parsing`: pydantic's message.
const INT_PARSING: (&str, &str) = (
    "int_parsing",
    "Input should be a valid integer, unable to parse string as an integer",
);
/// `int_parsing_size`: pydantic's message.
const INT_PARSING_SIZE: (&str, &str) = (
    "int_parsing_size",
    "Unable to parse input string as an integer, exceeded maximum size",
);

/// The error pydantic raises for an integer field written as `written` (a JSON literal other
/// than a plain integer: `5.0`, `"5"`, `true`), or `None` when it reads it as an int.
///
/// * booleans are 0 and 1;
/// * a float must be whole (`int_from_float`), finite (`finite_number`) and within 64 bits
///   (`int_parsing_size`: pydantic-core converts through `i64`);
/// * a string is trimmed, may use single `_` between digits and a `.000` tail, and may have at
///   most 4300 characters (`int_parsing_size`); anything else is `int_parsing`;
/// * an integer literal longer than 4300 digits is refused by the JSON parser (`json_invalid`).
pub(super) fn int_error(written: &str) -> Option<(&'static str, &'static str)> {
    let bytes = written.as_bytes();
    match bytes.first()? {
        b't' | b'f' if written == "true" || written == "false" => None,
        b'"' => {
            let text: String = serde_json::from_str(written).ok()?;
            int_string_error(&text)
        }
        b'-' | b'0'..=b'9' => {
            if !written.contains(['.', 'e', 'E']) {
                let digits = written.trim_start_matches('-').len();
                return (digits > MAX_INT_DIGITS).then_some(("json_invalid", "Invalid JSON: number out of range"));
            }
            let value: f64 = written.parse().ok()?;
            if !value.is_finite() {
                Some(("finite_number", "Input should be a finite number"))
            } else if value.fract() != 0.0 {
                Some((
                    "int_from_float",
                    "Input should be a valid integer, got a number with a fractional part",
                ))
            } else if !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&value) {
                Some(INT_PARSING_SIZE)
            } else {
                None
            }
        }
        _ => Some(("int_type", "Input should be a valid integer")),
    }
}

/// pydantic-core's `str_as_int` on a JSON string's text.
fn int_string_error(text: &str) -> Option<(&'static str, &'static str)> {
    let trimmed = text.trim();
    if trimmed.len() > MAX_INT_DIGITS {
        return Some(INT_PARSING_SIZE);
    }
    let Some(plain) = strip_underscores(trimmed) else {
        return Some(INT_PARSING);
    };
    // `strip_decimal_zeros`: `5.00` is 5, but `5.` and `.0` are not integers.
    let whole = match plain.split_once('.') {
        Some((whole, zeros)) if !zeros.is_empty() && zeros.bytes().all(|b| b == b'0') => whole,
        Some(_) => return Some(INT_PARSING),
        None => plain.as_str(),
    };
    let digits = whole.strip_prefix(['+', '-']).unwrap_or(whole);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Some(INT_PARSING);
    }
    None
}

/// Removes `_` separators as Python's `int()` allows them: only single ones between digits.
fn strip_underscores(text: &str) -> Option<String> {
    if !text.contains('_') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    for (index, &byte) in bytes.iter().enumerate() {
        if byte == b'_' {
            let before = index.checked_sub(1).map(|i| bytes[i]);
            let after = bytes.get(index + 1).copied();
            if !(before.is_some_and(|b| b.is_ascii_digit()) && after.is_some_and(|b| b.is_ascii_digit())) {
                return None;
            }
        } else {
            out.push(char::from(byte));
        }
    }
    // Only ASCII was pushed byte by byte when there was an underscore; anything else fails the
    // digit check after.
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each case as `validate_json` answers it for `usage.input_tokens` (probed on pydantic-ai 2.68.0).
    #[test]
    fn lax_ints_are_pydantics() {
        for accepted in [
            "true",
            "false",
            "5.0",
            "-0.0",
            "1e3",
            "-0",
            "\"5\"",
            "\" 5 \"",
            "\"\\t7\\n\"",
            "\"+5\"",
            "\"05\"",
            "\" -5_0 \"",
            "\"1_000\"",
            "\"5.00\"",
            "\"-0.0\"",
        ] {
            assert_eq!(int_error(accepted), None, "{accepted}");
        }
        for (refused, error_type) in [
            ("5.5", "int_from_float"),
            ("1e300", "int_parsing_size"),
            ("\"5.01\"", "int_parsing"),
            ("\"5.\"", "int_parsing"),
            ("\".0\"", "int_parsing"),
            ("\"\"", "int_parsing"),
            ("\"1e3\"", "int_parsing"),
            ("\"_5\"", "int_parsing"),
            ("\"5__0\"", "int_parsing"),
            ("\"0x10\"", "int_parsing"),
            ("\"\u{0661}\u{0662}\"", "int_parsing"),
            ("null", "int_type"),
            ("[]", "int_type"),
        ] {
            assert_eq!(int_error(refused).map(|e| e.0), Some(error_type), "{refused}");
        }
        let long_string = format!("\"{}\"", "9".repeat(4301));
        assert_eq!(int_error(&long_string).map(|e| e.0), Some("int_parsing_size"));
        assert_eq!(int_error(&format!("\"{}\"", "9".repeat(4300))), None);
        assert_eq!(int_error(&"9".repeat(4301)).map(|e| e.0), Some("json_invalid"));
        assert_eq!(int_error(&"9".repeat(4300)), None);
    }
}
