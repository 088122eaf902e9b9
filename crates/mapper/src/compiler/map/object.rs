//! Objects (rules 7, 15 and 21 of docs/mapping.md, and the map values of rule 16): a struct
//! from `properties` with each column's requiredness and name checks, a map from
//! `additionalProperties`, and the objects that have no Iceberg type.

use std::hash::{Hash, Hasher};

// Lookups only (never iterated into output), so a fast non-random hasher is safe.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use schema2iceberg_parser::{
    CompactString, Draft, Keyword, Keywords, Property, SchemaId, SchemaKind, Site,
};

use super::all_of::{first, merge_properties, merge_required, Definition, MergedProperties};
use super::{Mapped, Mapper};
use crate::compiler::codes;
use crate::compiler::model::{join, Column, Slot, Ty};

impl Mapper<'_> {
    /// The column of an object (rule 7): a struct from its merged `properties`, else a map from
    /// an `additionalProperties` schema, else no type.
    pub(super) fn object_type(
        &mut self,
        id: SchemaId,
        kws: &[(SchemaId, &Keywords)],
        field: &str,
        depth: usize,
    ) -> Option<Ty> {
        if !self.nesting_ok(id, field, depth) {
            return None;
        }
        let ws = self.ws;
        let properties = merge_properties(kws);
        for (sid, k) in kws {
            if let Some(pattern) = k.pattern_properties() {
                let location = self.at(*sid, pattern.at);
                self.emit(
                    &codes::PATTERN_PROPERTIES_IGNORED,
                    location,
                    "`patternProperties` has no Iceberg equivalent and is ignored: keys that match it are dropped".to_string(),
                    field,
                );
            }
        }
        let additional = first(kws, |k| k.additional_properties());
        let value_schema = additional.filter(|(_, a)| {
            matches!(
                ws.schema(a.value).map(|s| &s.kind),
                Some(SchemaKind::Object(_))
            )
        });
        let required = merge_required(kws);
        if !properties.names.is_empty() {
            return self.struct_type(&properties, value_schema, &required, field, depth);
        }
        if let Some((_, a)) = value_schema {
            return self.map_type(a.value, &required, field, depth);
        }
        self.untyped_object(id, kws, additional, field);
        None
    }

    /// The struct of the merged `properties`, one column per name in order (rules 7, 15, 21).
    fn struct_type(
        &mut self,
        properties: &MergedProperties<'_>,
        value_schema: Option<(SchemaId, &Keyword<SchemaId>)>,
        required: &[(SchemaId, &Keyword<CompactString>)],
        field: &str,
        depth: usize,
    ) -> Option<Ty> {
        let ws = self.ws;
        let names = &properties.names;
        // A set, so that a wide object with a long `required` list stays linear.
        let required_names: HashSet<&str> =
            required.iter().map(|(_, r)| r.value.as_str()).collect();
        if let Some((sid, a)) = value_schema {
            let location = self.at(sid, a.at);
            self.emit(
                &codes::ADDITIONAL_PROPERTIES_DROPPED,
                location,
                "the object has `properties`, so it becomes a struct: keys matched only by `additionalProperties` are dropped".to_string(),
                field,
            )
            .help = Some("list every key you need in `properties`, or remove `properties` to get a map".to_string());
        }
        let mut columns = Vec::with_capacity(names.len());
        // Built at the first uppercase name only: most objects have none.
        let mut renames: Option<Renames> = None;
        let mut lowercase: HashMap<Lowercase<'_>, &str> =
            HashMap::with_capacity_and_hasher(names.len(), Default::default());
        for (index, (name, (parent, property), more)) in names.iter().enumerate() {
            let column_field = join(field, name);
            let location = ws.property_site(*parent, property);
            if name.is_empty() {
                self.emit(
                    &codes::EMPTY_NAME,
                    location,
                    "a property name is empty, and an Iceberg column needs a name".to_string(),
                    field,
                );
                continue;
            }
            self.check_name(
                index,
                location,
                &column_field,
                names,
                &mut renames,
                &mut lowercase,
            );
            if !self.count_column(property.schema, &column_field) {
                return None;
            }
            let mapped = self.map_definitions(name, property, more, &column_field, depth);
            let Some(mapped) = mapped else { continue };
            // Whether a listed column that admits null stays optional is said once the
            // partition is known (nullability.rs): the partition makes its source required.
            let listed = required_names.contains(name);
            columns.push(Column {
                name: name.to_string(),
                required: listed && !mapped.nullable,
                doc: mapped.doc,
                ty: mapped.ty,
                location,
                listed_required: listed,
                constraints: mapped.constraints,
            });
        }
        self.warn_required_not_properties(properties, required, field);
        Some(Ty::Struct(columns))
    }

    /// The name checks of rule 21 for the column `names[index]`, written at `location`:
    /// uppercase letters, and a name that differs from an earlier sibling's only in case.
    fn check_name<'n>(
        &mut self,
        index: usize,
        location: Site,
        column_field: &str,
        names: &[(&'n str, Definition<'_>, Vec<Definition<'_>>)],
        renames: &mut Option<Renames>,
        lowercase: &mut HashMap<Lowercase<'n>, &'n str>,
    ) {
        let Some(&(name, _, _)) = names.get(index) else {
            return;
        };
        // The warning belongs to the written name, however often a cycle's expansion
        // walks it (the other reports would be dropped as repeats).
        if name.chars().any(char::is_uppercase) && self.reported_names.insert(location) {
            self.emit(
                &codes::UPPERCASE_NAME,
                location,
                // `concat` sizes the string once; `format!` guesses, and a schema can have
                // thousands of these.
                [
                    "column `",
                    name,
                    "` has uppercase letters; S3 Tables needs lowercase column names, or Glue, Lake Formation and Athena cannot see the table",
                ]
                .concat(),
                column_field,
            )
            .help = Some(
                renames
                    .get_or_insert_with(|| Renames::new(names.iter().map(|n| n.0)))
                    .help(index, |i| names.get(i).map_or("", |n| n.0)),
            );
        }
        match lowercase.entry(Lowercase::of(name)) {
            std::collections::hash_map::Entry::Occupied(other) => {
                let message = format!("columns `{}` and `{name}` differ only in case; engines that ignore case cannot tell them apart", other.get());
                self.emit(&codes::CASE_COLLISION, location, message, column_field);
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(name);
            }
        }
    }

    /// The column of a property from its first definition; a definition in another `allOf`
    /// part must have the same shape (rule 12), and the column is nullable only if all are.
    fn map_definitions(
        &mut self,
        name: &str,
        property: &Property,
        more: &[Definition<'_>],
        column_field: &str,
        depth: usize,
    ) -> Option<Mapped> {
        let ws = self.ws;
        let mut mapped = self.map_schema(property.schema, column_field, depth + 1);
        for (other_parent, other) in more {
            let again = self.map_schema(other.schema, column_field, depth + 1);
            if let (Some(m), Some(a)) = (&mut mapped, again) {
                if !m.ty.same_shape(&a.ty) {
                    let other_location = ws.property_site(*other_parent, other);
                    self.emit(
                        &codes::ALLOF_CONFLICT,
                        other_location,
                        format!(
                            "`allOf` branches give `{name}` different types: {} and {}",
                            m.ty.describe(),
                            a.ty.describe()
                        ),
                        column_field,
                    )
                    .help = Some(format!("each part's definition of `{name}` is mapped on its own and the results must match, so a refinement must repeat what shapes the column (`type`, `format`, `enum`, `maximum`, `multipleOf`); or define `{name}` in one part only"));
                }
                m.nullable &= a.nullable;
                if m.doc.is_none() {
                    m.doc = a.doc;
                }
            }
        }
        mapped
    }

    /// `required-not-a-property` for each name in `required` that no part's `properties` has.
    fn warn_required_not_properties(
        &mut self,
        properties: &MergedProperties<'_>,
        required: &[(SchemaId, &Keyword<CompactString>)],
        field: &str,
    ) {
        let names = &properties.names;
        for (sid, r) in required {
            if !properties.index.contains_key(r.value.as_str()) {
                let location = self.at(*sid, r.at);
                let close = names
                    .iter()
                    .find(|(n, _, _)| n.eq_ignore_ascii_case(&r.value))
                    .map(|(n, _, _)| *n);
                let d = self.emit(
                    &codes::REQUIRED_NOT_A_PROPERTY,
                    location,
                    format!(
                        "`required` lists `{}`, which is not in `properties`, so it has no column",
                        r.value
                    ),
                    field,
                );
                if let Some(close) = close {
                    d.help = Some(format!("did you mean `{close}`?"));
                }
            }
        }
    }

    /// The map<string, V> of an object without `properties` whose `additionalProperties` is
    /// the schema `value` (rules 7 and 16).
    fn map_type(
        &mut self,
        value: SchemaId,
        required: &[(SchemaId, &Keyword<CompactString>)],
        field: &str,
        depth: usize,
    ) -> Option<Ty> {
        for (sid, r) in required {
            let location = self.at(*sid, r.at);
            self.emit(
                &codes::REQUIRED_NOT_A_PROPERTY,
                location,
                format!("`required` lists `{}`, but the object is a map (it has no `properties`), so the key's presence is not enforced by the table", r.value),
                field,
            );
        }
        let value_field = join(field, "value");
        if !self.count_column(value, &value_field) {
            return None;
        }
        let mapped = self.map_schema(value, &value_field, depth + 1)?;
        Some(Ty::Map(Box::new(Slot {
            required: !mapped.nullable,
            ty: mapped.ty,
            constraints: mapped.constraints,
        })))
    }

    /// The error for an object with neither `properties` nor an `additionalProperties` schema:
    /// `empty-object` when it admits only `{}`, otherwise `free-form-object` (rule 7).
    fn untyped_object(
        &mut self,
        id: SchemaId,
        kws: &[(SchemaId, &Keywords)],
        additional: Option<(SchemaId, &Keyword<SchemaId>)>,
        field: &str,
    ) {
        let ws = self.ws;
        let has_properties = kws.iter().any(|(_, k)| k.properties.is_some());
        let has_patterns = kws.iter().any(|(_, k)| k.pattern_properties().is_some());
        let closed = additional.is_some_and(|(_, a)| {
            matches!(
                ws.schema(a.value).map(|s| &s.kind),
                Some(SchemaKind::Bool(false))
            )
        });
        let location = ws.schema_site(id);
        if closed && !has_patterns {
            let what = if has_properties {
                "`properties` is empty"
            } else {
                "there are no `properties`"
            };
            let help = if field.is_empty() {
                "a table needs at least one column: list the record's fields in `properties`"
            } else {
                "drop the property (its only value is `{}`), or list the fields it may hold in `properties`"
            };
            self.emit(
                &codes::EMPTY_OBJECT,
                location,
                format!("{what} and `additionalProperties` is false, so the object admits only `{{}}` and has no columns"),
                field,
            )
            .help = Some(help.to_string());
            return;
        }
        let draft = ws
            .schema(id)
            .and_then(|s| ws.document(s.doc))
            .map_or(ws.draft(), |d| d.draft);
        let (message, help) = if has_patterns {
            (
                "`patternProperties` is ignored (it has no Iceberg equivalent), and there is no `properties` or `additionalProperties` schema, so the object has no Iceberg type",
                if draft == Draft::Draft04 {
                    "if every key's value has one schema, write it as `additionalProperties` to get map<string, V> (draft-04 has no `propertyNames`, so the key pattern would no longer be checked); or list the keys in `properties`"
                } else {
                    "if every key's value has one schema, write it as `additionalProperties` to get map<string, V>, and keep the key check as `\"propertyNames\": {\"pattern\": …}`; or list the keys in `properties`"
                },
            )
        } else if has_properties {
            (
                "`properties` is empty and there is no `additionalProperties` schema, so the object has no Iceberg type",
                "list its `properties` for a struct, or give `additionalProperties` a schema for map<string, V>; a truly free-form value can be kept as a JSON string (`\"type\": \"string\"`)",
            )
        } else {
            (
                "a free-form object (no `properties`, no `additionalProperties` schema) has no Iceberg type",
                "list its `properties` for a struct, or give `additionalProperties` a schema for map<string, V>; a truly free-form value can be kept as a JSON string (`\"type\": \"string\"`)",
            )
        };
        self.emit(
            &codes::FREE_FORM_OBJECT,
            location,
            message.to_string(),
            field,
        )
        .help = Some(help.to_string());
    }
}

/// A name as `str::to_lowercase` spells it, as a key: an ASCII name is compared and hashed a
/// byte at a time, lowercased on the fly, so that the common name costs no allocation. Any
/// other name is lowercased once (`K`, the Kelvin sign, becomes an ASCII `k`, so both kinds
/// meet in one table).
enum Lowercase<'n> {
    Ascii(&'n str),
    Folded(String),
}

impl<'n> Lowercase<'n> {
    fn of(name: &'n str) -> Lowercase<'n> {
        if name.is_ascii() {
            Lowercase::Ascii(name)
        } else {
            Lowercase::Folded(name.to_lowercase())
        }
    }

    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        let (text, fold) = match self {
            Lowercase::Ascii(name) => (*name, true),
            Lowercase::Folded(lowered) => (lowered.as_str(), false),
        };
        text.bytes()
            .map(move |b| if fold { b.to_ascii_lowercase() } else { b })
    }
}

impl PartialEq for Lowercase<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes().eq(other.bytes())
    }
}

