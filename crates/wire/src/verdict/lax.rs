//! pydantic's lax-mode `int` (pydantic-core 2.50.5, `input/shared.rs` `str_as_int` /
//! `float_as_int`, reached from `validate_int` for JSON input): what an integer field accepts
//! besides a plain JSON integer, and the error for what it refuses.

/// Python's limit on the digits of an integer converted from text (`sys.get_int_max_str_digits`),
/// which pydantic-core applies to integer strings and jiter to integer literals.
pub(crate) const MAX_INT_DIGITS: usize = 4300;

/// `int_parsing`: pydantic's message.
const INT_PARSING: (&str, &str) = (
    "int_parsing",
    "Input should be a valid integer, unable to parse string as an integer",
);
/// `finite_number`: pydantic's message.
const FINITE_NUMBER: (&str, &str) = ("finite_number", "Input should be a finite number");
/// `int_parsing_size`: pydantic's message.
const INT_PARSING_SIZE: (&str, &str) = (
    "int_parsing_size",
    "Unable to parse input string as an integer, exceeded maximum size",
);

/// `i64::MIN` and `i64::MAX` as floats: pydantic-core's `float_as_int` takes a whole float
/// strictly between them (probed with the venv: `-9.223372036854775808e18` is `int_parsing_size`).
const I64_MIN_F64: f64 = i64::MIN as f64;
const I64_MAX_F64: f64 = i64::MAX as f64;

/// The error pydantic raises for an integer field written as `written` (a JSON literal other
/// than a plain integer: `5.0`, `"5"`, `true`), or `None` when it reads it as an int.
///
/// * booleans are 0 and 1;
/// * a float must be whole (`int_from_float`), finite (`finite_number`) and within 64 bits
///   (`int_parsing_size`: pydantic-core converts through `i64`);
/// * a string is trimmed, may use single `_` between digits and a `.000` tail, and may have at
///   most 4300 characters (`int_parsing_size`); anything else is `int_parsing`;
/// * an integer literal longer than 4300 digits is refused by the JSON parser (`json_invalid`).
pub(crate) fn int_error(written: &str) -> Option<(&'static str, &'static str)> {
    // jiter reads `NaN` / `Infinity` as floats, which `float_as_int` refuses first.
    if NON_FINITE_LITERALS.contains(&written) {
        return Some(FINITE_NUMBER);
    }
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
                Some(FINITE_NUMBER)
            } else if value.fract() != 0.0 {
                Some((
                    "int_from_float",
                    "Input should be a valid integer, got a number with a fractional part",
                ))
            } else if !(value > I64_MIN_F64 && value < I64_MAX_F64) {
                Some(INT_PARSING_SIZE)
            } else {
                None
            }
        }
        _ => Some(("int_type", "Input should be a valid integer")),
    }
}

/// pydantic's lax `bool` for a JSON literal, as [`crate::scalars::read_lax_bool`] reads it (the
/// rule [`crate::LaxBool::value`] reads too); `None` when accepted.
pub(super) fn bool_error(written: &str) -> Option<(&'static str, &'static str)> {
    use crate::scalars::BoolRefusal;
    match crate::scalars::read_lax_bool(written) {
        Ok(_) => None,
        Err(BoolRefusal::Parsing) => Some((
            "bool_parsing",
            "Input should be a valid boolean, unable to interpret input",
        )),
        Err(BoolRefusal::Type) => Some(("bool_type", "Input should be a valid boolean")),
    }
}

/// The `NaN` / `Infinity` literals msgflow reads where pydantic-ai does, which jiter reads as
/// floats.
use crate::non_finite::LITERALS as NON_FINITE_LITERALS;

/// pydantic's `Decimal` (pydantic-core `validators/decimal.rs`, which hands strings to Python's
/// `decimal.Decimal` after stripping whitespace) for a JSON literal; `None` when accepted.
pub(super) fn decimal_error(written: &str) -> Option<(&'static str, &'static str)> {
    const PARSING: (&str, &str) = ("decimal_parsing", "Input should be a valid decimal");
    const FINITE: (&str, &str) = ("finite_number", "Input should be a finite number");
    if NON_FINITE_LITERALS.contains(&written) {
        return Some(FINITE);
    }
    match written.as_bytes().first()? {
        b'"' => {
            let text: String = serde_json::from_str(written).ok()?;
            let text = text.trim();
            let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text).to_ascii_lowercase();
            if matches!(unsigned.as_str(), "nan" | "snan" | "inf" | "infinity") {
                return Some(FINITE);
            }
            let Some(plain) = strip_underscores(text) else {
                return Some(PARSING);
            };
            (!is_decimal_literal(&plain)).then_some(PARSING)
        }
        b'-' | b'0'..=b'9' => written
            .parse::<f64>()
            .is_ok_and(|value| !value.is_finite())
            .then_some(FINITE),
        _ => Some((
            "decimal_type",
            "Decimal input should be an integer, float, string or Decimal object",
        )),
    }
}

