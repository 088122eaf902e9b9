//! `CREATE TABLE` for the table in Athena's, Spark SQL's or Trino's dialect: the columns with
//! their docs as comments, the hour partition and the table properties, every identifier
//! quoted for its dialect, and a warning wherever the dialect cannot say what the table is.
//!
//! No SQL library writes these three dialects' Iceberg DDL (`sqlparser` has no Trino, and its
//! string literals are not Spark's), so the statement is rendered here from the Iceberg types,
//! one rule per dialect below; tests parse every output with sqlglot.

use std::borrow::Cow;

use iceberg::spec::{NestedField, PartitionSpec, PrimitiveType, Schema, Transform, Type};

use super::FormatError;
use warnings::Warnings;

mod warnings;

/// The SQL dialect of the DDL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Amazon Athena (Hive-style DDL for Iceberg tables).
    Athena,
    /// Spark SQL with the Iceberg catalog.
    Spark,
    /// Trino's Iceberg connector.
    Trino,
}

impl Dialect {
    /// Every dialect, in the order `--dialect` lists them.
    pub const ALL: [Dialect; 3] = [Dialect::Athena, Dialect::Spark, Dialect::Trino];

    /// The dialect's name, as `--dialect` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Athena => "athena",
            Dialect::Spark => "spark",
            Dialect::Trino => "trino",
        }
    }

    /// What the dialect is, for `--dialect`'s help.
    pub fn about(self) -> &'static str {
        match self {
            Dialect::Athena => "Amazon Athena (Hive-style DDL for Iceberg tables)",
            Dialect::Spark => "Spark SQL with an Iceberg catalog",
            Dialect::Trino => "Trino's Iceberg connector",
        }
    }

    /// The dialect's name in prose.
    pub fn title(self) -> &'static str {
        match self {
            Dialect::Athena => "Athena",
            Dialect::Spark => "Spark SQL",
            Dialect::Trino => "Trino",
        }
    }
}

/// What the DDL names and sets besides the columns.
#[derive(Debug, Clone)]
pub struct DdlTable {
    /// The namespace (database).
    pub namespace: String,
    /// The table name.
    pub table: String,
    /// The table location, written only when given (S3 Tables chooses its own).
    pub location: Option<String>,
    /// The Parquet codec as Iceberg names it (`zstd`, `snappy`, `uncompressed`).
    pub codec: String,
}

/// The statement, and what it cannot say about the channel's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ddl {
    /// The `CREATE TABLE` statement, ending in `;` and a newline.
    pub sql: String,
    /// Each way in which the table that the statement creates differs from the channel's.
    pub warnings: Vec<String>,
}

/// How deep the column types go: far below any compiled table's nesting.
const MAX_DEPTH: usize = 4 * crate::compiler::MAX_NESTING;

/// The `CREATE TABLE` statement of the table in `dialect`. An error names every column whose
/// type the dialect cannot create at all (Athena and Spark have no `time` or `uuid` column).
pub fn create_table(
    schema: &Schema,
    spec: &PartitionSpec,
    table: &DdlTable,
    dialect: Dialect,
) -> Result<Ddl, FormatError> {
    let mut writer = Writer {
        dialect,
        warnings: Warnings::default(),
        unsupported: Vec::new(),
    };
    let mut columns = Vec::new();
    for field in schema.as_struct().fields() {
        columns.push(writer.column(field, "")?);
    }
    if !writer.unsupported.is_empty() {
        return Err(no_type_for(dialect, &writer.unsupported));
    }
    let partition = partition_clause(schema, spec, dialect)?;
    let name = format!(
        "{}.{}",
        quote(&table.namespace, dialect),
        quote(&table.table, dialect)
    );
    let mut sql = format!("CREATE TABLE {name} (\n  {}\n)", columns.join(",\n  "));
    sql.push_str(&table_clauses(
        table,
        partition.as_deref(),
        dialect,
        &mut writer.warnings,
    ));
    sql.push_str(";\n");
    Ok(Ddl {
        sql,
        warnings: writer.warnings.finish(dialect),
    })
}

