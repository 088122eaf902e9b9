//! Exact reading of a JSON number's text, for the bounds and steps of int, long and decimal
//! columns: a bound of `1e3` or `0.1` is taken as written, never through f64.

/// `±digits × 10^exponent`, from a JSON number's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decimal {
    negative: bool,
    digits: u128,
    exponent: i64,
    /// More than 38 significant digits were written; the last ones were dropped.
    rounded: bool,
}

/// 10^n, or `None` beyond u128.
fn power_of_ten(n: u64) -> Option<u128> {
    10u128.checked_pow(u32::try_from(n).ok()?)
}

impl Decimal {
    /// Reads JSON number syntax (`-12.50`, `1e-3`); `None` for anything else.
    pub fn parse(text: &str) -> Option<Decimal> {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match rest.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.trim_start_matches('+').parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if integer.is_empty()
            || !integer
                .bytes()
                .chain(fraction.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let mut digits: u128 = 0;
        let mut exponent = exponent.checked_sub(i64::try_from(fraction.len()).ok()?)?;
        let mut rounded = false;
        for b in integer.bytes().chain(fraction.bytes()) {
            match digits.checked_mul(10) {
                Some(d) if d < 10u128.pow(38) => digits = d + u128::from(b - b'0'),
                _ => {
                    // Past 38 digits: keep the magnitude, drop the digit.
                    exponent = exponent.checked_add(1)?;
                    rounded |= b != b'0';
                }
            }
        }
        Some(Decimal {
            negative,
            digits,
            exponent,
            rounded,
        })
    }

    /// The value × 10^scale when that is a whole number that fits i128.
    pub fn exact_at(self, scale: u32) -> Option<i128> {
        if self.rounded {
            return None;
        }
        let shift = self.exponent.checked_add(i64::from(scale))?;
        let magnitude = if shift >= 0 {
            self.digits
                .checked_mul(power_of_ten(shift.unsigned_abs())?)?
        } else {
            let divisor = power_of_ten(shift.unsigned_abs()).unwrap_or(u128::MAX);
            if !self.digits.is_multiple_of(divisor) {
                return None;
            }
            self.digits / divisor
        };
        let value = i128::try_from(magnitude).ok()?;
        Some(if self.negative { -value } else { value })
    }

    /// The largest whole number ≤ value × 10^scale (saturating at i128's range).
    pub fn floor_at(self, scale: u32) -> i128 {
        self.rounded_at(scale, false)
    }

    /// The smallest whole number ≥ value × 10^scale (saturating at i128's range).
    pub fn ceil_at(self, scale: u32) -> i128 {
        self.rounded_at(scale, true)
    }

    fn rounded_at(self, scale: u32, up: bool) -> i128 {
        let shift = self.exponent.saturating_add(i64::from(scale));
        let (magnitude, inexact) = if shift >= 0 {
            let m = power_of_ten(shift.unsigned_abs())
                .and_then(|p| self.digits.checked_mul(p))
                .unwrap_or(if self.digits == 0 { 0 } else { u128::MAX });
            (m, false)
        } else {
            match power_of_ten(shift.unsigned_abs()) {
                Some(p) => (self.digits / p, !self.digits.is_multiple_of(p)),
                None => (0, self.digits != 0),
            }
        };
        let magnitude = i128::try_from(magnitude).unwrap_or(i128::MAX);
        // Truncation moved the value toward zero; rounding away from zero fixes it on the side
        // where that is the asked direction.
        let away = inexact && (up != self.negative);
        let magnitude = magnitude.saturating_add(i128::from(away));
        if self.negative {
            -magnitude
        } else {
            magnitude
        }
    }

    pub fn to_f64(self) -> f64 {
        let magnitude = self.digits as f64 * 10f64.powi(self.exponent.clamp(-400, 400) as i32);
        if self.negative {
            -magnitude
        } else {
            magnitude
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Decimal;

    fn d(text: &str) -> Decimal {
        Decimal::parse(text).unwrap_or_else(|| panic!("{text} should parse"))
    }

    #[test]
    fn reads_bounds_exactly() {
        assert_eq!(d("0.01").exact_at(2), Some(1));
        assert_eq!(d("1e-3").exact_at(3), Some(1));
        assert_eq!(d("0.05").exact_at(1), None);
        assert_eq!(d("1e3").floor_at(0), 1000);
        assert_eq!(d("2.5").floor_at(0), 2);
        assert_eq!(d("2.5").ceil_at(0), 3);
        assert_eq!(d("-2.5").floor_at(0), -3);
        assert_eq!(d("-2.5").ceil_at(0), -2);
        assert_eq!(d("-1000000").ceil_at(2), -100_000_000);
        assert_eq!(d("1e400").floor_at(0), i128::MAX);
        assert_eq!(d("1e-400").ceil_at(0), 1);
        assert_eq!(d("1e-400").floor_at(0), 0);
        assert_eq!(Decimal::parse("1.2.3"), None);
        assert_eq!(Decimal::parse("abc"), None);
    }
}
