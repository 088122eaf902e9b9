//! Arrays (rules 8 and 16 of docs/mapping.md): a list of the `items` schema, whose element is
//! required unless it admits null.

use schema2iceberg_parser::{Items, Keyword, Keywords, SchemaId};

use super::all_of::first;
use super::Mapper;
use crate::compiler::codes;
use crate::compiler::model::{join, Slot, Ty};

impl Mapper<'_> {
    pub(super) fn array_type(
        &mut self,
        id: SchemaId,
        kws: &[(SchemaId, &Keywords)],
        field: &str,
        depth: usize,
    ) -> Option<Ty> {
        if !self.nesting_ok(id, field, depth) {
            return None;
        }
        let items = first(kws, |k| k.items.as_ref());
        match items {
            Some((
                _,
                Keyword {
                    value: Items::Single(element),
                    ..
                },
            )) => {
                let element_field = join(field, "element");
                if !self.count_column(*element, &element_field) {
                    return None;
                }
                let mapped = self.map_schema(*element, &element_field, depth + 1)?;
                Some(Ty::List(Box::new(Slot {
                    required: !mapped.nullable,
                    ty: mapped.ty,
                    constraints: mapped.constraints,
                })))
            }
            Some((sid, Keyword { at, .. })) => {
                let location = self.at(sid, *at);
                self.emit(
                    &codes::TUPLE_ITEMS,
                    location,
                    "tuple-form `items` (an array of schemas) has no Iceberg type: a list has one element type".to_string(),
                    field,
                )
                .help = Some("use one `items` schema, or turn the tuple into an object with named properties".to_string());
                None
            }
            None => {
                let location = self.ws.schema_site(id);
                self.emit(
                    &codes::ARRAY_WITHOUT_ITEMS,
                    location,
                    "an array without `items` has no element type".to_string(),
                    field,
                )
                .help = Some("add `\"items\": {…}` with the element's schema".to_string());
                None
            }
        }
    }
}