/// The error for columns whose type `dialect` has no column type for, with the way out for
/// each type.
fn no_type_for(dialect: Dialect, unsupported: &[(String, PrimitiveType)]) -> FormatError {
    let mut columns = Vec::new();
    let mut ways_out: Vec<String> = Vec::new();
    for (path, primitive) in unsupported {
        columns.push(format!("`{path}` ({primitive})"));
        let way = format!("for the {primitive} columns, {}", way_out(primitive));
        if !ways_out.contains(&way) {
            ways_out.push(way);
        }
    }
    FormatError::unsupported(format!(
        "{}'s CREATE TABLE has no type for these columns of the channel's table, so no {} DDL can create it: {}; {}",
        dialect.title(),
        dialect.title(),
        columns.join(", "),
        ways_out.join("; ")
    ))
}

/// What follows the column list in `dialect`: the partition, the location and the table
/// properties.
fn table_clauses(
    table: &DdlTable,
    partition: Option<&str>,
    dialect: Dialect,
    warnings: &mut Warnings,
) -> String {
    let mut out = String::new();
    match dialect {
        Dialect::Athena => {
            if let Some(partition) = partition {
                out.push_str(&format!("\nPARTITIONED BY ({partition})"));
            }
            if let Some(location) = &table.location {
                out.push_str(&format!("\nLOCATION {}", string(location, dialect)));
            }
            let codec = if table.codec == "uncompressed" {
                "none"
            } else {
                table.codec.as_str()
            };
            out.push_str(&properties(
                "TBLPROPERTIES",
                &[
                    ("table_type", string("ICEBERG", dialect)),
                    ("format", string("parquet", dialect)),
                    ("write_compression", string(codec, dialect)),
                ],
                dialect,
            ));
        }
        Dialect::Spark => {
            out.push_str("\nUSING iceberg");
            if let Some(partition) = partition {
                out.push_str(&format!("\nPARTITIONED BY ({partition})"));
            }
            if let Some(location) = &table.location {
                out.push_str(&format!("\nLOCATION {}", string(location, dialect)));
            }
            out.push_str(&properties(
                "TBLPROPERTIES",
                &[
                    ("format-version", string("2", dialect)),
                    ("write.format.default", string("parquet", dialect)),
                    (
                        "write.parquet.compression-codec",
                        string(&table.codec, dialect),
                    ),
                ],
                dialect,
            ));
        }
        Dialect::Trino => {
            let mut with = vec![
                ("format", string("PARQUET", dialect)),
                ("format_version", "2".to_string()),
            ];
            if let Some(partition) = partition {
                with.push((
                    "partitioning",
                    format!("ARRAY[{}]", string(partition, dialect)),
                ));
            }
            if let Some(location) = &table.location {
                with.push(("location", string(location, dialect)));
            }
            out.push_str(&properties("WITH", &with, dialect));
            if table.codec != "zstd" {
                warnings.add(format!(
                    "Trino's Iceberg connector takes the Parquet codec from the catalog, not from CREATE TABLE: the channel writes `{}`, Trino writes the catalog's `iceberg.compression-codec` (ZSTD unless set)",
                    table.codec
                ));
            }
        }
    }
    out
}

struct Writer {
    dialect: Dialect,
    warnings: Warnings,
    /// The path and type of each column the dialect cannot create.
    unsupported: Vec<(String, PrimitiveType)>,
}

// Not iceberg's `SchemaVisitor`: this walk stops at `MAX_DEPTH`; `visit_schema` has no limit.
impl Writer {
    /// A top-level column: its name, type, NOT NULL and comment.
    fn column(&mut self, field: &NestedField, parent: &str) -> Result<String, FormatError> {
        let path = join(parent, &field.name);
        self.check_name(&field.name, &path);
        let mut out = format!(
            "{} {}",
            quote(&field.name, self.dialect),
            self.of_type(&field.field_type, &path, 0)?
        );
        if field.required {
            match self.dialect {
                Dialect::Athena => self.warnings.not_null.push(path.clone()),
                Dialect::Spark | Dialect::Trino => out.push_str(" NOT NULL"),
            }
        }
        if let Some(doc) = &field.doc {
            out.push_str(&format!(" COMMENT {}", string(doc, self.dialect)));
        }
        Ok(out)
    }

