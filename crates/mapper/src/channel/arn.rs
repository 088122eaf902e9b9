//! ARN patterns of the Kinesis and MSK channel APIs, each written out as a check that says which
//! part of a bad ARN is wrong.

use super::names::{describe_char, first_bad, is_account};

/// What is wrong with a value that should be an ARN of some shape: the end of the message
/// that names the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(super) struct ArnProblem(String);

/// The six colon-separated fields of an ARN; the resource keeps any further colons.
pub(super) struct Arn<'s> {
    partition: &'s str,
    pub(super) service: &'s str,
    pub(super) region: &'s str,
    pub(super) account: &'s str,
    pub(super) resource: &'s str,
}

impl<'s> Arn<'s> {
    pub(super) fn parse(value: &'s str) -> Option<Arn<'s>> {
        let mut fields = value.splitn(6, ':');
        if fields.next()? != "arn" {
            return None;
        }
        Some(Arn {
            partition: fields.next()?,
            service: fields.next()?,
            region: fields.next()?,
            account: fields.next()?,
            resource: fields.next()?,
        })
    }
}

/// What the partition field of an ARN pattern allows.
#[derive(Clone, Copy)]
enum PartitionRule {
    /// `aws[-a-z0-9]*`
    Aws,
    /// `aws.*`
    AwsAnything,
    /// `[\w-]+` (the MSK CloudFormation patterns)
    Word,
}

/// What the region or account field of an ARN pattern allows.
#[derive(Clone, Copy)]
enum FieldRule {
    /// Empty, as in `arn:aws:s3:::bucket`.
    Empty,
    /// A region: `[-a-z0-9]+`.
    Region,
    /// Anything (`.*`).
    Anything,
    /// `[\w-]+`.
    Word,
    /// `\d{12}`.
    Account,
    /// `\d+`.
    Digits,
}

/// One ARN pattern of the API, written out as a check so that each failure can say which part
/// is wrong.
pub(super) struct ArnSpec {
    pub(super) what: &'static str,
    pub(super) shape: &'static str,
    partition: PartitionRule,
    service: &'static str,
    region: FieldRule,
    account: FieldRule,
    resource: fn(&str) -> Result<(), ArnProblem>,
    max_len: usize,
}

pub(super) const TABLE_BUCKET_ARN: ArnSpec = ArnSpec {
    what: "an S3 Tables table bucket ARN",
    shape: "arn:aws:s3tables:<region>:<account>:bucket/<bucket-name>",
    partition: PartitionRule::Aws,
    service: "s3tables",
    region: FieldRule::Region,
    account: FieldRule::Account,
    resource: |r| table_bucket_name(r.strip_prefix("bucket/"), "bucket/<bucket-name>"),
    max_len: 2048,
};

pub(super) const S3_BUCKET_ARN: ArnSpec = ArnSpec {
    what: "an S3 bucket ARN",
    shape: "arn:aws:s3:::<bucket-name>",
    partition: PartitionRule::Aws,
    service: "s3",
    region: FieldRule::Empty,
    account: FieldRule::Empty,
    resource: |r| {
        name_of(
            r,
            3,
            63,
            |c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'),
            "the bucket name",
            "lowercase letters, digits, `.`, `_` and `-`",
        )
    },
    max_len: 2048,
};

pub(super) const STREAM_ARN: ArnSpec = ArnSpec {
    what: "a Kinesis stream ARN",
    shape: "arn:aws:kinesis:<region>:<account>:stream/<stream-name>",
    partition: PartitionRule::AwsAnything,
    service: "kinesis",
    region: FieldRule::Anything,
    account: FieldRule::Account,
    resource: |r| match r.strip_prefix("stream/") {
        Some(name) if !name.is_empty() && !name.chars().any(char::is_whitespace) => Ok(()),
        Some(_) => Err(ArnProblem(
            "the stream name is empty or has white space".to_string(),
        )),
        None => Err(ArnProblem(format!(
            "the resource `{r}` does not begin with `stream/`"
        ))),
    },
    max_len: 2048,
};

pub(super) const GSR_ARN: ArnSpec = ArnSpec {
    what: "a Glue Schema Registry schema ARN",
    shape: "arn:aws:glue:<region>:<account>:schema/<registry-name>/<schema-name>",
    partition: PartitionRule::Aws,
    service: "glue",
    region: FieldRule::Region,
    account: FieldRule::Account,
    resource: |r| {
        let Some(names) = r.strip_prefix("schema/") else {
            return Err(ArnProblem(format!(
                "the resource `{r}` does not begin with `schema/`"
            )));
        };
        let Some((registry, schema)) = names.split_once('/') else {
            return Err(ArnProblem(format!(
                "the resource `{r}` names no registry; it must be `schema/<registry-name>/<schema-name>`"
            )));
        };
        let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '$' | '#' | '.');
        name_of(
            registry,
            1,
            usize::MAX,
            ok,
            "the registry name",
            "letters, digits, `-`, `_`, `$`, `#` and `.`",
        )?;
        name_of(
            schema,
            1,
            usize::MAX,
            ok,
            "the schema name",
            "letters, digits, `-`, `_`, `$`, `#` and `.`",
        )
    },
    max_len: 512,
};

