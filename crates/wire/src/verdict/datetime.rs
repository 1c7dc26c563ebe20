//! pydantic's lax-mode `datetime` for JSON input: pydantic-core 2.50.5's
//! `validators/datetime.rs` over speedate.
//!
//! * A string is parsed as an RFC 3339 datetime (`YYYY-MM-DD`, a separator `T`, `t`, `_` or a
//!   space, `HH:MM[:SS[.f+]]`, then `Z`, `z`, `±HH:MM` or `±HHMM`; no leap second, no `24:00`),
//!   or else as a Unix time (`[+-]digits[.digits]`). When that fails, pydantic tries it as a date
//!   (`date_as_datetime`) and reports the date parser's error as `datetime_from_date_parsing`.
//! * A number is a Unix time: seconds, or milliseconds when its magnitude is above 2e10; dates
//!   after 9999 are refused (`datetime_parsing`); an integer beyond 64 bits is `datetime_type`.
//! * Year 0 parses but is refused when Python builds the `datetime` (`datetime_parsing`).

use crate::Timestamp;

/// speedate's `MS_WATERSHED`: larger magnitudes are milliseconds.
const MS_WATERSHED: i64 = 20_000_000_000;
/// 9999-12-31T23:59:59Z.
const MAX_SECONDS: i64 = 253_402_300_799;
/// 0000-01-01T00:00:00Z.
const MIN_SECONDS: i64 = -62_167_219_200;
/// 0001-01-01T00:00:00Z: earlier is year 0, which Python's `datetime` refuses.
const YEAR_ONE_SECONDS: i64 = -62_135_596_800;

type Error = (&'static str, String);

/// The error pydantic raises for this timestamp, or `None` when it loads it.
pub(crate) fn error(timestamp: &Timestamp) -> Option<(&'static str, String)> {
    if timestamp.is_valid_utc_in_pydantic_ai_form() {
        return None;
    }
    match timestamp.as_str() {
        Some(text) => string_error(text.as_bytes()),
        None => number_error(timestamp.as_written()),
    }
}

fn number_error(literal: &str) -> Option<Error> {
    if !literal.contains(['.', 'e', 'E']) {
        // jiter reads an integer beyond 64 bits as a big int, which is not a datetime input.
        let Ok(value) = literal.parse::<i64>() else {
            return Some(("datetime_type", "Input should be a valid datetime".to_owned()));
        };
        return timestamp_error(value, 0).map(|m| ("datetime_parsing", m));
    }
    let value: f64 = literal.parse().ok()?;
    // pydantic-core's `float_as_datetime`: the whole seconds (saturating) and the fraction.
    timestamp_error(value.floor() as i64, (value.fract().abs() * 1e6).round() as u32).map(|m| ("datetime_parsing", m))
}

/// speedate's `DateTime::from_timestamp` range checks, then Python's year >= 1.
fn timestamp_error(timestamp: i64, _microsecond: u32) -> Option<String> {
    let seconds = match timestamp.checked_abs() {
        None => return Some(too_small()),
        Some(magnitude) if magnitude <= MS_WATERSHED => timestamp,
        Some(_) => timestamp.div_euclid(1_000),
    };
    if seconds > MAX_SECONDS {
        Some("Input should be a valid datetime, dates after 9999 are not supported as unix timestamps".to_owned())
    } else if seconds < MIN_SECONDS {
        Some(too_small())
    } else if seconds < YEAR_ONE_SECONDS {
        Some("Input should be a valid datetime, year 0 is out of range".to_owned())
    } else {
        None
    }
}

fn too_small() -> String {
    "Input should be a valid datetime, dates before 0000 are not supported as unix timestamps".to_owned()
}

fn string_error(bytes: &[u8]) -> Option<Error> {
    match parse_datetime(bytes) {
        Ok(0) => {
            return Some((
                "datetime_parsing",
                "Input should be a valid datetime, year 0 is out of range".to_owned(),
            ))
        }
        Ok(_) => return None,
        Err(_) => {}
    }
    if let Some((int, fraction)) = unix_time(bytes) {
        let microsecond = fraction.map_or(0, |f| (f * 1e6).round() as u32);
        if int.and_then(|value| timestamp_error(value, microsecond)).is_none() && int.is_some() {
            return None;
        }
    }
    // `date_as_datetime`: a date is midnight; its parser's error is the one reported.
    match parse_date(bytes) {
        Ok(()) => None,
        Err(DateError::Unix(message)) => Some(("datetime_from_date_parsing", message)),
        Err(DateError::Parse(message)) => Some((
            "datetime_from_date_parsing",
            format!("Input should be a valid datetime or date, {message}"),
        )),
    }
}

/// speedate's `float_parse_bytes`: `[+-]digits[.digits]`, as (whole seconds if they fit in
/// 64 bits, fraction).
fn unix_time(bytes: &[u8]) -> Option<(Option<i64>, Option<f64>)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (whole, fraction) = match unsigned.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (unsigned, None),
    };
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if fraction.is_some_and(|f| !f.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let negative = text.starts_with('-');
    let value = whole.parse::<i64>().ok().map(|v| if negative { -v } else { v });
    let fraction = fraction.map(|f| format!("0.{f}").parse::<f64>().unwrap_or(0.0));
    // A negative time with a fraction is floored, as `float_as_datetime` does.
    let value = match (value, fraction) {
        (Some(v), Some(f)) if negative && f > 0.0 => v.checked_sub(1),
        (v, _) => v,
    };
    Some((value, fraction))
}

