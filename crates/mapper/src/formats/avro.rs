//! The Avro record schema of one row of the table, by the Iceberg spec's Avro mapping, built
//! with `apache-avro`'s schema types (the `iceberg` crate's own conversion is private to it).

use std::collections::{BTreeMap, BTreeSet};

use apache_avro::schema::{
    ArraySchema, DecimalSchema, FixedSchema, MapSchema, Name, RecordField, RecordFieldOrder,
    RecordSchema, UnionSchema,
};
use apache_avro::Schema as AvroSchema;
use iceberg::spec::{NestedField, PrimitiveType, Schema, StructType, Type};
use serde_json::Value;

use super::FormatError;

/// The Avro attribute that carries an Iceberg field id on a record field.
pub const FIELD_ID: &str = "field-id";
/// The attribute that keeps a column's Iceberg name when it is not a valid Avro name.
pub const ICEBERG_FIELD_NAME: &str = "iceberg-field-name";
/// The attribute that carries a list element's field id on an array.
pub const ELEMENT_ID: &str = "element-id";
/// The attributes that carry a map's key and value field ids on a map.
pub const KEY_ID: &str = "key-id";
/// See [`KEY_ID`].
pub const VALUE_ID: &str = "value-id";

/// How deep the conversion goes. A compiled table nests at most [`crate::compiler::MAX_NESTING`] structs,
/// and each level may add a list and a map around them; a deeper schema is refused rather than
/// risking the stack.
const MAX_DEPTH: usize = 4 * crate::compiler::MAX_NESTING;

/// The Avro schema of a row of `schema`, as JSON: what [`avro_schema`] builds, serialized by
/// `apache-avro`, with `adjust-to-utc: true` on every `timestamp-micros`. The Iceberg spec
/// asks for that attribute, and `apache-avro`'s logical types carry no attributes.
pub fn avro_schema_json(schema: &Schema, record_name: &str) -> Result<Value, FormatError> {
    let avro = avro_schema(schema, record_name)?;
    let mut json = serde_json::to_value(&avro).map_err(|e| {
        FormatError::library(format!("the Avro library could not write the schema: {e}"))
    })?;
    // Every timestamp of the table is timestamptz.
    crate::formats::json_walk::each_object(&mut json, |object| {
        if object.get("logicalType").and_then(Value::as_str) == Some("timestamp-micros") {
            object.insert("adjust-to-utc".to_string(), Value::Bool(true));
        }
    });
    Ok(json)
}

/// The Avro record schema of a row of `schema`, named `record_name` (made a valid Avro name).
///
/// The mapping is the Iceberg spec's: field ids as `field-id` on record fields, `element-id`
/// on arrays and `key-id`/`value-id` on maps; optional fields as unions with null first and a
/// null default; nested records named `r<field id>`; decimals as fixed of the fewest bytes,
/// named `decimal_<P>_<S>`; uuid as a 16-byte fixed named `uuid_fixed`; date, `time-micros`
/// and `timestamp-micros`. A name that is not a valid Avro name is rewritten as Iceberg's
/// Java library does (`_x` and the hex of each other character) and kept in
/// `iceberg-field-name`. Named types are written once and referred to by name afterwards, as
/// Avro requires.
pub fn avro_schema(schema: &Schema, record_name: &str) -> Result<AvroSchema, FormatError> {
    let mut converter = Converter::default();
    converter.record(&avro_name(record_name), schema.as_struct(), 0)
}

/// The fixed types defined so far, which later uses refer to by name.
#[derive(Default)]
struct Converter {
    defined: BTreeSet<String>,
}