/// pydantic's `timedelta` for a JSON literal (pydantic-core `input/datetime.rs` over speedate's
/// `Duration`): a number of seconds within Python's range (999,999,999 days), or a string in
/// ISO 8601 (`P1DT2H3M4.5S`, `PT0S`, `-PT1S`, weeks too) or a clock or day count as speedate
/// reads them ([`speedate_duration`]); `None` when accepted.
pub(super) fn duration_error(written: &str) -> Option<(&'static str, &'static str)> {
    const TYPE: (&str, &str) = ("time_delta_type", "Input should be a valid duration");
    const PARSING: (&str, &str) = (
        "time_delta_parsing",
        "Input should be a valid timedelta, invalid duration format",
    );
    /// `timedelta.max` in seconds, about.
    const MAX_SECONDS: f64 = 86_399_999_999_999.0;
    // jiter's floats (`crate::non_finite`), as speedate answers them (probed).
    match written {
        "NaN" => {
            return Some((
                "time_delta_parsing",
                "Input should be a valid duration, NaN values not permitted",
            ))
        }
        "Infinity" | "-Infinity" => {
            return Some((
                "time_delta_parsing",
                "Input should be a valid duration, durations may not exceed 999,999,999 days",
            ))
        }
        _ => {}
    }
    match written.as_bytes().first()? {
        b'"' => {
            let text: String = serde_json::from_str(written).ok()?;
            (!speedate_duration(&text)).then_some(PARSING)
        }
        b'-' | b'0'..=b'9' => {
            if !written.contains(['.', 'e', 'E']) && written.parse::<i64>().is_err() {
                // jiter reads it as a big int, which is no duration input.
                return Some(TYPE);
            }
            let value: f64 = written.parse().ok()?;
            (!value.is_finite() || value.abs() > MAX_SECONDS).then_some(PARSING)
        }
        _ => Some(TYPE),
    }
}

/// Whether speedate (the `Duration::parse_bytes` pydantic-core 2.50.5 calls for a string) reads
/// `text` as a duration within Python's range. Every refusal is `time_delta_parsing`, so only
/// acceptance matters. After an optional sign:
///
/// * `P...`: ISO 8601 quantities (`nY nM nW nD`, then after one `T`, `nH nM nS`), upper-case
///   units only, in any order and repeatable, at least one; a fraction (`.` or `,`, then any
///   digits) only in the last quantity. Each number and sum is a `u32`.
/// * otherwise, when the text holds a `d` / `D` or is shorter than 5 bytes (sign included): `N`,
///   an optional space, `d` or `D`, optionally `ay[s]` / `AY[S]`, an optional `,`, an
///   optional space, and then nothing or a time of day `H[H]:MM[:SS[.f]]` (hour up to 23, at
///   least 5 bytes);
/// * otherwise `H...:MM[:SS[.f]]`: hours of up to 10 digits (at most 2.4e9), minutes and
///   seconds 0-59, whatever follows the first 12 bytes after the hours' colon cut off.
///
/// The total may not exceed 999,999,999 days. Probed with the venv beside the speedate source
/// (`tests` below holds the answers).
fn speedate_duration(text: &str) -> bool {
    let bytes = text.as_bytes();
    let unsigned = match bytes.first() {
        Some(b'+' | b'-') => &bytes[1..],
        Some(_) => bytes,
        None => return false,
    };
    let seconds = if let Some(rest) = unsigned.strip_prefix(b"P") {
        iso_duration_seconds(rest)
    } else if bytes.iter().any(|&b| b == b'd' || b == b'D') || bytes.len() < 5 {
        days_duration_seconds(unsigned)
    } else {
        hours_duration_seconds(unsigned)
    };
    seconds.is_some_and(|seconds| seconds / 86_400 <= 999_999_999)
}

