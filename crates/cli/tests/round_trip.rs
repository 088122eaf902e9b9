//! The JSON and table-metadata outputs are Iceberg's own: they parse back into `iceberg::spec`
//! types equal to the compiled ones, for every fixture and example that compiles. The Avro
//! schema parses back in `apache-avro` with every field id, name, type and optionality in
//! place, and the Arrow schema deserializes into the `iceberg` crate's own conversion.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;
use std::process::Command;

use iceberg::spec::{FormatVersion, PartitionSpec, Schema, TableMetadata};
use schema2iceberg::{CompileRequest, Format, SchemaInput, SourceOptions};

mod support;
use support::comment_partition;

fn check(path: &Path) -> bool {
    let bytes = std::fs::read(path).unwrap();
    let partition = comment_partition(&bytes);
    let request = CompileRequest {
        name: path.display().to_string(),
        path: Some(path.to_path_buf()),
        schema: SchemaInput::Bytes(Vec::new()),
        source: SourceOptions {
            partition: partition.into_iter().collect(),
            draft: None,
            ref_root: None,
            color: false,
        },
        format: Format::Json,
        output: None,
        table: Default::default(),
    };
    let out = support::compile(&request, bytes, Format::Json);
    if out.exit != 0 {
        return false;
    }
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let schema: Schema = serde_json::from_value(report["schema"].clone()).expect("schema parses");
    let spec: PartitionSpec =
        serde_json::from_value(report["partition-spec"].clone()).expect("partition spec parses");
    assert_eq!(
        serde_json::to_value(&schema).unwrap(),
        report["schema"],
        "{}",
        path.display()
    );
    assert_eq!(
        serde_json::to_value(&spec).unwrap(),
        report["partition-spec"]
    );
    // The spec binds to the schema it came with.
    let bound = spec
        .clone()
        .into_unbound()
        .bind(schema.clone())
        .expect("spec binds to schema");
    assert_eq!(bound.fields(), spec.fields());
    check_table_metadata(&request, path, &schema, &spec);
    check_avro(&request, path, &schema);
    check_arrow(&request, path, &schema);
    true
}

fn compile_to(request: &CompileRequest, path: &Path, format: Format) -> String {
    let out = support::compile(request, std::fs::read(path).unwrap(), format);
    assert_eq!(out.exit, 0, "{}: {}", path.display(), out.stderr);
    out.stdout
}

/// `--format arrow-json` reads back into the Arrow schema the `iceberg` crate makes of the table,
/// field-id metadata included.
fn check_arrow(request: &CompileRequest, path: &Path, schema: &Schema) {
    let printed = compile_to(request, path, Format::ArrowJson);
    let arrow: arrow_schema::Schema = serde_json::from_str(&printed)
        .unwrap_or_else(|e| panic!("{}: Arrow schema parses: {e}", path.display()));
    let expected = iceberg::arrow::schema_to_arrow_schema(schema).unwrap();
    assert_eq!(arrow, expected, "{}", path.display());
    for field in arrow.fields() {
        assert!(
            field.metadata().contains_key("PARQUET:field_id"),
            "{}: {} has its field id",
            path.display(),
            field.name()
        );
    }
}

/// `--format avro` parses in `apache-avro`, and each Avro field stands for its Iceberg field.
fn check_avro(request: &CompileRequest, path: &Path, schema: &Schema) {
    let printed = compile_to(request, path, Format::Avro);
    let avro = apache_avro::Schema::parse_str(&printed)
        .unwrap_or_else(|e| panic!("{}: Avro schema parses: {e}\n{printed}", path.display()));
    let AvroSchema::Record(record) = &avro else {
        panic!("{}: the Avro schema is a record", path.display());
    };
    assert_eq!(record.name.name, "table");
    avro_fields_match(record, schema.as_struct(), path);
    let json: serde_json::Value = serde_json::from_str(&printed).unwrap();
    timestamps_are_utc(&json, path);
}

use apache_avro::schema::RecordSchema;
use apache_avro::Schema as AvroSchema;
use iceberg::spec::{NestedField, PrimitiveType, StructType, Type};

fn avro_fields_match(record: &RecordSchema, fields: &StructType, path: &Path) {
    assert_eq!(
        record.fields.len(),
        fields.fields().len(),
        "{}",
        path.display()
    );
    for (avro, iceberg) in record.fields.iter().zip(fields.fields()) {
        let name = avro
            .custom_attributes
            .get("iceberg-field-name")
            .and_then(serde_json::Value::as_str)
            .unwrap_or(&avro.name);
        assert_eq!(name, iceberg.name, "{}", path.display());
        assert_eq!(
            avro.custom_attributes.get("field-id"),
            Some(&serde_json::Value::from(iceberg.id)),
            "{}: {}",
            path.display(),
            iceberg.name
        );
        if !iceberg.required {
            assert_eq!(avro.default, Some(serde_json::Value::Null));
        }
        avro_matches(&avro.schema, iceberg, path);
    }
}

