//! Exact conversion of one JSON string or number to an Iceberg value: numbers from their decimal
//! text (never through f64, except for double columns), RFC 3339 date-times, dates and times,
//! UUIDs and base64. Each function says only whether the text converts; the caller names the
//! reason.

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;

/// Iceberg's largest decimal precision: a decimal column is `decimal(38, s)`.
pub(crate) const DECIMAL_PRECISION: u32 = 38;

/// Why a number does not fit a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumberMisfit {
    /// It has more digits after the point than the scale keeps (and they are not zeros).
    Scale,
    /// It needs more digits than the column holds.
    Digits,
}

/// The number written as `text` (valid JSON number syntax), times 10^`scale`, as an exact
/// integer: the unscaled value of a decimal at that scale, or the integer itself at scale 0.
/// Fails when digits would be lost or when more than 38 digits are needed.
pub(crate) fn unscaled(text: &str, scale: u32) -> Result<i128, NumberMisfit> {
    // Most numbers are plain integers that fit: read them without the general path's digit list.
    if scale == 0 && text.len() <= 18 && !text.contains(['.', 'e', 'E']) {
        if let Ok(value) = text.parse::<i64>() {
            return Ok(i128::from(value));
        }
    }
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(e) => (
            rest.get(..e).unwrap_or_default(),
            rest.get(e + 1..).unwrap_or_default(),
        ),
        None => (rest, ""),
    };
    // A JSON exponent can have any number of digits; beyond this, every non-zero value misfits.
    let exponent: i64 = match exponent.trim_start_matches('+').parse::<i64>() {
        Ok(e) => e,
        Err(_) if exponent.is_empty() => 0,
        Err(_) => i64::MAX.saturating_mul(if exponent.starts_with('-') { -1 } else { 1 }),
    };
    let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: Vec<u8> = integer
        .bytes()
        .chain(fraction.bytes())
        .map(|b| b.wrapping_sub(b'0'))
        .collect();
    // value = digits × 10^(exponent − fraction.len()); at the column: × 10^scale.
    let shift = exponent
        .saturating_sub(fraction.len() as i64)
        .saturating_add(i64::from(scale));
    let significant_start = digits.iter().position(|d| *d != 0);
    let Some(start) = significant_start else {
        return Ok(0);
    };
    let significant = digits.get(start..).unwrap_or_default();
    let kept_len = if shift >= 0 {
        significant.len()
    } else {
        let dropped = usize::try_from(shift.unsigned_abs()).unwrap_or(usize::MAX);
        let (kept, lost) = significant.split_at(significant.len().saturating_sub(dropped));
        if lost.iter().any(|d| *d != 0) {
            return Err(NumberMisfit::Scale);
        }
        kept.len()
    };
    let zeros = if shift > 0 {
        usize::try_from(shift).unwrap_or(usize::MAX)
    } else {
        0
    };
    if kept_len.saturating_add(zeros) > DECIMAL_PRECISION as usize {
        return Err(NumberMisfit::Digits);
    }
    let mut value: i128 = 0;
    for d in significant.iter().take(kept_len) {
        value = value * 10 + i128::from(*d);
    }
    for _ in 0..zeros {
        value *= 10;
    }
    Ok(if negative { -value } else { value })
}

