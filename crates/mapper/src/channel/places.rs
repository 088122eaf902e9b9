//! Where a channel's resources are: every well-formed ARN of its configuration (table bucket,
//! role, GSR schema, keys, catalog) compared with the stream's or the cluster's. A channel
//! delivers within one Region, and one that names another is created, then goes from CREATING to
//! FAILED, which cannot be recovered; an ARN in another account works only with permissions
//! granted across accounts.

use schema2iceberg_parser::{Diagnostic, Location};

use super::{CROSS_ACCOUNT, OTHER_REGION};

/// A well-formed ARN of a configuration, with where it is.
#[derive(Debug, Clone)]
pub(super) struct SeenArn {
    pub(super) key: String,
    pub(super) value: String,
    pub(super) region: String,
    pub(super) account: String,
    pub(super) location: Location,
}

/// The keys whose ARN says where the channel runs: its source.
const SOURCE_KEYS: [&str; 3] = ["StreamARN", "ClusterArn", "TopicArn"];

/// The findings of comparing every ARN with the source's, each at the ARN that differs. A key
/// whose ARN has no Region or account (an S3 bucket's) is not compared on that part.
pub(super) fn compare(arns: &[SeenArn]) -> Vec<Diagnostic> {
    let Some(source) = arns.iter().find(|a| SOURCE_KEYS.contains(&a.key.as_str())) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for arn in arns
        .iter()
        .filter(|a| !SOURCE_KEYS.contains(&a.key.as_str()))
    {
        if !arn.region.is_empty() && !source.region.is_empty() && arn.region != source.region {
            found.push(
                Diagnostic::new(
                    &OTHER_REGION,
                    arn.location.clone(),
                    format!(
                        "`{}` `{}` is in {}, but the channel's source `{}` `{}` is in {}: a channel delivers within one Region, and this one would go from CREATING to FAILED, which cannot be recovered",
                        arn.key, arn.value, arn.region, source.key, source.value, source.region
                    ),
                )
                .with_help(format!(
                    "give a `{}` in {}, the source's Region (or create the channel, with its source, in {})",
                    arn.key, source.region, arn.region
                )),
            );
        }
        if !arn.account.is_empty() && !source.account.is_empty() && arn.account != source.account {
            found.push(
                Diagnostic::new(
                    &CROSS_ACCOUNT,
                    arn.location.clone(),
                    format!(
                        "`{}` `{}` is in account {}, but the channel's source `{}` is in account {}: the channel's role needs access granted across accounts",
                        arn.key, arn.value, arn.account, source.key, source.account
                    ),
                )
                .with_help(format!(
                    "grant the role in account {} access in account {} (a resource policy on `{}`, and a trust or key policy as the resource needs), or use a resource in account {}; the Kinesis guide says Iceberg delivery does not support other accounts",
                    source.account, arn.account, arn.value, source.account
                )),
            );
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(key: &str, value: &str) -> SeenArn {
        let mut parts = value.splitn(6, ':').skip(3);
        SeenArn {
            key: key.to_string(),
            value: value.to_string(),
            region: parts.next().unwrap_or_default().to_string(),
            account: parts.next().unwrap_or_default().to_string(),
            location: Location::default(),
        }
    }

    #[test]
    fn another_region_is_an_error_and_another_account_a_warning() {
        let arns = [
            seen(
                "StreamARN",
                "arn:aws:kinesis:us-east-1:111111111111:stream/s",
            ),
            seen(
                "TableBucketARN",
                "arn:aws:s3tables:eu-west-1:111111111111:bucket/b",
            ),
            seen("BucketARN", "arn:aws:s3:::dlq"),
            seen("KeyId", "arn:aws:kms:us-east-1:222222222222:key/k"),
        ];
        let found = compare(&arns);
        let codes: Vec<&str> = found.iter().map(|d| d.code).collect();
        assert_eq!(codes, [OTHER_REGION.name, CROSS_ACCOUNT.name]);
        assert!(found[0].message.contains("eu-west-1"));
        assert!(found[0].message.contains("us-east-1"));
        assert!(compare(&arns[..1]).is_empty());
    }
}