pub(super) const ROLE_ARN: ArnSpec = ArnSpec {
    what: "an IAM role ARN",
    shape: "arn:aws:iam::<account>:role/<role-name>",
    partition: PartitionRule::Aws,
    service: "iam",
    region: FieldRule::Empty,
    account: FieldRule::Account,
    resource: |r| match r.strip_prefix("role/") {
        Some(name) => name_of(
            name,
            1,
            usize::MAX,
            |c| c.is_ascii_alphanumeric() || "_+=,.@-/".contains(c),
            "the role name",
            "letters, digits and `_+=,.@-/`",
        ),
        None => Err(ArnProblem(format!(
            "the resource `{r}` does not begin with `role/`"
        ))),
    },
    max_len: 512,
};

pub(super) const KMS_KEY_ARN: ArnSpec = ArnSpec {
    what: "a KMS key ARN",
    shape: "arn:aws:kms:<region>:<account>:key/<key-id>",
    partition: PartitionRule::Aws,
    service: "kms",
    region: FieldRule::Region,
    account: FieldRule::Account,
    resource: |r| match r.strip_prefix("key/") {
        Some(id) if !id.is_empty() && !id.chars().any(char::is_whitespace) => Ok(()),
        Some(_) => Err(ArnProblem(
            "the key id is empty or has white space".to_string(),
        )),
        None => Err(ArnProblem(format!(
            "the resource `{r}` does not begin with `key/`"
        ))),
    },
    max_len: 2048,
};

pub(super) const CATALOG_ARN: ArnSpec = ArnSpec {
    what: "an S3 Tables catalog ARN",
    shape: "arn:aws:glue:<region>:<account>:catalog/s3tablescatalog/<bucket-name>",
    partition: PartitionRule::Aws,
    service: "glue",
    region: FieldRule::Region,
    account: FieldRule::Account,
    resource: |r| {
        table_bucket_name(
            r.strip_prefix("catalog/s3tablescatalog/"),
            "catalog/s3tablescatalog/<bucket-name>",
        )
    },
    max_len: 2048,
};

pub(super) const TOPIC_ARN: ArnSpec = ArnSpec {
    what: "an MSK topic ARN",
    shape: "arn:aws:kafka:<region>:<account>:topic/<cluster-name>/<cluster-uuid>/<topic-name>",
    partition: PartitionRule::Word,
    service: "kafka",
    region: FieldRule::Word,
    account: FieldRule::Digits,
    resource: |r| {
        if r.starts_with("topic") {
            Ok(())
        } else {
            Err(ArnProblem(format!(
                "the resource `{r}` does not begin with `topic`"
            )))
        }
    },
    max_len: usize::MAX,
};

pub(super) const CLUSTER_ARN: ArnSpec = ArnSpec {
    what: "an MSK cluster ARN",
    shape: "arn:aws:kafka:<region>:<account>:cluster/<cluster-name>/<cluster-uuid>",
    partition: PartitionRule::Word,
    service: "kafka",
    region: FieldRule::Word,
    account: FieldRule::Digits,
    resource: |r| {
        if r.starts_with("cluster") {
            Ok(())
        } else {
            Err(ArnProblem(format!(
                "the resource `{r}` does not begin with `cluster`"
            )))
        }
    },
    max_len: usize::MAX,
};

fn table_bucket_name(name: Option<&str>, shape: &str) -> Result<(), ArnProblem> {
    match name {
        Some(name) => name_of(
            name,
            3,
            63,
            |c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '-'),
            "the table bucket name",
            "lowercase letters, digits, `_` and `-`",
        ),
        None => Err(ArnProblem(format!("the resource must be `{shape}`"))),
    }
}

fn name_of(
    value: &str,
    min: usize,
    max: usize,
    ok: impl Fn(char) -> bool,
    what: &str,
    allowed: &str,
) -> Result<(), ArnProblem> {
    let len = value.chars().count();
    if len < min || len > max {
        let range = if max == usize::MAX {
            format!("at least {min}")
        } else {
            format!("{min}–{max}")
        };
        return Err(ArnProblem(format!(
            "{what} `{value}` must have {range} characters"
        )));
    }
    match first_bad(value, ok) {
        Some(c) => Err(ArnProblem(format!(
            "{what} `{value}` has {}; it takes only {allowed}",
            describe_char(c)
        ))),
        None => Ok(()),
    }
}