enum DateError {
    /// A parse error, described as speedate describes it.
    Parse(&'static str),
    /// A Unix-time date out of range (message complete).
    Unix(String),
}

/// speedate's `Date::parse_bytes`: an RFC 3339 date with nothing after it, or an integer
/// Unix time.
fn parse_date(bytes: &[u8]) -> Result<(), DateError> {
    match parse_date_prefix(bytes) {
        Ok(_) if bytes.len() > 10 => Err(DateError::Parse("unexpected extra characters at the end of the input")),
        Ok(_) => Ok(()),
        Err(error) => {
            let text = std::str::from_utf8(bytes).unwrap_or_default();
            let unsigned = text.strip_prefix('-').unwrap_or(text);
            if !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) {
                if let Ok(value) = text.parse::<i64>() {
                    return match timestamp_error(value, 0) {
                        Some(message) => Err(DateError::Unix(message.replacen(
                            "Input should be a valid datetime, ",
                            "Input should be a valid datetime or date, ",
                            1,
                        ))),
                        // A Unix time that is not midnight: `date_from_datetime_inexact` is not a
                        // parse error, so pydantic reports the datetime's error; this one only
                        // comes from times out of range, handled above.
                        None => Ok(()),
                    };
                }
            }
            Err(DateError::Parse(error))
        }
    }
}

/// `YYYY-MM-DD` at the start of `bytes`, checked as speedate checks it; returns the year.
fn parse_date_prefix(bytes: &[u8]) -> Result<u32, &'static str> {
    if bytes.len() < 10 {
        return Err("input is too short");
    }
    let year = digits(&bytes[0..4]).ok_or("invalid character in year")?;
    if bytes[4] != b'-' {
        return Err("invalid date separator, expected `-`");
    }
    let month = digits(&bytes[5..7]).ok_or("invalid character in month")?;
    if bytes[7] != b'-' {
        return Err("invalid date separator, expected `-`");
    }
    let day = digits(&bytes[8..10]).ok_or("invalid character in day")?;
    if !(1..=12).contains(&month) {
        return Err("month value is outside expected range of 1-12");
    }
    if day == 0 || day > days_in_month(year, month) {
        return Err("day value is outside expected range");
    }
    Ok(year)
}