impl Eq for Lowercase<'_> {}

impl Hash for Lowercase<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Equal keys give equal byte streams, cut into the same chunks.
        let mut chunk = [0u8; 32];
        let mut len = 0;
        for b in self.bytes() {
            if let Some(slot) = chunk.get_mut(len) {
                *slot = b;
                len += 1;
            } else {
                state.write(&chunk);
                chunk[0] = b;
                len = 1;
            }
        }
        state.write(chunk.get(..len).unwrap_or_default());
        state.write_u8(0xff);
    }
}

/// The snake_case form of each sibling's name, worked out once per object, so that each
/// uppercase name's help can say whether its suggestion collides with a sibling.
struct Renames {
    /// `(suggestion, index of the name)`, sorted by suggestion: the names that would get one
    /// suggestion sit next to each other, in the order they are written.
    sorted: Vec<(String, usize)>,
    /// For each name's index, where it sits in `sorted`.
    position: Vec<usize>,
}

impl Renames {
    fn new<'n>(names: impl Iterator<Item = &'n str>) -> Renames {
        let mut sorted: Vec<(String, usize)> = names
            .enumerate()
            .map(|(index, name)| (snake_case(name), index))
            .collect();
        sorted.sort_unstable();
        let mut position = vec![0; sorted.len()];
        for (at, (_, index)) in sorted.iter().enumerate() {
            if let Some(slot) = position.get_mut(*index) {
                *slot = at;
            }
        }
        Renames { sorted, position }
    }

    /// The help for the uppercase name at `index`: its snake_case form, unless a sibling already
    /// has that name or would get it too, since a suggestion must not lead to two columns with
    /// one name.
    fn help<'n>(&self, index: usize, name_at: impl Fn(usize) -> &'n str) -> String {
        let name = name_at(index);
        let at = self.position.get(index).copied().unwrap_or_default();
        let Some((suggestion, _)) = self.sorted.get(at) else {
            return String::new();
        };
        let suggestion = suggestion.as_str();
        let same = |entry: &&(String, usize)| entry.0 == suggestion;
        let before = self.sorted.get(..at).unwrap_or_default();
        let first = at - before.iter().rev().take_while(same).count();
        let others: Vec<&str> = self
            .sorted
            .get(first..)
            .unwrap_or_default()
            .iter()
            .take_while(same)
            .map(|(_, i)| name_at(*i))
            .filter(|n| *n != name)
            .collect();
        if others.contains(&suggestion) {
            format!("rename it in lowercase, but not to `{suggestion}`: a sibling already has that name, and the two columns would collide")
        } else if let Some(other) = others.first() {
            format!("rename it in lowercase, but `{name}` and `{other}` would both become `{suggestion}` and collide: give them different names")
        } else {
            ["rename it to `", suggestion, "`"].concat()
        }
    }
}

