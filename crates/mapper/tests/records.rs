//! Property test of `records`: a record generated to fit `testdata/records/roundtrip.schema.json`
//! (every column type, written in the varied ways producers write them: offsets, fractions
//! beyond microseconds, exponents, trailing zeros, base64 with and without padding, extra fields)
//! is delivered, and its row holds exactly the values it was generated from.

// Tests should fail loudly, so they unwrap, index and panic freely.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use base64::Engine;
use proptest::prelude::*;
use schema2iceberg_mapper::records::{Cell, RecordChecker, RecordFormat, RecordOptions, Verdict};
use schema2iceberg_mapper::CompileOptions;
use schema2iceberg_parser::{LoadOptions, Url, Workspace};
use support::workspace_root;

/// A fixed case count keeps the run short and the same in CI as on a laptop.
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn checker() -> RecordChecker {
    checker_for(RecordFormat::Json)
}

fn checker_for(format: RecordFormat) -> RecordChecker {
    let path = workspace_root().join("testdata/records/roundtrip.schema.json");
    let bytes = std::fs::read(&path).unwrap();
    let url = Url::from_file_path(&path).unwrap();
    let ws = Workspace::from_bytes("roundtrip.schema.json", bytes, url, LoadOptions::default());
    let options = CompileOptions {
        partition: vec!["event_time".into()],
        ..CompileOptions::default()
    };
    let record = RecordOptions {
        format,
        schema_version_id: None,
    };
    RecordChecker::new(&ws, &options, record).unwrap()
}

/// One generated value: its JSON text (`None`: the field is absent) and the cell it must become.
type Generated = (Option<String>, Cell);

const DAY_MICROS: i64 = 86_400_000_000;

/// Year, month and day of a day number (Howard Hinnant's `civil_from_days`): the inverse of what
/// the checker computes, written independently here.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn date_text(days: i64) -> String {
    let (y, m, d) = civil(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `HH:MM:SS`, then the fraction: none when it is zero and `short`, else six digits and `extra`
/// digits beyond microseconds (which the table truncates).
fn time_text(micros_of_day: i64, short: bool, extra: &str) -> String {
    let seconds = micros_of_day / 1_000_000;
    let fraction = micros_of_day % 1_000_000;
    let base = format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    );
    if fraction == 0 && short && extra.is_empty() {
        base
    } else {
        format!("{base}.{fraction:06}{extra}")
    }
}

fn offset_text(minutes: i64, zulu: bool) -> String {
    if minutes == 0 && zulu {
        return "Z".into();
    }
    let sign = if minutes < 0 { '-' } else { '+' };
    format!("{sign}{:02}:{:02}", minutes.abs() / 60, minutes.abs() % 60)
}

fn offset() -> impl Strategy<Value = (i64, bool)> {
    (prop_oneof![Just(0i64), -1439i64..=1439], any::<bool>())
}

fn timestamptz() -> impl Strategy<Value = Generated> {
    // 1900-01-01 to 2100-01-01, so that the local time stays within years 0000–9999.
    (
        -2_208_988_800_000_000i64..4_102_444_800_000_000,
        offset(),
        any::<bool>(),
        "[0-9]{0,3}",
    )
        .prop_map(|(utc, (minutes, zulu), short, extra)| {
            let local = utc + minutes * 60_000_000;
            let text = format!(
                "{}T{}{}",
                date_text(local.div_euclid(DAY_MICROS)),
                time_text(local.rem_euclid(DAY_MICROS), short, &extra),
                offset_text(minutes, zulu)
            );
            (
                Some(serde_json::to_string(&text).unwrap()),
                Cell::Timestamptz(utc),
            )
        })
}

fn time() -> impl Strategy<Value = Generated> {
    (0..DAY_MICROS, offset(), any::<bool>(), "[0-9]{0,3}").prop_map(
        |(utc, (minutes, zulu), short, extra)| {
            let local = (utc + minutes * 60_000_000).rem_euclid(DAY_MICROS);
            let text = format!(
                "\"{}{}\"",
                time_text(local, short, &extra),
                offset_text(minutes, zulu)
            );
            (Some(text), Cell::Time(utc))
        },
    )
}

fn date() -> impl Strategy<Value = Generated> {
    // 0001-01-01 to 9999-12-31: every leap day of the range among them.
    (-719_162i64..2_932_897).prop_map(|days| {
        (
            Some(format!("\"{}\"", date_text(days))),
            Cell::Date(i32::try_from(days).unwrap()),
        )
    })
}

