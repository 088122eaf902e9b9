//! The permissions a Kinesis or MSK streaming-tables channel needs: the role's permission
//! policy, its trust policy, the table key's policy and the cross-account table bucket policy,
//! generated from the channel configuration ([`generate`]) and checked in the documents a team
//! already has ([`check_policies`]).
//!
//! Pure: no I/O. The IAM evaluation ([`eval`]) follows the IAM user guide as quoted in
//! `../shared/reference/aws-channel-permissions-facts.md` (section 7); the required-permissions
//! table ([`required`]) follows its sections 1 to 5, with the decisions where the sources
//! disagree written in docs/policies.md. Each module: `document` reads a policy file,
//! `wildcard` matches `*` and `?`, `eval` decides one request, `facts` reads what the
//! permissions depend on from the configuration, `required` lists the statements, `generate`
//! writes them, `check` evaluates the given documents against them.

mod check;
pub mod document;
pub mod eval;
mod explain;
mod facts;
mod generate;
pub mod required;
mod wildcard;

pub use check::{check_policies, PolicyFiles};
pub use document::{Policy, PolicyKind};
pub use facts::{channel_facts, ChannelFacts, Dlq, FactsError, GsrSchema, Logging};
pub use generate::{generate, statement, Documents, GenerateOptions};

