//! Checks a channel's policy documents against the required-permissions table: every request
//! the channel's service makes is evaluated as IAM does, and each one that is not granted is a
//! diagnostic at the statement that comes closest, naming the action, resource, principal or
//! condition key at fault and the failure it causes.

use schema2iceberg_parser::{Diagnostic, JsonFile, Location};

use super::document::{Effect, Policy, PolicyKind};
use super::eval::{applies, evaluate, Caller, Decision, Request};
use super::explain::{explain, root_location, Refusal};
use super::facts::ChannelFacts;
use super::required::{purposes, Document, Level, Need, Purpose, NOT_ACTIONS};
use super::{
    CROSS_ACCOUNT_KINESIS, KEY_MAINTENANCE, KEY_ROLE, NOT_AN_ACTION, PUT_TABLE_ENCRYPTION,
    ROLE_PERMISSION, SUGGESTED, TABLE_BUCKET, TRUST, UNSCOPED,
};
use crate::channel::Service;

/// The policy documents of one channel, as files, and what the configuration does not say.
#[derive(Debug, Clone, Default)]
pub struct PolicyFiles {
    /// The policies attached to the execution role (one or more).
    pub role: Vec<JsonFile>,
    /// The role's trust policy.
    pub trust: Option<JsonFile>,
    /// The table key's key policy.
    pub table_key: Option<JsonFile>,
    /// The table bucket's policy.
    pub table_bucket: Option<JsonFile>,
    /// The dead-letter bucket's SSE-KMS key.
    pub dlq_kms_key: Option<String>,
}

impl PolicyFiles {
    /// Whether any document is given.
    pub fn any(&self) -> bool {
        !self.role.is_empty()
            || self.trust.is_some()
            || self.table_key.is_some()
            || self.table_bucket.is_some()
    }
}

/// The documents read.
struct Read {
    role: Vec<Policy>,
    trust: Option<Policy>,
    key: Option<Policy>,
    bucket: Option<Policy>,
}

/// Whether a request is granted, and if not, the diagnostic parts: where, why, and a help.
enum Verdict {
    Granted,
    Refused(Refusal),
}

/// Checks `files` against what `facts`'s channel needs.
pub fn check_policies(facts: &ChannelFacts, files: &PolicyFiles) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut read = |f: &JsonFile, kind| {
        let (policy, diagnostics) = Policy::read(f, kind);
        out.extend(diagnostics);
        policy
    };
    let docs = Read {
        role: files
            .role
            .iter()
            .map(|f| read(f, PolicyKind::Identity))
            .collect(),
        trust: files.trust.as_ref().map(|f| read(f, PolicyKind::Trust)),
        key: files
            .table_key
            .as_ref()
            .map(|f| read(f, PolicyKind::Resource)),
        bucket: files
            .table_bucket
            .as_ref()
            .map(|f| read(f, PolicyKind::Resource)),
    };
    not_actions(&docs.role, &mut out);
    if facts.service == Service::Kinesis && facts.cross_account() {
        out.push(
            Diagnostic::new(
                &CROSS_ACCOUNT_KINESIS,
                facts.table_bucket_at.clone(),
                format!(
                    "the table bucket is in account {}, the role in {}: the Kinesis guide says Iceberg delivery does not support cross-account delivery, while the reference shows it with a table bucket policy",
                    facts.bucket_account(),
                    facts.account
                ),
            )
            .with_help("keep the stream, the table bucket and the Glue schema in one account, or check with AWS that your account supports it; a table bucket policy given is checked as for MSK"),
        );
    }
    let checker = Checker { facts, docs: &docs };
    for purpose in purposes(facts, files.dlq_kms_key.as_deref()) {
        checker.purpose(&purpose, &mut out);
    }
    out.dedup();
    out
}

struct Checker<'a> {
    facts: &'a ChannelFacts,
    docs: &'a Read,
}

