//! The table as the mapper builds it, before field ids: columns, lists and maps.

use iceberg::spec::PrimitiveType;
use std::collections::BTreeMap;

use schema2iceberg_parser::{SchemaKind, Site, Workspace};

use crate::ColumnSource;

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
    pub location: Site,
    /// Whether the parent's `required` lists it (it may still be optional, if it admits null).
    pub listed_required: bool,
    /// Keywords that constrain records without shaping the column, as compact JSON.
    pub constraints: Constraints,
}

/// Validation keywords of one column (`pattern`, `maxLength`, `enum`, …), keyword → compact JSON.
pub(crate) type Constraints = std::collections::BTreeMap<String, String>;

/// A list element or a map value.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub required: bool,
    pub ty: Ty,
    pub constraints: Constraints,
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

/// Every column, list element and map value of the table, with its dotted path, in table order.
/// The depth is bounded by the nesting limit, which the mapper enforces before this runs.
pub(crate) fn sources(
    ws: &Workspace,
    root_constraints: Constraints,
    columns: &[Column],
) -> Vec<ColumnSource> {
    // The root's own validation keywords (`additionalProperties: false`, `minProperties`, …)
    // decide which records are valid as much as a column's do.
    let keyword_locations = match ws.root().and_then(|r| Some((r, ws.schema(r)?))) {
        Some((root, schema)) => match &schema.kind {
            SchemaKind::Object(keywords) => keywords
                .keys
                .iter()
                .filter(|(name, _)| root_constraints.contains_key(name))
                .map(|(name, at)| (name.clone(), ws.keyword_location(root, *at)))
                .collect(),
            _ => BTreeMap::new(),
        },
        None => BTreeMap::new(),
    };
    let mut out = vec![ColumnSource {
        path: String::new(),
        location: ws.root().map(|r| ws.schema_location(r)),
        constraints: root_constraints,
        keyword_locations,
    }];
    for column in columns {
        collect(ws, column, "", &mut out);
    }
    out
}

/// The dotted path of `name` under `prefix`, allocated once (a wide table joins one a column).
pub(crate) fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        return name.to_string();
    }
    let mut path = String::with_capacity(prefix.len() + 1 + name.len());
    path.push_str(prefix);
    path.push('.');
    path.push_str(name);
    path
}

fn collect(ws: &Workspace, column: &Column, prefix: &str, out: &mut Vec<ColumnSource>) {
    let path = join(prefix, &column.name);
    out.push(ColumnSource {
        path: path.clone(),
        location: Some(ws.locate(column.location)),
        constraints: column.constraints.clone(),
        keyword_locations: BTreeMap::new(),
    });
    collect_type(ws, &column.ty, &path, column.location, out);
}

fn collect_type(ws: &Workspace, ty: &Ty, path: &str, site: Site, out: &mut Vec<ColumnSource>) {
    match ty {
        Ty::Primitive(_) => {}
        Ty::Struct(children) => {
            for child in children {
                collect(ws, child, path, out);
            }
        }
        Ty::List(slot) | Ty::Map(slot) => {
            let name = if matches!(ty, Ty::List(_)) {
                "element"
            } else {
                "value"
            };
            let slot_path = join(path, name);
            out.push(ColumnSource {
                path: slot_path.clone(),
                location: Some(ws.locate(site)),
                constraints: slot.constraints.clone(),
                keyword_locations: BTreeMap::new(),
            });
            collect_type(ws, &slot.ty, &slot_path, site, out);
        }
    }
}
