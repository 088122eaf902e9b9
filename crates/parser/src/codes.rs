//! The parser's table of diagnostic codes: reading JSON, choosing the draft, and `$ref`.

crate::code_table! {
    INVALID_UTF8 = "invalid-utf8", Error, rule [] section "file is not UTF-8",
        "The file is not UTF-8 text.",
        "Save the file as UTF-8; JSON requires it.",
        "(bytes such as 0xFF)";
    INVALID_JSON = "invalid-json", Error, rule [] section "file is not JSON (a byte-order mark counts)",
        "The file is not valid JSON.",
        "Fix the syntax at the marked position; comments and trailing commas are not JSON.",
        r#"{"type": "object",}"#;
    JSON_TOO_DEEP = "json-too-deep", Error, rule [] section "budgets",
        "Arrays and objects are nested deeper than the reader's limit of 256 levels.",
        "No real schema needs this depth; flatten it, or split it with `$ref`.",
        "[[[[[[… 100000 levels …]]]]]]";
    DUPLICATE_KEY = "duplicate-key", Warning, rule [] section "duplicate keys",
        "A key is written twice in one object; the later value is used, but JSON parsers disagree on which wins.",
        "Delete one of the two.",
        r#"{"type": "string", "type": "integer"}"#;
    DRAFT_ASSUMED = "draft-assumed", Note, rule [1],
        "The schema has no `$schema`, so draft-07 is assumed.",
        r#"Add "$schema": "http://json-schema.org/draft-07/schema#" (or draft-04/06), or pass --draft."#,
        r#"{"type": "object", "properties": {…}}"#;
    UNSUPPORTED_DRAFT = "unsupported-draft", Error, rule [1],
        "`$schema` names a draft that the Glue Schema Registry does not accept (it accepts draft-04, -06 and -07).",
        "Declare draft-04, -06 or -07, or pass --draft 04|06|07 to choose how the file is read.",
        r#"{"$schema": "https://json-schema.org/draft/2020-12/schema"}"#;
    INVALID_KEYWORD = "invalid-keyword", Error, rule [1] section "invalid keyword values",
        "A keyword has a value of the wrong kind, so the schema is invalid and the registry rejects it.",
        "Give the keyword the kind of value its draft defines.",
        r#"{"type": "object", "required": "id"}"#;
    UNKNOWN_TYPE = "unknown-type", Error, rule [] section "invalid keyword values",
        "`type` names something that is not a JSON Schema type.",
        "Use one of null, boolean, object, array, number, integer, string.",
        r#"{"type": "int"}"#;
    REF_INVALID = "ref-invalid", Error, rule [17],
        "A `$ref` is not a valid URI reference, or its fragment is not a JSON Pointer or a known anchor.",
        "Write the reference as `#/definitions/name`, `file.json#/definitions/name` or an `$id`.",
        r##"{"$ref": "#/definitions/a~2"}"##;
    REF_DANGLING = "ref-dangling", Error, rule [17],
        "A `$ref` points at nothing.",
        "Fix the pointer, or add the definition it names.",
        r##"{"$ref": "#/definitions/missing"}"##;
    REF_NETWORK = "ref-network", Error, rule [17],
        "A `$ref` names an http(s) URI that no `$id` in the schema defines; the tool never uses the network.",
        "Copy the referenced schema next to this one and refer to the file, or embed it with a matching `$id`.",
        r#"{"$ref": "https://example.com/address.json"}"#;
    REF_OUTSIDE_ROOT = "ref-outside-root", Error, rule [17],
        "A file `$ref` leaves the reference root, so it is not read.",
        "Keep referenced files inside the root, or widen it with --ref-root.",
        r#"{"$ref": "../../etc/passwd"}"#;
    REF_UNREADABLE = "ref-unreadable", Error, rule [17],
        "A file named by a `$ref` exists inside the root but cannot be read.",
        "Check the file's permissions and that it is a regular file.",
        r#"{"$ref": "locked.json"}"#;
    BUNDLE_UNSUPPORTED = "bundle-unsupported", Error, rule [17] section "`bundle` only",
        "`bundle` cannot write the schema and its files as one document that resolves the same (only `schema2iceberg bundle` reports it).",
        "Follow the message: give the root an absolute `$id`, make `definitions` an object, or declare the same draft in every file.",
        r#"{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"$ref": "draft04-file.json"}}}"#;
}
