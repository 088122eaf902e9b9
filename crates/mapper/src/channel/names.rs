//! Namespace and table names: the API pattern and the S3 Tables naming rules. Also the small
//! text helpers the checks share to name a character, an account or the values a key allows.

use schema2iceberg_parser::Code;

use super::{NAME_PATTERN, NAME_RULE};

/// `value` in capitals, if that is allowed; otherwise the list of allowed values.
pub(super) fn capitals_or(value: &str, allowed: &[&str]) -> String {
    let upper = value.to_ascii_uppercase();
    if allowed.contains(&upper.as_str()) {
        format!("values are written in capitals: `{upper}`")
    } else {
        format!("use {}", or_list(allowed))
    }
}

fn or_list(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

pub(super) fn first_bad(value: &str, ok: impl Fn(char) -> bool) -> Option<char> {
    value.chars().find(|c| !ok(*c))
}

pub(super) fn describe_char(c: char) -> String {
    match c {
        ' ' => "a space".to_string(),
        '`' => "a backtick".to_string(),
        c if c.is_control() => format!("the control character U+{:04X}", u32::from(c)),
        c => format!("`{c}`"),
    }
}

pub(super) fn is_account(value: &str) -> bool {
    value.len() == 12 && value.bytes().all(|b| b.is_ascii_digit())
}

/// What is wrong with a namespace or table name, with the help that fixes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameProblem {
    /// `channel-name-pattern` (the API pattern) or `channel-name-rule` (the S3 Tables rules).
    pub code: &'static Code,
    /// What breaks the rule.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

/// The rules a namespace (`namespace`) or table name follows: the API pattern `[0-9a-z_]+` with
/// 1–255 characters, then the S3 Tables naming rules. `key` names the value in the message.
// Over 80 lines: one rule after another, each stopping at the first failure with a help that
// fixes that failure; split apart they would each repeat the early returns.
pub fn name_problem(value: &str, key: &str, namespace: bool) -> Option<NameProblem> {
    let problem = |code: &'static Code, message: String, help: String| {
        Some(NameProblem {
            code,
            message,
            help,
        })
    };
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_';
    let len = value.chars().count();
    if len == 0 {
        return problem(
            &NAME_PATTERN,
            format!("`{key}` is empty"),
            "give 1–255 characters: lowercase letters, digits and `_`".to_string(),
        );
    }
    if len > 255 {
        return problem(
            &NAME_PATTERN,
            format!("`{key}` has {len} characters; the limit is 255"),
            "shorten it to at most 255 characters".to_string(),
        );
    }
    if let Some(c) = first_bad(value, allowed) {
        let why = if c.is_uppercase() {
            "; uppercase names also hide the table from Athena and Lake Formation"
        } else {
            ""
        };
        let suggestion: String = value
            .chars()
            .map(|c| match c {
                '-' | '.' | ' ' => '_',
                c => c.to_ascii_lowercase(),
            })
            .collect();
        let help = if suggestion.chars().all(allowed) {
            format!("use `{suggestion}`")
        } else {
            "use only lowercase letters, digits and `_`".to_string()
        };
        return problem(
            &NAME_PATTERN,
            format!(
                "{} is not allowed in `{key}`, which takes only lowercase letters, digits and `_`{why}",
                describe_char(c)
            ),
            help,
        );
    }
    let trimmed = if namespace {
        value.trim_matches('_')
    } else {
        value.trim_start_matches('_')
    };
    let trim_help = if trimmed.is_empty() {
        "use letters or digits".to_string()
    } else {
        format!("use `{trimmed}`")
    };
    if value.starts_with('_') {
        problem(
            &NAME_RULE,
            format!("`{key}` must begin with a letter or digit"),
            trim_help,
        )
    } else if namespace && value.ends_with('_') {
        problem(
            &NAME_RULE,
            format!("`{key}` ends with `_`; a namespace must end with a letter or digit"),
            trim_help,
        )
    } else if namespace && value.starts_with("aws") {
        problem(
            &NAME_RULE,
            format!(
                "`{key}` begins with `aws`; S3 Tables does not allow a namespace to begin with `aws`"
            ),
            "choose a namespace that does not begin with `aws`".to_string(),
        )
    } else {
        None
    }
}
