//! The table as the mapper builds it, before field ids: columns, lists and maps.

use iceberg::spec::PrimitiveType;
use std::collections::BTreeMap;

use schema2iceberg_parser::{SchemaKind, Site, Workspace};

use crate::compiler::ColumnSource;

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

/// One place in the column tree, as [`walk`] yields it: a named column, or a list element or map
/// value (a slot).
#[derive(Debug)]
pub(crate) struct Visit<'c> {
    /// The dotted path, joined by [`join`]: column names, with `element` and `value` for the
    /// slots of lists and maps.
    pub path: String,
    /// The nesting level: 1 for a top-level column, one more inside each struct, list or map.
    pub level: usize,
    /// The named column: the place itself, or for a slot the column whose list or map holds it.
    pub column: &'c Column,
    /// The list element or map value, when the place is one.
    pub slot: Option<&'c Slot>,
    /// The index of the top-level column the place belongs to.
    pub top: usize,
    /// Whether the root reaches the place through structs only, as a partition source must be.
    pub via_structs: bool,
}

impl<'c> Visit<'c> {
    /// The place's type.
    pub fn ty(&self) -> &'c Ty {
        self.slot.map_or(&self.column.ty, |slot| &slot.ty)
    }

    /// The place's validation keywords.
    pub fn constraints(&self) -> &'c Constraints {
        self.slot
            .map_or(&self.column.constraints, |slot| &slot.constraints)
    }
}

/// The one walk over the column tree: every column, list element and map value of `columns`, in
/// table order (a place, then what its type holds), each with its path and level. It keeps its
/// own stack, so a deep tree costs no recursion; the tree's depth is bounded by the nesting limit
/// anyway, which the mapper enforces before anything walks it.
pub(crate) fn walk(columns: &[Column]) -> Walk<'_> {
    Walk {
        stack: vec![Frame {
            prefix: String::new(),
            level: 1,
            via_structs: true,
            top: None,
            rest: Rest::Columns(columns.iter().enumerate()),
        }],
    }
}

/// The iterator of [`walk`].
#[derive(Debug)]
pub(crate) struct Walk<'c> {
    /// What is still to yield, innermost last: one frame per struct or slot being walked. A
    /// place's path is joined only when it is yielded, so a wide struct is not held as one
    /// path per column at once (100,000 of them, with their places, on a wide table).
    stack: Vec<Frame<'c>>,
}

/// The rest of one struct's columns, or one slot, with what their places share.
#[derive(Debug)]
struct Frame<'c> {
    /// The path of the place that holds them; empty at the root.
    prefix: String,
    level: usize,
    via_structs: bool,
    /// The top-level column they belong to; `None` at the root, where each column is its own.
    top: Option<usize>,
    rest: Rest<'c>,
}

#[derive(Debug)]
enum Rest<'c> {
    Columns(std::iter::Enumerate<std::slice::Iter<'c, Column>>),
    /// A list element or map value not yet yielded: its column, the slot, and its name.
    Slot(Option<(&'c Column, &'c Slot, &'static str)>),
}

impl<'c> Walk<'c> {
    /// Pushes what `place`'s type holds, to be yielded right after it.
    fn push_children(&mut self, place: &Visit<'c>) {
        let rest = match place.ty() {
            Ty::Primitive(_) => return,
            Ty::Struct(children) => Rest::Columns(children.iter().enumerate()),
            Ty::List(slot) => Rest::Slot(Some((place.column, slot, "element"))),
            Ty::Map(slot) => Rest::Slot(Some((place.column, slot, "value"))),
        };
        self.stack.push(Frame {
            prefix: place.path.clone(),
            level: place.level + 1,
            // A slot is reached through its list or map, never through structs only.
            via_structs: place.via_structs && matches!(rest, Rest::Columns(_)),
            top: Some(place.top),
            rest,
        });
    }
}

impl<'c> Iterator for Walk<'c> {
    type Item = Visit<'c>;

    fn next(&mut self) -> Option<Visit<'c>> {
        let place = loop {
            let frame = self.stack.last_mut()?;
            let next = match &mut frame.rest {
                Rest::Columns(columns) => columns.next().map(|(i, column)| Visit {
                    path: join(&frame.prefix, &column.name),
                    level: frame.level,
                    column,
                    slot: None,
                    top: frame.top.unwrap_or(i),
                    via_structs: frame.via_structs,
                }),
                Rest::Slot(slot) => slot.take().map(|(column, slot, name)| Visit {
                    path: join(&frame.prefix, name),
                    level: frame.level,
                    column,
                    slot: Some(slot),
                    top: frame.top.unwrap_or(0),
                    via_structs: frame.via_structs,
                }),
            };
            match next {
                Some(place) => break place,
                None => {
                    self.stack.pop();
                }
            }
        };
        self.push_children(&place);
        Some(place)
    }
}

/// Every column, list element and map value of the table, with its dotted path, in table order.
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
                .filter(|(name, _)| root_constraints.contains_key(name.as_ref()))
                .map(|(name, at)| (name.to_string(), ws.keyword_location(root, *at)))
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
    out.extend(walk(columns).map(|place| ColumnSource {
        // A slot is written where its column's property is.
        location: Some(ws.locate(place.column.location)),
        constraints: place.constraints().clone(),
        keyword_locations: BTreeMap::new(),
        path: place.path,
    }));
    out
}

/// The dotted path of `name` under `prefix`, allocated once (a wide table joins one a column).
/// Every dotted path of the mapper is joined here.
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
