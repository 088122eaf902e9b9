//! Raw bytes into the JSON reader and into a workspace with no reference root.
//!
//! Besides "no panic", it checks that every value's RFC 6901 pointer leads back to it, and it
//! exercises the exact-number helpers that the mapper calls on input numbers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schema2iceberg_parser::json::JsonValue;
use schema2iceberg_parser::{pointer, JsonFile, LoadOptions, Number, Url, Workspace};

fuzz_target!(|data: &[u8]| {
    let (file, _) = JsonFile::parse("fuzz.json", data.to_vec());
    if let Some(doc) = file.json.as_deref() {
        let root = doc.root();
        let _ = doc.compact(root);
        let two_31 = Number::from_json_text("2147483648");
        // Every value's pointer must lead back to that value.
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            let text = doc.pointer(id);
            let tokens =
                pointer::decode(&text).unwrap_or_else(|| panic!("undecodable pointer {text:?}"));
            let back = doc.walk(root, tokens.iter().map(String::as_str));
            assert_eq!(
                back,
                Some(id),
                "pointer {text:?} does not lead back to its value"
            );
            match doc.value(id) {
                JsonValue::Array(items) => stack.extend(items.iter().copied()),
                JsonValue::Object(members) => stack.extend(members.iter().map(|m| m.value)),
                JsonValue::Number(n) => {
                    let _ = n.cmp_exact(&two_31);
                    let _ = (n.is_positive(), n.is_integer(), n.scale());
                }
                _ => {}
            }
        }
    }
    let Ok(base) = Url::parse("file:///fuzz/schema.json") else {
        return;
    };
    let ws = Workspace::from_bytes("schema.json", data.to_vec(), base, LoadOptions::default());
    let _ = ws.root();
    for d in ws.diagnostics() {
        let _ = format!("{d:?}");
    }
});
