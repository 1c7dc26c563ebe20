//! [`Timestamp`]: a wire datetime kept exactly as written.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

/// A datetime as pydantic-ai writes it: `2025-01-02T03:04:05.678901Z`, `...+05:30`, or naive
/// (no offset), with microseconds only when they are not zero.
///
/// msgflow keeps the exact text, because a parsed datetime would lose three distinctions that
/// pydantic-ai preserves (naive versus aware, the offset, and whether microseconds are written).
/// Reading validates the text: the forms pydantic-ai accepts are RFC 3339 datetimes with `T`, `t`
/// or a space, optional fractional seconds and `Z` or a numeric offset, plain dates, and Unix
/// times as numbers or numeric strings.
///
/// ```
/// use msgflow_wire::Timestamp;
/// let ts = Timestamp::parse("2025-01-02T03:04:05.678901+05:30").unwrap();
/// assert_eq!(ts.as_str(), Some("2025-01-02T03:04:05.678901+05:30"));
/// let parts = ts.parts().unwrap();
/// assert_eq!((parts.year, parts.microsecond, parts.offset_minutes), (2025, 678901, Some(330)));
/// assert!(Timestamp::parse("yesterday").is_err());
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Timestamp(Repr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    /// A datetime in pydantic-ai's own form ([`is_valid_utc_in_pydantic_ai_form`]).
    PydanticAiForm(String),
    /// Any other datetime or date text (every text goes through [`Repr::text`]).
    Text(String),
    /// A Unix time written as a JSON number, kept as its literal.
    Number(String),
}

/// The calendar fields of a [`Timestamp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimestampParts {
    /// Year.
    pub year: i32,
    /// Month, 1 to 12.
    pub month: u8,
    /// Day of the month, 1 to 31.
    pub day: u8,
    /// Hour, 0 to 23.
    pub hour: u8,
    /// Minute, 0 to 59.
    pub minute: u8,
    /// Second, 0 to 59 (60 is accepted for leap seconds).
    pub second: u8,
    /// Microsecond (digits beyond six are truncated, as pydantic-ai does).
    pub microsecond: u32,
    /// Offset from UTC in minutes; `None` for a naive datetime.
    pub offset_minutes: Option<i32>,
}

/// Why a text is not a datetime pydantic-ai would accept.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid datetime {text:?}: expected an RFC 3339 datetime such as \"2025-01-02T03:04:05Z\", a date or a Unix time"
)]
pub struct TimestampError {
    /// The rejected text.
    pub text: String,
}

impl Timestamp {
    /// Validates and wraps a datetime string.
    pub fn parse(text: &str) -> Result<Self, TimestampError> {
        if is_valid_utc_in_pydantic_ai_form(text.as_bytes()) {
            Ok(Timestamp(Repr::PydanticAiForm(text.to_owned())))
        } else if parse_datetime(text).is_some() || is_numeric(text) {
            Ok(Timestamp(Repr::Text(text.to_owned())))
        } else {
            Err(TimestampError { text: text.to_owned() })
        }
    }

    /// The current time as pydantic-ai writes the timestamps it fills in on load
    /// (`datetime.now(tz=timezone.utc)`: `2025-01-02T03:04:05.678901Z`).
    ///
    /// ```
    /// let now = msgflow_wire::Timestamp::now();
    /// assert!(now.as_written().ends_with('Z'));
    /// ```
    pub fn now() -> Self {
        let since = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let seconds = i64::try_from(since.as_secs()).unwrap_or(0);
        let parts = TimestampParts::from_unix(seconds, since.subsec_micros())
            .or_else(|| TimestampParts::from_unix(0, 0))
            .expect("1970 is within Python's years");
        Self::from_parts(parts)
    }