/// `userId` → `user_id`, `HTTPStatus` → `http_status`: a suggestion, not a rename.
fn snake_case(name: &str) -> String {
    if name.is_ascii() {
        snake_case_ascii(name)
    } else {
        snake_case_chars(name)
    }
}

/// [`snake_case`] for any name, a character at a time.
fn snake_case_chars(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut chars = name.chars();
    let mut prev: Option<char> = None;
    let mut current = chars.next();
    while let Some(c) = current {
        let next = chars.next();
        if c.is_uppercase() {
            // A word starts here after a lowercase letter or a digit (`userId`), or where an
            // acronym ends (`HTTPStatus`). Neither follows an underscore, so none is doubled.
            let after_lower = prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit());
            let acronym_ends =
                prev.is_some_and(char::is_uppercase) && next.is_some_and(char::is_lowercase);
            if after_lower || acronym_ends {
                out.push('_');
            }
            if c.is_ascii() {
                out.push(c.to_ascii_lowercase());
            } else {
                out.extend(c.to_lowercase());
            }
        } else {
            out.push(c);
        }
        prev = Some(c);
        current = next;
    }
    out
}

/// [`snake_case`] for the common ASCII name: the underscores found a byte at a time, the rest
/// copied and lowercased in runs, without decoding characters or consulting Unicode's case
/// tables (it was most of the cost of a schema with thousands of uppercase names).
fn snake_case_ascii(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(name.len() + 4);
    let mut copied = 0;
    // Each byte after the first, with the one before it; the one after is read only for an
    // uppercase letter after another.
    for (before, (&prev, &here)) in bytes.iter().zip(bytes.iter().skip(1)).enumerate() {
        let at = before + 1;
        // The rules of `snake_case_chars`, where NUL past the end is neither a letter nor a
        // digit.
        let word_starts = here.is_ascii_uppercase()
            && (prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase()
                    && bytes.get(at + 1).is_some_and(u8::is_ascii_lowercase)));
        if word_starts {
            out.push_str(name.get(copied..at).unwrap_or_default());
            out.push('_');
            copied = at;
        }
    }
    out.push_str(name.get(copied..).unwrap_or_default());
    out.make_ascii_lowercase();
    out
}

