//! The `Checker`'s typed access to JSON values: a member by key (reporting a key that differs
//! from it only in case), a member that must be there, and a value of the JSON type a key
//! takes, each reporting what it does not find.

use schema2iceberg_parser::json::{JsonId, JsonValue};
use schema2iceberg_parser::{Code, Diagnostic, Location, Number};

use super::{shapes, Checker, KEY_CASE, MISSING_KEY, WRONG_TYPE};

impl<'a> Checker<'a> {
    pub(super) fn report(
        &mut self,
        code: &Code,
        location: Location,
        message: String,
        help: Option<String>,
    ) {
        let mut diagnostic = Diagnostic::new(code, location, message);
        if let Some(help) = help {
            diagnostic = diagnostic.with_help(help);
        }
        self.diagnostics.push(diagnostic);
    }

    /// Reports a bad value at its key.
    pub(super) fn bad(&mut self, code: &Code, id: JsonId, message: String, help: Option<String>) {
        let location = self.file.key_location(id);
        self.report(code, location, message, help);
    }

    /// The member `key` of `obj`. A member whose key differs from `key` only in case is reported
    /// and used, so that its value is still checked and the key is not also called missing.
    pub(super) fn get(&mut self, obj: JsonId, key: &str) -> Option<JsonId> {
        let JsonValue::Object(members) = self.doc.value(obj) else {
            return None;
        };
        let mut found = members.iter().find(|m| m.key == key).map(|m| m.value);
        for member in members
            .iter()
            .filter(|m| m.key != key && m.key.eq_ignore_ascii_case(key))
        {
            self.bad(
                &KEY_CASE,
                member.value,
                format!(
                    "`{}` is not a key of the {} API; keys are case-sensitive",
                    member.key,
                    self.service.name()
                ),
                Some(format!("write `{key}`")),
            );
            found = found.or(Some(member.value));
        }
        found
    }

    /// The member `key` of `obj`, reporting it missing from `what` (the API type's name).
    pub(super) fn require(&mut self, obj: JsonId, key: &str, what: &str) -> Option<JsonId> {
        let found = self.get(obj, key);
        if found.is_none() {
            let location = self.file.location(obj);
            self.report(
                &MISSING_KEY,
                location,
                format!("`{key}` is missing; {} requires it", every(what)),
                shapes::missing_key_help(self.service, what),
            );
        }
        found
    }

    pub(super) fn wrong_type(&mut self, id: JsonId, key: &str, expected: &str) {
        let value = self.doc.value(id);
        let help = match (expected, value) {
            ("a string", JsonValue::Number(n)) => {
                Some(format!("write it in quotes: `\"{}\"`", n.as_str()))
            }
            ("a whole number", JsonValue::String(s))
                if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) =>
            {
                Some(format!("remove the quotes: `{s}`"))
            }
            ("a boolean", JsonValue::String(s)) if s == "true" || s == "false" => {
                Some(format!("remove the quotes: `{s}`"))
            }
            _ => None,
        };
        let message = format!("`{key}` must be {expected}, not {}", value.kind());
        self.bad(&WRONG_TYPE, id, message, help);
    }

    pub(super) fn string(&mut self, id: JsonId, key: &str) -> Option<&'a str> {
        let doc = self.doc;
        match doc.value(id) {
            JsonValue::String(s) => Some(s.as_str()),
            _ => {
                self.wrong_type(id, key, "a string");
                None
            }
        }
    }

    pub(super) fn object(&mut self, id: JsonId, key: &str) -> bool {
        let is_object = matches!(self.doc.value(id), JsonValue::Object(_));
        if !is_object {
            self.wrong_type(id, key, "an object");
        }
        is_object
    }

    pub(super) fn array(&mut self, id: JsonId, key: &str) -> Option<&'a [JsonId]> {
        let doc = self.doc;
        match doc.value(id) {
            JsonValue::Array(items) => Some(items.as_slice()),
            _ => {
                self.wrong_type(id, key, "an array");
                None
            }
        }
    }

    /// The objects among `items`, reporting the others.
    pub(super) fn objects(&mut self, items: &[JsonId], list: &str) -> Vec<JsonId> {
        let mut objects = Vec::new();
        for &item in items {
            let value = self.doc.value(item);
            if matches!(value, JsonValue::Object(_)) {
                objects.push(item);
            } else {
                let location = self.file.location(item);
                let message = format!(
                    "each entry of `{list}` must be an object, not {}",
                    value.kind()
                );
                self.report(&WRONG_TYPE, location, message, None);
            }
        }
        objects
    }

    pub(super) fn boolean(&mut self, id: JsonId, key: &str) -> Option<bool> {
        match self.doc.value(id) {
            JsonValue::Bool(b) => Some(*b),
            _ => {
                self.wrong_type(id, key, "a boolean");
                None
            }
        }
    }

    /// A JSON integer. The AWS CLI reads `300.0` and `3e2` as floats and rejects them for an
    /// integer parameter, so only plain digits count.
    pub(super) fn integer(&mut self, id: JsonId, key: &str) -> Option<&'a Number> {
        let doc = self.doc;
        match doc.value(id) {
            JsonValue::Number(n)
                if n.as_str()
                    .strip_prefix('-')
                    .unwrap_or(n.as_str())
                    .bytes()
                    .all(|b| b.is_ascii_digit()) =>
            {
                Some(n)
            }
            JsonValue::Number(n) => {
                let help = integer_text(n).map(|plain| format!("write `{plain}`"));
                self.bad(
                    &WRONG_TYPE,
                    id,
                    format!(
                        "`{key}` must be a whole number written without a decimal point or exponent, not `{}`",
                        n.as_str()
                    ),
                    help,
                );
                None
            }
            _ => {
                self.wrong_type(id, key, "a whole number");
                None
            }
        }
    }
}

/// The plain digits of a whole number written as `300.0` or `3e2`; `None` for a fraction or a
/// number too large to matter.
fn integer_text(n: &Number) -> Option<String> {
    if !n.is_integer() {
        return None;
    }
    let text = n.as_str();
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let point = i64::try_from(whole.len()).ok()?.checked_add(exponent)?;
    let point = usize::try_from(point).ok().filter(|p| *p <= 18)?;
    let digits = format!("{whole}{fraction}{}", "0".repeat(point));
    let plain = digits.get(..point)?.trim_start_matches('0');
    Some(match plain {
        "" => "0".to_string(),
        plain => format!("{sign}{plain}"),
    })
}

/// `every `S3TablesConfiguration``, or `every `SourceList` entry` for `SourceList entry`.
pub(super) fn every(what: &str) -> String {
    match what.strip_suffix(" entry") {
        Some(list) => format!("every `{list}` entry"),
        None => format!("every `{what}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_text_writes_whole_numbers_plainly() {
        let plain = |t: &str| integer_text(&Number::from_json_text(t));
        assert_eq!(plain("300.0"), Some("300".to_string()));
        assert_eq!(plain("3e2"), Some("300".to_string()));
        assert_eq!(plain("3.5E2"), Some("350".to_string()));
        assert_eq!(plain("-6.0e1"), Some("-60".to_string()));
        assert_eq!(plain("0.0"), Some("0".to_string()));
        assert_eq!(plain("300.5"), None);
        assert_eq!(plain("1e30"), None);
    }
}