/// An exact decimal `unscaled × 10^-scale` written as producers write it: plain, with trailing
/// zeros, or with an exponent.
fn decimal_text(unscaled: i128, scale: u32, style: u8, zeros: usize) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    match style % 3 {
        // digits E-scale
        0 => format!("{sign}{digits}E-{scale}"),
        // plain, with extra zeros after the point
        1 => {
            let padded = format!("{digits:0>width$}", width = scale as usize + 1);
            let (int, frac) = padded.split_at(padded.len() - scale as usize);
            let frac = format!("{frac}{}", "0".repeat(zeros));
            if frac.is_empty() {
                format!("{sign}{int}")
            } else {
                format!("{sign}{int}.{frac}")
            }
        }
        // d.ddd e+k
        _ => {
            let (head, tail) = digits.split_at(1);
            let exponent = digits.len() as i64 - 1 - i64::from(scale);
            if tail.is_empty() {
                format!("{sign}{head}e{exponent}")
            } else {
                format!("{sign}{head}.{tail}e{exponent}")
            }
        }
    }
}

fn decimal(scale: u32, max: i128) -> impl Strategy<Value = Generated> {
    (-max..=max, any::<u8>(), 0usize..3).prop_map(move |(unscaled, style, zeros)| {
        (
            Some(decimal_text(unscaled, scale, style, zeros)),
            Cell::Decimal { unscaled, scale },
        )
    })
}