impl Checker<'_> {
    // Over 80 lines: the needs and the suggestions of one statement, which share the documents
    // chosen at its top, and the messages they need.
    fn purpose(&self, purpose: &Purpose, out: &mut Vec<Diagnostic>) {
        let present = match purpose.document {
            Document::RolePolicy => !self.docs.role.is_empty(),
            Document::TrustPolicy => self.docs.trust.is_some(),
            Document::TableKeyPolicy => self.docs.key.is_some(),
            Document::TableBucketPolicy => {
                let others = !self.docs.role.is_empty()
                    || self.docs.trust.is_some()
                    || self.docs.key.is_some();
                // Required for MSK; for Kinesis, `policy-cross-account-kinesis` says the rest.
                if self.docs.bucket.is_none() && others && self.facts.service == Service::Msk {
                    out.push(
                        Diagnostic::new(
                            &TABLE_BUCKET,
                            self.facts.table_bucket_at.clone(),
                            format!(
                                "the table bucket is in account {}, the role in {}, and no table bucket policy is given: the bucket's owner must grant the role the S3 Tables actions, or {}",
                                self.facts.bucket_account(),
                                self.facts.account,
                                purpose.symptom
                            ),
                        )
                        .with_help("give the bucket's policy with --table-bucket-policy (or `table-bucket-policy` in schema2iceberg.toml); `schema2iceberg policies` prints it"),
                    );
                }
                self.docs.bucket.is_some()
            }
        };
        if !present {
            return;
        }
        let mut suggested = Vec::new();
        let mut refused = Vec::new();
        for need in &purpose.needs {
            match self.need(purpose, need) {
                Verdict::Granted => {}
                Verdict::Refused(_) if need.level == Level::Suggested => {
                    suggested.push(need.action)
                }
                Verdict::Refused(refusal) => refused.push((need, refusal)),
            }
        }
        let all_granted = !refused.iter().any(|(n, _)| n.level == Level::Required);
        let asked = purpose
            .needs
            .iter()
            .filter(|n| n.level != Level::Suggested)
            .count();
        if refused.len() > 1 && refused.len() == asked && refused.iter().all(|(_, r)| r.nothing) {
            out.push(self.nothing_granted(purpose, refused));
        } else {
            for (need, refusal) in refused {
                out.push(self.diagnostic(purpose, need, refusal));
            }
        }
        if all_granted {
            self.guards(purpose, out);
        }
        if all_granted && !suggested.is_empty() {
            let at = self.anchor(purpose);
            let names: Vec<String> = suggested.iter().map(|a| format!("`{a}`")).collect();
            out.push(Diagnostic::new(
                &SUGGESTED,
                at,
                format!(
                    "the reference document also lists {} for `{}`; the AWS guides do not require {} for {} channel, so this is only a suggestion",
                    names.join(", "),
                    purpose.sid,
                    if names.len() == 1 { "it" } else { "them" },
                    match self.facts.service {
                        Service::Kinesis => "a Kinesis",
                        Service::Msk => "an MSK",
                    }
                ),
            ));
        }
    }

    /// For each guard of a purpose whose needs are all granted: the request tried again from
    /// outside the channel must be denied; a statement that still allows it is reported.
    fn guards(&self, purpose: &Purpose, out: &mut Vec<Diagnostic>) {
        for guard in &purpose.guards {
            let Some(need) = purpose.needs.iter().find(|n| n.level == Level::Required) else {
                continue;
            };
            let mut context = purpose.contexts.first().cloned().unwrap_or_default();
            for (key, value) in &guard.foreign {
                context.retain(|(k, _)| !k.eq_ignore_ascii_case(key));
                context.push((key.clone(), value.clone()));
            }
            let request = Request {
                caller: purpose.caller.clone(),
                action: need.action.to_string(),
                resource: need.samples.first().cloned().flatten(),
                context,
            };
            if let (Verdict::Granted, Some(at)) = (
                self.decide(purpose, &request),
                self.allowing(purpose, &request),
            ) {
                let keys: Vec<String> = guard
                    .foreign
                    .iter()
                    .map(|(k, _)| format!("`{k}`"))
                    .collect();
                out.push(
                    Diagnostic::new(
                        &UNSCOPED,
                        at,
                        format!(
                            "this statement also grants `{}` for {}: it has no condition on {} that keeps them out",
                            need.action,
                            guard.keeps_out,
                            keys.join(" or ")
                        ),
                    )
                    .with_help(format!("add the condition that `schema2iceberg policies` writes in the `{}` statement", purpose.sid)),
                );
            }
        }
    }

    /// Whether every sample of `need` is granted under one of the purpose's contexts; the
    /// refusal of the first context otherwise.
    fn need(&self, purpose: &Purpose, need: &Need) -> Verdict {
        let mut first = None;
        for context in &purpose.contexts {
            let mut refused = None;
            for sample in &need.samples {
                let request = Request {
                    caller: purpose.caller.clone(),
                    action: need.action.to_string(),
                    resource: sample.clone(),
                    context: context.clone(),
                };
                if let Verdict::Refused(r) = self.decide(purpose, &request) {
                    refused = Some(r);
                    break;
                }
            }
            match refused {
                None => return Verdict::Granted,
                Some(r) => {
                    // A refusal by the key policy means the role's own grant held: the closer one.
                    let closer = r.code.name == KEY_ROLE.name
                        && first
                            .as_ref()
                            .is_some_and(|f: &Refusal| f.code.name != KEY_ROLE.name);
                    if first.is_none() || closer {
                        first = Some(r);
                    }
                }
            }
        }
        first.map_or(Verdict::Granted, Verdict::Refused)
    }

    /// The policies a purpose is evaluated against.
    fn policies(&self, purpose: &Purpose) -> Vec<&Policy> {
        match purpose.document {
            Document::RolePolicy => {
                let mut list: Vec<&Policy> = self.docs.role.iter().collect();
                // Within one account, an Allow in the identity or the resource policy is enough.
                if purpose.sid == "S3TablesAccess" && !self.facts.cross_account() {
                    list.extend(self.docs.bucket.iter());
                }
                list
            }
            Document::TrustPolicy => self.docs.trust.iter().collect(),
            Document::TableKeyPolicy => self.docs.key.iter().collect(),
            Document::TableBucketPolicy => self.docs.bucket.iter().collect(),
        }
    }

    fn decide(&self, purpose: &Purpose, request: &Request) -> Verdict {
        let policies = self.policies(purpose);
        let code = match (
            purpose.document,
            purpose
                .needs
                .iter()
                .find(|n| n.action == request.action)
                .map(|n| n.level),
        ) {
            (Document::RolePolicy, Some(Level::Warn)) => &PUT_TABLE_ENCRYPTION,
            (Document::RolePolicy, _) => &ROLE_PERMISSION,
            (Document::TrustPolicy, _) => &TRUST,
            (Document::TableKeyPolicy, _) => &KEY_MAINTENANCE,
            (Document::TableBucketPolicy, _) => &TABLE_BUCKET,
        };
        let outcome = evaluate(&policies, request);
        // The role's grant on the table key counts only when the key policy allows it.
        if let (true, Some(key)) = (purpose.sid == "KMSTableKeyAccess", &self.docs.key) {
            return self.with_key_policy(&policies, key, request, outcome.decision);
        }
        if outcome.decision != Decision::Allow {
            return Verdict::Refused(explain(self.facts, &policies, request, code));
        }
        Verdict::Granted
    }

    /// A request of the role on the table key, with its key policy: a key-policy statement that
    /// names the role grants on its own; one for the whole account enables the role's IAM
    /// grant; with neither, nothing the role's policies say counts. A Deny in either wins.
    fn with_key_policy(
        &self,
        identity: &[&Policy],
        key: &Policy,
        request: &Request,
        identity_decision: Decision,
    ) -> Verdict {
        if identity_decision == Decision::ExplicitDeny {
            return Verdict::Refused(explain(self.facts, identity, request, &ROLE_PERMISSION));
        }
        let outcome = evaluate(&[key], request);
        let role = match &request.caller {
            Caller::Role(arn) => arn.as_str(),
            Caller::Service(_) => "",
        };
        let account = |arn: &str| arn.split(':').nth(4).map(str::to_string);
        let same_account = request.resource.as_deref().and_then(account) == account(role);
        let direct = key.statements.iter().any(|s| {
            s.effect == Effect::Allow
                && applies(s, request)
                && s.principals.iter().any(|(negated, ids)| {
                    !negated && ids.iter().any(|id| id.value == role || id.value == "*")
                })
        });
        match outcome.decision {
            Decision::ExplicitDeny => Verdict::Refused(explain(self.facts, &[key], request, &KEY_ROLE)),
            // A key policy naming the role is enough on its own only within one account; across
            // accounts, the role's own policy must allow too (the S3 Tables KMS page).
            Decision::Allow if (direct && same_account) || identity_decision == Decision::Allow => {
                Verdict::Granted
            }
            Decision::Allow => Verdict::Refused(explain(self.facts, identity, request, &ROLE_PERMISSION)),
            Decision::ImplicitDeny if identity_decision != Decision::Allow => {
                Verdict::Refused(explain(self.facts, identity, request, &ROLE_PERMISSION))
            }
            Decision::ImplicitDeny => Verdict::Refused(Refusal {
                code: &KEY_ROLE,
                at: root_location(key),
                reason: format!(
                    "the key policy neither enables IAM policies for account {} (a statement for `arn:{}:iam::{}:root`) nor names the role, so the role's own grant counts for nothing",
                    self.facts.account, self.facts.partition, self.facts.account
                ),
                help: Some("keep the key policy's default statement that enables IAM policies, or add one naming the role".to_string()),
                nothing: false,
            }),
        }
    }

    /// The location of the statement that allows `request`, when one does.
    fn allowing(&self, purpose: &Purpose, request: &Request) -> Option<Location> {
        self.policies(purpose).into_iter().find_map(|p| {
            p.statements
                .iter()
                .find(|s| s.effect == Effect::Allow && applies(s, request))
                .map(|s| p.file.key_location(s.at))
        })
    }

    /// Where a purpose's notes go: the statement that grants its first action, else the first
    /// document.
    fn anchor(&self, purpose: &Purpose) -> Location {
        let policies = self.policies(purpose);
        let request = purpose.needs.first().map(|need| Request {
            caller: purpose.caller.clone(),
            action: need.action.to_string(),
            resource: need.samples.first().cloned().flatten(),
            context: purpose.contexts.first().cloned().unwrap_or_default(),
        });
        request
            .and_then(|r| self.allowing(purpose, &r))
            .or_else(|| policies.first().map(|p| root_location(p)))
            .unwrap_or_default()
    }

    /// One diagnostic for a statement of which nothing is granted, naming every action.
    fn nothing_granted(&self, purpose: &Purpose, refused: Vec<(&Need, Refusal)>) -> Diagnostic {
        let names: Vec<String> = refused
            .iter()
            .map(|(n, _)| format!("`{}`", n.action))
            .collect();
        let (code, at) = match refused.into_iter().next() {
            Some((_, r)) => (r.code, r.at),
            None => (&ROLE_PERMISSION, Location::default()),
        };
        let who = match &purpose.caller {
            Caller::Service(name) => format!("`{name}`"),
            Caller::Role(_) => "the execution role".to_string(),
        };
        let on = purpose
            .resources
            .as_ref()
            .map(|r| {
                format!(
                    " on {}",
                    r.iter()
                        .map(|r| format!("`{r}`"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                )
            })
            .unwrap_or_default();
        Diagnostic::new(
            code,
            at,
            format!(
                "no statement grants {who} ({}) any of the `{}` statement's actions{on}: {}; without them, {}",
                purpose.document.name(),
                purpose.sid,
                names.join(", "),
                purpose.symptom
            ),
        )
        .with_help(format!("add the `{}` statement that `schema2iceberg policies` writes", purpose.sid))
    }

    fn diagnostic(&self, purpose: &Purpose, need: &Need, refusal: Refusal) -> Diagnostic {
        let who = match &purpose.caller {
            Caller::Service(name) => format!("`{name}`"),
            Caller::Role(_) => "the execution role".to_string(),
        };
        let symptom = if need.action == "s3tables:PutTableEncryption" {
            "the namespace appears, the table never does (CreateTable succeeds, table encryption fails)"
        } else {
            purpose.symptom
        };
        let on = need
            .samples
            .iter()
            .flatten()
            .map(|s| format!(" on `{s}`"))
            .next()
            .unwrap_or_default();
        let mut d = Diagnostic::new(
            refusal.code,
            refusal.at,
            format!(
                "`{}`{on} is not granted to {who} ({}): {}; without it, {symptom}",
                need.action,
                // The key policy's refusal of the role's request is the key policy's finding.
                if refusal.code.name == KEY_ROLE.name {
                    Document::TableKeyPolicy.name()
                } else {
                    purpose.document.name()
                },
                refusal.reason
            ),
        );
        let help = refusal.help.unwrap_or_else(|| {
            format!(
                "grant `{}` as the `{}` statement of `schema2iceberg policies` does",
                need.action, purpose.sid
            )
        });
        d = d.with_help(help);
        d
    }
}

/// A note for each S3 API name in a role policy that is not an IAM action.
fn not_actions(role: &[Policy], out: &mut Vec<Diagnostic>) {
    for p in role {
        for s in &p.statements {
            for action in &s.actions.items {
                if let Some(name) = NOT_ACTIONS.iter().find(|n| n.eq_ignore_ascii_case(action)) {
                    out.push(
                        Diagnostic::new(
                            &NOT_AN_ACTION,
                            p.file.key_location(s.at),
                            format!("`{name}` is an S3 API operation, not an IAM action, so listing it grants nothing: `s3:PutObject` authorises multipart uploads"),
                        )
                        .with_help("remove it; keep `s3:PutObject`"),
                    );
                }
            }
        }
    }
}