/// `avro` is the schema of the Iceberg field `field`: a union with null first when optional.
fn avro_matches(avro: &AvroSchema, field: &NestedField, path: &Path) {
    let inner = if field.required {
        avro
    } else {
        let AvroSchema::Union(union) = avro else {
            panic!("{}: optional {} is a union", path.display(), field.name);
        };
        assert_eq!(union.variants().len(), 2);
        assert_eq!(union.variants()[0], AvroSchema::Null, "null comes first");
        &union.variants()[1]
    };
    match (&*field.field_type, inner) {
        (Type::Struct(fields), AvroSchema::Record(record)) => {
            assert_eq!(record.name.name, format!("r{}", field.id));
            avro_fields_match(record, fields, path);
        }
        (Type::List(list), AvroSchema::Array(array)) => {
            assert_eq!(
                array.attributes.get("element-id"),
                Some(&serde_json::Value::from(list.element_field.id))
            );
            avro_matches(&array.items, &list.element_field, path);
        }
        (Type::Map(map), AvroSchema::Map(avro_map)) => {
            assert_eq!(
                avro_map.attributes.get("key-id"),
                Some(&serde_json::Value::from(map.key_field.id))
            );
            assert_eq!(
                avro_map.attributes.get("value-id"),
                Some(&serde_json::Value::from(map.value_field.id))
            );
            avro_matches(&avro_map.types, &map.value_field, path);
        }
        (Type::Primitive(primitive), avro) => {
            let fine = match (primitive, avro) {
                (PrimitiveType::Boolean, AvroSchema::Boolean)
                | (PrimitiveType::Int, AvroSchema::Int)
                | (PrimitiveType::Long, AvroSchema::Long)
                | (PrimitiveType::Float, AvroSchema::Float)
                | (PrimitiveType::Double, AvroSchema::Double)
                | (PrimitiveType::Date, AvroSchema::Date)
                | (PrimitiveType::Time, AvroSchema::TimeMicros)
                | (PrimitiveType::Timestamptz, AvroSchema::TimestampMicros)
                | (PrimitiveType::String, AvroSchema::String)
                | (PrimitiveType::Binary, AvroSchema::Bytes)
                | (PrimitiveType::Uuid, AvroSchema::Uuid) => true,
                (PrimitiveType::Decimal { precision, scale }, AvroSchema::Decimal(decimal)) => {
                    decimal.precision == *precision as usize && decimal.scale == *scale as usize
                }
                // A named type written before: its name says what it is.
                (PrimitiveType::Decimal { precision, scale }, AvroSchema::Ref { name }) => {
                    name.name == format!("decimal_{precision}_{scale}")
                }
                (PrimitiveType::Uuid, AvroSchema::Ref { name }) => name.name == "uuid_fixed",
                _ => false,
            };
            assert!(
                fine,
                "{}: {} is {primitive}, Avro says {avro:?}",
                path.display(),
                field.name
            );
        }
        (ty, avro) => panic!(
            "{}: {} is {ty}, Avro says {avro:?}",
            path.display(),
            field.name
        ),
    }
}

/// Every `timestamp-micros` says `adjust-to-utc: true`: the table's timestamps are timestamptz.
fn timestamps_are_utc(json: &serde_json::Value, path: &Path) {
    match json {
        serde_json::Value::Object(object) => {
            if object.get("logicalType") == Some(&serde_json::Value::from("timestamp-micros")) {
                assert_eq!(
                    object.get("adjust-to-utc"),
                    Some(&serde_json::Value::Bool(true)),
                    "{}",
                    path.display()
                );
            }
            object.values().for_each(|v| timestamps_are_utc(v, path));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| timestamps_are_utc(v, path)),
        _ => {}
    }
}

/// `--format table-metadata` holds the same schema, field ids included (the builder assigns
/// ids afresh, as a catalog does), and the same partition spec.
fn check_table_metadata(
    request: &CompileRequest,
    path: &Path,
    schema: &Schema,
    spec: &PartitionSpec,
) {
    let bytes = std::fs::read(path).unwrap();
    let out = support::compile(request, bytes, Format::TableMetadata);
    assert_eq!(out.exit, 0, "{}", path.display());
    let metadata: TableMetadata = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{}: table metadata parses: {e}", path.display()));
    assert_eq!(metadata.format_version(), FormatVersion::V2);
    assert_eq!(
        metadata.current_schema().as_ref(),
        schema,
        "{}",
        path.display()
    );
    assert_eq!(metadata.default_partition_spec().fields(), spec.fields());
    assert!(metadata.default_sort_order().is_unsorted());
    assert_eq!(
        metadata
            .properties()
            .get("write.format.default")
            .map(String::as_str),
        Some("parquet")
    );
    diff_finds_no_change(request, path, &out.stdout);
}

/// `diff` takes the table metadata as OLD, and finds no change against the schema it came from.
fn diff_finds_no_change(request: &CompileRequest, path: &Path, metadata: &str) {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("table-metadata.json");
    std::fs::write(&old, metadata).unwrap();
    let path = path.canonicalize().unwrap();
    let mut diff = Command::new(env!("CARGO_BIN_EXE_schema2iceberg"));
    diff.arg("diff").arg(&old).arg(&path);
    // As the compile above read it: file references from the schema's own folder, which is
    // where `diff` looks from when it runs there.
    diff.current_dir(path.parent().unwrap());
    for field in &request.source.partition {
        diff.args(["--partition", field]);
    }
    let out = diff.args(["--format", "json"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}: {stdout}", path.display());
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["files"][0]["old-kind"], "iceberg-table-metadata");
    assert_eq!(
        report["files"][0]["changes"].as_array().map(Vec::len),
        Some(0),
        "{}: {stdout}",
        path.display()
    );
}

#[test]
fn compiled_output_parses_back_into_iceberg_types() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
    let mut compiled = 0;
    for dir in ["examples", "compile", "compile-formats"] {
        let mut entries: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        entries.sort();
        for path in entries {
            compiled += usize::from(check(&path));
        }
    }
    assert!(
        compiled >= 2,
        "at least the examples compile ({compiled} did)"
    );
}
