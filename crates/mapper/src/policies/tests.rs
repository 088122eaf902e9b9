//! The evaluator, case by case against the IAM rules of
//! `../shared/reference/aws-channel-permissions-facts.md` (section 7), and a property: a policy
//! with a `Deny` never grants what the `Deny` covers.

use proptest::prelude::*;

use super::document::{Policy, PolicyKind};
use super::eval::{evaluate, Caller, Decision, Request};
use super::{CONDITION_OPERATOR, INVALID};

const ROLE: &str = "arn:aws:iam::123456789012:role/channel";
const BUCKET: &str = "arn:aws:s3tables:us-east-1:123456789012:bucket/b";

fn policy(text: &str) -> Policy {
    let (p, d) = Policy::from_text("p.json", text, PolicyKind::Identity);
    assert!(d.is_empty(), "{d:?}");
    p
}

fn request(action: &str, resource: &str, context: &[(&str, &str)]) -> Request {
    Request {
        caller: Caller::Role(ROLE.to_string()),
        action: action.to_string(),
        resource: Some(resource.to_string()),
        context: context
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

fn decide(policies: &[&str], r: &Request) -> Decision {
    let read: Vec<Policy> = policies.iter().map(|t| policy(t)).collect();
    let refs: Vec<&Policy> = read.iter().collect();
    evaluate(&refs, r).decision
}

fn allow(statement: &str) -> String {
    format!(r#"{{"Version": "2012-10-17", "Statement": {statement}}}"#)
}

#[test]
fn statement_and_action_and_resource_may_be_a_string_or_a_list() {
    let r = request("s3tables:GetTable", BUCKET, &[]);
    let object = allow(&format!(
        r#"{{"Effect": "Allow", "Action": "s3tables:GetTable", "Resource": "{BUCKET}"}}"#
    ));
    let lists = allow(&format!(
        r#"[{{"Effect": "Allow", "Action": ["s3tables:GetTable"], "Resource": ["{BUCKET}"]}}]"#
    ));
    assert_eq!(decide(&[&object], &r), Decision::Allow);
    assert_eq!(decide(&[&lists], &r), Decision::Allow);
}

#[test]
fn default_is_implicit_deny() {
    let p = allow(&format!(
        r#"{{"Effect": "Allow", "Action": "s3tables:GetTableData", "Resource": "{BUCKET}"}}"#
    ));
    assert_eq!(
        decide(&[&p], &request("s3tables:GetTable", BUCKET, &[])),
        Decision::ImplicitDeny
    );
}

#[test]
fn several_statements_and_several_files_together() {
    let a = allow(&format!(
        r#"[{{"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "*"}}, {{"Effect": "Allow", "Action": "s3tables:GetTable", "Resource": "{BUCKET}"}}]"#
    ));
    let b = allow(r#"{"Effect": "Deny", "Action": "s3tables:*", "Resource": "*"}"#);
    let r = request("s3tables:GetTable", BUCKET, &[]);
    assert_eq!(decide(&[&a], &r), Decision::Allow);
    assert_eq!(decide(&[&a, &b], &r), Decision::ExplicitDeny);
}

#[test]
fn actions_ignore_case_and_take_wildcards() {
    let p = allow(
        r#"{"Effect": "Allow", "Action": ["S3TABLES:get*", "kms:?ecrypt"], "Resource": "*"}"#,
    );
    assert_eq!(
        decide(&[&p], &request("s3tables:GetTableData", BUCKET, &[])),
        Decision::Allow
    );
    assert_eq!(
        decide(&[&p], &request("kms:Decrypt", BUCKET, &[])),
        Decision::Allow
    );
    assert_eq!(
        decide(&[&p], &request("s3tables:PutTableData", BUCKET, &[])),
        Decision::ImplicitDeny
    );
}

#[test]
fn resources_are_case_sensitive_with_wildcards_per_segment() {
    let p = allow(
        r#"{"Effect": "Allow", "Action": "*", "Resource": "arn:aws:s3tables:*:123456789012:bucket/B*"}"#,
    );
    assert_eq!(
        decide(&[&p], &request("s3tables:GetTable", BUCKET, &[])),
        Decision::ImplicitDeny
    );
    let p = allow(
        r#"{"Effect": "Allow", "Action": "*", "Resource": "arn:aws:s3tables:*:123456789012:bucket/b*"}"#,
    );
    assert_eq!(
        decide(&[&p], &request("s3tables:GetTable", BUCKET, &[])),
        Decision::Allow
    );
    assert_eq!(
        decide(
            &[&p],
            &request("s3tables:GetTable", &format!("{BUCKET}/table/x"), &[])
        ),
        Decision::Allow
    );
}

#[test]
fn not_action_and_not_resource_apply_to_everything_else() {
    let p = allow(r#"{"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"}"#);
    assert_eq!(
        decide(&[&p], &request("s3tables:GetTable", BUCKET, &[])),
        Decision::Allow
    );
    assert_eq!(
        decide(&[&p], &request("iam:PassRole", BUCKET, &[])),
        Decision::ImplicitDeny
    );
    let deny = allow(&format!(
        r#"[{{"Effect": "Allow", "Action": "*", "Resource": "*"}}, {{"Effect": "Deny", "Action": "*", "NotResource": "{BUCKET}"}}]"#
    ));
    assert_eq!(
        decide(&[&deny], &request("s3tables:GetTable", BUCKET, &[])),
        Decision::Allow
    );
    assert_eq!(
        decide(
            &[&deny],
            &request(
                "s3tables:GetTable",
                "arn:aws:s3tables:us-east-1:123456789012:bucket/c",
                &[]
            )
        ),
        Decision::ExplicitDeny
    );
}

#[test]
fn an_explicit_deny_overrides_every_allow() {
    let p = allow(&format!(
        r#"[{{"Effect": "Allow", "Action": "s3tables:*", "Resource": "*"}}, {{"Effect": "Deny", "Action": "s3tables:PutTableEncryption", "Resource": "{BUCKET}"}}]"#
    ));
    assert_eq!(
        decide(&[&p], &request("s3tables:PutTableEncryption", BUCKET, &[])),
        Decision::ExplicitDeny
    );
    assert_eq!(
        decide(&[&p], &request("s3tables:GetTable", BUCKET, &[])),
        Decision::Allow
    );
}

fn with_condition(condition: &str) -> String {
    allow(&format!(
        r#"{{"Effect": "Allow", "Action": "kms:Decrypt", "Resource": "*", "Condition": {condition}}}"#
    ))
}

#[test]
fn string_equals_is_exact_and_case_sensitive_and_values_are_ored() {
    let p = with_condition(
        r#"{"StringEquals": {"kms:ViaService": ["s3.us-east-1.amazonaws.com", "s3tables.us-east-1.amazonaws.com"]}}"#,
    );
    let r = |v: &str| request("kms:Decrypt", "k", &[("kms:ViaService", v)]);
    assert_eq!(
        decide(&[&p], &r("s3tables.us-east-1.amazonaws.com")),
        Decision::Allow
    );
    assert_eq!(
        decide(&[&p], &r("S3.us-east-1.amazonaws.com")),
        Decision::ImplicitDeny
    );
    assert_eq!(
        decide(&[&p], &r("s3.us-west-2.amazonaws.com")),
        Decision::ImplicitDeny
    );
}

#[test]
fn condition_keys_are_anded_within_and_across_blocks() {
    let p = with_condition(
        r#"{"StringEquals": {"aws:SourceAccount": "1", "aws:ResourceAccount": "2"}, "StringLike": {"kms:ViaService": "s3*"}}"#,
    );
    let all = [
        ("aws:SourceAccount", "1"),
        ("aws:ResourceAccount", "2"),
        ("kms:ViaService", "s3.x"),
    ];
    assert_eq!(
        decide(&[&p], &request("kms:Decrypt", "k", &all)),
        Decision::Allow
    );
    let wrong = [
        ("aws:SourceAccount", "1"),
        ("aws:ResourceAccount", "3"),
        ("kms:ViaService", "s3.x"),
    ];
    assert_eq!(
        decide(&[&p], &request("kms:Decrypt", "k", &wrong)),
        Decision::ImplicitDeny
    );
    let other_block = [
        ("aws:SourceAccount", "1"),
        ("aws:ResourceAccount", "2"),
        ("kms:ViaService", "glue.x"),
    ];
    assert_eq!(
        decide(&[&p], &request("kms:Decrypt", "k", &other_block)),
        Decision::ImplicitDeny
    );
}

#[test]
fn string_like_takes_wildcards_case_sensitively() {
    let p = with_condition(
        r#"{"StringLike": {"kms:EncryptionContext:aws:s3:arn": "arn:aws:s3tables:us-east-1:1:bucket/b/*"}}"#,
    );
    let r = |v: &str| {
        request(
            "kms:Decrypt",
            "k",
            &[("kms:EncryptionContext:aws:s3:arn", v)],
        )
    };
    assert_eq!(
        decide(&[&p], &r("arn:aws:s3tables:us-east-1:1:bucket/b/table/x")),
        Decision::Allow
    );
    assert_eq!(
        decide(&[&p], &r("arn:aws:s3tables:us-east-1:1:bucket/B/table/x")),
        Decision::ImplicitDeny
    );
}

#[test]
fn arn_like_and_arn_equals_match_each_component() {
    for op in ["ArnLike", "ArnEquals"] {
        let p = with_condition(&format!(
            r#"{{"{op}": {{"aws:SourceArn": "arn:aws:kinesis:*:123456789012:channel/*"}}}}"#
        ));
        let r = |v: &str| request("kms:Decrypt", "k", &[("aws:SourceArn", v)]);
        assert_eq!(
            decide(
                &[&p],
                &r("arn:aws:kinesis:us-east-1:123456789012:channel/abc")
            ),
            Decision::Allow,
            "{op}"
        );
        assert_eq!(
            decide(
                &[&p],
                &r("arn:aws:kinesis:us-east-1:123456789012:stream/abc")
            ),
            Decision::ImplicitDeny,
            "{op}"
        );
        assert_eq!(
            decide(
                &[&p],
                &r("arn:aws:kinesis:us-east-1:999999999999:channel/abc")
            ),
            Decision::ImplicitDeny,
            "{op}"
        );
        assert_eq!(
            decide(
                &[&p],
                &r("arn:aws:KINESIS:us-east-1:123456789012:channel/abc")
            ),
            Decision::ImplicitDeny,
            "{op}"
        );
    }
}

#[test]
fn an_absent_key_fails_except_if_exists_and_negated_operators() {
    let r = request("kms:Decrypt", "k", &[]);
    let plain =
        with_condition(r#"{"StringEquals": {"kms:ViaService": "s3.us-east-1.amazonaws.com"}}"#);
    let if_exists = with_condition(
        r#"{"StringEqualsIfExists": {"kms:ViaService": "s3.us-east-1.amazonaws.com"}}"#,
    );
    let negated =
        with_condition(r#"{"StringNotEquals": {"kms:ViaService": "s3.us-east-1.amazonaws.com"}}"#);
    let arn_negated =
        with_condition(r#"{"ArnNotLike": {"aws:SourceArn": "arn:aws:kinesis:*:*:stream/*"}}"#);
    assert_eq!(decide(&[&plain], &r), Decision::ImplicitDeny);
    assert_eq!(decide(&[&if_exists], &r), Decision::Allow);
    assert_eq!(decide(&[&negated], &r), Decision::Allow);
    assert_eq!(decide(&[&arn_negated], &r), Decision::Allow);
    // IfExists with the key present compares as usual.
    let present = request(
        "kms:Decrypt",
        "k",
        &[("kms:ViaService", "glue.us-east-1.amazonaws.com")],
    );
    assert_eq!(decide(&[&if_exists], &present), Decision::ImplicitDeny);
    assert_eq!(decide(&[&negated], &present), Decision::Allow);
}

#[test]
fn condition_keys_ignore_case_and_values_may_be_numbers() {
    let p = with_condition(r#"{"StringEquals": {"AWS:SourceAccount": 123456789012}}"#);
    let r = request("kms:Decrypt", "k", &[("aws:sourceaccount", "123456789012")]);
    assert_eq!(decide(&[&p], &r), Decision::Allow);
}

#[test]
fn an_unknown_operator_is_reported_and_its_statement_left_out() {
    let text =
        with_condition(r#"{"DateGreaterThan": {"aws:CurrentTime": "2026-01-01T00:00:00Z"}}"#);
    let (p, d) = Policy::from_text("p.json", &text, PolicyKind::Identity);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, CONDITION_OPERATOR.name);
    let r = request(
        "kms:Decrypt",
        "k",
        &[("aws:CurrentTime", "2027-01-01T00:00:00Z")],
    );
    assert_eq!(evaluate(&[&p], &r).decision, Decision::ImplicitDeny);
}

#[test]
fn principals_name_services_roles_and_accounts() {
    let trust = r#"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Principal": {"Service": ["kinesis.amazonaws.com"]}, "Action": "sts:AssumeRole"}}"#;
    let (p, d) = Policy::from_text("t.json", trust, PolicyKind::Trust);
    assert!(d.is_empty(), "{d:?}");
    let mut r = request("sts:AssumeRole", "", &[]);
    r.resource = None;
    r.caller = Caller::Service("kinesis.amazonaws.com".to_string());
    assert_eq!(evaluate(&[&p], &r).decision, Decision::Allow);
    r.caller = Caller::Service("kafka.amazonaws.com".to_string());
    assert_eq!(evaluate(&[&p], &r).decision, Decision::ImplicitDeny);
    let key = r#"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"}, "Action": "kms:*", "Resource": "*"}}"#;
    let (k, d) = Policy::from_text("k.json", key, PolicyKind::Resource);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(
        evaluate(&[&k], &request("kms:Decrypt", "k", &[])).decision,
        Decision::Allow
    );
    let other = key.replace("123456789012", "210987654321");
    let (k, _) = Policy::from_text("k.json", &other, PolicyKind::Resource);
    assert_eq!(
        evaluate(&[&k], &request("kms:Decrypt", "k", &[])).decision,
        Decision::ImplicitDeny
    );
}

#[test]
fn grammar_mistakes_are_reported_at_their_place() {
    let cases = [
        ("[]", "a policy is a JSON object"),
        (r#"{"Statement": []}"#, "no `Version`"),
        (r#"{"Version": "2012-10-17"}"#, "no `Statement`"),
        (
            r#"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Resource": "*"}]}"#,
            "neither `Action` nor `NotAction`",
        ),
        (
            r#"{"Version": "2012-10-17", "Statement": [{"Effect": "allow", "Action": "s3:*", "Resource": "*"}]}"#,
            "`Effect`",
        ),
        (
            r#"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*"}]}"#,
            "neither `Resource` nor `NotResource`",
        ),
        (
            r#"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "GetTable", "Resource": "*"}]}"#,
            "not an action",
        ),
    ];
    for (text, expected) in cases {
        let (_, d) = Policy::from_text("p.json", text, PolicyKind::Identity);
        assert!(
            d.iter()
                .any(|d| d.code == INVALID.name && d.message.contains(expected)),
            "{text}: {d:?}"
        );
    }
    let (_, d) = Policy::from_text("p.json", "{not json", PolicyKind::Identity);
    assert_eq!(d.first().map(|d| d.code), Some("invalid-json"));
}

/// Patterns made of the pieces that policies use, with wildcards.
fn pattern() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("s3tables".to_string()),
            Just("kms".to_string()),
            Just(":".to_string()),
            Just("Get".to_string()),
            Just("get".to_string()),
            Just("Table".to_string()),
            Just("*".to_string()),
            Just("?".to_string()),
            Just("/".to_string()),
            Just("b".to_string()),
        ],
        1..6,
    )
    .prop_map(|parts| parts.concat())
}

fn concrete() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("s3tables".to_string()),
            Just("kms".to_string()),
            Just(":".to_string()),
            Just("Get".to_string()),
            Just("Table".to_string()),
            Just("/".to_string()),
            Just("b".to_string()),
        ],
        1..6,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever the Allow statements say, a request that a Deny statement covers is never
    /// allowed; and taking the Deny away never turns an Allow into a Deny.
    #[test]
    fn a_deny_never_grants_what_it_denies(
        allow_action in pattern(), allow_resource in pattern(),
        deny_action in pattern(), deny_resource in pattern(),
        not_action in any::<bool>(), not_resource in any::<bool>(),
        action in concrete(), resource in concrete(),
    ) {
        let deny_action_key = if not_action { "NotAction" } else { "Action" };
        let deny_resource_key = if not_resource { "NotResource" } else { "Resource" };
        let text = serde_json::json!({
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": allow_action, "Resource": allow_resource},
                {"Effect": "Deny", deny_action_key: deny_action, deny_resource_key: deny_resource},
            ]
        }).to_string();
        let (p, _) = Policy::from_text("p.json", &text, PolicyKind::Identity);
        let deny_only = serde_json::json!({
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", deny_action_key: deny_action, deny_resource_key: deny_resource}]
        }).to_string();
        let (d, _) = Policy::from_text("d.json", &deny_only, PolicyKind::Identity);
        let r = Request {
            caller: Caller::Role(ROLE.to_string()),
            action,
            resource: Some(resource),
            context: Vec::new(),
        };
        // The Deny, read as an Allow, says whether it covers the request.
        let covered = evaluate(&[&d], &r).decision == Decision::Allow;
        let decision = evaluate(&[&p], &r).decision;
        if covered {
            prop_assert_eq!(decision, Decision::ExplicitDeny);
        } else {
            prop_assert_ne!(decision, Decision::ExplicitDeny);
        }
    }
}