fn word(value: &str) -> bool {
    !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl ArnSpec {
    pub(super) fn check(&self, value: &str) -> Result<(), ArnProblem> {
        if value.is_empty() {
            return Err(ArnProblem("it is empty".to_string()));
        }
        if value.chars().count() > self.max_len {
            return Err(ArnProblem(format!(
                "it is longer than {} characters",
                self.max_len
            )));
        }
        let Some(arn) = Arn::parse(value) else {
            return Err(ArnProblem(if value.starts_with("arn:") {
                "it has fewer than six `:`-separated fields".to_string()
            } else {
                "it does not begin with `arn:`".to_string()
            }));
        };
        let partition_ok = match self.partition {
            PartitionRule::Aws => arn.partition.strip_prefix("aws").is_some_and(|rest| {
                rest.chars()
                    .all(|c| c == '-' || c.is_ascii_lowercase() || c.is_ascii_digit())
            }),
            PartitionRule::AwsAnything => arn.partition.starts_with("aws"),
            PartitionRule::Word => word(arn.partition),
        };
        if !partition_ok {
            return Err(ArnProblem(format!(
                "`{}` is not an AWS partition",
                arn.partition
            )));
        }
        if arn.service != self.service {
            return Err(ArnProblem(format!(
                "the service is `{}`, not `{}`",
                arn.service, self.service
            )));
        }
        let field = |rule: FieldRule, value: &str, name: &str| -> Result<(), ArnProblem> {
            let ok = match rule {
                FieldRule::Empty => value.is_empty(),
                FieldRule::Region => {
                    !value.is_empty()
                        && value
                            .chars()
                            .all(|c| c == '-' || c.is_ascii_lowercase() || c.is_ascii_digit())
                }
                FieldRule::Anything => true,
                FieldRule::Word => word(value),
                FieldRule::Account => is_account(value),
                FieldRule::Digits => !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()),
            };
            if ok {
                Ok(())
            } else if value.is_empty() {
                Err(ArnProblem(format!("the {name} field is empty")))
            } else if matches!(rule, FieldRule::Empty) {
                Err(ArnProblem(format!(
                    "the {name} field must be empty, not `{value}`"
                )))
            } else if matches!(rule, FieldRule::Account) {
                Err(ArnProblem(format!(
                    "the account `{value}` is not 12 digits"
                )))
            } else if matches!(rule, FieldRule::Region) {
                Err(ArnProblem(format!(
                    "the region `{value}` is not a region name (lowercase letters, digits and `-`)"
                )))
            } else {
                Err(ArnProblem(format!("the {name} `{value}` is not valid")))
            }
        };
        field(self.region, arn.region, "region")?;
        field(self.account, arn.account, "account")?;
        (self.resource)(arn.resource)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arn_specs_accept_the_documented_shapes() {
        let ok = [
            (
                &TABLE_BUCKET_ARN,
                "arn:aws:s3tables:us-east-1:123456789012:bucket/my-table-bucket",
            ),
            (&S3_BUCKET_ARN, "arn:aws:s3:::my-dlq.bucket"),
            (
                &STREAM_ARN,
                "arn:aws:kinesis:us-east-1:123456789012:stream/orders",
            ),
            (
                &GSR_ARN,
                "arn:aws:glue:us-east-1:123456789012:schema/my-registry/order$v1",
            ),
            (
                &ROLE_ARN,
                "arn:aws:iam::123456789012:role/service-role/kds+channel",
            ),
            (
                &KMS_KEY_ARN,
                "arn:aws-cn:kms:cn-north-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
            ),
            (
                &CATALOG_ARN,
                "arn:aws:glue:us-east-1:123456789012:catalog/s3tablescatalog/my-table-bucket",
            ),
            (
                &TOPIC_ARN,
                "arn:aws:kafka:us-east-1:123456789012:topic/c/0123-4567/orders",
            ),
        ];
        for (spec, value) in ok {
            assert_eq!(spec.check(value), Ok(()), "{value}");
        }
    }

    #[test]
    fn arn_specs_say_what_is_wrong() {
        assert_eq!(
            TABLE_BUCKET_ARN.check("arn:aws:s3tables:us-east-1:ACCOUNT_ID:bucket/b-1"),
            Err(ArnProblem(
                "the account `ACCOUNT_ID` is not 12 digits".to_string()
            ))
        );
        assert_eq!(
            S3_BUCKET_ARN.check("arn:aws:s3:us-east-1::my-dlq"),
            Err(ArnProblem(
                "the region field must be empty, not `us-east-1`".to_string()
            ))
        );
        assert_eq!(
            GSR_ARN.check("arn:aws:glue:us-east-1:123456789012:registry/r"),
            Err(ArnProblem(
                "the resource `registry/r` does not begin with `schema/`".to_string()
            ))
        );
        assert!(TABLE_BUCKET_ARN
            .check("arn:aws:s3tables:us-east-1:123456789012:bucket/ab")
            .is_err());
        assert!(STREAM_ARN.check("not an arn").is_err());
    }
}
