//! Reads an IAM policy document (an identity policy, a trust policy or a resource policy such
//! as a KMS key policy) from a [`JsonFile`] into statements, keeping where each is written;
//! every departure from the policy grammar is a `policy-invalid` diagnostic at its place.

use schema2iceberg_parser::json::{JsonDoc, JsonId, JsonValue};
use schema2iceberg_parser::{Diagnostic, JsonFile};

use super::{CONDITION_OPERATOR, INVALID};

/// What kind of policy a file is, which decides the elements its statements need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyKind {
    /// A policy attached to the execution role: `Resource` or `NotResource`, no `Principal`.
    Identity,
    /// The role's trust policy: `Principal`, no `Resource`.
    Trust,
    /// A resource policy (a KMS key policy, a table bucket policy): `Principal` and `Resource`.
    Resource,
}

/// `Allow` or `Deny`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Grants what the statement matches.
    Allow,
    /// Denies it, over every `Allow`.
    Deny,
}

/// A list of patterns, or everything but them (`NotAction`, `NotResource`, `NotPrincipal`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patterns {
    /// `true` for the `Not…` form.
    pub negated: bool,
    /// The patterns as written.
    pub items: Vec<String>,
}

/// One principal of a `Principal` element: its type (`AWS`, `Service`, `Federated`,
/// `CanonicalUser`, or `*` for `"Principal": "*"`) and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrincipalId {
    /// `AWS`, `Service`, … or `*`.
    pub kind: String,
    /// The ARN, account id, service name, or `*`.
    pub value: String,
}

/// A condition operator: the base operator, whether it ends in `IfExists`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operator {
    /// The operator without `IfExists`.
    pub base: BaseOperator,
    /// `…IfExists`: true when the key is absent.
    pub if_exists: bool,
}

/// The condition operators the evaluator knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BaseOperator {
    StringEquals,
    StringNotEquals,
    StringEqualsIgnoreCase,
    StringNotEqualsIgnoreCase,
    StringLike,
    StringNotLike,
    ArnEquals,
    ArnNotEquals,
    ArnLike,
    ArnNotLike,
    Bool,
    Null,
}

impl BaseOperator {
    fn parse(name: &str) -> Option<BaseOperator> {
        use BaseOperator::*;
        Some(match name {
            "StringEquals" => StringEquals,
            "StringNotEquals" => StringNotEquals,
            "StringEqualsIgnoreCase" => StringEqualsIgnoreCase,
            "StringNotEqualsIgnoreCase" => StringNotEqualsIgnoreCase,
            "StringLike" => StringLike,
            "StringNotLike" => StringNotLike,
            "ArnEquals" => ArnEquals,
            "ArnNotEquals" => ArnNotEquals,
            "ArnLike" => ArnLike,
            "ArnNotLike" => ArnNotLike,
            "Bool" => Bool,
            "Null" => Null,
            _ => return None,
        })
    }

    /// The negated operators, which hold when the key is absent.
    pub fn is_negated(self) -> bool {
        use BaseOperator::*;
        matches!(
            self,
            StringNotEquals | StringNotEqualsIgnoreCase | StringNotLike | ArnNotEquals | ArnNotLike
        )
    }
}

/// One key of one operator block: `"StringEquals": {"aws:SourceAccount": ["1", "2"]}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    /// The operator, or `None` when it is one the evaluator does not know (reported).
    pub operator: Option<Operator>,
    /// The operator as written.
    pub operator_name: String,
    /// The condition key as written (compared ignoring case).
    pub key: String,
    /// The values, ORed.
    pub values: Vec<String>,
    /// Where the key is written.
    pub at: JsonId,
}

/// One statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// `Sid`, when given.
    pub sid: Option<String>,
    /// `Effect`.
    pub effect: Effect,
    /// `Principal`/`NotPrincipal`; `None` in identity policies.
    pub principals: Option<(bool, Vec<PrincipalId>)>,
    /// `Action`/`NotAction`.
    pub actions: Patterns,
    /// `Resource`/`NotResource`; `None` in trust policies.
    pub resources: Option<Patterns>,
    /// Every key of every operator block, ANDed.
    pub conditions: Vec<Condition>,
    /// Where the statement is written.
    pub at: JsonId,
}

/// A policy read from a file: its statements, in document order.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The file, for locations.
    pub file: JsonFile,
    /// What kind of policy it was read as.
    pub kind: PolicyKind,
    /// The statements that follow the grammar; a statement with a mistake is left out.
    pub statements: Vec<Statement>,
}