schema2iceberg_parser::code_table! {
    INVALID = "policy-invalid", Error, rule [] section "permissions (docs/policies.md)",
        "A policy file does not follow the IAM policy grammar: it is not a JSON object, has no `Version` or `Statement`, or a statement lacks `Effect`, `Action`/`NotAction`, `Resource`/`NotResource` (role policies) or `Principal` (trust and resource policies). The statement is left out of the check.",
        "Write the element the message names; AWS's policy editors reject the document as it is.",
        r#"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Resource": "*"}]}"#;
    CONDITION_OPERATOR = "policy-condition-operator", Error, rule [] section "permissions (docs/policies.md)",
        "A statement uses a condition operator that the evaluator does not know (such as `ForAnyValue:StringLike` or `NumericLessThan`); the statement is left out of the check rather than guessed at.",
        "Use one of the string, ARN, `Bool` or `Null` operators where you can, or lower this code's severity and check the statement by hand.",
        r#"{"Condition": {"DateGreaterThan": {"aws:CurrentTime": "2026-01-01T00:00:00Z"}}}"#;
    ROLE_PERMISSION = "policy-role-permission", Error, rule [] section "permissions (docs/policies.md)",
        "The execution role's policies do not grant an action that the channel needs, on the resource and in the context the service asks it (or a Deny takes it away).",
        "Add the action to the statement that the message names; `schema2iceberg policies` prints the whole least-privilege policy.",
        r#"{"Sid": "S3TablesAccess", "Effect": "Allow", "Action": ["s3tables:GetTable"], "Resource": ["arn:aws:s3tables:…:bucket/b"]}"#;
    PUT_TABLE_ENCRYPTION = "policy-put-table-encryption", Warning, rule [] section "permissions (docs/policies.md)",
        "Without a customer managed key, the role's policies do not grant `s3tables:PutTableEncryption`; the AWS guides require it only with a key, but the reference calls KMS encryption the default and names this as the reason a table is never created.",
        "Add `s3tables:PutTableEncryption` to the S3 Tables statement.",
        r#"{"Sid": "S3TablesAccess", "Action": ["s3tables:CreateTable", "…"]} with no EncryptionConfiguration"#;
    TRUST = "policy-trust", Error, rule [] section "permissions (docs/policies.md)",
        "The trust policy does not let the channel's service principal (`kinesis.amazonaws.com`, `kafka.amazonaws.com`) assume the role for the channel's account and `channel/*` ARN: the channel goes to FAILED with AccessDenied on `sts:AssumeRole`.",
        "Trust the service principal of the channel's service, with `aws:SourceAccount` the role's account and `aws:SourceArn` like `arn:aws:SERVICE:REGION:ACCOUNT:channel/*`.",
        r#"{"Principal": {"Service": "firehose.amazonaws.com"}, "Action": "sts:AssumeRole"}"#;
    UNSCOPED = "policy-unscoped", Warning, rule [] section "permissions (docs/policies.md)",
        "A statement grants what the channel needs, but without the condition that the AWS guides use to keep others out (`aws:SourceAccount` and `aws:SourceArn` in the trust policy, `aws:ResourceAccount` on the dead-letter bucket, `kms:ViaService` and `kms:EncryptionContext:aws:s3:arn` on the dead-letter key, the bucket scope of the maintenance grant).",
        "Add the condition that the message names; `schema2iceberg policies` writes each one.",
        r#"{"Principal": {"Service": "kinesis.amazonaws.com"}, "Action": "sts:AssumeRole"} with no Condition"#;
    KEY_ROLE = "policy-key-role", Error, rule [] section "permissions (docs/policies.md)",
        "The table key's policy neither enables IAM policies for the role's account nor names the role (or denies it), so the role's own KMS grant counts for nothing: the table cannot be encrypted with the key.",
        "Keep the key policy's default statement for `arn:aws:iam::ACCOUNT:root`, or add a statement naming the role.",
        r#"a key policy whose only statement is for another account's root"#;
    KEY_MAINTENANCE = "policy-key-maintenance", Error, rule [] section "permissions (docs/policies.md)",
        "The table key's policy does not grant `maintenance.s3tables.amazonaws.com` `kms:GenerateDataKey` and `kms:Decrypt` for this bucket's tables: CreateTable fails (the S3 Tables KMS page), or delivery cycles fail with InternalError (the reference).",
        "Add the statement that `schema2iceberg policies` prints as `table-key-policy-statement`; with `aws:SourceArn`, end the bucket ARN with `*`.",
        r#"{"Principal": {"Service": "maintenance.s3tables.amazonaws.com"}, "Condition": {"ArnLike": {"aws:SourceArn": "arn:aws:s3tables:…:bucket/b"}}}"#;
    TABLE_BUCKET = "policy-table-bucket", Error, rule [] section "permissions (docs/policies.md)",
        "The table bucket is in another account than the role, and its bucket policy is missing (MSK) or does not grant the role the S3 Tables actions; across accounts, both the role's policy and the bucket's policy must allow.",
        "Have the bucket's owner attach the policy that `schema2iceberg policies` prints as `table-bucket-policy`.",
        r#"a role in 111111111111 and a TableBucketARN in 222222222222, with no bucket policy"#;
    CROSS_ACCOUNT_KINESIS = "policy-cross-account-kinesis", Warning, rule [] section "permissions (docs/policies.md)",
        "A Kinesis channel writes to a table bucket in another account than its role: the Kinesis guide says Iceberg delivery does not support cross-account delivery, while the reference shows how with a table bucket policy.",
        "Keep the stream, the table bucket and the Glue schema in one account, or confirm with AWS that cross-account delivery works for you.",
        r#"ServiceExecutionRoleARN in 111111111111, TableBucketARN in 222222222222"#;
    SUGGESTED = "policy-suggested", Note, rule [] section "permissions (docs/policies.md)",
        "The reference document lists actions that the service's AWS guide does not require (`s3tables:GetNamespace`, `logs:DescribeLogStreams`, Glue's `GetRegistry`, `GetSchema`, `GetSchemaByDefinition`, `ListRegistries`, `ListSchemas`, and a few more); they are suggested, never required.",
        "Nothing to fix; add them if you follow the reference, or allow this code.",
        r#"{"Sid": "GlueSchemaRegistryAccess", "Action": ["glue:GetSchemaVersion"]}"#;
    NOT_AN_ACTION = "policy-not-an-action", Note, rule [] section "permissions (docs/policies.md)",
        "A role policy lists `s3:UploadPart`, `s3:CreateMultipartUpload` or `s3:CompleteMultipartUpload`, which are S3 API operations, not IAM actions: `s3:PutObject` authorises multipart uploads, so they grant nothing.",
        "Remove them; keep `s3:PutObject`.",
        r#"{"Action": ["s3:PutObject", "s3:UploadPart"]}"#;
}

#[cfg(test)]
mod tests;
