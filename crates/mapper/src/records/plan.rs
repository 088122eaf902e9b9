//! What the compiled table expects of a record, read once from the Iceberg schema: each column's
//! conversion, whether it may be null, and the path to the partition source.

use std::collections::BTreeSet;

use iceberg::spec::{
    visit_schema, ListType, MapType, NestedFieldRef, PrimitiveType, Schema, SchemaVisitor,
    StructType,
};
use rustc_hash::FxHashMap as HashMap;

use super::SetupError;
use crate::compiler::ColumnSource;

/// How one column's values are converted.
#[derive(Debug, Clone)]
pub(crate) enum Plan {
    Bool,
    Int,
    Long,
    Double,
    Decimal {
        scale: u32,
    },
    /// `any_json`: the column comes from `enum` or `const`, which map to string whatever the
    /// values' type (rule 9), so a non-string value is stored as its JSON text.
    String {
        any_json: bool,
    },
    Date,
    Time,
    Timestamptz,
    Uuid,
    Binary,
    Struct(StructPlan),
    List {
        element: Box<Plan>,
        required: bool,
    },
    Map {
        value: Box<Plan>,
        required: bool,
    },
}

/// A struct's fields in table order, and their index by name.
#[derive(Debug, Clone)]
pub(crate) struct StructPlan {
    pub fields: Vec<FieldPlan>,
    // Lookups only, never iterated into output.
    pub by_name: HashMap<String, usize>,
}

/// One struct field.
#[derive(Debug, Clone)]
pub(crate) struct FieldPlan {
    pub name: String,
    pub required: bool,
    pub plan: Plan,
}

/// The plan of the whole table, and the names from the root to the partition source.
pub(crate) fn table_plan(
    schema: &Schema,
    columns: &[ColumnSource],
    partition_source_id: Option<i32>,
) -> Result<(StructPlan, Option<Vec<String>>), SetupError> {
    let enum_paths: BTreeSet<&str> = columns
        .iter()
        .filter(|c| c.constraints.contains_key("enum") || c.constraints.contains_key("const"))
        .map(|c| c.path.as_str())
        .collect();
    let mut builder = Builder {
        enum_paths,
        partition_source_id,
        partition_path: None,
        path: Vec::new(),
        names: vec![Vec::new()],
    };
    // The walk follows the table's nesting, which the mapper has capped at 16 levels.
    let root = match visit_schema(schema, &mut builder) {
        Ok(Plan::Struct(root)) => root,
        Ok(_) => return Err(SetupError::Table("the table is not a struct".to_string())),
        Err(e) => return Err(SetupError::Table(e.message().to_string())),
    };
    if partition_source_id.is_some() && builder.partition_path.is_none() {
        return Err(SetupError::Table(
            "the partition source is not a column reached through structs".to_string(),
        ));
    }
    Ok((root, builder.partition_path))
}

/// The `iceberg` crate's schema visitor, planning each column after what it holds.
struct Builder<'c> {
    enum_paths: BTreeSet<&'c str>,
    partition_source_id: Option<i32>,
    partition_path: Option<Vec<String>>,
    /// The Iceberg path to the type being visited, one name (or `element`, `key`, `value`) a
    /// level.
    path: Vec<String>,
    /// The struct fields from the root to here, a new list for each list or map crossed: the
    /// partition source is found only in the first, since it cannot sit in a list or map.
    names: Vec<Vec<String>>,
}

impl Builder<'_> {
    fn enter(&mut self, slot: &str) {
        self.path.push(slot.to_string());
        self.names.push(Vec::new());
    }

    fn leave(&mut self) {
        self.path.pop();
        self.names.pop();
    }
}

impl SchemaVisitor for Builder<'_> {
    type T = Plan;

    fn before_struct_field(&mut self, field: &NestedFieldRef) -> iceberg::Result<()> {
        self.path.push(field.name.clone());
        if let Some(names) = self.names.last_mut() {
            names.push(field.name.clone());
            if Some(field.id) == self.partition_source_id {
                self.partition_path = Some(names.clone());
            }
        }
        Ok(())
    }

    fn after_struct_field(&mut self, _field: &NestedFieldRef) -> iceberg::Result<()> {
        self.path.pop();
        if let Some(names) = self.names.last_mut() {
            names.pop();
        }
        Ok(())
    }

    fn before_list_element(&mut self, _field: &NestedFieldRef) -> iceberg::Result<()> {
        self.enter("element");
        Ok(())
    }

    fn after_list_element(&mut self, _field: &NestedFieldRef) -> iceberg::Result<()> {
        self.leave();
        Ok(())
    }

    fn before_map_key(&mut self, _field: &NestedFieldRef) -> iceberg::Result<()> {
        self.enter("key");
        Ok(())
    }

    fn after_map_key(&mut self, _field: &NestedFieldRef) -> iceberg::Result<()> {
        self.leave();
        Ok(())
    }

    fn before_map_value(&mut self, _field: &NestedFieldRef) -> iceberg::Result<()> {
        self.enter("value");
        Ok(())
    }

    fn after_map_value(&mut self, _field: &NestedFieldRef) -> iceberg::Result<()> {
        self.leave();
        Ok(())
    }

    fn schema(&mut self, _schema: &Schema, value: Plan) -> iceberg::Result<Plan> {
        Ok(value)
    }

    fn field(&mut self, _field: &NestedFieldRef, value: Plan) -> iceberg::Result<Plan> {
        Ok(value)
    }

    fn r#struct(&mut self, r#struct: &StructType, results: Vec<Plan>) -> iceberg::Result<Plan> {
        let mut plan = StructPlan {
            fields: Vec::with_capacity(results.len()),
            by_name: HashMap::default(),
        };
        for (index, (field, column)) in r#struct.fields().iter().zip(results).enumerate() {
            plan.by_name.insert(field.name.clone(), index);
            plan.fields.push(FieldPlan {
                name: field.name.clone(),
                required: field.required,
                plan: column,
            });
        }
        Ok(Plan::Struct(plan))
    }

    fn list(&mut self, list: &ListType, value: Plan) -> iceberg::Result<Plan> {
        Ok(Plan::List {
            element: Box::new(value),
            required: list.element_field.required,
        })
    }

    /// A map's key is a string in every compiled table; records give it as a JSON key.
    fn map(&mut self, map: &MapType, _key: Plan, value: Plan) -> iceberg::Result<Plan> {
        Ok(Plan::Map {
            value: Box::new(value),
            required: map.value_field.required,
        })
    }

    fn primitive(&mut self, p: &PrimitiveType) -> iceberg::Result<Plan> {
        let path = self.path.join(".");
        Ok(match p {
            PrimitiveType::Boolean => Plan::Bool,
            PrimitiveType::Int => Plan::Int,
            PrimitiveType::Long => Plan::Long,
            PrimitiveType::Double => Plan::Double,
            PrimitiveType::Decimal { scale, .. } => Plan::Decimal { scale: *scale },
            PrimitiveType::String => Plan::String {
                any_json: self.enum_paths.contains(path.as_str()),
            },
            PrimitiveType::Date => Plan::Date,
            PrimitiveType::Time => Plan::Time,
            PrimitiveType::Timestamptz => Plan::Timestamptz,
            PrimitiveType::Uuid => Plan::Uuid,
            PrimitiveType::Binary => Plan::Binary,
            other => {
                return Err(iceberg::Error::new(
                    iceberg::ErrorKind::DataInvalid,
                    format!("the mapper never makes a {other} column ({path})"),
                ))
            }
        })
    }
}