/// The leading digits of `bytes` as a `u32` (speedate's `parse_number`), and what follows.
fn duration_number(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let mut value: u32 = 0;
    for &digit in &bytes[..digits] {
        value = value.checked_mul(10)?.checked_add(u32::from(digit - b'0'))?;
    }
    Some((u64::from(value), &bytes[digits..]))
}

/// Seconds of the ISO 8601 quantities after `P` (speedate's `parse_iso_duration`).
fn iso_duration_seconds(mut rest: &[u8]) -> Option<u64> {
    let (mut got_t, mut had_fraction, mut quantities) = (false, false, 0);
    let (mut days, mut seconds): (u32, u32) = (0, 0);
    let mut fraction_seconds = 0.0f64;
    while let Some(&first) = rest.first() {
        if first == b'T' {
            if got_t {
                return None;
            }
            got_t = true;
            rest = &rest[1..];
            continue;
        }
        let (value, after) = duration_number(rest)?;
        let value = u32::try_from(value).ok()?;
        let (fraction, after) = match after.first() {
            Some(b'.' | b',') => {
                let digits = after[1..].iter().take_while(|b| b.is_ascii_digit()).count();
                let text = std::str::from_utf8(&after[1..1 + digits]).ok()?;
                (Some(format!("0.{text}0").parse::<f64>().ok()?), &after[1 + digits..])
            }
            _ => (None, after),
        };
        if had_fraction {
            return None;
        }
        had_fraction = fraction.is_some();
        let (unit, after) = after.split_first()?;
        let multiplier: u32 = match (got_t, unit) {
            (true, b'H') => 3600,
            (true, b'M') => 60,
            (true, b'S') => 1,
            (false, b'Y') => 365,
            (false, b'M') => 30,
            (false, b'W') => 7,
            (false, b'D') => 1,
            _ => return None,
        };
        if got_t {
            seconds = seconds.checked_add(multiplier.checked_mul(value)?)?;
            fraction_seconds += fraction.unwrap_or(0.0) * f64::from(multiplier);
        } else {
            days = days.checked_add(value.checked_mul(multiplier)?)?;
            fraction_seconds += fraction.unwrap_or(0.0) * f64::from(multiplier) * 86_400.0;
        }
        quantities += 1;
        rest = after;
    }
    (quantities > 0).then(|| u64::from(days) * 86_400 + u64::from(seconds) + fraction_seconds as u64)
}

/// Seconds of `N d[ay[s]][,][ ][time]` (speedate's `parse_days_time`).
fn days_duration_seconds(bytes: &[u8]) -> Option<u64> {
    let (days, mut rest) = duration_number(bytes)?;
    rest = rest.strip_prefix(b" ").unwrap_or(rest);
    rest = rest.strip_prefix(b"d").or_else(|| rest.strip_prefix(b"D"))?;
    // The rest of `day(s)` in the case its `a` is in (`Days` and `DAYS` read, `DAYs` does not).
    if let Some(after) = rest.strip_prefix(b"ay") {
        rest = after.strip_prefix(b"s").unwrap_or(after);
    } else if let Some(after) = rest.strip_prefix(b"AY") {
        rest = after.strip_prefix(b"S").unwrap_or(after);
    } else if rest.first().is_some_and(|b| b.eq_ignore_ascii_case(&b'a')) {
        return None;
    }
    rest = rest.strip_prefix(b",").unwrap_or(rest);
    rest = rest.strip_prefix(b" ").unwrap_or(rest);
    if rest.is_empty() {
        return Some(days * 86_400);
    }
    // A time of day (speedate's `Time::parse_bytes_offset`).
    if rest.len() < 5 {
        return None;
    }
    let hour_digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if !(1..=2).contains(&hour_digits) || rest.get(hour_digits) != Some(&b':') {
        return None;
    }
    let (hour, _) = duration_number(rest)?;
    let clock = clock_seconds(&rest[hour_digits + 1..])?;
    (hour <= 23).then_some(days * 86_400 + hour * 3600 + clock)
}