    /// Formats calendar fields the way pydantic-ai writes them (`Z` for UTC, six fractional
    /// digits only when the microsecond is not zero).
    pub fn from_parts(parts: TimestampParts) -> Self {
        let mut text = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second
        );
        if parts.microsecond != 0 {
            text.push_str(&format!(".{:06}", parts.microsecond));
        }
        match parts.offset_minutes {
            None => {}
            Some(0) => text.push('Z'),
            Some(offset) => {
                let sign = if offset < 0 { '-' } else { '+' };
                let abs = offset.unsigned_abs();
                text.push_str(&format!("{sign}{:02}:{:02}", abs / 60, abs % 60));
            }
        }
        Timestamp(Repr::text(text))
    }

    /// Whether the text is a valid UTC datetime in the form pydantic-ai writes
    /// (`2025-06-02T09:00:16.838932Z`), which pydantic-ai loads; known since reading.
    pub(crate) fn is_valid_utc_in_pydantic_ai_form(&self) -> bool {
        matches!(self.0, Repr::PydanticAiForm(_))
    }

    /// The datetime text, unless the value was written as a JSON number.
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::PydanticAiForm(text) | Repr::Text(text) => Some(text),
            Repr::Number(_) => None,
        }
    }

    /// The text as written (a number literal for Unix times).
    pub fn as_written(&self) -> &str {
        match &self.0 {
            Repr::PydanticAiForm(text) | Repr::Text(text) | Repr::Number(text) => text,
        }
    }

    /// Whether pydantic-ai reads it as a datetime (a Unix time within Python's years, a date and
    /// time that exist), as the verdict judges a history's timestamps.
    ///
    /// ```
    /// use msgflow_wire::Timestamp;
    /// assert!(Timestamp::parse("1700000000").unwrap().is_loadable());
    /// assert!(!Timestamp::parse("99999999999999999").unwrap().is_loadable());
    /// ```
    pub fn is_loadable(&self) -> bool {
        crate::verdict::datetime::error(self).is_none()
    }

    /// The calendar fields, when the value is a datetime or date string, or a Unix time in whole
    /// seconds or milliseconds (as text or a JSON number), which pydantic-ai reads as a UTC
    /// datetime (speedate: a magnitude above 2e10 is milliseconds).
    ///
    /// ```
    /// use msgflow_wire::Timestamp;
    /// let parts = Timestamp::parse("1735787045123").unwrap().parts().unwrap();
    /// assert_eq!((parts.year, parts.month, parts.day, parts.hour, parts.second), (2025, 1, 2, 3, 5));
    /// assert_eq!((parts.microsecond, parts.offset_minutes), (123000, Some(0)));
    /// ```
    pub fn parts(&self) -> Option<TimestampParts> {
        match &self.0 {
            Repr::PydanticAiForm(text) | Repr::Text(text) => parse_datetime(text).or_else(|| unix_time_parts(text)),
            Repr::Number(literal) => unix_time_parts(literal),
        }
    }
}

/// The UTC calendar fields of a Unix time in whole seconds or milliseconds (speedate's
/// `MS_WATERSHED`: a magnitude above 2e10 is milliseconds); `None` for any other text (a fraction
/// is left to pydantic-ai's own rounding).
fn unix_time_parts(literal: &str) -> Option<TimestampParts> {
    const MS_WATERSHED: i64 = 20_000_000_000;
    let value: i64 = literal.strip_prefix('+').unwrap_or(literal).parse().ok()?;
    if value.abs() > MS_WATERSHED {
        TimestampParts::from_unix(value.div_euclid(1000), (value.rem_euclid(1000) * 1000) as u32)
    } else {
        TimestampParts::from_unix(value, 0)
    }
}

impl TimestampParts {
    /// The UTC calendar fields of `seconds` since 1970-01-01 and a `microsecond`, in the proleptic
    /// Gregorian calendar Python uses; `None` outside Python's years 1 to 9999.
    ///
    /// ```
    /// use msgflow_wire::{Timestamp, TimestampParts};
    /// let parts = TimestampParts::from_unix(1_735_787_045, 678_901).unwrap();
    /// assert_eq!(Timestamp::from_parts(parts).as_written(), "2025-01-02T03:04:05.678901Z");
    /// ```
    pub fn from_unix(seconds: i64, microsecond: u32) -> Option<TimestampParts> {
        let (days, second_of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
        // Howard Hinnant's `civil_from_days`.
        let shifted = days + 719_468;
        let era = shifted.div_euclid(146_097);
        let day_of_era = shifted.rem_euclid(146_097);
        let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let month_index = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * month_index + 2) / 5 + 1;
        let month = if month_index < 10 {
            month_index + 3
        } else {
            month_index - 9
        };
        let year = year_of_era + era * 400 + i64::from(month <= 2);
        if !(1..=9999).contains(&year) || microsecond >= 1_000_000 {
            return None;
        }
        Some(TimestampParts {
            year: year as i32,
            month: month as u8,
            day: day as u8,
            hour: (second_of_day / 3600) as u8,
            minute: (second_of_day % 3600 / 60) as u8,
            second: (second_of_day % 60) as u8,
            microsecond,
            offset_minutes: Some(0),
        })
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Timestamp({})", self.as_written())
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_written())
    }
}