impl Policy {
    /// Reads `file` as a policy of `kind`. The diagnostics say where it departs from the policy
    /// grammar; the statements that follow it are kept. A file that is not JSON has no
    /// statements (its parse diagnostics come from [`JsonFile::parse`]).
    pub fn read(file: &JsonFile, kind: PolicyKind) -> (Policy, Vec<Diagnostic>) {
        let mut reader = Reader {
            file,
            kind,
            diagnostics: Vec::new(),
        };
        let statements = match &file.json {
            Some(doc) => reader.document(doc),
            None => Vec::new(),
        };
        let policy = Policy {
            file: file.clone(),
            kind,
            statements,
        };
        (policy, reader.diagnostics)
    }

    /// Reads policy text in memory, for tests and for documents built in memory.
    pub fn from_text(name: &str, text: &str, kind: PolicyKind) -> (Policy, Vec<Diagnostic>) {
        let (file, mut diagnostics) = JsonFile::parse(name, text.as_bytes().to_vec());
        let (policy, more) = Policy::read(&file, kind);
        diagnostics.extend(more);
        (policy, diagnostics)
    }
}

struct Reader<'f> {
    file: &'f JsonFile,
    kind: PolicyKind,
    diagnostics: Vec<Diagnostic>,
}

const GRAMMAR: &str = "a policy is {\"Version\": \"2012-10-17\", \"Statement\": [{\"Effect\": \"Allow\", \"Action\": [...], \"Resource\": [...]}]}; the IAM reference, \"Grammar of the IAM JSON policy language\", has the whole grammar";

