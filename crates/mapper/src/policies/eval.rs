//! The IAM evaluation of one request against policies, as the IAM user guide specifies it
//! (`../shared/reference/aws-channel-permissions-facts.md`, section 7): a statement applies when
//! its principal, action, resource and every condition match; an explicit `Deny` that applies
//! overrides every `Allow`; with no `Allow`, the request is implicitly denied.

use super::document::{BaseOperator, Condition, Effect, Policy, Statement};
use super::wildcard::{action_matches, arn_matches, glob, Colons};

/// Who makes a request, for policies that name principals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// An AWS service principal, such as `kinesis.amazonaws.com`.
    Service(String),
    /// An IAM role, by its ARN.
    Role(String),
}

/// One request: who asks to do what on which resource, in which context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The caller; statements with a `Principal` are compared with it.
    pub caller: Caller,
    /// `service:Name`.
    pub action: String,
    /// The resource ARN; `None` for `sts:AssumeRole` in a trust policy.
    pub resource: Option<String>,
    /// The condition keys the request carries, with their values.
    pub context: Vec<(String, String)>,
}

impl Request {
    /// The value of condition key `key` (keys are compared ignoring case).
    pub fn value(&self, key: &str) -> Option<&str> {
        self.context
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }
}

/// The outcome of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// An `Allow` applies and no `Deny` does.
    Allow,
    /// No statement allows it.
    ImplicitDeny,
    /// A `Deny` applies.
    ExplicitDeny,
}

/// Where a statement is: the index of its policy in the list evaluated, and its own index.
pub type StatementRef = (usize, usize);

/// The decision, with the statement that decided it (the `Deny` or the first `Allow`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Allow, or which kind of deny.
    pub decision: Decision,
    /// The statement that decided it; `None` for an implicit deny.
    pub by: Option<StatementRef>,
}

/// Evaluates `request` against every statement of `policies` together.
pub fn evaluate(policies: &[&Policy], request: &Request) -> Outcome {
    let mut allow = None;
    for (p, policy) in policies.iter().enumerate() {
        for (s, statement) in policy.statements.iter().enumerate() {
            if !applies(statement, request) {
                continue;
            }
            match statement.effect {
                Effect::Deny => {
                    return Outcome {
                        decision: Decision::ExplicitDeny,
                        by: Some((p, s)),
                    }
                }
                Effect::Allow => {
                    allow = allow.or(Some((p, s)));
                }
            }
        }
    }
    match allow {
        Some(by) => Outcome {
            decision: Decision::Allow,
            by: Some(by),
        },
        None => Outcome {
            decision: Decision::ImplicitDeny,
            by: None,
        },
    }
}

/// Whether one statement applies to the request, whatever its effect.
pub fn applies(statement: &Statement, request: &Request) -> bool {
    let matched = match_parts(statement, request);
    matched.principal && matched.action && matched.resource && matched.conditions
}

/// Which parts of a statement match a request, to say how close a statement comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Matched {
    /// `Principal` (true where the statement has none).
    pub principal: bool,
    /// `Action`/`NotAction`.
    pub action: bool,
    /// `Resource`/`NotResource` (true where the statement has none, or the request has none).
    pub resource: bool,
    /// Every condition.
    pub conditions: bool,
}

/// Which parts of `statement` match `request`.
pub fn match_parts(statement: &Statement, request: &Request) -> Matched {
    let action = statement
        .actions
        .items
        .iter()
        .any(|p| action_matches(p, &request.action))
        != statement.actions.negated;
    let resource = match (&statement.resources, &request.resource) {
        (Some(patterns), Some(arn)) => {
            patterns.items.iter().any(|p| arn_matches(p, arn)) != patterns.negated
        }
        _ => true,
    };
    let principal = match &statement.principals {
        None => true,
        Some((negated, ids)) => {
            ids.iter()
                .any(|id| principal_matches(&id.kind, &id.value, &request.caller))
                != *negated
        }
    };
    let conditions = statement
        .conditions
        .iter()
        .all(|c| condition_holds(c, request));
    Matched {
        principal,
        action,
        resource,
        conditions,
    }
}