impl std::str::FromStr for Timestamp {
    type Err = TimestampError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::PydanticAiForm(text) | Repr::Text(text) => serializer.serialize_str(text),
            Repr::Number(literal) => match RawValue::from_string(literal.clone()) {
                Ok(raw) => raw.serialize(serializer),
                Err(_) => serializer.serialize_str(literal),
            },
        }
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TimestampVisitor;
        impl<'de> Visitor<'de> for TimestampVisitor {
            type Value = Timestamp;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a datetime string such as \"2025-01-02T03:04:05Z\" or a Unix time")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Timestamp, E> {
                Timestamp::parse(text).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Timestamp, E> {
                Ok(Timestamp(Repr::Number(value.to_string())))
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Timestamp, E> {
                Ok(Timestamp(Repr::Number(value.to_string())))
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<Timestamp, E> {
                if value.is_finite() {
                    let literal = serde_json::to_string(&value).map_err(E::custom)?;
                    Ok(Timestamp(Repr::Number(literal)))
                } else {
                    Err(E::custom("a Unix time must be finite"))
                }
            }
            /// A number under serde_json's `arbitrary_precision`: a one-entry map holding its literal,
            /// kept as written.
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Timestamp, A::Error> {
                let number = match map.next_key::<String>()? {
                    Some(key) if key == "$serde_json::private::Number" => map.next_value::<String>()?,
                    _ => return Err(de::Error::invalid_type(de::Unexpected::Map, &self)),
                };
                Ok(Timestamp(Repr::Number(number)))
            }
        }
        deserializer.deserialize_any(TimestampVisitor)
    }
}

impl Repr {
    /// A datetime text, classified.
    fn text(text: String) -> Repr {
        if is_valid_utc_in_pydantic_ai_form(text.as_bytes()) {
            Repr::PydanticAiForm(text)
        } else {
            Repr::Text(text)
        }
    }
}

/// Whether `bytes` is a valid datetime in the form pydantic-ai writes (`2025-06-02T09:00:16Z`,
/// `2025-06-02T09:00:16.838932Z`; year 1 or later), which pydantic-ai 2.68.0 loads: nearly every
/// timestamp in a history. Reading classifies it once, so that neither the lenient parser nor
/// the loadability verdict (`verdict/datetime.rs`, which answers for every other text) reads
/// the text again.
pub(crate) fn is_valid_utc_in_pydantic_ai_form(bytes: &[u8]) -> bool {
    let Some((head, tail)) = bytes.split_first_chunk::<19>() else {
        return false;
    };
    let tail_is_utc = match tail {
        [b'Z'] => true,
        [b'.', fraction @ .., b'Z'] => fraction.len() == 6 && fraction.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    let [y1, y2, y3, y4, b'-', m1, m2, b'-', d1, d2, b'T', h1, h2, b':', i1, i2, b':', s1, s2] = *head else {
        return false;
    };
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        ascii_number(&[y1, y2, y3, y4]),
        ascii_number(&[m1, m2]),
        ascii_number(&[d1, d2]),
        ascii_number(&[h1, h2]),
        ascii_number(&[i1, i2]),
        ascii_number(&[s1, s2]),
    ) else {
        return false;
    };
    // Four digits: `year as i32` is exact.
    tail_is_utc
        && year >= 1
        && (1..=12).contains(&month)
        && (1..=days_in_month(year as i32, month)).contains(&day)
        && hour <= 23
        && minute <= 59
        && second <= 59
}

/// The number ASCII digits spell, if they are all digits.
fn ascii_number(bytes: &[u8]) -> Option<u32> {
    bytes.iter().try_fold(0u32, |value, &byte| {
        byte.is_ascii_digit().then(|| value * 10 + u32::from(byte - b'0'))
    })
}

fn is_numeric(text: &str) -> bool {
    !text.is_empty() && text.parse::<f64>().is_ok_and(f64::is_finite) && !text.contains(['e', 'E', 'i', 'n', 'N', 'I'])
}

/// A small cursor over ASCII digits and separators.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn digits(&mut self, count: usize) -> Option<u32> {
        let slice = self.bytes.get(self.at..self.at + count)?;
        let mut value = 0u32;
        for &byte in slice {
            if !byte.is_ascii_digit() {
                return None;
            }
            value = value * 10 + u32::from(byte - b'0');
        }
        self.at += count;
        Some(value)
    }

    fn eat(&mut self, expected: &[u8]) -> Option<u8> {
        let byte = *self.bytes.get(self.at)?;
        if expected.contains(&byte) {
            self.at += 1;
            Some(byte)
        } else {
            None
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn done(&self) -> bool {
        self.at == self.bytes.len()
    }
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        _ => 0,
    }
}

