//! Writes one record as JSON text from its [`Shape`]: values spread over each column's range,
//! with the forms the channel must read (offsets and fraction lengths, leap days, base64 with
//! and without padding, escapes and non-ASCII text, optional fields absent or null, extra fields).

use std::fmt::Write as _;

use base64::Engine as _;

use super::rng::Rng;
use super::shape::{Field, Shape, StructShape, TextFormat};

/// Appends one record for `table` to `out`, without a newline.
pub fn write_record(rng: &mut Rng, table: &StructShape, out: &mut String) {
    write_struct(rng, table, out);
}

/// Words for text values; a few carry characters that JSON escapes or that are not ASCII.
const WORDS: &[&str] = &[
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliett",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "München",
    "Zürich",
    "São Paulo",
    "東京",
    "naïve",
    "café",
    "😀",
    "tab\there",
    "quote\"d",
    "back\\slash",
    "line\nbreak",
    "x",
];

/// Names of fields the table has no column for (checked against the struct's columns).
const EXTRA_NAMES: &[&str] = &[
    "_trace_id",
    "debug",
    "client_version",
    "x-extra",
    "legacy_flag",
];

fn write_struct(rng: &mut Rng, shape: &StructShape, out: &mut String) {
    out.push('{');
    let mut first = true;
    let mut member = |out: &mut String, name: &str| {
        if !first {
            out.push(',');
        }
        first = false;
        write_string(name, out);
        out.push(':');
    };
    for field in &shape.fields {
        match presence(rng, field) {
            Presence::Absent => {}
            Presence::Null => {
                member(out, &field.name);
                out.push_str("null");
            }
            Presence::Value => {
                member(out, &field.name);
                write_value(rng, &field.shape, out);
            }
        }
    }
    if shape.extras && rng.chance(20) {
        for _ in 0..=rng.below(2) {
            let Some(name) = rng.pick(EXTRA_NAMES) else {
                break;
            };
            if shape.fields.iter().any(|f| f.name == *name) {
                continue;
            }
            member(out, name);
            let _ = write!(out, "{}", rng.below(1000));
        }
    }
    out.push('}');
}

enum Presence {
    Absent,
    Null,
    Value,
}

fn presence(rng: &mut Rng, field: &Field) -> Presence {
    let roll = rng.below(100);
    if !field.always && roll < 8 {
        Presence::Absent
    } else if field.nullable && roll >= 94 {
        Presence::Null
    } else {
        Presence::Value
    }
}

// Over 80 lines: one arm a type; the column types are the reason for the length.
fn write_value(rng: &mut Rng, shape: &Shape, out: &mut String) {
    match shape {
        Shape::Bool => out.push_str(if rng.chance(50) { "true" } else { "false" }),
        Shape::Whole { low, high } => {
            let _ = write!(out, "{}", whole(rng, *low, *high));
        }
        Shape::Double { low, high } => write_double(rng, *low, *high, out),
        Shape::Decimal {
            scale,
            step,
            low,
            high,
        } => write_decimal(rng, *scale, *step, *low, *high, out),
        Shape::Text {
            min_chars,
            max_chars,
            format,
        } => write_text(rng, *min_chars, *max_chars, *format, out),
        Shape::Choice(texts) => out.push_str(rng.pick(texts).map_or("null", String::as_str)),
        Shape::Date => {
            out.push('"');
            write_date(rng, out);
            out.push('"');
        }
        Shape::Time => {
            out.push('"');
            write_time(rng, out);
            write_offset(rng, out);
            out.push('"');
        }
        Shape::Instant(micros) => write_instant(rng, *micros, out),
        Shape::Timestamptz => {
            out.push('"');
            write_date(rng, out);
            out.push(if rng.chance(3) { 't' } else { 'T' });
            write_time(rng, out);
            write_offset(rng, out);
            out.push('"');
        }
        Shape::Uuid => {
            let hex = format!(
                "{:032x}",
                u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64())
            );
            let hex = if rng.chance(10) {
                hex.to_uppercase()
            } else {
                hex
            };
            let part = |r: std::ops::Range<usize>| hex.get(r).unwrap_or_default();
            let _ = write!(
                out,
                "\"{}-{}-{}-{}-{}\"",
                part(0..8),
                part(8..12),
                part(12..16),
                part(16..20),
                part(20..32)
            );
        }
        Shape::Binary => {
            let bytes: Vec<u8> = (0..rng.below(48)).map(|_| rng.next_u64() as u8).collect();
            let text = base64::engine::general_purpose::STANDARD.encode(bytes);
            let text = if rng.chance(50) {
                text.trim_end_matches('=')
            } else {
                &text
            };
            let _ = write!(out, "\"{text}\"");
        }
        Shape::Struct(s) => write_struct(rng, s, out),
        Shape::List {
            element,
            min_items,
            max_items,
        } => write_items(rng, element, (*min_items, *max_items), false, out),
        Shape::Map {
            value,
            min_entries,
            max_entries,
        } => write_items(rng, value, (*min_entries, *max_entries), true, out),
    }
}