#[cfg(test)]
mod tests {
    use super::{snake_case, Lowercase};

    #[test]
    fn lowercase_keys_meet_as_to_lowercase_says() {
        use std::hash::BuildHasher;
        let hasher = rustc_hash::FxBuildHasher;
        let long = "Use_Counter_CSS_Page_Property_Alignment_Baseline_X";
        let pairs = [
            ("userId", "USERID", true),
            ("userId", "user_id", false),
            (long, &long.to_ascii_lowercase(), true),
            (long, &long[..long.len() - 1], false),
            ("\u{212A}elvin", "kelvin", true),
            ("Été", "éTÉ", true),
            ("", "", true),
        ];
        for (a, b, same) in pairs {
            let (a_key, b_key) = (Lowercase::of(a), Lowercase::of(b));
            assert_eq!(a_key == b_key, same, "{a} and {b}");
            assert_eq!(a.to_lowercase() == b.to_lowercase(), same, "{a} and {b}");
            if same {
                assert_eq!(
                    hasher.hash_one(&a_key),
                    hasher.hash_one(&b_key),
                    "{a} and {b}"
                );
            }
        }
    }

    #[test]
    fn suggests_snake_case() {
        assert_eq!(snake_case("userId"), "user_id");
        assert_eq!(snake_case("HTTPStatus"), "http_status");
        assert_eq!(snake_case("Already_ok"), "already_ok");
        assert_eq!(snake_case("v2Name"), "v2_name");
        assert_eq!(snake_case("USE_COUNTER2_CSS_Foo"), "use_counter2_css_foo");
        assert_eq!(snake_case("a_B"), "a_b");
        assert_eq!(snake_case("ÉtéÀ"), "été_à");
    }

    /// The byte-wise path must give what the character-wise one gives, for every ASCII name
    /// made of the kinds of character the rules tell apart.
    #[test]
    fn ascii_names_get_the_same_suggestion_either_way() {
        let alphabet = ['a', 'Z', 'B', '1', '_', 'x', 'Q', '-'];
        let mut names = vec![String::new()];
        for _ in 0..5 {
            names = names
                .iter()
                .flat_map(|n| alphabet.iter().map(move |c| format!("{n}{c}")))
                .collect();
            for name in &names {
                assert_eq!(
                    super::snake_case_ascii(name),
                    super::snake_case_chars(name),
                    "{name}"
                );
            }
        }
    }
}