// Not iceberg's `SchemaVisitor`: this walk stops at `MAX_DEPTH`; `visit_schema` has no limit.
impl Converter {
    fn record(
        &mut self,
        name: &str,
        fields: &StructType,
        depth: usize,
    ) -> Result<AvroSchema, FormatError> {
        if depth > MAX_DEPTH {
            return Err(FormatError::unsupported(format!(
                "the table nests deeper than {MAX_DEPTH} levels, which no compiled table does"
            )));
        }
        let mut avro_fields = Vec::with_capacity(fields.fields().len());
        let mut lookup = BTreeMap::new();
        for (position, field) in fields.fields().iter().enumerate() {
            let record_field = self.record_field(field, position, depth)?;
            if lookup.insert(record_field.name.clone(), position).is_some() {
                return Err(FormatError::unsupported(format!(
                    "two columns of one struct have the Avro name `{}`",
                    record_field.name
                )));
            }
            avro_fields.push(record_field);
        }
        Ok(AvroSchema::Record(RecordSchema {
            name: name_of(name)?,
            aliases: None,
            doc: None,
            fields: avro_fields,
            lookup,
            attributes: BTreeMap::new(),
        }))
    }

    fn record_field(
        &mut self,
        field: &NestedField,
        position: usize,
        depth: usize,
    ) -> Result<RecordField, FormatError> {
        let schema = self.optional_if(field, depth)?;
        let name = avro_name(&field.name);
        let mut custom_attributes = BTreeMap::new();
        custom_attributes.insert(FIELD_ID.to_string(), Value::from(field.id));
        if name != field.name {
            custom_attributes.insert(
                ICEBERG_FIELD_NAME.to_string(),
                Value::from(field.name.clone()),
            );
        }
        Ok(RecordField {
            name,
            doc: field.doc.clone(),
            aliases: None,
            default: (!field.required).then_some(Value::Null),
            schema,
            order: RecordFieldOrder::Ignore,
            position,
            custom_attributes,
        })
    }

    /// The schema of a field, list element or map value: a union with null first when the
    /// field is optional.
    fn optional_if(
        &mut self,
        field: &NestedField,
        depth: usize,
    ) -> Result<AvroSchema, FormatError> {
        let schema = self.of_type(&field.field_type, field.id, depth)?;
        if field.required {
            return Ok(schema);
        }
        UnionSchema::new(vec![AvroSchema::Null, schema])
            .map(AvroSchema::Union)
            .map_err(|e| {
                FormatError::library(format!("the Avro library refused an optional field: {e}"))
            })
    }

    fn of_type(
        &mut self,
        ty: &Type,
        field_id: i32,
        depth: usize,
    ) -> Result<AvroSchema, FormatError> {
        match ty {
            Type::Primitive(primitive) => self.primitive(primitive),
            Type::Struct(fields) => self.record(&format!("r{field_id}"), fields, depth + 1),
            Type::List(list) => Ok(AvroSchema::Array(ArraySchema {
                items: Box::new(self.optional_if(&list.element_field, depth + 1)?),
                attributes: BTreeMap::from([(
                    ELEMENT_ID.to_string(),
                    Value::from(list.element_field.id),
                )]),
            })),
            Type::Map(map) => {
                if *map.key_field.field_type != Type::Primitive(PrimitiveType::String) {
                    return Err(FormatError::unsupported(format!(
                        "the map `{}` has keys of type {}; the channel's maps have string keys",
                        map.key_field.name, map.key_field.field_type
                    )));
                }
                Ok(AvroSchema::Map(MapSchema {
                    types: Box::new(self.optional_if(&map.value_field, depth + 1)?),
                    attributes: BTreeMap::from([
                        (KEY_ID.to_string(), Value::from(map.key_field.id)),
                        (VALUE_ID.to_string(), Value::from(map.value_field.id)),
                    ]),
                }))
            }
        }
    }

