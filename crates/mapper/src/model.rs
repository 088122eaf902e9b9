//! The table as the mapper builds it, before field ids: columns, lists and maps.

use iceberg::spec::PrimitiveType;
use schema2iceberg_parser::Location;

/// A column type without field ids.
#[derive(Debug, Clone)]
pub(crate) enum Ty {
    Primitive(PrimitiveType),
    Struct(Vec<Column>),
    List(Box<Slot>),
    Map(Box<Slot>),
}

/// A named struct field.
#[derive(Debug, Clone)]
pub(crate) struct Column {
    pub name: String,
    pub required: bool,
    pub doc: Option<String>,
    pub ty: Ty,
    /// Where the property's name is written, to point later diagnostics at it.
    pub location: Location,
    /// Whether the parent's `required` lists it (it may still be optional, if it admits null).
    pub listed_required: bool,
}

/// A list element or a map value.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub required: bool,
    pub ty: Ty,
}

impl Ty {
    /// Whether two types are the same column type, ignoring docs.
    pub fn same_shape(&self, other: &Ty) -> bool {
        match (self, other) {
            (Ty::Primitive(a), Ty::Primitive(b)) => a == b,
            (Ty::Struct(a), Ty::Struct(b)) => {
                a.len() == b.len()
                    && a.iter().zip(b).all(|(x, y)| {
                        x.name == y.name && x.required == y.required && x.ty.same_shape(&y.ty)
                    })
            }
            (Ty::List(a), Ty::List(b)) | (Ty::Map(a), Ty::Map(b)) => {
                a.required == b.required && a.ty.same_shape(&b.ty)
            }
            _ => false,
        }
    }

    /// A short rendering for messages: `int`, `struct<…>`, `list<string>`.
    pub fn describe(&self) -> String {
        match self {
            Ty::Primitive(p) => p.to_string(),
            Ty::Struct(_) => "struct<…>".to_string(),
            Ty::List(slot) => format!("list<{}>", slot.ty.describe()),
            Ty::Map(slot) => format!("map<string, {}>", slot.ty.describe()),
        }
    }
}
