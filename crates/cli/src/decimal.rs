//! Exact sums of decimal amounts (pydantic-ai writes `usage.cost` as a Python `Decimal` string,
//! e.g. `"0.001234"`; adding those as floats would print `0.30000000000000004`).

use std::fmt;

/// A running exact sum of decimal numbers, kept as an integer and a count of fraction digits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecimalSum {
    mantissa: i128,
    scale: u32,
}

/// The most fraction digits kept (more than any currency amount needs; keeps i128 from overflowing).
const MAX_SCALE: u32 = 30;

impl DecimalSum {
    /// Adds the decimal written as `text` (`"0.50"`, `"-1.5"`, `"1E-7"`, `"12"`). Returns an error
    /// message, leaving the sum unchanged, for text that is not a finite decimal or would overflow.
    pub fn add(&mut self, text: &str) -> Result<(), String> {
        let (mantissa, scale) = parse(text.trim()).ok_or_else(|| format!("`{text}` is not a decimal number"))?;
        let common = self.scale.max(scale);
        let left = rescale(self.mantissa, self.scale, common);
        let right = rescale(mantissa, scale, common);
        let sum = left.zip(right).and_then(|(left, right)| left.checked_add(right));
        let sum = sum.ok_or_else(|| format!("the sum overflows when adding `{text}`"))?;
        *self = DecimalSum {
            mantissa: sum,
            scale: common,
        };
        Ok(())
    }
}

impl fmt::Display for DecimalSum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.mantissa.unsigned_abs().to_string();
        let sign = if self.mantissa < 0 { "-" } else { "" };
        let scale = self.scale as usize;
        if scale == 0 {
            return write!(f, "{sign}{digits}");
        }
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (whole, fraction) = padded.split_at(padded.len() - scale);
        write!(f, "{sign}{whole}.{fraction}")
    }
}

fn rescale(mantissa: i128, from: u32, to: u32) -> Option<i128> {
    10i128
        .checked_pow(to.checked_sub(from)?)
        .and_then(|factor| mantissa.checked_mul(factor))
}

/// Parses `[-+]digits[.digits][(e|E)[-+]digits]` into (mantissa, scale).
fn parse(text: &str) -> Option<(i128, u32)> {
    let (number, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], text[at + 1..].parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (negative, unsigned) = match number.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, number.strip_prefix('+').unwrap_or(number)),
    };
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    if !whole.bytes().chain(fraction.bytes()).all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let mut mantissa: i128 = 0;
    for byte in whole.bytes().chain(fraction.bytes()) {
        mantissa = mantissa.checked_mul(10)?.checked_add(i128::from(byte - b'0'))?;
    }
    let mut scale = i64::try_from(fraction.len()).ok()? - i64::from(exponent);
    while scale < 0 {
        mantissa = mantissa.checked_mul(10)?;
        scale += 1;
    }
    while scale > i64::from(MAX_SCALE) {
        // Beyond MAX_SCALE digits only if they are zeros; otherwise refuse rather than round.
        if mantissa % 10 != 0 {
            return None;
        }
        mantissa /= 10;
        scale -= 1;
    }
    let scale = u32::try_from(scale).ok()?;
    Some((if negative { -mantissa } else { mantissa }, scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(values: &[&str]) -> Result<String, String> {
        let mut total = DecimalSum::default();
        for value in values {
            total.add(value)?;
        }
        Ok(total.to_string())
    }

    #[test]
    fn sums_exactly() -> Result<(), String> {
        assert_eq!(sum(&["0.1", "0.2"])?, "0.3");
        assert_eq!(sum(&["0.001234", "0.50"])?, "0.501234");
        assert_eq!(sum(&["1E-7", "2"])?, "2.0000001");
        assert_eq!(sum(&["-0.25", "0.05"])?, "-0.20");
        assert_eq!(sum(&["12", "3e2"])?, "312");
        assert_eq!(sum(&[])?, "0");
        Ok(())
    }

    #[test]
    fn rejects_what_is_not_a_finite_decimal() {
        for bad in ["NaN", "Infinity", "", ".", "1.2.3", "abc", "1e", "--1"] {
            assert!(sum(&[bad]).is_err(), "{bad:?}");
        }
    }
}
