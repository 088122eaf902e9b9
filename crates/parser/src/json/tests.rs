//! The reader against hand-written cases: key order, duplicates, pointers, taking text out, and
//! error positions.

use super::*;

/// The word-at-a-time scan stops where a byte-at-a-time one does: every byte value at
/// every place of a run of ordinary bytes, with high (UTF-8) bytes and a second special
/// byte about it, at every length around the eight-byte words.
#[test]
fn literal_run_stops_at_the_first_byte_a_string_cannot_hold() {
    let naive = |bytes: &[u8]| {
        bytes
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .unwrap_or(bytes.len())
    };
    for filler in [b'a', 0x80, 0xC3, 0xFF, 0x7F, b' ', 0x21] {
        for length in 0..26 {
            let plain = vec![filler; length];
            assert_eq!(literal_run(&plain), naive(&plain));
            for at in 0..length {
                for byte in 0..=255u8 {
                    let mut bytes = plain.clone();
                    bytes[at] = byte;
                    assert_eq!(literal_run(&bytes), naive(&bytes), "{bytes:?}");
                    if at + 1 < length {
                        bytes[at + 1] = b'"';
                        assert_eq!(literal_run(&bytes), naive(&bytes), "{bytes:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn keeps_order_number_text_and_duplicates() {
    let parsed = parse(br#"{"b": 1.50, "a": [true, null], "b": "x\u00e9\ud83d\ude00"}"#);
    let Ok(parsed) = parsed else {
        unreachable!("valid JSON")
    };
    let doc = &parsed.doc;
    let JsonValue::Object(members) = doc.value(doc.root()) else {
        unreachable!("object")
    };
    let keys: Vec<_> = members.iter().map(|m| m.key.as_str()).collect();
    assert_eq!(keys, ["b", "a"]);
    assert_eq!(
        doc.value(members[0].value),
        &JsonValue::String("xé😀".into())
    );
    assert_eq!(parsed.duplicates.len(), 1);
    assert_eq!(doc.pointer(members[1].value), "/a");
    let JsonValue::Array(items) = doc.value(members[1].value) else {
        unreachable!("array")
    };
    assert_eq!(doc.pointer(items[1]), "/a/1");
    assert_eq!(doc.pointer(doc.root()), "");
    let one = parse(b"[1.50e+3]").map(|p| p.doc.value(JsonId(0)).clone());
    assert_eq!(
        one,
        Ok(JsonValue::Number(Number::from_json_text("1.50e+3")))
    );
}

/// Past 16 members keys are found by hash, borrowed from the text where written without
/// escapes: a key must match its duplicate however either is written.
#[test]
fn large_objects_find_duplicates_written_with_or_without_escapes() {
    let mut members: Vec<String> = (0..30).map(|i| format!(r#""k{i}": {i}"#)).collect();
    members[5] = r#""k\u0035": 5"#.to_string();
    members.push(r#""x\ty": "first""#.to_string());
    members.push(r#""k\u0031": "one""#.to_string());
    members.push(r#""\u006b2": "two""#.to_string());
    members.push(r#""k3": "three""#.to_string());
    members.push(r#""x\u0009y": "last""#.to_string());
    members.push(r#""k5": "five""#.to_string());
    members.push(r#""k30": 30"#.to_string());
    let text = format!("{{{}}}", members.join(", "));
    let Ok(parsed) = parse(text.as_bytes()) else {
        unreachable!("valid JSON")
    };
    let doc = &parsed.doc;
    let JsonValue::Object(members) = doc.value(doc.root()) else {
        unreachable!("object")
    };
    let keys: Vec<&str> = members.iter().map(|m| m.key.as_str()).collect();
    let mut expected: Vec<String> = (0..30).map(|i| format!("k{i}")).collect();
    expected.push("x\ty".to_string());
    expected.push("k30".to_string());
    assert_eq!(keys, expected);
    let duplicates: Vec<&str> = parsed.duplicates.iter().map(|d| d.key.as_str()).collect();
    assert_eq!(duplicates, ["k1", "k2", "k3", "x\ty", "k5"]);
    let value_of = |key: &str| doc.member(doc.root(), key).map(|m| doc.value(m.value));
    assert_eq!(value_of("k1"), Some(&JsonValue::String("one".into())));
    assert_eq!(value_of("k3"), Some(&JsonValue::String("three".into())));
    assert_eq!(value_of("k5"), Some(&JsonValue::String("five".into())));
    assert_eq!(value_of("x\ty"), Some(&JsonValue::String("last".into())));
}

#[test]
fn pointers_escape_keys_and_count_indexes() {
    let text = format!(r#"{{"a/b~c": [{}"x"], "": {{"é": 1}}}}"#, "0, ".repeat(12));
    let Ok(parsed) = parse(text.as_bytes()) else {
        unreachable!("valid JSON")
    };
    let doc = &parsed.doc;
    let mut pointers: Vec<String> = (0..doc.nodes.len())
        .map(|i| doc.pointer(JsonId(i as u32)))
        .collect();
    pointers.sort();
    assert_eq!(pointers.first().map(String::as_str), Some(""));
    assert!(pointers.contains(&"/a~1b~0c/12".to_string()));
    assert!(pointers.contains(&"/a~1b~0c/9".to_string()));
    assert!(pointers.contains(&"//é".to_string()));
}

#[test]
fn taking_text_leaves_the_rest_in_place() {
    let Ok(parsed) = parse(br#"{"k": "v", "n": 1}"#) else {
        unreachable!("valid JSON")
    };
    let mut doc = parsed.doc;
    let root = doc.root();
    let value = doc.member(root, "k").map(|m| m.value);
    let Some(value) = value else {
        unreachable!("a member k")
    };
    assert_eq!(doc.take_string(value), Some("v".to_string()));
    assert_eq!(
        doc.value(value),
        &JsonValue::String(CompactString::default())
    );
    assert_eq!(doc.take_string(root), None);
    assert_eq!(doc.take_key(root, 1), Some("n".to_string()));
    assert_eq!(doc.take_key(root, 2), None);
    assert_eq!(doc.take_key(value, 0), None);
    assert_eq!(doc.compact(root), r#"{"k":"","":1}"#);
}

#[test]
fn errors_have_positions() {
    let err = parse(b"{\"a\": 01}").err();
    assert_eq!(err.map(|e| e.span.start), Some(7));
    let err = parse(b"{\"a\": \xff}").err();
    assert_eq!(
        err.map(|e| (e.kind, e.span.start)),
        Some((JsonErrorKind::InvalidUtf8, 6))
    );
    let deep = "[".repeat(100_000);
    assert_eq!(
        parse(deep.as_bytes()).err().map(|e| e.kind),
        Some(JsonErrorKind::TooDeep)
    );
}