    fn check_name(&mut self, name: &str, path: &str) {
        if matches!(self.dialect, Dialect::Athena | Dialect::Trino)
            && name.chars().any(char::is_uppercase)
        {
            self.warnings.uppercase.push(path.to_string());
        }
    }

    fn of_type(&mut self, ty: &Type, path: &str, depth: usize) -> Result<String, FormatError> {
        if depth > MAX_DEPTH {
            return Err(FormatError::unsupported(format!(
                "the column `{path}` nests deeper than {MAX_DEPTH} levels, which no compiled table does"
            )));
        }
        let dialect = self.dialect;
        Ok(match ty {
            Type::Primitive(primitive) => self.primitive(primitive, path),
            Type::Struct(fields) => {
                let mut parts = Vec::new();
                for field in fields.fields() {
                    let field_path = join(path, &field.name);
                    self.check_name(&field.name, &field_path);
                    let inner = self.of_type(&field.field_type, &field_path, depth + 1)?;
                    let name = quote(&field.name, dialect);
                    let mut part = match dialect {
                        Dialect::Athena => format!("{name}:{inner}"),
                        Dialect::Spark => format!("{name}: {inner}"),
                        Dialect::Trino => format!("{name} {inner}"),
                    };
                    if field.required {
                        match dialect {
                            Dialect::Spark => part.push_str(" NOT NULL"),
                            Dialect::Athena => self.warnings.not_null.push(field_path.clone()),
                            Dialect::Trino => {
                                self.warnings.nested_not_null.push(field_path.clone())
                            }
                        }
                    }
                    if let Some(doc) = &field.doc {
                        match dialect {
                            Dialect::Athena | Dialect::Spark => {
                                part.push_str(&format!(" COMMENT {}", string(doc, dialect)));
                            }
                            Dialect::Trino => {
                                self.warnings.nested_comments.push(field_path.clone())
                            }
                        }
                    }
                    parts.push(part);
                }
                match dialect {
                    Dialect::Athena => format!("struct<{}>", parts.join(",")),
                    Dialect::Spark => format!("STRUCT<{}>", parts.join(", ")),
                    Dialect::Trino => format!("row({})", parts.join(", ")),
                }
            }
            Type::List(list) => {
                let element_path = join(path, "element");
                let element =
                    self.of_type(&list.element_field.field_type, &element_path, depth + 1)?;
                if list.element_field.required {
                    self.warnings.nested_not_null.push(element_path);
                }
                match dialect {
                    Dialect::Athena => format!("array<{element}>"),
                    Dialect::Spark => format!("ARRAY<{element}>"),
                    Dialect::Trino => format!("array({element})"),
                }
            }
            Type::Map(map) => {
                let key = self.of_type(&map.key_field.field_type, &join(path, "key"), depth + 1)?;
                let value_path = join(path, "value");
                let value = self.of_type(&map.value_field.field_type, &value_path, depth + 1)?;
                if map.value_field.required {
                    self.warnings.nested_not_null.push(value_path);
                }
                match dialect {
                    Dialect::Athena => format!("map<{key},{value}>"),
                    Dialect::Spark => format!("MAP<{key}, {value}>"),
                    Dialect::Trino => format!("map({key}, {value})"),
                }
            }
        })
    }

    fn primitive(&mut self, primitive: &PrimitiveType, path: &str) -> String {
        if (primitive, self.dialect) == (&PrimitiveType::Timestamptz, Dialect::Athena) {
            self.warnings.timestamptz.push(path.to_string());
        }
        match primitive_type(primitive, self.dialect) {
            Some(name) => name.into_owned(),
            None => {
                self.unsupported.push((path.to_string(), primitive.clone()));
                "unsupported".to_string()
            }
        }
    }
}