/// A decimal's unscaled value written at its scale, as Iceberg's single-value JSON writes it
/// (`"14.20"`).
pub fn decimal_text(unscaled: i128, scale: u32) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let scale = scale as usize;
    let sign = if unscaled < 0 { "-" } else { "" };
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (integer, fraction) = padded.split_at(padded.len() - scale);
    format!("{sign}{integer}.{fraction}")
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Year, month and day of a day number since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// A timestamptz in Iceberg's single-value JSON form, `2026-07-09T20:00:00.5+00:00` style: the
/// fraction in 0, 3 or 6 digits as needed, which is what the `iceberg` crate writes. Written
/// here because that crate's writer overflows (panics) on instants before 1970.
pub fn timestamptz_text(micros: i64) -> String {
    let (year, month, day) = civil_from_days(micros.div_euclid(86_400_000_000));
    let of_day = micros.rem_euclid(86_400_000_000);
    let seconds = of_day / 1_000_000;
    let fraction = of_day % 1_000_000;
    let fraction = if fraction == 0 {
        String::new()
    } else if fraction % 1000 == 0 {
        format!(".{:03}", fraction / 1000)
    } else {
        format!(".{fraction:06}")
    };
    format!(
        "{}-{month:02}-{day:02}T{:02}:{:02}:{:02}{fraction}+00:00",
        year_text(year),
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// A year as ISO 8601's expanded form writes it, and Iceberg's Java library prints it: four
/// digits for 0000 to 9999, a `+` and every digit after 9999, a `-` and at least four digits
/// before year 0000.
fn year_text(year: i64) -> String {
    match year {
        0..=9999 => format!("{year:04}"),
        10_000.. => format!("+{year}"),
        _ => format!("-{:04}", year.unsigned_abs()),
    }
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// A fixed-width run of ASCII digits at the start of `text`.
fn digits(text: &str, width: usize) -> Option<(u32, &str)> {
    let head = text.get(..width)?;
    if !head.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((head.parse().ok()?, text.get(width..)?))
}

fn expect<'t>(text: &'t str, what: &[char]) -> Option<&'t str> {
    let mut chars = text.chars();
    let c = chars.next()?;
    what.contains(&c).then_some(chars.as_str())
}

/// `YYYY-MM-DD`: the date's day number, leap days checked.
fn date_prefix(text: &str) -> Option<(i64, &str)> {
    let (year, rest) = digits(text, 4)?;
    let (month, rest) = digits(expect(rest, &['-'])?, 2)?;
    let (day, rest) = digits(expect(rest, &['-'])?, 2)?;
    let year = i64::from(year);
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    Some((days_from_civil(year, month, day), rest))
}

/// `HH:MM:SS[.fraction]`: microseconds since midnight, the fraction truncated to microseconds.
/// A leap second (`:60`) does not convert.
fn time_prefix(text: &str) -> Option<(i64, &str)> {
    let (hour, rest) = digits(text, 2)?;
    let (minute, rest) = digits(expect(rest, &[':'])?, 2)?;
    let (second, mut rest) = digits(expect(rest, &[':'])?, 2)?;
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut micros: i64 = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let len = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if len == 0 {
            return None;
        }
        let kept = fraction.get(..len.min(6)).unwrap_or_default();
        micros = format!("{kept:0<6}").parse().ok()?;
        rest = fraction.get(len..)?;
    }
    let seconds = i64::from(hour) * 3600 + i64::from(minute) * 60 + i64::from(second);
    Some((seconds * 1_000_000 + micros, rest))
}

/// `Z` or `±HH:MM`: the offset in microseconds, the whole text consumed.
fn offset(text: &str) -> Option<i64> {
    if text == "Z" || text == "z" {
        return Some(0);
    }
    let sign = match text.chars().next()? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    let (hours, rest) = digits(text.get(1..)?, 2)?;
    let (minutes, rest) = digits(expect(rest, &[':'])?, 2)?;
    if !rest.is_empty() || hours > 23 || minutes > 59 {
        return None;
    }
    Some(sign * (i64::from(hours) * 3600 + i64::from(minutes) * 60) * 1_000_000)
}

/// An RFC 3339 `date-time` with an offset: microseconds since the epoch, in UTC.
pub fn timestamptz_micros(text: &str) -> Option<i64> {
    let (days, rest) = date_prefix(text)?;
    let (micros, rest) = time_prefix(expect(rest, &['T', 't'])?)?;
    let offset = offset(rest)?;
    Some(days * 86_400_000_000 + micros - offset)
}

/// An ISO 8601 `date` (`YYYY-MM-DD`): days since 1970-01-01.
pub(crate) fn date_days(text: &str) -> Option<i32> {
    match date_prefix(text)? {
        (days, "") => i32::try_from(days).ok(),
        _ => None,
    }
}

/// An RFC 3339 `time`, with or without an offset: microseconds since midnight, in UTC when an
/// offset is written (wrapping past midnight).
pub(crate) fn time_micros(text: &str) -> Option<i64> {
    let (micros, rest) = time_prefix(text)?;
    let offset = if rest.is_empty() { 0 } else { offset(rest)? };
    Some((micros - offset).rem_euclid(86_400_000_000))
}