/// speedate's `DateTime::parse_bytes_rfc3339`: the year of a valid datetime.
fn parse_datetime(bytes: &[u8]) -> Result<u32, ()> {
    let year = parse_date_prefix(bytes).map_err(|_| ())?;
    let rest = &bytes[10..];
    let (&separator, time) = rest.split_first().ok_or(())?;
    if !matches!(separator, b'T' | b't' | b'_' | b' ') {
        return Err(());
    }
    let hour = time.get(0..2).and_then(digits).ok_or(())?;
    if time.get(2) != Some(&b':') {
        return Err(());
    }
    let minute = time.get(3..5).and_then(digits).ok_or(())?;
    let mut at = 5;
    let mut second = 0;
    if time.get(at) == Some(&b':') {
        second = time.get(at + 1..at + 3).and_then(digits).ok_or(())?;
        at += 3;
        if matches!(time.get(at), Some(b'.' | b',')) {
            at += 1;
            let start = at;
            while time.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            if at == start {
                return Err(());
            }
        }
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(());
    }
    match time.get(at) {
        None => {}
        Some(b'Z' | b'z') => at += 1,
        Some(b'+' | b'-') => {
            let hours = time.get(at + 1..at + 3).and_then(digits).ok_or(())?;
            at += 3;
            if time.get(at) == Some(&b':') {
                at += 1;
            }
            let minutes = time.get(at..at + 2).and_then(digits).ok_or(())?;
            at += 2;
            if hours > 23 || minutes > 59 {
                return Err(());
            }
        }
        Some(_) => return Err(()),
    }
    if at == time.len() {
        Ok(year)
    } else {
        Err(())
    }
}

fn digits(bytes: &[u8]) -> Option<u32> {
    bytes.iter().try_fold(0u32, |value, &byte| {
        byte.is_ascii_digit().then(|| value * 10 + u32::from(byte - b'0'))
    })
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => 29,
        _ => 28,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut for pydantic-ai's own form answers as the general parser does, and only takes
    /// texts in that form.
    #[test]
    fn the_shortcut_agrees_with_the_parser() {
        let taken = [
            "2025-06-02T09:00:16.838932Z",
            "2025-06-02T09:00:16Z",
            "2024-02-29T23:59:59.999999Z",
            "0001-01-01T00:00:00Z",
        ];
        let left_to_the_parser = [
            "2023-02-29T00:00:00Z",
            "0000-01-01T00:00:00Z",
            "2025-06-02T24:00:00Z",
            "2025-06-02T23:59:60Z",
            "2025-13-02T09:00:16Z",
            "2025-06-31T09:00:16Z",
            "2025-06-02T09:00:16.83893Z",
            "2025-06-02T09:00:16.8389321Z",
            "2025-06-02T09:00:16+00:00",
            "2025-06-02t09:00:16Z",
            "2025-06-02T09:00:16z",
            "2025-06-02 09:00:16Z",
            "2025-06-02T09:00Z",
            "2025-06-02",
            "1748854816",
        ];
        for text in taken {
            assert!(
                crate::timestamp::is_valid_utc_in_pydantic_ai_form(text.as_bytes()),
                "{text}"
            );
            assert!(
                matches!(parse_datetime(text.as_bytes()), Ok(year) if year >= 1),
                "{text}"
            );
        }
        for text in left_to_the_parser {
            assert!(
                !crate::timestamp::is_valid_utc_in_pydantic_ai_form(text.as_bytes()),
                "{text}"
            );
        }
        assert!(string_error(b"2023-02-29T00:00:00Z").is_some());
        assert!(string_error(b"2025-06-02T09:00:16.83893Z").is_none());
        for text in taken {
            let timestamp = Timestamp::parse(text).unwrap();
            assert!(timestamp.is_valid_utc_in_pydantic_ai_form(), "{text}");
            assert_eq!(timestamp, Timestamp::from_parts(timestamp.parts().unwrap()), "{text}");
        }
        for text in left_to_the_parser {
            assert!(
                !Timestamp::parse(text).is_ok_and(|t| t.is_valid_utc_in_pydantic_ai_form()),
                "{text}"
            );
        }
    }
}
