//! The mapper's table of diagnostic codes: what the channel would do with the schema.

schema2iceberg_parser::code_table! {
    ROOT_NOT_OBJECT = "root-not-object", Error, rule [2],
        "The root schema is not an object with properties, so there are no columns.",
        "Make the root `{\"type\": \"object\", \"properties\": {…}}`; its properties become the columns.",
        r#"{"type": "array", "items": {"type": "string"}}"#;
    UNCONSTRAINED = "unconstrained", Error, rule [11],
        "A schema constrains nothing (`{}` or `true`), so no column type can be chosen.",
        "Give it a `type` (and `format` where it matters).",
        r#"{"properties": {"payload": {}}}"#;
    NEVER_VALID = "never-valid", Error, rule [11, 12],
        "A schema is `false`, so no value is valid and the column could never hold one.",
        "Remove the property, or give it a real schema.",
        r#"{"properties": {"gone": false}}"#;
    TYPE_IMPLIED = "type-implied", Note, rule [9, 11],
        "`type` is missing, and is implied from the other keywords.",
        "Write the `type` out, so that readers and validators agree.",
        r#"{"properties": {"a": {"format": "date-time"}}}"#;
    NULL_TYPE = "null-type", Error, rule [9, 10],
        "A schema admits only null, and Iceberg has no null type.",
        "Give the column a real type and make it nullable with `\"type\": [\"string\", \"null\"]`.",
        r#"{"type": "null"}"#;
    UNION_TYPE = "union-type", Error, rule [10],
        "A schema admits values of two or more non-null types, and Iceberg has no union type.",
        "Choose one type; to keep mixed values, store them as a string.",
        r#"{"type": ["string", "integer"]}"#;
    UNSUPPORTED_COMPOSITION = "unsupported-composition", Error, rule [10],
        "`anyOf` or `oneOf` is used for something other than making one schema nullable.",
        "Replace it with a single schema; only `anyOf`/`oneOf` of one schema plus `{\"type\": \"null\"}` has a column type.",
        r#"{"oneOf": [{"type": "string"}, {"type": "integer"}]}"#;
    VALIDATION_ONLY_COMPOSITION = "validation-only-composition", Warning, rule [10],
        "`anyOf` or `oneOf` branches give no type and only validate records; the table is built as if the keyword were absent, a reading the channel does not document.",
        "Nothing changes the table; the registry still enforces the branches. To rely on no undocumented reading, enforce the rule in the producer and remove the keyword.",
        r#"{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}"#;
    ALLOF_CONFLICT = "allof-conflict", Error, rule [12],
        "Two `allOf` branches give a property, or the `type`, different column types.",
        "Make the branches agree.",
        r#"{"allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"a": {"type": "integer"}}}]}"#;
    INT_RANGE = "int-range", Warning, rule [4],
        "The column is int (from `maximum`), but the schema allows values that do not fit in 32 bits.",
        "Tighten `maximum`/`minimum` to the int32 range, or raise `maximum` above 2^31 to get long.",
        r#"{"type": "integer", "maximum": 2147483648}"#;
    FORMAT_TYPO = "format-typo", Warning, rule [3],
        "A string's `format` is close to one that gives the column a type (`date-time`, `date`, `time`, `uuid`, `byte`), but is not it, so the column is a plain string.",
        "Spell the format exactly as the channel maps it; formats are case-sensitive.",
        r#"{"type": "string", "format": "datetime"}"#;
    LONG_RANGE = "long-range", Warning, rule [4],
        "The column is long, but its bounds let in integers beyond the 64-bit range, which no Iceberg integer holds.",
        "Keep `maximum`/`minimum` within ±2^63, or use `\"type\": \"number\", \"multipleOf\": 1` (decimal(38, 0)) for larger values.",
        r#"{"type": "integer", "maximum": 100000000000000000000}"#;
    DECIMAL_RANGE = "decimal-range", Warning, rule [5],
        "The column is decimal(38, s), but its bounds let in values that need more than 38 digits at that scale.",
        "Keep the bounds below 10^(38 − s) in magnitude, or use a coarser `multipleOf`.",
        r#"{"type": "number", "multipleOf": 0.01, "maximum": 1e40}"#;
    INVALID_MULTIPLE_OF = "invalid-multiple-of", Error, rule [5],
        "`multipleOf` on a number is zero, negative, or needs a scale above 38 digits, so no decimal(38, s) fits.",
        "Use a positive `multipleOf` such as 0.01 (scale 2).",
        r#"{"type": "number", "multipleOf": 0}"#;
    DDL_CANNOT_CREATE = "ddl-cannot-create", Note, rule [3],
        "A column's type (uuid, time) is one the channel's table holds but some dialect's `CREATE TABLE` cannot create (Athena and Spark SQL have neither), so `compile --format ddl` refuses the table in that dialect.",
        "Drop `\"format\": \"uuid\"` (or `\"time\"`) to make it a string column, or keep it and query the table the channel creates through the catalog instead of creating it with DDL.",
        r#"{"properties": {"id": {"type": "string", "format": "uuid"}}}"#;
    ENUM_NOT_STRING = "enum-not-string", Warning, rule [9],
        "An `enum` or `const` value is not a string, but the column is a string.",
        "Expect the value as text in the table, or drop `enum` to keep a numeric or boolean column.",
        r#"{"enum": [1, 2, 3]}"#;
    FREE_FORM_OBJECT = "free-form-object", Error, rule [7],
        "An object has no `properties` and no `additionalProperties` schema, so it has no Iceberg type.",
        "List its `properties` for a struct, or give `additionalProperties` a schema for a map.",
        r#"{"properties": {"attrs": {"type": "object"}}}"#;
    EMPTY_OBJECT = "empty-object", Error, rule [2, 7],
        "An object has no `properties` (or empty ones) and `additionalProperties: false`: it admits only `{}`, so it has no columns, and Parquet cannot store an empty struct.",
        "At the root, list the record's fields in `properties` (a table needs at least one column); nested, drop the property.",
        r#"{"properties": {"marker": {"type": "object", "properties": {}, "additionalProperties": false}}}"#;
    ADDITIONAL_PROPERTIES_DROPPED = "additional-properties-dropped", Warning, rule [7],
        "An object has both `properties` and an `additionalProperties` schema; it becomes a struct, and keys not in `properties` are dropped.",
        "List every key you need in `properties`, or remove `properties` to get a map.",
        r#"{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}"#;
    PATTERN_PROPERTIES_IGNORED = "pattern-properties-ignored", Warning, rule [7],
        "`patternProperties` has no Iceberg equivalent and is ignored; matching keys are dropped.",
        "Name the keys in `properties`, or use an `additionalProperties` map.",
        r#"{"type": "object", "patternProperties": {"^x-": {"type": "string"}}}"#;
    ARRAY_WITHOUT_ITEMS = "array-without-items", Error, rule [8],
        "An array has no `items` schema, so the list has no element type.",
        "Add `\"items\": {…}` with the element's schema.",
        r#"{"type": "array"}"#;
    TUPLE_ITEMS = "tuple-items", Error, rule [8],
        "An array uses tuple-form `items` (an array of schemas), and Iceberg lists have one element type.",
        "Use a single `items` schema, or turn the tuple into an object with named properties.",
        r#"{"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}"#;
    NOT_ENFORCED = "not-enforced", Note, rule [14],
        "`not`, `if`/`then`/`else` or `dependencies` constrain records, but the table does not enforce them.",
        "Nothing to fix for the table; validate records elsewhere if these rules matter.",
        r#"{"type": "string", "not": {"enum": [""]}}"#;
    REQUIRED_BUT_NULLABLE = "required-but-nullable", Note, rule [15],
        "A property is in `required` but its schema admits null, so the column is optional.",
        "Remove `null` from its type to make the column required, or drop it from `required`.",
        r#"{"properties": {"a": {"type": ["string", "null"]}}, "required": ["a"]}"#;
    REQUIRED_NOT_A_PROPERTY = "required-not-a-property", Warning, rule [15],
        "`required` names a property that is not in `properties`; it has no column.",
        "Fix the spelling, or add the property.",
        r#"{"properties": {"id": {"type": "string"}}, "required": ["ID"]}"#;
    REF_SIBLING_IGNORED = "ref-sibling-ignored", Warning, rule [18],
        "A keyword beside `$ref` would change the column or the validation, but drafts 04–07 ignore keywords beside `$ref`.",
        "Move the keyword into the referenced schema, or wrap both in `allOf`.",
        r##"{"$ref": "#/definitions/ts", "type": ["string", "null"]}"##;
    REF_SIBLING_DOC_IGNORED = "ref-sibling-doc-ignored", Note, rule [18],
        "A `description` beside `$ref` is ignored, as drafts 04–07 ignore keywords beside `$ref`; the column loses only that doc.",
        "Write `\"allOf\": [{\"$ref\": …}]` beside the `description` to keep the doc.",
        r##"{"$ref": "#/definitions/ts", "description": "When the order was placed"}"##;
    REF_CYCLE = "ref-cycle", Error, rule [12, 19],
        "A `$ref` leads back to a schema that contains it, and Iceberg has no recursive types.",
        "Cut the cycle: stop the recursion at a fixed depth, or store the recursive part as a string.",
        r##"{"definitions": {"node": {"properties": {"child": {"$ref": "#/definitions/node"}}}}}"##;
    FILE_REF = "file-ref", Warning, rule [17],
        "A `$ref` reads another file; the Glue Schema Registry stores one document, and a reference it cannot resolve fails channel creation.",
        "Run `schema2iceberg bundle SCHEMA` and register the one self-contained document it prints.",
        r#"{"properties": {"home": {"$ref": "common.json#/definitions/address"}}}"#;
    EMPTY_NAME = "empty-name", Error, rule [21],
        "A property name is empty, and Iceberg columns need a name.",
        "Rename the property.",
        r#"{"properties": {"": {"type": "string"}}}"#;
    CASE_COLLISION = "case-collision", Warning, rule [21],
        "Two property names in one object differ only in case; engines that ignore case cannot tell them apart.",
        "Rename one of them.",
        r#"{"properties": {"userId": {}, "userid": {}}}"#;
    UPPERCASE_NAME = "uppercase-name", Warning, rule [21],
        "A column name has uppercase letters; S3 Tables needs lowercase names, or Glue, Lake Formation and Athena cannot see the table.",
        "Rename the property in lowercase (snake_case).",
        r#"{"properties": {"userId": {"type": "string"}}}"#;
    NESTING_TOO_DEEP = "nesting-too-deep", Error, rule [22],
        "Structs, lists and maps are nested more than 16 levels deep; the channel rejects the schema at creation.",
        "Flatten the schema, or store the deepest part as a JSON string.",
        r#"{"properties": {"a": {"properties": {"b": … 17 levels …}}}}"#;
    TOO_MANY_COLUMNS = "too-many-columns", Error, rule [] section "budgets",
        "Expanding the schema's `$ref`s produces more columns than the compiler's budget.",
        "Reuse fewer definitions, or flatten the schema; a table this wide is not usable.",
        r##"{"definitions": {"a1": {"properties": {"x": {"$ref": "#/definitions/a0"}, "y": {"$ref": "#/definitions/a0"}}}}}"##;
    SCHEMA_TOO_DEEP = "schema-too-deep", Error, rule [] section "budgets",
        "`$ref` and `allOf` chains go deeper than the compiler's limit without adding a column.",
        "Shorten the chain of references.",
        r##"{"$ref": "#/definitions/a1"} with a1 → a2 → … → a1000"##;
    PARTITION_NOT_FOUND = "partition-not-found", Error, rule [23],
        "The partition field does not exist, or is reached through a list or map.",
        "Name a timestamptz column (a string with `format: date-time`), with a dotted path for nested structs.",
        "--partition missing_field";
    PARTITION_NOT_TIMESTAMPTZ = "partition-not-timestamptz", Error, rule [23],
        "The partition field is not a timestamptz column, and the channel's hour partition needs one.",
        "Give the field `\"type\": \"string\", \"format\": \"date-time\"`, or choose another field.",
        "--partition id (an integer column)";
    PARTITION_MADE_REQUIRED = "partition-made-required", Warning, rule [23],
        "The partition field is not in `required`, but the channel makes it required; records without it go to the dead-letter queue.",
        "Add the field to `required`, so the schema says what the channel does.",
        "--partition event_time, with event_time not in required";
    PARTITION_PARENT_OPTIONAL = "partition-parent-optional", Warning, rule [23],
        "The partition field is inside an optional struct; records without the struct have no partition value and go to the dead-letter queue.",
        "List each enclosing struct in its parent's `required`.",
        "--partition meta.event_time, with meta not in required";
    MULTIPLE_PARTITIONS = "multiple-partitions", Error, rule [23],
        "More than one partition field is given, and the channel supports exactly one.",
        "Give one --partition.",
        "--partition a --partition b";
    ICEBERG_REJECTED = "iceberg-rejected", Error, rule [20, 23],
        "The Iceberg library rejected the table it was given (for example two columns with the same full name).",
        "Read the message; rename the columns it names.",
        r#"{"properties": {"a.b": {…}, "a": {"properties": {"b": {…}}}}}"#;
}