/// Seconds of `H...:MM[:SS[.f]]` (speedate's `Duration::parse_time`).
fn hours_duration_seconds(bytes: &[u8]) -> Option<u64> {
    if bytes.len() < 5 {
        return None;
    }
    let colon = bytes.iter().position(|&b| b == b':')?;
    let hours = &bytes[..colon];
    if hours.len() > 10 || !hours.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let hour = hours
        .iter()
        .fold(0u64, |value, digit| value * 10 + u64::from(digit - b'0'));
    if hour > 24 * 10u64.pow(8) {
        return None;
    }
    // speedate copies at most 12 bytes after the colon into `00:00:00.000000` and reads that.
    let rest = &bytes[colon + 1..];
    let rest = &rest[..rest.len().min(12)];
    Some(hour * 3600 + clock_seconds(rest)?)
}

/// Seconds of `MM[:SS[(.|,)f]]` with nothing after (speedate's `PureTime::parse` past the hour;
/// a fraction needs a digit).
fn clock_seconds(bytes: &[u8]) -> Option<u64> {
    let two = |at: usize| -> Option<u64> {
        let pair = bytes.get(at..at + 2)?;
        pair.iter()
            .all(u8::is_ascii_digit)
            .then(|| u64::from(pair[0] - b'0') * 10 + u64::from(pair[1] - b'0'))
    };
    let minute = two(0)?;
    if minute > 59 {
        return None;
    }
    match bytes.get(2) {
        None => return Some(minute * 60),
        Some(b':') => {}
        Some(_) => return None,
    }
    let second = two(3)?;
    if second > 59 {
        return None;
    }
    match bytes.get(5) {
        None => {}
        // Six fraction digits end the reading: whatever follows them is not looked at (probed:
        // `00:00:00.123456x` and `1 day, 00:00:00.123456Z` load, `00:00:00.12345x` does not).
        Some(b'.' | b',') => {
            let fraction = &bytes[6..];
            let digits = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 || (digits < 6 && digits != fraction.len()) {
                return None;
            }
        }
        Some(_) => return None,
    }
    Some(minute * 60 + second)
}