/// Whether a `Principal` entry names the caller. An account (`"123456789012"` or
/// `arn:aws:iam::123456789012:root`) names every principal of that account, as IAM reads it;
/// in a KMS key policy, the caller then also needs an IAM policy that allows it (see
/// [`account_of_root`]).
pub fn principal_matches(kind: &str, value: &str, caller: &Caller) -> bool {
    if kind == "*" || value == "*" && kind == "AWS" {
        return true;
    }
    match caller {
        Caller::Service(name) => kind == "Service" && value == name,
        Caller::Role(arn) => {
            kind == "AWS"
                && (value == arn
                    || account_of_root(value)
                        .is_some_and(|account| arn.split(':').nth(4) == Some(account)))
        }
    }
}

/// The account that a principal value names as a whole: `123456789012` or
/// `arn:<partition>:iam::123456789012:root`.
pub fn account_of_root(value: &str) -> Option<&str> {
    if value.len() == 12 && value.bytes().all(|b| b.is_ascii_digit()) {
        return Some(value);
    }
    let mut parts = value.split(':');
    let (arn, _, iam, region, account, root) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    (arn == "arn" && iam == "iam" && region.is_empty() && root == "root" && parts.next().is_none())
        .then_some(account)
}

/// Whether one condition holds for the request: the values are ORed; a key absent from the
/// request makes the condition false, except for `…IfExists` and the negated operators (true)
/// and `Null` (true when it asks for absence). An operator the evaluator does not know never
/// holds, so a statement that uses one is left out.
pub fn condition_holds(condition: &Condition, request: &Request) -> bool {
    let Some(operator) = condition.operator else {
        return false;
    };
    let value = request.value(&condition.key);
    if operator.base == BaseOperator::Null {
        let wants_absent = condition
            .values
            .iter()
            .any(|v| v.eq_ignore_ascii_case("true"));
        let wants_present = condition
            .values
            .iter()
            .any(|v| v.eq_ignore_ascii_case("false"));
        return (value.is_none() && wants_absent) || (value.is_some() && wants_present);
    }
    let Some(value) = value else {
        return operator.if_exists || operator.base.is_negated();
    };
    let any = |f: &dyn Fn(&str) -> bool| condition.values.iter().any(|v| f(v));
    use BaseOperator::*;
    match operator.base {
        StringEquals => any(&|v| v == value),
        StringNotEquals => !any(&|v| v == value),
        StringEqualsIgnoreCase => any(&|v| v.to_lowercase() == value.to_lowercase()),
        StringNotEqualsIgnoreCase => !any(&|v| v.to_lowercase() == value.to_lowercase()),
        StringLike => any(&|v| glob(v, value, false, Colons::Free)),
        StringNotLike => !any(&|v| glob(v, value, false, Colons::Free)),
        // ArnEquals and ArnLike behave identically: case-sensitive, segment by segment.
        ArnEquals | ArnLike => any(&|v| arn_condition(v, value)),
        ArnNotEquals | ArnNotLike => !any(&|v| arn_condition(v, value)),
        Bool => any(&|v| v.eq_ignore_ascii_case(value)),
        Null => false,
    }
}

/// `ArnLike`: each of the six colon-separated components matched on its own, with `*` and `?`,
/// case-sensitively; the last component keeps any further colons.
fn arn_condition(pattern: &str, value: &str) -> bool {
    let p: Vec<&str> = pattern.splitn(6, ':').collect();
    let v: Vec<&str> = value.splitn(6, ':').collect();
    if p.len() != 6 || v.len() != 6 {
        return glob(pattern, value, false, Colons::Free);
    }
    p.iter()
        .zip(v.iter())
        .all(|(p, v)| glob(p, v, false, Colons::Free))
}