fn json_string() -> impl Strategy<Value = String> {
    "\\PC{0,12}"
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

fn string() -> impl Strategy<Value = Generated> {
    json_string().prop_map(|s| (Some(quoted(&s)), Cell::String(s)))
}

/// A property that is not `required`: absent, or a value (not null, which its schema refuses).
fn optional(value: impl Strategy<Value = Generated>) -> impl Strategy<Value = Generated> {
    prop_oneof![
        1 => Just((None, Cell::Null)),
        4 => value,
    ]
}

/// A property whose schema admits null: absent, null or a value.
fn nullable(value: impl Strategy<Value = Generated>) -> impl Strategy<Value = Generated> {
    prop_oneof![
        1 => Just((Some("null".to_string()), Cell::Null)),
        4 => optional(value),
    ]
}

fn uuid() -> impl Strategy<Value = Generated> {
    (any::<[u8; 16]>(), any::<bool>()).prop_map(|(bytes, upper)| {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let text = format!(
            "{}-{}-{}-{}-{}",
            &hex[..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..]
        );
        let text = if upper { text.to_uppercase() } else { text };
        (Some(quoted(&text)), Cell::Uuid(bytes))
    })
}

fn binary() -> impl Strategy<Value = Generated> {
    (prop::collection::vec(any::<u8>(), 0..24), any::<bool>()).prop_map(|(bytes, padded)| {
        let text = if padded {
            base64::engine::general_purpose::STANDARD.encode(&bytes)
        } else {
            base64::engine::general_purpose::STANDARD_NO_PAD.encode(&bytes)
        };
        (Some(quoted(&text)), Cell::Binary(bytes))
    })
}

fn int() -> impl Strategy<Value = Generated> {
    (any::<i32>(), any::<bool>()).prop_map(|(n, point)| {
        // draft-07 counts 1.0 as an integer.
        let text = if point {
            format!("{n}.0")
        } else {
            n.to_string()
        };
        (Some(text), Cell::Int(n))
    })
}

fn double() -> impl Strategy<Value = Generated> {
    (prop::num::f64::NORMAL | prop::num::f64::ZERO | prop::num::f64::SUBNORMAL)
        .prop_map(|d| (Some(format!("{d:?}")), Cell::Double(d)))
}

fn kind() -> impl Strategy<Value = Generated> {
    prop_oneof![
        Just((Some("\"a\"".to_string()), Cell::String("a".into()))),
        Just((Some("\"b\"".to_string()), Cell::String("b".into()))),
        // enum maps to string whatever the values' type: 3 is stored as its JSON text.
        Just((Some("3".to_string()), Cell::String("3".into()))),
        Just((Some("null".to_string()), Cell::Null)),
        Just((None, Cell::Null)),
    ]
}

/// Writes `fields` (name, value) as a JSON object, skipping absent ones; the cells in order.
fn object(fields: Vec<(&str, Generated)>) -> Generated {
    let mut members = Vec::new();
    let mut cells = Vec::new();
    for (name, (text, cell)) in fields {
        if let Some(text) = text {
            members.push(format!("{}: {text}", quoted(name)));
        }
        cells.push(cell);
    }
    (
        Some(format!("{{{}}}", members.join(", "))),
        Cell::Struct(cells),
    )
}

fn list(item: impl Strategy<Value = Generated>) -> impl Strategy<Value = Generated> {
    prop::collection::vec(item, 0..4).prop_map(|items| {
        let texts: Vec<String> = items.iter().map(|(t, _)| t.clone().unwrap()).collect();
        let cells = items.into_iter().map(|(_, c)| c).collect();
        (Some(format!("[{}]", texts.join(", "))), Cell::List(cells))
    })
}

fn nested() -> impl Strategy<Value = Generated> {
    (
        nullable((any::<i64>()).prop_map(|n| (Some(n.to_string()), Cell::Long(n)))),
        optional(list(string())),
    )
        .prop_map(|(x, tags)| object(vec![("x", x), ("tags", tags)]))
}

fn attrs() -> impl Strategy<Value = Generated> {
    prop::collection::btree_map(json_string(), decimal(1, 10i128.pow(12)), 0..4).prop_map(|map| {
        // Multiples of 0.5 only: the unscaled value at scale 1 is a multiple of 5.
        let mut members = Vec::new();
        let mut entries = Vec::new();
        for (key, (_, cell)) in map {
            let Cell::Decimal { unscaled, scale } = cell else {
                unreachable!()
            };
            let unscaled = unscaled / 5 * 5;
            members.push(format!(
                "{}: {}",
                quoted(&key),
                decimal_text(unscaled, scale, 1, 0)
            ));
            entries.push((key, Cell::Decimal { unscaled, scale }));
        }
        (
            Some(format!("{{{}}}", members.join(", "))),
            Cell::Map(entries),
        )
    })
}

fn line() -> impl Strategy<Value = Generated> {
    (
        string(),
        optional((-5000i32..=1000).prop_map(|n| (Some(n.to_string()), Cell::Int(n)))),
    )
        .prop_map(|(sku, qty)| object(vec![("sku", sku), ("qty", qty)]))
}

/// A whole record: the JSON text, the row's cells, and the pointers of the extra fields.
fn record() -> impl Strategy<Value = (String, Vec<Cell>, Vec<String>)> {
    let scalars = (
        timestamptz(),
        int(),
        optional(any::<i64>().prop_map(|n| (Some(n.to_string()), Cell::Long(n)))),
        optional(double()),
        optional(decimal(4, 10i128.pow(38) - 1)),
        optional(decimal(0, 10i128.pow(38) - 1)),
        optional(string()),
        kind(),
    );
    let more = (
        optional(date()),
        optional(time()),
        uuid(),
        optional(binary()),
        optional(any::<bool>().prop_map(|b| (Some(b.to_string()), Cell::Bool(b)))),
        optional(nested()),
        optional(attrs()),
        optional(list(line())),
    );
    let extras = prop::collection::vec(0u32..3, 0..3);
    (scalars, more, extras).prop_map(
        |(
            (event_time, count, total, ratio, price, whole, name, kind),
            (day, at, id, blob, flag, nested, attrs, lines),
            extras,
        )| {
            let (Some(text), Cell::Struct(cells)) = object(vec![
                ("event_time", event_time),
                ("count", count),
                ("total", total),
                ("ratio", ratio),
                ("price", price),
                ("whole", whole),
                ("name", name),
                ("kind", kind),
                ("day", day),
                ("at", at),
                ("id", id),
                ("blob", blob),
                ("flag", flag),
                ("nested", nested),
                ("attrs", attrs),
                ("lines", lines),
            ]) else {
                unreachable!()
            };
            let mut text = text;
            let mut dropped = Vec::new();
            for (i, shape) in extras.iter().enumerate() {
                let value = ["1", "{\"deep\": [true]}", "\"x\""][*shape as usize];
                text.pop();
                text.push_str(&format!(", \"extra/{i}\": {value}}}"));
                dropped.push(format!("/extra~1{i}"));
            }
            (text, cells, dropped)
        },
    )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generated_records_are_delivered_and_round_trip((text, cells, dropped) in record()) {
        let checker = checker();
        match checker.check(text.as_bytes(), true) {
            Verdict::Delivered(delivered) => {
                prop_assert_eq!(delivered.cells.as_ref(), Some(&cells), "record: {}", text);
                prop_assert_eq!(delivered.dropped, dropped, "record: {}", text);
            }
            Verdict::Dlq(failure) => {
                prop_assert!(false, "record {} went to the DLQ: {:?}", text, failure);
            }
        }
    }
}

/// Bytes a producer might send by mistake: a valid record cut short or with a byte changed,
/// framed or not.
fn damaged() -> impl Strategy<Value = Vec<u8>> {
    (
        record(),
        any::<prop::sample::Index>(),
        any::<u8>(),
        any::<bool>(),
    )
        .prop_map(|((text, _, _), at, byte, cut)| {
            let mut bytes = text.into_bytes();
            let i = at.index(bytes.len());
            if cut {
                bytes.truncate(i);
            } else {
                bytes[i] = byte;
            }
            bytes
        })
}

proptest! {
    #![proptest_config(config())]

    /// Whatever the bytes, the checker gives a verdict (it never panics), in both record formats.
    #[test]
    fn damaged_records_get_a_verdict(bytes in damaged(), framed in any::<bool>(), zlib in any::<bool>()) {
        let checker = checker();
        let _ = checker.check(&bytes, false);
        let mut gsr = vec![3, if zlib { 5 } else { 0 }];
        gsr.extend_from_slice(&[7; 16]);
        gsr.extend_from_slice(&bytes);
        let gsr_checker = checker_for(RecordFormat::GsrJson);
        let verdict = gsr_checker.check(if framed { &gsr } else { &bytes }, true);
        if !framed && bytes.first().is_some_and(|b| *b == b'{') {
            prop_assert!(matches!(verdict, Verdict::Dlq(ref f) if f.reason.code() == "gsr-not-framed"), "{:?}", verdict);
        }
    }
}