fn parse_datetime(text: &str) -> Option<TimestampParts> {
    let mut cur = Cursor {
        bytes: text.as_bytes(),
        at: 0,
    };
    let year = cur.digits(4)? as i32;
    cur.eat(b"-")?;
    let month = cur.digits(2)?;
    cur.eat(b"-")?;
    let day = cur.digits(2)?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    let mut parts = TimestampParts {
        year,
        month: month as u8,
        day: day as u8,
        hour: 0,
        minute: 0,
        second: 0,
        microsecond: 0,
        offset_minutes: None,
    };
    if cur.done() {
        return Some(parts);
    }
    cur.eat(b"Tt _")?;
    let hour = cur.digits(2)?;
    cur.eat(b":")?;
    let minute = cur.digits(2)?;
    let mut second = 0;
    if cur.eat(b":").is_some() {
        second = cur.digits(2)?;
        if cur.eat(b".,").is_some() {
            let start = cur.at;
            let mut micro = 0u32;
            while let Some(byte) = cur.peek().filter(u8::is_ascii_digit) {
                if cur.at - start < 6 {
                    micro = micro * 10 + u32::from(byte - b'0');
                }
                cur.at += 1;
            }
            let written = cur.at - start;
            if written == 0 {
                return None;
            }
            for _ in written..6 {
                micro *= 10;
            }
            parts.microsecond = micro;
        }
    }
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    parts.hour = hour as u8;
    parts.minute = minute as u8;
    parts.second = second as u8;
    match cur.peek() {
        None => {}
        Some(b'Z' | b'z') => {
            cur.at += 1;
            parts.offset_minutes = Some(0);
        }
        Some(b'+' | b'-') => {
            let negative = cur.eat(b"+-")? == b'-';
            let hours = cur.digits(2)?;
            let _ = cur.eat(b":");
            let minutes = if cur.done() { 0 } else { cur.digits(2)? };
            if hours > 23 || minutes > 59 {
                return None;
            }
            let total = (hours * 60 + minutes) as i32;
            parts.offset_minutes = Some(if negative { -total } else { total });
        }
        Some(_) => return None,
    }
    cur.done().then_some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn now_is_a_utc_timestamp_as_pydantic_ai_writes_one() {
        let now = Timestamp::now();
        assert!(now.as_written().ends_with('Z'), "{}", now.as_written());
        assert!(now.parts().is_some_and(|parts| parts.year >= 2026));
        assert_eq!(Timestamp::parse(now.as_written()), Ok(now));
    }

    /// Unix times as pydantic 2.14 reads them (`TypeAdapter(datetime).validate_python(v).isoformat()`).
    #[test]
    fn unix_times_are_the_datetimes_pydantic_reads() {
        for (literal, expected) in [
            ("0", "1970-01-01T00:00:00Z"),
            ("-1", "1969-12-31T23:59:59Z"),
            ("1735787045", "2025-01-02T03:04:05Z"),
            ("1735787045123", "2025-01-02T03:04:05.123000Z"),
            ("-62135596800", "1968-01-12T20:06:43.200000Z"),
            ("20000000000", "2603-10-11T11:33:20Z"),
            ("20000000001", "1970-08-20T11:33:20.001000Z"),
            ("951782400", "2000-02-29T00:00:00Z"),
            ("1709164800", "2024-02-29T00:00:00Z"),
            ("1796083200", "2026-12-01T00:00:00Z"),
            ("-86401", "1969-12-30T23:59:59Z"),
        ] {
            let parts = Timestamp::parse(literal).unwrap().parts().unwrap();
            assert_eq!(Timestamp::from_parts(parts).as_written(), expected, "{literal}");
            let number: Timestamp = serde_json::from_str(literal).unwrap();
            assert_eq!(number.parts(), Some(parts), "{literal} as a number");
        }
        // A fraction is left to pydantic-ai's own rounding.
        assert_eq!(Timestamp::parse("1735787045.5").unwrap().parts(), None);
    }

    #[test]
    fn accepts_pydantic_forms() {
        for text in [
            "2025-01-02T03:04:05Z",
            "2025-01-02T03:04:05.678901Z",
            "2025-01-02T03:04:05",
            "2025-01-02 03:04:05",
            "2025-01-02",
            "2025-01-02T03:04:05.123456789Z",
            "2025-01-02T03:04:05-08:00",
            "2024-02-29T00:00:00+0530",
            "1735787045",
        ] {
            assert!(Timestamp::parse(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn rejects_garbage() {
        for text in [
            "garbage",
            "",
            "2025-13-01",
            "2025-02-30",
            "2025-01-02T25:00:00",
            "2025-01-02T03:04:05Zjunk",
            "NaN",
            "inf",
        ] {
            assert!(Timestamp::parse(text).is_err(), "{text}");
        }
    }

    #[test]
    fn formats_like_pydantic() {
        let parts = Timestamp::parse("2025-01-02T03:04:05.120000+00:00")
            .unwrap()
            .parts()
            .unwrap();
        assert_eq!(
            Timestamp::from_parts(parts).as_str(),
            Some("2025-01-02T03:04:05.120000Z")
        );
        let naive = Timestamp::parse("2025-01-02 03:04:05").unwrap().parts().unwrap();
        assert_eq!(Timestamp::from_parts(naive).as_str(), Some("2025-01-02T03:04:05"));
    }
}