/// Whether `dialect`'s `CREATE TABLE` can create a column of `primitive` at all: the one rule
/// that both the DDL and `compile`'s `ddl-cannot-create` note follow.
pub fn can_create(primitive: &PrimitiveType, dialect: Dialect) -> bool {
    primitive_type(primitive, dialect).is_some()
}

/// The way out for a column of `primitive` that some dialect cannot create: the schema change
/// that gives it a type every dialect has, or keeping it and querying the table the channel
/// creates through the catalog.
pub fn way_out(primitive: &PrimitiveType) -> String {
    let format = match primitive {
        PrimitiveType::Uuid => "uuid",
        PrimitiveType::Time => "time",
        _ => return "keep the column, and query the table the channel creates through the catalog instead of creating it with DDL".to_string(),
    };
    format!("drop `\"format\": \"{format}\"` to make it a string column, or keep it and query the table the channel creates through the catalog instead of creating it with DDL")
}

/// The type of a column of `primitive` in `dialect`'s DDL; `None` when the dialect has none.
fn primitive_type(primitive: &PrimitiveType, dialect: Dialect) -> Option<Cow<'static, str>> {
    use Dialect::{Athena, Spark, Trino};
    let name = match (primitive, dialect) {
        (PrimitiveType::Boolean, Athena | Trino) => "boolean",
        (PrimitiveType::Boolean, Spark) => "BOOLEAN",
        (PrimitiveType::Int, Athena) => "int",
        (PrimitiveType::Int, Spark) => "INT",
        (PrimitiveType::Int, Trino) => "integer",
        (PrimitiveType::Long, Athena | Trino) => "bigint",
        (PrimitiveType::Long, Spark) => "BIGINT",
        (PrimitiveType::Float, Athena) => "float",
        (PrimitiveType::Float, Spark) => "FLOAT",
        (PrimitiveType::Float, Trino) => "real",
        (PrimitiveType::Double, Athena | Trino) => "double",
        (PrimitiveType::Double, Spark) => "DOUBLE",
        (PrimitiveType::Decimal { precision, scale }, Athena | Trino) => {
            return Some(Cow::Owned(format!("decimal({precision},{scale})")))
        }
        (PrimitiveType::Decimal { precision, scale }, Spark) => {
            return Some(Cow::Owned(format!("DECIMAL({precision}, {scale})")))
        }
        (PrimitiveType::Date, Athena | Trino) => "date",
        (PrimitiveType::Date, Spark) => "DATE",
        (PrimitiveType::Time, Trino) => "time(6)",
        // Athena's `timestamp` is not time-zone aware; `Writer::primitive` warns.
        (PrimitiveType::Timestamptz, Athena) => "timestamp",
        // Explicit, so that the session's spark.sql.timestampType cannot change it.
        (PrimitiveType::Timestamptz, Spark) => "TIMESTAMP_LTZ",
        (PrimitiveType::Timestamptz, Trino) => "timestamp(6) with time zone",
        (PrimitiveType::String, Athena) => "string",
        (PrimitiveType::String, Spark) => "STRING",
        (PrimitiveType::String, Trino) => "varchar",
        (PrimitiveType::Uuid, Trino) => "uuid",
        (PrimitiveType::Binary, Athena) => "binary",
        (PrimitiveType::Binary, Spark) => "BINARY",
        (PrimitiveType::Binary, Trino) => "varbinary",
        _ => return None,
    };
    Some(Cow::Borrowed(name))
}