/// A list (`keyed` false) or a map's entries, between the bounds in number.
fn write_items(rng: &mut Rng, item: &Shape, bounds: (usize, usize), keyed: bool, out: &mut String) {
    out.push(if keyed { '{' } else { '[' });
    for i in 0..rng.between(bounds.0 as i128, bounds.1 as i128) {
        if i > 0 {
            out.push(',');
        }
        if keyed {
            let word = rng.pick(WORDS).copied().unwrap_or("key");
            write_string(&format!("{word}_{i}"), out);
            out.push(':');
        }
        write_value(rng, item, out);
    }
    out.push(if keyed { '}' } else { ']' });
}

/// Mostly moderate values, sometimes the bounds themselves.
fn whole(rng: &mut Rng, low: i128, high: i128) -> i128 {
    match rng.below(20) {
        0 => low,
        1 => high,
        _ => {
            let (l, h) = (low.max(-1_000_000_000_000), high.min(1_000_000_000_000));
            if l <= h {
                rng.between(l, h)
            } else {
                rng.between(low, high)
            }
        }
    }
}

/// A double in `low..=high`, written as an integer, a short fraction, or with an exponent.
fn write_double(rng: &mut Rng, low: f64, high: f64, out: &mut String) {
    let value = low + (high - low) * rng.unit();
    let value = value.clamp(low, high);
    match rng.below(4) {
        0 if value.trunc() >= low && value.trunc().abs() < 1e15 => {
            let _ = write!(out, "{}", value.trunc() as i64);
        }
        1 => {
            let rounded = (value * 100.0).round() / 100.0;
            let v = if rounded >= low && rounded <= high {
                rounded
            } else {
                value
            };
            let _ = write!(out, "{v}");
        }
        2 => {
            let _ = write!(out, "{value:e}");
        }
        _ => {
            let _ = write!(out, "{value}");
        }
    }
}

/// A multiple of `step` in `low..=high` (all unscaled), written at the column's scale, or with
/// its trailing zeros dropped, or (when whole) as an integer.
fn write_decimal(rng: &mut Rng, scale: u32, step: i128, low: i128, high: i128, out: &mut String) {
    let first = low.div_euclid(step) + i128::from(low.rem_euclid(step) != 0);
    let last = high.div_euclid(step);
    let unscaled = whole(rng, first, last) * step;
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    let scale = scale as usize;
    if scale == 0 {
        let _ = write!(out, "{sign}{digits}");
        return;
    }
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (integer, fraction) = padded.split_at(padded.len() - scale);
    let fraction = match rng.below(3) {
        0 => fraction.trim_end_matches('0'),
        _ => fraction,
    };
    if fraction.is_empty() {
        let _ = write!(out, "{sign}{integer}");
    } else {
        let _ = write!(out, "{sign}{integer}.{fraction}");
    }
}