/// `[+-](digits[.digits] | .digits)[(e|E)[+-]digits]`, Python's decimal string syntax.
fn is_decimal_literal(text: &str) -> bool {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(whole) && digits(fraction) && !(whole.is_empty() && fraction.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
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
pub(crate) fn strip_underscores(text: &str) -> Option<String> {
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

    /// The duration strings speedate reads and refuses, as `validate_json` answered each for a
    /// `timedelta` (probed with the venv, pydantic-core 2.50.5).
    #[test]
    fn duration_strings_are_speedates() {
        for (text, accepted) in [
            ("pt1s", false),
            ("PT1s", false),
            ("Pt1S", false),
            ("p1d", false),
            ("P1d", false),
            ("P1D", true),
            ("PT1H", true),
            ("pT1H", false),
            ("00:60:00", false),
            ("00:59:60", false),
            ("00:59:59", true),
            ("24:00:00", true),
            ("99:00:00", true),
            ("25:00:00", true),
            ("1 day, 25:00:00", false),
            ("00:00:59.5", true),
            ("-00:00:01", true),
            ("+00:00:01", true),
            ("1 days", true),
            ("1day", true),
            ("1 day,00:00:01", true),
            ("2 days 00:00:01", true),
            ("P1W", true),
            ("P1.5D", true),
            ("PT1.5H", true),
            ("P1Y2M", true),
            ("PT", false),
            ("P", false),
            ("-PT1S", true),
            ("+PT1S", true),
            ("P1DT", true),
            ("PT1M1H", true),
            ("00:00", true),
            ("00:60", false),
            ("1:00:00", true),
            ("100:00:00", true),
            ("-PT", false),
            ("+PT", false),
            ("-P", false),
            ("PTT", false),
            ("P1.5DT1H", false),
            ("P1DT1.5H1M", false),
            ("P1,5D", true),
            ("PT1.S", true),
            ("P.5D", false),
            ("P1DX", false),
            ("P1D ", false),
            ("PT1H1H", true),
            ("1:0:00", false),
            ("001:00:00", true),
            ("0:00", false),
            ("00:00:00.1234567", true),
            ("00:00:00,5", true),
            ("00:00:60", false),
            ("1 day, 1:00:00", true),
            ("1 d", true),
            ("1d, 00:00", true),
            ("1D", true),
            ("1 DAYS", true),
            ("1 day 01:00:00", true),
            ("1 dayx", false),
            ("1 day,", true),
            ("1 day, ", true),
            ("1days00:00:01", true),
            ("-1 day", true),
            ("00:00:00Z", false),
            ("00:00:00+01:00", false),
            ("1 day, 24:00:00", false),
            ("1 day, 23:59:59", true),
            ("23:59:59.999999", true),
            ("00:00:00.", false),
            ("00:00:5", false),
            ("00:5:00", false),
            ("5:5:5", false),
            ("1000000000:00:00", true),
            ("P999999999D", true),
            ("P1000000000D", false),
            ("PT99999999999S", false),
            ("12", false),
            ("1 2", false),
            ("0:00:00", true),
            ("5:00", false),
            ("123:45", true),
            ("123:45:00", true),
            ("1:00:00.5", true),
            ("1:00:60", false),
            ("1:60:00", false),
            ("1 day, 1:00", false),
            ("1 day, 0:00:00.5", true),
            ("1 day, 100:00:00", false),
            ("1 day, 23:00", true),
            ("1 day 1", false),
            ("1 day, 00", false),
            ("1 day, 00:00:00Z", false),
            ("1 day, 00:00:00.", false),
            ("1 d,00:00", true),
            ("1 ,d", false),
            (" 1 day", false),
            ("1  day", false),
            ("-1:00:00", true),
            ("+ 1 day", false),
            ("1.5 day", false),
            ("00:00:00.000000001", true),
            ("PT1S ", false),
            (" PT1S", false),
            ("1 day, 1:0", false),
            ("1 day, 01:00:5", false),
            ("1 day,  00:00", false),
            ("1 dAy", false),
            ("1 daY, 00:00", false),
            ("1 daysx", false),
            ("1 days, 00:00", true),
            ("1 days,00:00:00.5", true),
            ("4294967295 days", false),
            ("4294967296 days", false),
            ("999999999 days", true),
            ("1000000000 days", false),
            ("1 day, 23:59:59.9999995", true),
            ("10:00:00:00", false),
            ("00:00:00:00", false),
            ("1 day, 00:00:00:00", false),
            ("1 day,0:00", false),
            ("00:00:00.5.5", false),
            ("1day1", false),
            ("1day,1:00:00", true),
            ("9999999999:00:00", false),
            ("-00:00", true),
            ("00:00 ", false),
            (":00:00", true),
            ("00:00:00.123456Z", true),
            ("00:00.5", false),
            ("1 DAYs", false),
            ("1 Days", true),
            ("P0D", true),
            ("PT0.5S", true),
            ("P1Y1.5M", true),
            ("PT4294967295S", true),
            ("PT4294967296S", false),
            ("P4294967295D", false),
            ("P100000000W", true),
            ("00:00:00.1234567Z", true),
            ("00:00:00.12345678", true),
            ("1 day, 00:00:00.1234567Z", true),
            ("1 day, 1:00:00.5", true),
            ("1D1:00:00", true),
            ("1d 23:59", true),
            ("1 d 00:00", true),
            ("", false),
            ("-", false),
            ("1", false),
            ("123", false),
            ("1234", false),
            ("12345", false),
            ("1:00", false),
            ("-1:00", false),
            ("P1Y", true),
            ("P12M", true),
            ("P1M1D", true),
            ("PT1M1S1H", true),
            ("P1DT1H2M3S4S", true),
            ("P-1D", false),
            ("P+1D", false),
            ("P1 D", false),
            ("P1D1D", true),
            ("P0.5Y", true),
            ("P1.5W", true),
            ("1 day, 00:00:00.123456Z", true),
            ("1 day, 00:00:00.1234567x", true),
            ("1 day, 00:00:00.1Z", false),
            ("00:00:00.123456x", true),
            ("00:00:00.12345x", false),
            ("1 day, 00:00:00.123456+01:00", true),
            ("1 day, 00:00:00.5+01:00", false),
            ("00:00:00.1234567890123x", true),
        ] {
            assert_eq!(speedate_duration(text), accepted, "{text:?}");
        }
    }

    /// Each case as `validate_json` answers it for `usage.input_tokens` (probed on pydantic-ai 2.68.0).
    /// As the differential recorded them (`tests/fixtures/verdict/*duration*`) and as pydantic-ai
    /// 2.68.0 writes durations.
    #[test]
    fn durations_are_pydantics() {
        for accepted in [
            "\"PT0S\"",
            "\"PT1.5S\"",
            "\"P1D\"",
            "\"P1DT1H1M1.000005S\"",
            "\"-PT1S\"",
            "1.5",
            "0",
            "\"01:02:03.5\"",
            "\"1 day, 01:02:03\"",
        ] {
            assert_eq!(duration_error(accepted), None, "{accepted}");
        }
        for (refused, error_type) in [
            ("null", "time_delta_type"),
            ("true", "time_delta_type"),
            ("[]", "time_delta_type"),
            ("18446744073709551616", "time_delta_type"),
            ("1.7976931348623157e308", "time_delta_parsing"),
            ("\"1\"", "time_delta_parsing"),
            ("\"1.5\"", "time_delta_parsing"),
            ("\"\"", "time_delta_parsing"),
            ("\"NaN\"", "time_delta_parsing"),
            ("\"yes\"", "time_delta_parsing"),
            ("\"1_0.5\"", "time_delta_parsing"),
            ("\"P\"", "time_delta_parsing"),
            ("NaN", "time_delta_parsing"),
            ("-Infinity", "time_delta_parsing"),
        ] {
            assert_eq!(duration_error(refused).map(|e| e.0), Some(error_type), "{refused}");
        }
    }

    /// jiter's non-finite floats, as `validate_json` answers them for `usage.cost`.
    #[test]
    fn non_finite_decimals_are_not_finite_numbers() {
        for literal in NON_FINITE_LITERALS {
            assert_eq!(decimal_error(literal).map(|e| e.0), Some("finite_number"), "{literal}");
        }
    }

    #[test]
    fn lax_bools_are_pydantics() {
        // As the venv answers a `bool` (pydantic-core's `validate_bool` for JSON: a float goes
        // through `float_as_int` first).
        for (written, expected) in [
            ("1.0", None),
            ("-0.0", None),
            ("0", None),
            ("5.0", Some("bool_parsing")),
            ("1E16", Some("bool_parsing")),
            ("-1.0", Some("bool_parsing")),
            ("2", Some("bool_parsing")),
            ("0.5", Some("bool_type")),
            ("1e19", Some("bool_type")),
            ("1e400", Some("bool_type")),
            ("NaN", Some("bool_type")),
            ("9223372036854775808", Some("bool_type")),
            ("\" T \"", Some("bool_parsing")),
            ("\"YES\"", None),
        ] {
            assert_eq!(bool_error(written).map(|e| e.0), expected, "{written}");
        }
    }

    #[test]
    fn the_verdict_accepts_exactly_the_bools_the_value_reads() {
        // A `LaxBool` the verdict accepts must have a value, and one it refuses must have none:
        // otherwise msgflow would load a history pydantic-ai refuses, or read a flag it refuses.
        for written in [
            "true",
            "false",
            "0",
            "1",
            "-0",
            "2",
            "-1",
            "0.0",
            "1.0",
            "-0.0",
            "1E0",
            "10e-1",
            "0.5",
            "5.0",
            "1e16",
            "1e400",
            "9223372036854775808",
            "\"yes\"",
            "\"OFF\"",
            "\" t \"",
            "\"\"",
            "\"maybe\"",
            "null",
            "[]",
            "{}",
        ] {
            let value: crate::LaxBool = serde_json::from_str(written).expect(written);
            assert_eq!(value.value().is_some(), bool_error(written).is_none(), "{written}");
        }
    }

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
            // jiter's non-finite floats, and `float_as_int`'s open range (probed with the venv).
            ("NaN", "finite_number"),
            ("-Infinity", "finite_number"),
            ("-9.223372036854775808e18", "int_parsing_size"),
            ("9.223372036854775807e18", "int_parsing_size"),
        ] {
            assert_eq!(int_error(refused).map(|e| e.0), Some(error_type), "{refused}");
        }
        assert_eq!(int_error("9.2233720368547748e18"), None);
        let long_string = format!("\"{}\"", "9".repeat(4301));
        assert_eq!(int_error(&long_string).map(|e| e.0), Some("int_parsing_size"));
        assert_eq!(int_error(&format!("\"{}\"", "9".repeat(4300))), None);
        assert_eq!(int_error(&"9".repeat(4301)).map(|e| e.0), Some("json_invalid"));
        assert_eq!(int_error(&"9".repeat(4300)), None);
    }
}
