//! What the compiled table expects of a record, read once from the Iceberg schema: each column's
//! conversion, whether it may be null, and the path to the partition source.

use std::collections::BTreeSet;

use iceberg::spec::{NestedFieldRef, PrimitiveType, Schema, Type};
use rustc_hash::FxHashMap as HashMap;

use crate::compiler::model::join;
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
) -> Result<(StructPlan, Option<Vec<String>>), String> {
    let enum_paths: BTreeSet<&str> = columns
        .iter()
        .filter(|c| c.constraints.contains_key("enum") || c.constraints.contains_key("const"))
        .map(|c| c.path.as_str())
        .collect();
    let mut builder = Builder {
        enum_paths,
        partition_source_id,
        partition_path: None,
    };
    let root = builder.struct_plan(schema.as_struct().fields(), "", &mut Vec::new())?;
    if partition_source_id.is_some() && builder.partition_path.is_none() {
        return Err("the partition source is not a column reached through structs".to_string());
    }
    Ok((root, builder.partition_path))
}

struct Builder<'c> {
    enum_paths: BTreeSet<&'c str>,
    partition_source_id: Option<i32>,
    partition_path: Option<Vec<String>>,
}

impl Builder<'_> {
    /// `names`: the struct fields from the root to here, while only structs have been crossed
    /// (the partition source cannot sit in a list or map).
    fn struct_plan(
        &mut self,
        fields: &[NestedFieldRef],
        prefix: &str,
        names: &mut Vec<String>,
    ) -> Result<StructPlan, String> {
        let mut plan = StructPlan {
            fields: Vec::with_capacity(fields.len()),
            by_name: HashMap::default(),
        };
        for (index, field) in fields.iter().enumerate() {
            let path = join(prefix, &field.name);
            names.push(field.name.clone());
            if Some(field.id) == self.partition_source_id {
                self.partition_path = Some(names.clone());
            }
            let column = self.plan(&field.field_type, &path, Some(names))?;
            names.pop();
            plan.by_name.insert(field.name.clone(), index);
            plan.fields.push(FieldPlan {
                name: field.name.clone(),
                required: field.required,
                plan: column,
            });
        }
        Ok(plan)
    }

    // The recursion follows the table's nesting, which the mapper has capped at 16 levels.
    fn plan(
        &mut self,
        ty: &Type,
        path: &str,
        names: Option<&mut Vec<String>>,
    ) -> Result<Plan, String> {
        Ok(match ty {
            Type::Primitive(p) => match p {
                PrimitiveType::Boolean => Plan::Bool,
                PrimitiveType::Int => Plan::Int,
                PrimitiveType::Long => Plan::Long,
                PrimitiveType::Double => Plan::Double,
                PrimitiveType::Decimal { scale, .. } => Plan::Decimal { scale: *scale },
                PrimitiveType::String => Plan::String {
                    any_json: self.enum_paths.contains(path),
                },
                PrimitiveType::Date => Plan::Date,
                PrimitiveType::Time => Plan::Time,
                PrimitiveType::Timestamptz => Plan::Timestamptz,
                PrimitiveType::Uuid => Plan::Uuid,
                PrimitiveType::Binary => Plan::Binary,
                other => return Err(format!("the mapper never makes a {other} column ({path})")),
            },
            Type::Struct(s) => {
                let mut none = Vec::new();
                Plan::Struct(self.struct_plan(s.fields(), path, names.unwrap_or(&mut none))?)
            }
            Type::List(list) => Plan::List {
                element: Box::new(self.plan(
                    &list.element_field.field_type,
                    &join(path, "element"),
                    None,
                )?),
                required: list.element_field.required,
            },
            Type::Map(map) => Plan::Map {
                value: Box::new(self.plan(
                    &map.value_field.field_type,
                    &join(path, "value"),
                    None,
                )?),
                required: map.value_field.required,
            },
        })
    }
}
