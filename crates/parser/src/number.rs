//! Exact decimal numbers taken from JSON number text: compared and measured without f64.

use std::cmp::Ordering;

/// A JSON number, kept as the exact text of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Number {
    text: compact_str::CompactString,
}

/// A number in the form `sign × 0.d₁d₂…dₙ × 10^point`, with no leading or trailing zero digits.
/// Zero has no digits.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    point: i64,
}

impl Number {
    /// Wraps JSON number text. The text must already be valid JSON number syntax.
    pub fn from_json_text(text: impl Into<compact_str::CompactString>) -> Self {
        Number { text: text.into() }
    }

    /// The number exactly as written in the document.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    fn decimal(&self) -> Decimal {
        let text = self.text.as_bytes();
        let negative = text.first() == Some(&b'-');
        let (mantissa, exponent_text) = match text.iter().position(|b| *b == b'e' || *b == b'E') {
            Some(e) => (
                text.get(..e).unwrap_or_default(),
                text.get(e + 1..).unwrap_or_default(),
            ),
            None => (text, &[][..]),
        };
        let mut digits = Vec::with_capacity(mantissa.len());
        let mut integer_digits: i64 = 0;
        let mut seen_point = false;
        for &b in mantissa {
            match b {
                b'.' => seen_point = true,
                b'0'..=b'9' => {
                    digits.push(b - b'0');
                    if !seen_point {
                        integer_digits = integer_digits.saturating_add(1);
                    }
                }
                _ => {}
            }
        }
        let exponent = parse_exponent(exponent_text);
        let leading_zeros = digits.iter().take_while(|d| **d == 0).count();
        digits.drain(..leading_zeros);
        while digits.last() == Some(&0) {
            digits.pop();
        }
        let point = if digits.is_empty() {
            0
        } else {
            integer_digits
                .saturating_sub(leading_zeros as i64)
                .saturating_add(exponent)
        };
        Decimal {
            negative: negative && !digits.is_empty(),
            digits,
            point,
        }
    }

    /// Compares two numbers exactly.
    pub fn cmp_exact(&self, other: &Number) -> Ordering {
        self.decimal().cmp_exact(&other.decimal())
    }

    /// Whether the number is greater than zero.
    pub fn is_positive(&self) -> bool {
        let d = self.decimal();
        !d.negative && !d.digits.is_empty()
    }

    /// Whether the number has no fractional part.
    pub fn is_integer(&self) -> bool {
        let d = self.decimal();
        d.digits.len() as i64 <= d.point || d.digits.is_empty()
    }

    /// Digits after the point in the shortest exact decimal form: `0.010` → 2, `2.5E-7` → 8,
    /// `10` → 0. Saturates at `u64::MAX` for absurd exponents.
    pub fn scale(&self) -> u64 {
        let d = self.decimal();
        let fractional = (d.digits.len() as i64).saturating_sub(d.point);
        u64::try_from(fractional.max(0)).unwrap_or(u64::MAX)
    }
}

fn parse_exponent(text: &[u8]) -> i64 {
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, text.get(1..).unwrap_or_default()),
        Some(b'+') => (false, text.get(1..).unwrap_or_default()),
        _ => (false, text),
    };
    let magnitude = digits.iter().fold(0i64, |acc, b| {
        acc.saturating_mul(10)
            .saturating_add(i64::from(b.wrapping_sub(b'0')))
    });
    // Keep far from i64's ends so that adding a digit count cannot wrap.
    let magnitude = magnitude.min(i64::MAX / 4);
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

impl Decimal {
    fn cmp_exact(&self, other: &Decimal) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => return Ordering::Greater,
            (true, false) => return Ordering::Less,
            _ => {}
        }
        let magnitude = self.cmp_magnitude(other);
        if self.negative {
            magnitude.reverse()
        } else {
            magnitude
        }
    }

    fn cmp_magnitude(&self, other: &Decimal) -> Ordering {
        match (self.digits.is_empty(), other.digits.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        self.point
            .cmp(&other.point)
            .then_with(|| self.digits.cmp(&other.digits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> Number {
        Number::from_json_text(text)
    }

    #[test]
    fn scale_is_digits_after_the_point_of_the_shortest_form() {
        let cases = [
            ("0.01", 2),
            ("0.010", 2),
            ("1e-3", 3),
            ("2.5E-7", 8),
            ("0.25", 2),
            ("10", 0),
            ("1E+2", 0),
            ("0.5e1", 0),
            ("1.25e1", 1),
        ];
        for (text, scale) in cases {
            assert_eq!(n(text).scale(), scale, "{text}");
        }
    }

    #[test]
    fn comparison_is_exact() {
        let two_31 = n("2147483648");
        assert_eq!(n("2147483648.5").cmp_exact(&two_31), Ordering::Greater);
        assert_eq!(n("2147483647.999").cmp_exact(&two_31), Ordering::Less);
        assert_eq!(n("2.147483648e9").cmp_exact(&two_31), Ordering::Equal);
        assert_eq!(n("1e3").cmp_exact(&n("1000")), Ordering::Equal);
        assert_eq!(
            n("100000000000000000000000").cmp_exact(&two_31),
            Ordering::Greater
        );
        assert_eq!(
            n("-2147483649").cmp_exact(&n("-2147483648")),
            Ordering::Less
        );
        assert_eq!(n("-0.0").cmp_exact(&n("0")), Ordering::Equal);
        assert_eq!(n("1e999999").cmp_exact(&two_31), Ordering::Greater);
        assert_eq!(n("1e-999999").cmp_exact(&n("0")), Ordering::Greater);
    }

    #[test]
    fn sign_and_integrality() {
        assert!(n("0.001").is_positive());
        assert!(!n("0").is_positive());
        assert!(!n("-1").is_positive());
        assert!(n("1e3").is_integer());
        assert!(!n("1.5").is_integer());
        assert!(n("2.0").is_integer());
    }
}
