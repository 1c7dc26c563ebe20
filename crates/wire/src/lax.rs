//! pydantic's lax mode for one JSON value: what a field typed `int` or `bool` reads from the
//! values a client may write in its place (`"4"`, `4.0`, `true`; `0`, `"yes"`).
//!
//! For readers of JSON that pydantic-ai validates with its own models before building a history
//! (the UI formats' payloads in `msgflow-formats`), so that they read what pydantic-ai reads. The
//! rules are the verdict's for a history's own fields (pydantic-core `input/shared.rs`).

use serde_json::Value;

/// The integer pydantic's lax `int` reads from `value`, as a JSON integer, or `None` when it
/// refuses it: booleans are 0 and 1, a float must be whole and within 64 bits, a string may be
/// padded and use `_` between digits and a `.000` tail.
///
/// ```
/// use serde_json::json;
/// use msgflow_wire::lax;
/// assert_eq!(lax::int(&json!(" 1_000 ")), Some(json!(1000)));
/// assert_eq!(lax::int(&json!("-04.00")), Some(json!(-4)));
/// assert_eq!(lax::int(&json!(4.0)), Some(json!(4)));
/// assert_eq!(lax::int(&json!(true)), Some(json!(1)));
/// assert_eq!(lax::int(&json!(4.5)), None);
/// assert_eq!(lax::int(&json!("4.")), None);
/// ```
pub fn int(value: &Value) -> Option<Value> {
    match value {
        Value::Bool(flag) => Some(Value::from(u8::from(*flag))),
        Value::Number(number) => {
            let literal = number.to_string();
            if crate::verdict::int_error(&literal).is_some() {
                None
            } else if literal.contains(['.', 'e', 'E']) {
                // Whole and strictly within `i64`: `int_error` checked it.
                #[allow(clippy::cast_possible_truncation)]
                Some(Value::from(number.as_f64()? as i64))
            } else {
                Some(value.clone())
            }
        }
        Value::String(text) => {
            let written = serde_json::to_string(text).ok()?;
            if crate::verdict::int_error(&written).is_some() {
                return None;
            }
            // `int_error` accepted it: trimmed, single underscores between digits, an optional
            // sign, digits, and an optional tail of zeros after a point.
            let plain = crate::verdict::strip_underscores(text.trim())?;
            let whole = plain.split_once('.').map_or(plain.as_str(), |(whole, _)| whole);
            let (negative, digits) = match whole.as_bytes().first() {
                Some(b'-') => (true, &whole[1..]),
                Some(b'+') => (false, &whole[1..]),
                _ => (false, whole),
            };
            let digits = digits.trim_start_matches('0');
            let literal = match (negative, digits.is_empty()) {
                (_, true) => "0".to_owned(),
                (true, false) => format!("-{digits}"),
                (false, false) => digits.to_owned(),
            };
            serde_json::from_str(&literal).ok()
        }
        _ => None,
    }
}

/// What pydantic's `int | str` (a smart union, in lax mode) reads from `value`: a string as it is,
/// anything else as [`int`] reads it (as in the `loc` of pydantic-core's `ErrorDetails`).
///
/// ```
/// use serde_json::json;
/// use msgflow_wire::lax;
/// assert_eq!(lax::int_or_str(&json!("4")), Some(json!("4")));
/// assert_eq!(lax::int_or_str(&json!(true)), Some(json!(1)));
/// assert_eq!(lax::int_or_str(&json!(1e2)), Some(json!(100)));
/// assert_eq!(lax::int_or_str(&json!(null)), None);
/// ```
pub fn int_or_str(value: &Value) -> Option<Value> {
    match value {
        Value::String(_) => Some(value.clone()),
        other => int(other),
    }
}

/// The boolean pydantic's lax `bool` reads from `value`, or `None` when it refuses it: `0` and
/// `1` (as integers or floats), and the strings `0`, `off`, `f`, `false`, `n`, `no`, `1`, `on`,
/// `t`, `true`, `y`, `yes` in any case, unpadded.
///
/// ```
/// use serde_json::json;
/// use msgflow_wire::lax;
/// assert_eq!(lax::boolean(&json!(0)), Some(false));
/// assert_eq!(lax::boolean(&json!("Yes")), Some(true));
/// assert_eq!(lax::boolean(&json!(" yes")), None);
/// assert_eq!(lax::boolean(&json!(2)), None);
/// ```
pub fn boolean(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(flag) => Some(*flag),
        Value::Number(number) => crate::scalars::read_lax_bool(&number.to_string()).ok(),
        Value::String(text) => crate::scalars::str_as_bool(text),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Each value with what `TypeAdapter(int).validate_python` gives for it (pydantic 2.68's
    /// pydantic-core, probed with the venv), `None` for a `ValidationError`.
    #[test]
    fn ints_are_read_as_pydantic_reads_them() {
        let cases = [
            (json!(true), Some(json!(1))),
            (json!(false), Some(json!(0))),
            (json!(4.0), Some(json!(4))),
            (json!(4.5), None),
            (json!("4"), Some(json!(4))),
            (json!(" 4 "), Some(json!(4))),
            (json!("4.0"), Some(json!(4))),
            (json!("1_000"), Some(json!(1000))),
            (json!("+4"), Some(json!(4))),
            (json!("-0"), Some(json!(0))),
            (json!("04"), Some(json!(4))),
            (json!("4."), None),
            (json!("0x10"), None),
            (json!("4e2"), None),
            (json!(""), None),
            (json!("_1"), None),
            (json!("1__0"), None),
            (json!(1e20), None),
            (json!(null), None),
            (json!([1]), None),
            (
                json!(123_456_789_012_345_678_u64),
                Some(json!(123_456_789_012_345_678_u64)),
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(int(&value), expected, "{value}");
        }
        let big: Value = serde_json::from_str("\"123456789012345678901234567890\"").unwrap();
        assert_eq!(
            int(&big).map(|v| v.to_string()).as_deref(),
            Some("123456789012345678901234567890")
        );
    }

    /// As above, with `TypeAdapter(bool)`.
    #[test]
    fn bools_are_read_as_pydantic_reads_them() {
        let cases = [
            (json!(0), Some(false)),
            (json!(1), Some(true)),
            (json!(2), None),
            (json!(0.0), Some(false)),
            (json!(1.0), Some(true)),
            (json!(1.5), None),
            (json!("0"), Some(false)),
            (json!("TRUE"), Some(true)),
            (json!("on"), Some(true)),
            (json!("n"), Some(false)),
            (json!(" true"), None),
            (json!(""), None),
            (json!(null), None),
        ];
        for (value, expected) in cases {
            assert_eq!(boolean(&value), expected, "{value}");
        }
    }
}