    fn primitive(&mut self, primitive: &PrimitiveType) -> Result<AvroSchema, FormatError> {
        Ok(match primitive {
            PrimitiveType::Boolean => AvroSchema::Boolean,
            PrimitiveType::Int => AvroSchema::Int,
            PrimitiveType::Long => AvroSchema::Long,
            PrimitiveType::Float => AvroSchema::Float,
            PrimitiveType::Double => AvroSchema::Double,
            PrimitiveType::Date => AvroSchema::Date,
            PrimitiveType::Time => AvroSchema::TimeMicros,
            PrimitiveType::Timestamptz => AvroSchema::TimestampMicros,
            PrimitiveType::String => AvroSchema::String,
            PrimitiveType::Binary => AvroSchema::Bytes,
            PrimitiveType::Uuid => {
                let attributes = BTreeMap::from([("logicalType".to_string(), Value::from("uuid"))]);
                self.fixed("uuid_fixed", 16, attributes)?
            }
            PrimitiveType::Decimal { precision, scale } => {
                let size = iceberg::spec::Type::decimal_required_bytes(*precision)
                    .map_err(|e| FormatError::library(e.message()))?;
                let inner = self.fixed(
                    &format!("decimal_{precision}_{scale}"),
                    size as usize,
                    BTreeMap::new(),
                )?;
                match inner {
                    // A name already written is referred to by name, decimal and all.
                    AvroSchema::Ref { .. } => inner,
                    fixed => AvroSchema::Decimal(DecimalSchema {
                        precision: *precision as usize,
                        scale: *scale as usize,
                        inner: Box::new(fixed),
                    }),
                }
            }
            // The channel never creates these; an Avro mapping of them that nobody reads back
            // is not worth guessing.
            PrimitiveType::Timestamp
            | PrimitiveType::TimestampNs
            | PrimitiveType::TimestamptzNs
            | PrimitiveType::Fixed(_) => {
                return Err(FormatError::unsupported(format!(
                    "the table has a column of type {primitive}, which no channel creates"
                )))
            }
        })
    }

    /// A fixed type, or a reference to it when its name was written before.
    fn fixed(
        &mut self,
        name: &str,
        size: usize,
        attributes: BTreeMap<String, Value>,
    ) -> Result<AvroSchema, FormatError> {
        let name = name_of(name)?;
        if !self.defined.insert(name.name.clone()) {
            return Ok(AvroSchema::Ref { name });
        }
        Ok(AvroSchema::Fixed(FixedSchema {
            name,
            aliases: None,
            doc: None,
            size,
            default: None,
            attributes,
        }))
    }
}

fn name_of(name: &str) -> Result<Name, FormatError> {
    Name::new(name)
        .map_err(|e| FormatError::library(format!("`{name}` is not a valid Avro name: {e}")))
}

/// `name` as a valid Avro name: Iceberg's Java library's rewriting (`AvroSchemaUtil.sanitize`),
/// with Avro's ASCII letters where Java takes any letter: a digit that starts the name gets a
/// `_` before it, and any other character that is not a letter, digit or `_` becomes `_x` and
/// its UTF-16 code unit in upper-case hex.
pub fn avro_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for (index, unit) in name.encode_utf16().enumerate() {
        let keep = match char::from_u32(u32::from(unit)) {
            Some(c) if c.is_ascii_alphabetic() || c == '_' => Some(c),
            Some(c) if c.is_ascii_digit() && index > 0 => Some(c),
            _ => None,
        };
        match keep {
            Some(c) => out.push(c),
            None => match char::from_u32(u32::from(unit)).filter(char::is_ascii_digit) {
                Some(digit) => {
                    out.push('_');
                    out.push(digit);
                }
                None => out.push_str(&format!("_x{unit:X}")),
            },
        }
    }
    if out.is_empty() {
        out.push('_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::avro_name;

    #[test]
    fn names_are_rewritten_as_icebergs_java_library_does() {
        assert_eq!(avro_name("event_time"), "event_time");
        assert_eq!(avro_name("a-b"), "a_x2Db");
        assert_eq!(avro_name("1st"), "_1st");
        assert_eq!(avro_name("a.b c"), "a_x2Eb_x20c");
        assert_eq!(avro_name("é"), "_xE9");
        assert_eq!(avro_name("😀"), "_xD83D_xDE00");
        assert_eq!(avro_name(""), "_");
    }
}