fn write_text(rng: &mut Rng, min: usize, max: usize, format: TextFormat, out: &mut String) {
    // The first twenty words are plain ASCII letters, which every format accepts.
    let plain = WORDS.get(..20).unwrap_or(WORDS);
    let word = |rng: &mut Rng| rng.pick(plain).copied().unwrap_or("x");
    let text = match format {
        TextFormat::Email => format!("{}.{}@example.com", word(rng), rng.below(1000)),
        TextFormat::Hostname => format!("{}-{}.example.org", word(rng), rng.below(1000)),
        TextFormat::Ipv4 => format!(
            "{}.{}.{}.{}",
            rng.below(256),
            rng.below(256),
            rng.below(256),
            rng.below(256)
        ),
        TextFormat::Uri => format!("https://example.com/{}/{}", word(rng), rng.below(1000)),
        TextFormat::Plain => {
            let target = rng.between(min as i128, max as i128) as usize;
            let mut text = String::new();
            let mut chars = 0;
            while chars < target {
                let w = rng.pick(WORDS).copied().unwrap_or("x");
                for c in w.chars().chain([' ']) {
                    if chars == target {
                        break;
                    }
                    text.push(c);
                    chars += 1;
                }
            }
            text
        }
    };
    write_string(&text, out);
}

/// A JSON string literal, escaped by serde_json.
fn write_string(text: &str, out: &mut String) {
    let _ = write!(out, "{}", serde_json::Value::from(text));
}

fn is_leap(year: u64) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

/// `YYYY-MM-DD` from 1900 to 2199, with a leap day now and then.
fn write_date(rng: &mut Rng, out: &mut String) {
    if rng.chance(5) {
        let leap_years = [1904, 1996, 2000, 2024, 2028, 2096, 2104];
        let year = rng.pick(&leap_years).copied().unwrap_or(2024);
        let _ = write!(out, "{year}-02-29");
        return;
    }
    let year = 1900 + rng.below(300);
    let month = 1 + rng.below(12);
    let days = match month {
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 31,
    };
    let day = 1 + rng.below(days);
    let _ = write!(out, "{year:04}-{month:02}-{day:02}");
}

/// `HH:MM:SS` with a fraction of 0 to 9 digits.
fn write_time(rng: &mut Rng, out: &mut String) {
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}",
        rng.below(24),
        rng.below(60),
        rng.below(60)
    );
    let digits = match rng.below(10) {
        0..=3 => 0,
        d => d - 1,
    };
    if digits > 0 {
        out.push('.');
        for _ in 0..digits {
            out.push(char::from(b'0' + rng.below(10) as u8));
        }
    }
}

/// `micros` (since the epoch) as an RFC 3339 timestamp: in UTC or at a few offsets, with 0, 3
/// or 6 fraction digits (0 and 3 truncate the instant).
fn write_instant(rng: &mut Rng, micros: i64, out: &mut String) {
    let offset_minutes: i64 = rng.pick(&[0, 0, 60, -300, 330]).copied().unwrap_or(0);
    let local = micros + offset_minutes * 60_000_000;
    let seconds = local.div_euclid(1_000_000);
    let fraction = local.rem_euclid(1_000_000);
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    let of_day = seconds.rem_euclid(86_400);
    let _ = write!(
        out,
        "\"{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    );
    match rng.below(3) {
        0 => {}
        1 => {
            let _ = write!(out, ".{:03}", fraction / 1000);
        }
        _ => {
            let _ = write!(out, ".{fraction:06}");
        }
    }
    if offset_minutes == 0 {
        out.push_str("Z\"");
    } else {
        let sign = if offset_minutes < 0 { '-' } else { '+' };
        let abs = offset_minutes.abs();
        let _ = write!(out, "{sign}{:02}:{:02}\"", abs / 60, abs % 60);
    }
}

/// The proleptic Gregorian date of a day number (days since 1970-01-01; Howard Hinnant's
/// `civil_from_days`).
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `Z`, `z`, or `±HH:MM` within ±23:59.
fn write_offset(rng: &mut Rng, out: &mut String) {
    match rng.below(10) {
        0..=3 => out.push('Z'),
        4 => out.push('z'),
        _ => {
            let sign = if rng.chance(50) { '+' } else { '-' };
            let minutes = rng.pick(&[0, 0, 0, 30, 45]).copied().unwrap_or(0);
            let _ = write!(out, "{sign}{:02}:{minutes:02}", rng.below(24));
        }
    }
}
