//! Why a request is refused, in words: the `Deny` that applies, else the statement that comes
//! closest (it allows the action, and matches the most of principal, resource and conditions)
//! with the parts of it that do not match, else the statement that allows other actions of the
//! service on the resource, else the document.

use schema2iceberg_parser::{Code, Location};

use super::document::{Effect, Policy, Statement};
use super::eval::{applies, condition_holds, match_parts, Caller, Request};
use super::facts::ChannelFacts;

/// A request refused: the code, where, why, and a help.
pub(super) struct Refusal {
    pub(super) code: &'static Code,
    pub(super) at: Location,
    pub(super) reason: String,
    pub(super) help: Option<String>,
    /// No statement allows the action at all.
    pub(super) nothing: bool,
}

/// Why `request` is refused: the `Deny` that applies, else the statement that comes closest
/// and the parts of it that do not match, else the document.
pub(super) fn explain(
    facts: &ChannelFacts,
    policies: &[&Policy],
    request: &Request,
    code: &'static Code,
) -> Refusal {
    for p in policies {
        for s in &p.statements {
            if s.effect == Effect::Deny && applies(s, request) {
                return Refusal {
                    code,
                    at: p.file.key_location(s.at),
                    reason: format!(
                        "{} denies it, and an explicit Deny overrides every Allow",
                        describe(s)
                    ),
                    help: Some(
                        "narrow the Deny so that it leaves out what the channel needs".to_string(),
                    ),
                    nothing: false,
                };
            }
        }
    }
    let mut best: Option<(u8, &Policy, &Statement)> = None;
    for p in policies {
        for s in p.statements.iter().filter(|s| s.effect == Effect::Allow) {
            let m = match_parts(s, request);
            if !m.action {
                continue;
            }
            let score =
                4 * u8::from(m.principal) + 2 * u8::from(m.resource) + u8::from(m.conditions);
            if best.is_none_or(|(top, _, _)| score > top) {
                best = Some((score, p, s));
            }
        }
    }
    let Some((_, p, s)) = best else {
        return no_statement(policies, request, code);
    };
    let (reason, help) = mismatch(facts, s, request);
    Refusal {
        code,
        at: p.file.key_location(s.at),
        reason: format!("{} allows `{}`, but {reason}", describe(s), request.action),
        help,
        nothing: false,
    }
}

/// The refusal when no statement allows the action: at the statement that allows other
/// actions of the same service on the resource, else at the first document.
fn no_statement(policies: &[&Policy], request: &Request, code: &'static Code) -> Refusal {
    let service = request.action.split(':').next().unwrap_or("");
    let near = policies.iter().find_map(|p| {
        p.statements
            .iter()
            .find(|s| {
                s.effect == Effect::Allow
                    && !s.actions.negated
                    && s.actions.items.iter().any(|a| {
                        a.split(':')
                            .next()
                            .is_some_and(|x| x.eq_ignore_ascii_case(service))
                    })
                    && match_parts(s, request).resource
            })
            .map(|s| (p, s))
    });
    let reason = match near {
        Some((_, s)) => format!(
            "no statement allows `{}` ({} allows other `{service}` actions on it)",
            request.action,
            describe(s)
        ),
        None => format!("no statement allows `{}`", request.action),
    };
    Refusal {
        code,
        at: near
            .map(|(p, s)| p.file.key_location(s.at))
            .or_else(|| policies.first().map(|p| root_location(p)))
            .unwrap_or_default(),
        reason,
        help: None,
        nothing: true,
    }
}

/// What keeps a statement that allows the action from applying.
fn mismatch(facts: &ChannelFacts, s: &Statement, request: &Request) -> (String, Option<String>) {
    let m = match_parts(s, request);
    let mut reasons = Vec::new();
    let mut help = None;
    if !m.principal {
        let named: Vec<String> = s
            .principals
            .iter()
            .flat_map(|(_, ids)| ids.iter().map(|id| format!("`{}`", id.value)))
            .collect();
        let caller = match &request.caller {
            Caller::Service(name) => format!("the service principal `{name}`"),
            Caller::Role(arn) => format!("the role `{arn}`"),
        };
        reasons.push(format!(
            "its principal is {}, and the request comes from {caller}",
            named.join(", ")
        ));
    }
    if !m.resource {
        let resource = request.resource.as_deref().unwrap_or("");
        reasons.push(format!("its `Resource` does not cover `{resource}`"));
        let aliases = s
            .resources
            .iter()
            .flat_map(|r| r.items.iter())
            .any(|r| r.contains(":alias/"));
        if aliases {
            help = Some("an alias ARN in `Resource` applies to the alias, not to the key behind it: name the key's ARN".to_string());
        }
    }
    if !m.conditions {
        for c in s.conditions.iter().filter(|c| !condition_holds(c, request)) {
            let carried = match request.value(&c.key) {
                Some(v) => format!("the request carries `{v}`"),
                None => "the request does not carry the key".to_string(),
            };
            reasons.push(format!(
                "its condition `{}` on `{}` does not hold ({carried})",
                c.operator_name, c.key
            ));
            if c.key.eq_ignore_ascii_case("aws:SourceArn")
                && c.values.iter().any(|v| v == &facts.table_bucket)
            {
                help = Some(format!("the maintenance service's source ARN is table-level (`…/table/ID`): write `{}*`, with the trailing `*`", facts.table_bucket));
            }
            if c.key.eq_ignore_ascii_case("kms:ViaService") {
                help = Some(format!("the key is used through `s3.{r}.amazonaws.com` or `s3tables.{r}.amazonaws.com` (the sources differ); name one of them, or use no kms:ViaService condition", r = facts.region));
            }
        }
    }
    (reasons.join("; "), help)
}

pub(super) fn root_location(p: &Policy) -> Location {
    match &p.file.json {
        Some(doc) => p.file.location(doc.root()),
        None => p.file.location(Default::default()),
    }
}

/// "the statement `Sid`" or "this statement".
pub(super) fn describe(s: &Statement) -> String {
    match &s.sid {
        Some(sid) => format!("the statement `{sid}`"),
        None => "this statement".to_string(),
    }
}
