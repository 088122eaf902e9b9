//! Field ids in the order Iceberg's Java library assigns fresh ids when it creates a table, and
//! the conversion to `iceberg::spec` types.

use std::sync::Arc;

use iceberg::spec::{
    ListType, MapType, NestedField, NestedFieldRef, PrimitiveType, StructType, Type,
};

use crate::compiler::model::{Column, Ty};

/// Numbers the fields of a struct first, in order, and only then descends into each field's
/// type; a list takes its element id before descending, a map its key and then its value id.
/// The columns are consumed, so that names and docs move into the fields instead of being copied.
// Not iceberg's `SchemaVisitor`: fresh ids go to a struct's fields before what they hold.
pub(crate) fn build_fields(columns: Vec<Column>) -> Vec<NestedFieldRef> {
    let mut next = 1;
    build_struct(columns, &mut next)
}

fn take(next: &mut i32) -> i32 {
    let id = *next;
    *next += 1;
    id
}

fn build_struct(columns: Vec<Column>, next: &mut i32) -> Vec<NestedFieldRef> {
    let ids: Vec<i32> = columns.iter().map(|_| take(next)).collect();
    // Pushed into a vector of their own size: `collect` from `columns.into_iter()` would reuse
    // the columns' buffer in place, and the struct would keep it, about 120 bytes a column where
    // a field needs 8, for as long as the schema lives.
    let mut fields = Vec::with_capacity(columns.len());
    for (column, id) in columns.into_iter().zip(ids) {
        let ty = build_type(column.ty, next);
        fields.push(Arc::new(NestedField {
            id,
            name: column.name,
            required: column.required,
            field_type: Box::new(ty),
            doc: column.doc,
            initial_default: None,
            write_default: None,
        }));
    }
    fields
}

fn build_type(ty: Ty, next: &mut i32) -> Type {
    match ty {
        Ty::Primitive(p) => Type::Primitive(p),
        Ty::Struct(columns) => Type::Struct(StructType::new(build_struct(columns, next))),
        Ty::List(element) => {
            let id = take(next);
            let element_type = build_type(element.ty, next);
            Type::List(ListType::new(Arc::new(NestedField::list_element(
                id,
                element_type,
                element.required,
            ))))
        }
        Ty::Map(value) => {
            let key_id = take(next);
            let value_id = take(next);
            let value_type = build_type(value.ty, next);
            Type::Map(MapType::new(
                Arc::new(NestedField::map_key_element(
                    key_id,
                    Type::Primitive(PrimitiveType::String),
                )),
                Arc::new(NestedField::map_value_element(
                    value_id,
                    value_type,
                    value.required,
                )),
            ))
        }
    }
}
