//! "Did you mean" suggestions for misspelt names: the one measure of how close a name is to a
//! known one, shared by `type` and `format`.

/// The seven JSON Schema type names.
const TYPE_NAMES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "integer", "string",
];

/// Longest name compared letter by letter; a longer one is matched only when equal once
/// normalised, so that a huge string costs no quadratic work.
const MAX_COMPARED: usize = 64;

/// The candidate that `word` most likely misspells, or `None` when `word` is a candidate itself
/// or no candidate is close. Close means equal once case, `-`, `_` and spaces are ignored
/// (`Date`, `datetime`, `date_time`), or, for names of four letters or more, one edit away after
/// that: a letter added, dropped, changed, or two neighbours swapped (`bytes`, `uiud`). One edit
/// on a shorter name is too likely to be another real name (`uri` is not `uid`).
pub fn closest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    if candidates.contains(&word) {
        return None;
    }
    let normal = normalise(word);
    if let Some(found) = candidates.iter().find(|c| normalise(c) == normal) {
        return Some(found);
    }
    if normal.len() < 4 || normal.len() > MAX_COMPARED {
        return None;
    }
    candidates
        .iter()
        .find(|c| one_edit_apart(&normal, &normalise(c)))
        .copied()
}

/// The help for an unknown `type` name: the type a common alias stands for, else the type it
/// misspells, else the list of types.
pub(crate) fn suggest_type(name: &str) -> String {
    let alias = match name.to_lowercase().as_str() {
        "int" | "int32" | "int64" | "long" | "short" => Some("integer"),
        "float" | "double" | "decimal" | "numeric" => Some("number"),
        "bool" => Some("boolean"),
        "str" | "text" | "date" | "datetime" | "timestamp" => Some("string"),
        "list" => Some("array"),
        "map" | "dict" | "struct" | "record" => Some("object"),
        _ => None,
    };
    match alias.or_else(|| closest(name, TYPE_NAMES)) {
        Some(suggestion) => format!("did you mean `{suggestion}`?"),
        None => "types are null, boolean, object, array, number, integer and string".to_string(),
    }
}

fn normalise(word: &str) -> Vec<char> {
    word.chars()
        .filter(|c| !matches!(c, '-' | '_' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `a` becomes `b` by one insertion, deletion, substitution or swap of neighbours.
fn one_edit_apart(a: &[char], b: &[char]) -> bool {
    let (shorter, longer) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let prefix = shorter
        .iter()
        .zip(longer)
        .take_while(|(x, y)| x == y)
        .count();
    let rest = |s: &[char], from: usize| s.get(from..).unwrap_or_default().to_vec();
    match longer.len() - shorter.len() {
        0 => {
            let (x, y) = (rest(shorter, prefix), rest(longer, prefix));
            // A change of one letter, or a swap of the first two that differ.
            x.get(1..) == y.get(1..)
                || (x.len() >= 2
                    && x.first() == y.get(1)
                    && x.get(1) == y.first()
                    && x.get(2..) == y.get(2..))
        }
        1 => rest(shorter, prefix) == rest(longer, prefix + 1),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORMATS: &[&str] = &["date-time", "date", "time", "uuid", "byte"];

    #[test]
    fn finds_the_name_a_misspelling_means() {
        let cases = [
            ("datetime", Some("date-time")),
            ("date_time", Some("date-time")),
            ("Date-Time", Some("date-time")),
            ("Date", Some("date")),
            ("UUID", Some("uuid")),
            ("uiud", Some("uuid")),
            ("bytes", Some("byte")),
            ("date-tme", Some("date-time")),
            ("data", Some("date")),
        ];
        for (word, expected) in cases {
            assert_eq!(closest(word, FORMATS), expected, "{word}");
        }
    }

    #[test]
    fn leaves_other_names_alone() {
        for word in [
            "date-time",
            "uri",
            "email",
            "ipv4",
            "hostname",
            "binary",
            "int64",
            "timestamp",
            "duration",
            "",
        ] {
            assert_eq!(closest(word, FORMATS), None, "{word}");
        }
        assert_eq!(closest(&"x".repeat(100_000), FORMATS), None);
    }

    #[test]
    fn type_help_knows_aliases_and_misspellings() {
        assert_eq!(suggest_type("int"), "did you mean `integer`?");
        assert_eq!(suggest_type("String"), "did you mean `string`?");
        assert_eq!(suggest_type("strnig"), "did you mean `string`?");
        assert_eq!(
            suggest_type("whatever"),
            "types are null, boolean, object, array, number, integer and string"
        );
    }
}