/// The partition transform, as the dialect writes it: `hour(col)` in Athena, `hours(col)` in
/// Spark, and the text of Trino's `partitioning` entry.
fn partition_clause(
    schema: &Schema,
    spec: &PartitionSpec,
    dialect: Dialect,
) -> Result<Option<String>, FormatError> {
    let mut clauses = Vec::new();
    for field in spec.fields() {
        let Some(path) = schema.name_by_field_id(field.source_id) else {
            return Err(FormatError::unsupported(format!(
                "the partition field `{}` has no source column",
                field.name
            )));
        };
        if field.transform != Transform::Hour {
            return Err(FormatError::unsupported(format!(
                "the partition field `{}` has the transform {}, not the channel's hour",
                field.name, field.transform
            )));
        }
        let parts = path.split('.').collect::<Vec<_>>();
        let quoted = parts
            .iter()
            .map(|part| quote(part, dialect))
            .collect::<Vec<_>>()
            .join(".");
        clauses.push(match dialect {
            Dialect::Athena => format!("hour({quoted})"),
            Dialect::Spark => format!("hours({quoted})"),
            // Trino parses the entry as an expression of its own, where a name that is not a
            // plain lowercase identifier is double-quoted; `string` then escapes it as a literal.
            Dialect::Trino => format!(
                "hour({})",
                parts
                    .iter()
                    .map(|part| trino_partition_name(part))
                    .collect::<Vec<_>>()
                    .join(".")
            ),
        });
    }
    Ok((!clauses.is_empty()).then(|| clauses.join(", ")))
}

/// A column name inside Trino's `partitioning` entry: bare when it is a plain lowercase
/// identifier, else double-quoted.
fn trino_partition_name(name: &str) -> String {
    let plain = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_string()
    } else {
        quote(name, Dialect::Trino)
    }
}

fn properties(keyword: &str, entries: &[(&str, String)], dialect: Dialect) -> String {
    let entries = entries
        .iter()
        .map(|(key, value)| match dialect {
            Dialect::Athena | Dialect::Spark => format!("  {} = {value}", string(key, dialect)),
            Dialect::Trino => format!("  {key} = {value}"),
        })
        .collect::<Vec<_>>();
    format!("\n{keyword} (\n{}\n)", entries.join(",\n"))
}

fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}.{name}")
    }
}

/// An identifier, always quoted: names come from JSON properties and may be reserved words in
/// one engine version or another, and a quoted name is right in all of them.
pub fn quote(name: &str, dialect: Dialect) -> String {
    match dialect {
        Dialect::Athena | Dialect::Spark => format!("`{}`", name.replace('`', "``")),
        Dialect::Trino => format!("\"{}\"", name.replace('"', "\"\"")),
    }
}

/// A string literal: Hive and Spark escape with a backslash (where `''` would be two
/// literals run together), Trino doubles the quote as standard SQL does.
pub fn string(text: &str, dialect: Dialect) -> String {
    match dialect {
        Dialect::Athena | Dialect::Spark => {
            let mut out = String::with_capacity(text.len() + 2);
            out.push('\'');
            for c in text.chars() {
                match c {
                    '\'' => out.push_str("\\'"),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c => out.push(c),
                }
            }
            out.push('\'');
            out
        }
        Dialect::Trino => format!("'{}'", text.replace('\'', "''")),
    }
}

#[cfg(test)]
mod tests {
    use super::{quote, string, trino_partition_name, Dialect};

    #[test]
    fn identifiers_and_strings_are_quoted_for_each_dialect() {
        assert_eq!(quote("a`b", Dialect::Spark), "`a``b`");
        assert_eq!(quote("a\"b", Dialect::Trino), "\"a\"\"b\"");
        assert_eq!(string("it's \\ \n", Dialect::Athena), "'it\\'s \\\\ \\n'");
        assert_eq!(string("it's", Dialect::Trino), "'it''s'");
    }

    #[test]
    fn trino_partition_names_are_quoted_unless_plain() {
        assert_eq!(trino_partition_name("event_time2"), "event_time2");
        assert_eq!(trino_partition_name("eventTime"), "\"eventTime\"");
        assert_eq!(trino_partition_name("event-time"), "\"event-time\"");
        assert_eq!(trino_partition_name("2nd"), "\"2nd\"");
    }
}