impl Reader<'_> {
    fn invalid(&mut self, at: JsonId, message: String, help: Option<&str>) {
        let mut d = Diagnostic::new(&INVALID, self.file.key_location(at), message);
        if let Some(help) = help {
            d = d.with_help(help);
        }
        self.diagnostics.push(d);
    }

    fn document(&mut self, doc: &JsonDoc) -> Vec<Statement> {
        let root = doc.root();
        if !matches!(doc.value(root), JsonValue::Object(_)) {
            self.invalid(
                root,
                format!("a policy is a JSON object, not {}", doc.value(root).kind()),
                Some(GRAMMAR),
            );
            return Vec::new();
        }
        match doc.member(root, "Version").map(|m| doc.value(m.value)) {
            Some(JsonValue::String(v)) if v == "2012-10-17" || v == "2008-10-17" => {}
            Some(other) => {
                let id = doc.member(root, "Version").map_or(root, |m| m.value);
                let shown = match other {
                    JsonValue::String(v) => format!("`{v}`"),
                    other => other.kind().to_string(),
                };
                self.invalid(
                    id,
                    format!("`Version` is {shown}; IAM takes \"2012-10-17\" (or the older \"2008-10-17\")"),
                    Some("write `\"Version\": \"2012-10-17\"`"),
                );
            }
            None => self.invalid(
                root,
                "the policy has no `Version`; without it IAM reads the policy with the 2008 rules, where policy variables are plain text".to_string(),
                Some("add `\"Version\": \"2012-10-17\"`"),
            ),
        }
        let Some(statement) = doc.member(root, "Statement").map(|m| m.value) else {
            self.invalid(
                root,
                "the policy has no `Statement`, so it grants nothing".to_string(),
                Some(GRAMMAR),
            );
            return Vec::new();
        };
        let items: Vec<JsonId> = match doc.value(statement) {
            JsonValue::Array(items) => items.clone(),
            JsonValue::Object(_) => vec![statement],
            other => {
                self.invalid(
                    statement,
                    format!(
                        "`Statement` must be an object or a list of objects, not {}",
                        other.kind()
                    ),
                    Some(GRAMMAR),
                );
                return Vec::new();
            }
        };
        items
            .into_iter()
            .filter_map(|id| self.statement(doc, id))
            .collect()
    }

    // Over 80 lines: one element after the other, each with its own message; split, each part
    // would take the same five arguments.
    fn statement(&mut self, doc: &JsonDoc, id: JsonId) -> Option<Statement> {
        if !matches!(doc.value(id), JsonValue::Object(_)) {
            self.invalid(
                id,
                format!(
                    "a statement must be an object, not {}",
                    doc.value(id).kind()
                ),
                Some(GRAMMAR),
            );
            return None;
        }
        let mut ok = true;
        let sid = match doc.member(id, "Sid").map(|m| (m.value, doc.value(m.value))) {
            Some((_, JsonValue::String(s))) => Some(s.to_string()),
            Some((at, other)) => {
                self.invalid(
                    at,
                    format!("`Sid` must be a string, not {}", other.kind()),
                    None,
                );
                None
            }
            None => None,
        };
        let effect = match doc
            .member(id, "Effect")
            .map(|m| (m.value, doc.value(m.value)))
        {
            Some((_, JsonValue::String(s))) if s == "Allow" => Some(Effect::Allow),
            Some((_, JsonValue::String(s))) if s == "Deny" => Some(Effect::Deny),
            Some((at, other)) => {
                let shown = match other {
                    JsonValue::String(s) => format!("`{s}`"),
                    other => other.kind().to_string(),
                };
                self.invalid(
                    at,
                    format!(
                        "`Effect` is {shown}; it must be \"Allow\" or \"Deny\" (case-sensitive)"
                    ),
                    None,
                );
                None
            }
            None => {
                self.invalid(
                    id,
                    "the statement has no `Effect`".to_string(),
                    Some("add `\"Effect\": \"Allow\"`"),
                );
                None
            }
        };
        let actions = self.either(doc, id, "Action", "NotAction", true);
        if actions.is_none() {
            ok = false;
        }
        if let Some(actions) = &actions {
            for (action, at) in
                actions
                    .items
                    .iter()
                    .zip(self.list_ids(doc, id, actions.negated, "Action"))
            {
                if action != "*" && !action.contains(':') {
                    self.invalid(
                        at,
                        format!("`{action}` is not an action: actions are `service:Name`, such as `s3tables:GetTable`"),
                        None,
                    );
                }
            }
        }
        let resources = self.either(
            doc,
            id,
            "Resource",
            "NotResource",
            self.kind != PolicyKind::Trust,
        );
        if self.kind != PolicyKind::Trust && resources.is_none() {
            ok = false;
        }
        let principals = self.principals(doc, id);
        if self.kind != PolicyKind::Identity && principals.is_none() {
            ok = false;
        }
        if self.kind == PolicyKind::Identity && principals.is_some() {
            self.invalid(
                id,
                "a policy attached to a role has no `Principal`: the role is the principal"
                    .to_string(),
                Some("remove `Principal`; it belongs in resource and trust policies"),
            );
            ok = false;
        }
        let conditions = self.conditions(doc, id);
        // A statement with an operator the evaluator does not know is left out, not guessed at.
        if conditions
            .as_ref()
            .is_some_and(|c| c.iter().any(|c| c.operator.is_none()))
        {
            ok = false;
        }
        Some(Statement {
            sid,
            effect: effect?,
            principals,
            actions: actions?,
            resources,
            conditions: conditions?,
            at: id,
        })
        .filter(|_| ok)
    }

    /// The ids of the items of `Action`/`NotAction` (or another listed element), in order.
    fn list_ids(&self, doc: &JsonDoc, id: JsonId, negated: bool, name: &str) -> Vec<JsonId> {
        let key = if negated {
            format!("Not{name}")
        } else {
            name.to_string()
        };
        match doc.member(id, &key).map(|m| m.value) {
            Some(v) => match doc.value(v) {
                JsonValue::Array(items) => items.clone(),
                _ => vec![v],
            },
            None => Vec::new(),
        }
    }

    /// `Action` or `NotAction` (or `Resource`/`NotResource`): exactly one of the two when
    /// `required`, at most one otherwise.
    fn either(
        &mut self,
        doc: &JsonDoc,
        id: JsonId,
        plain: &str,
        not: &str,
        required: bool,
    ) -> Option<Patterns> {
        let a = doc.member(id, plain).map(|m| m.value);
        let b = doc.member(id, not).map(|m| m.value);
        match (a, b) {
            (Some(_), Some(at)) => {
                self.invalid(
                    at,
                    format!("a statement has `{plain}` or `{not}`, not both"),
                    None,
                );
                None
            }
            (Some(at), None) => self.strings(doc, at, plain).map(|items| Patterns {
                negated: false,
                items,
            }),
            (None, Some(at)) => self.strings(doc, at, not).map(|items| Patterns {
                negated: true,
                items,
            }),
            (None, None) => {
                if required {
                    self.invalid(
                        id,
                        format!("the statement has neither `{plain}` nor `{not}`"),
                        Some(GRAMMAR),
                    );
                }
                None
            }
        }
    }

    /// A string or a list of strings (numbers and booleans are taken as their text, as IAM
    /// does in condition values).
    fn strings(&mut self, doc: &JsonDoc, at: JsonId, what: &str) -> Option<Vec<String>> {
        let scalar = |v: &JsonValue| match v {
            JsonValue::String(s) => Some(s.to_string()),
            JsonValue::Number(n) => Some(n.as_str().to_string()),
            JsonValue::Bool(b) => Some(b.to_string()),
            _ => None,
        };
        match doc.value(at) {
            JsonValue::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    match scalar(doc.value(*item)) {
                        Some(s) => out.push(s),
                        None => {
                            self.invalid(
                                *item,
                                format!(
                                    "each value of `{what}` must be a string, not {}",
                                    doc.value(*item).kind()
                                ),
                                None,
                            );
                            return None;
                        }
                    }
                }
                Some(out)
            }
            other => match scalar(other) {
                Some(s) => Some(vec![s]),
                None => {
                    self.invalid(
                        at,
                        format!(
                            "`{what}` must be a string or a list of strings, not {}",
                            other.kind()
                        ),
                        None,
                    );
                    None
                }
            },
        }
    }

    fn principals(&mut self, doc: &JsonDoc, id: JsonId) -> Option<(bool, Vec<PrincipalId>)> {
        let plain = doc.member(id, "Principal").map(|m| m.value);
        let not = doc.member(id, "NotPrincipal").map(|m| m.value);
        let (negated, at) = match (plain, not) {
            (Some(at), None) => (false, at),
            (None, Some(at)) => (true, at),
            (Some(_), Some(at)) => {
                self.invalid(
                    at,
                    "a statement has `Principal` or `NotPrincipal`, not both".to_string(),
                    None,
                );
                return None;
            }
            (None, None) => {
                if self.kind != PolicyKind::Identity {
                    self.invalid(
                        id,
                        "the statement has no `Principal`; a trust or resource policy names who it applies to".to_string(),
                        Some("add `\"Principal\": {\"Service\": \"…\"}` or `{\"AWS\": \"arn:aws:iam::…\"}`"),
                    );
                }
                return None;
            }
        };
        match doc.value(at) {
            JsonValue::String(s) if s == "*" => Some((
                negated,
                vec![PrincipalId {
                    kind: "*".to_string(),
                    value: "*".to_string(),
                }],
            )),
            JsonValue::Object(members) => {
                let mut ids = Vec::new();
                for m in members {
                    for value in self.strings(doc, m.value, &format!("Principal.{}", m.key))? {
                        ids.push(PrincipalId {
                            kind: m.key.to_string(),
                            value,
                        });
                    }
                }
                Some((negated, ids))
            }
            other => {
                self.invalid(
                    at,
                    format!("`Principal` must be \"*\" or an object such as {{\"Service\": \"…\"}}, not {}", other.kind()),
                    None,
                );
                None
            }
        }
    }

    fn conditions(&mut self, doc: &JsonDoc, id: JsonId) -> Option<Vec<Condition>> {
        let Some(at) = doc.member(id, "Condition").map(|m| m.value) else {
            return Some(Vec::new());
        };
        let JsonValue::Object(blocks) = doc.value(at) else {
            self.invalid(
                at,
                format!(
                    "`Condition` must be an object of operator blocks, not {}",
                    doc.value(at).kind()
                ),
                None,
            );
            return None;
        };
        let mut out = Vec::new();
        for block in blocks {
            let name = block.key.as_str();
            let base_name = name.strip_suffix("IfExists").unwrap_or(name);
            let operator = BaseOperator::parse(base_name).map(|base| Operator {
                base,
                if_exists: base_name.len() != name.len(),
            });
            if operator.is_none() {
                self.diagnostics.push(
                    Diagnostic::new(
                        &CONDITION_OPERATOR,
                        self.file.key_location(block.value),
                        format!("`{name}` is a condition operator that schema2iceberg does not evaluate, so this statement is left out of the check rather than guessed at"),
                    )
                    .with_help("the evaluator knows StringEquals, StringNotEquals, StringEqualsIgnoreCase, StringNotEqualsIgnoreCase, StringLike, StringNotLike, ArnEquals, ArnNotEquals, ArnLike, ArnNotLike, Bool and Null, each also with IfExists"),
                );
            }
            let JsonValue::Object(keys) = doc.value(block.value) else {
                self.invalid(
                    block.value,
                    format!(
                        "`{name}` must map condition keys to values, not be {}",
                        doc.value(block.value).kind()
                    ),
                    None,
                );
                return None;
            };
            for key in keys {
                let values = self.strings(doc, key.value, &key.key)?;
                out.push(Condition {
                    operator,
                    operator_name: name.to_string(),
                    key: key.key.to_string(),
                    values,
                    at: key.value,
                });
            }
        }
        Some(out)
    }
}