/// A UUID in its 8-4-4-4-12 hex form, either case.
pub(crate) fn uuid_bytes(text: &str) -> Option<[u8; 16]> {
    let bytes = text.as_bytes();
    if bytes.len() != 36 {
        return None;
    }
    let mut out = [0u8; 16];
    let mut nibbles = 0usize;
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            if *b != b'-' {
                return None;
            }
            continue;
        }
        let value = char::from(*b).to_digit(16)?;
        let slot = out.get_mut(nibbles / 2)?;
        *slot = (*slot << 4) | u8::try_from(value).ok()?;
        nibbles += 1;
    }
    Some(out)
}

/// Standard base64 (RFC 4648 §4 alphabet), with or without `=` padding.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The bytes of a standard base64 string, padded or not.
pub(crate) fn base64_bytes(text: &str) -> Option<Vec<u8>> {
    BASE64.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unscaled_is_exact() {
        assert_eq!(unscaled("1.5", 2), Ok(150));
        assert_eq!(unscaled("-0.05", 2), Ok(-5));
        assert_eq!(unscaled("1.500", 2), Ok(150));
        assert_eq!(unscaled("1.505", 2), Err(NumberMisfit::Scale));
        assert_eq!(unscaled("1e2", 0), Ok(100));
        assert_eq!(unscaled("12E-1", 1), Ok(12));
        assert_eq!(unscaled("0.0", 0), Ok(0));
        assert_eq!(unscaled("1e-400", 2), Err(NumberMisfit::Scale));
        assert_eq!(unscaled("0e999999999999999999999", 2), Ok(0));
        assert_eq!(
            unscaled("1e999999999999999999999", 2),
            Err(NumberMisfit::Digits)
        );
        assert_eq!(unscaled(&"9".repeat(38), 0), Ok(10i128.pow(38) - 1));
        assert_eq!(unscaled(&"9".repeat(39), 0), Err(NumberMisfit::Digits));
        assert_eq!(unscaled(&"9".repeat(36), 2), Ok(10i128.pow(38) - 100));
        assert_eq!(unscaled(&"9".repeat(37), 2), Err(NumberMisfit::Digits));
    }

    #[test]
    fn decimal_text_pads_to_scale() {
        assert_eq!(decimal_text(150, 2), "1.50");
        assert_eq!(decimal_text(-5, 2), "-0.05");
        assert_eq!(decimal_text(7, 0), "7");
    }

    #[test]
    fn temporal_values() {
        assert_eq!(date_days("1970-01-01"), Some(0));
        assert_eq!(date_days("2024-02-29"), Some(19782));
        assert_eq!(date_days("2023-02-29"), None);
        assert_eq!(timestamptz_micros("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(
            timestamptz_micros("1970-01-01t00:00:00.1234567z"),
            Some(123_456)
        );
        assert_eq!(timestamptz_micros("1970-01-01T00:00:60Z"), None);
        assert_eq!(timestamptz_micros("1970-01-01T00:00:00"), None);
        assert_eq!(time_micros("00:30:00+01:00"), Some(84_600_000_000));
        assert_eq!(
            uuid_bytes("00000000-0000-0000-0000-00000000000A").map(|b| b[15]),
            Some(10)
        );
        assert_eq!(base64_bytes("aGk"), Some(b"hi".to_vec()));
        assert_eq!(base64_bytes("aGk="), Some(b"hi".to_vec()));
        assert_eq!(timestamptz_text(-1), "1969-12-31T23:59:59.999999+00:00");
        assert_eq!(timestamptz_text(500_000), "1970-01-01T00:00:00.500+00:00");
        assert_eq!(
            timestamptz_text(951_782_400_000_000),
            "2000-02-29T00:00:00+00:00"
        );
    }

    /// Years past 9999 and before 0000 in ISO 8601's expanded form, as Iceberg prints them.
    #[test]
    fn years_outside_four_digits_are_signed() {
        let day = 86_400_000_000i64;
        // 10000-01-01 is 2,932,897 days after 1970-01-01; 0000-01-01 is 719,528 days before.
        assert_eq!(
            timestamptz_text(2_932_897 * day),
            "+10000-01-01T00:00:00+00:00"
        );
        assert_eq!(
            timestamptz_text(2_932_897 * day - 1_000_000),
            "9999-12-31T23:59:59+00:00"
        );
        assert_eq!(
            timestamptz_text(-719_528 * day),
            "0000-01-01T00:00:00+00:00"
        );
        assert_eq!(
            timestamptz_text(-719_528 * day - 1),
            "-0001-12-31T23:59:59.999999+00:00"
        );
    }
}
