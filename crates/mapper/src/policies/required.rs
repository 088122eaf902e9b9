//! The required-permissions table: for one channel, every statement it needs, in which
//! document, for which principal, with which actions on which resources, the request context
//! the service sends, the conditions a least-privilege statement carries, and the failure the
//! reference names when it is missing. Both the generator and the checker read it, so a
//! generated document passes the check by construction.
//!
//! Sources: `../shared/reference/aws-channel-permissions-facts.md`, sections 1 to 5; the
//! decisions where they disagree are in docs/policies.md.

use super::eval::Caller;
use super::facts::{ChannelFacts, GsrSchema};
use crate::channel::Service;

/// The documents a channel needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Document {
    /// The execution role's permission policy (one or more files).
    RolePolicy,
    /// The execution role's trust policy.
    TrustPolicy,
    /// The table key's key policy.
    TableKeyPolicy,
    /// The table bucket's resource policy.
    TableBucketPolicy,
}

impl Document {
    /// The name used in `--format json`, in file names and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Document::RolePolicy => "role-policy",
            Document::TrustPolicy => "trust-policy",
            Document::TableKeyPolicy => "table-key-policy",
            Document::TableBucketPolicy => "table-bucket-policy",
        }
    }
}

/// How much an action is needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// An AWS user guide requires it: missing is an error.
    Required,
    /// `s3tables:PutTableEncryption` without a customer managed key: missing is a warning.
    Warn,
    /// Only the reference document lists it: missing is a note, and it is not generated.
    Suggested,
}

/// One action a statement needs, on which resources (every one must be granted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Need {
    /// `service:Name`.
    pub action: &'static str,
    /// How much it is needed.
    pub level: Level,
    /// The resources the service asks for it on (`None`: `sts:AssumeRole`, no resource).
    pub samples: Vec<Option<String>>,
}

/// A condition that a least-privilege statement carries, and whose absence the check reports:
/// the request is tried again with these keys set to values from outside the channel, and must
/// then be denied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guard {
    /// The keys changed together, with their values from outside the channel.
    pub foreign: Vec<(String, String)>,
    /// What the guard keeps out, for the message.
    pub keeps_out: &'static str,
}

/// A condition the generator writes: operator, key, values.
pub type GenCondition = (&'static str, &'static str, Vec<String>);

/// One statement a channel needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Purpose {
    /// The statement's `Sid`.
    pub sid: &'static str,
    /// The document it belongs in.
    pub document: Document,
    /// The caller: the role, or a service principal.
    pub caller: Caller,
    /// The actions, with the resources each is asked on.
    pub needs: Vec<Need>,
    /// The `Resource` the generator writes (`None`: trust policy).
    pub resources: Option<Vec<String>>,
    /// The request contexts the service may send: granted under any one is enough (the sources
    /// disagree on `kms:ViaService`).
    pub contexts: Vec<Vec<(String, String)>>,
    /// The conditions the generator writes.
    pub conditions: Vec<GenCondition>,
    /// The conditions whose absence the check reports.
    pub guards: Vec<Guard>,
    /// What goes wrong without it, in the words of the reference's troubleshooting table.
    pub symptom: &'static str,
}

/// Names that S3 lists as API operations but that are not IAM actions: `s3:PutObject`
/// authorises multipart uploads.
pub const NOT_ACTIONS: &[&str] = &[
    "s3:UploadPart",
    "s3:CreateMultipartUpload",
    "s3:CompleteMultipartUpload",
];

/// The S3 Tables actions that every source lists.
const TABLE_ACTIONS: &[&str] = &[
    "s3tables:GetTable",
    "s3tables:GetTableBucket",
    "s3tables:GetTableMetadataLocation",
    "s3tables:UpdateTableMetadataLocation",
    "s3tables:CreateNamespace",
    "s3tables:CreateTable",
    "s3tables:PutTableData",
    "s3tables:GetTableData",
    "s3tables:TagResource",
    "s3tables:PutTableRecordExpirationConfiguration",
];

/// A table ARN in the bucket, as the service asks for it: tables are named by a UUID that
/// exists only once the channel creates the table.
pub fn sample_table(facts: &ChannelFacts) -> String {
    format!(
        "{}/table/0f5e3a1c-7b2d-4e8f-9a6b-1c2d3e4f5a6b",
        facts.table_bucket
    )
}

fn need(action: &'static str, level: Level, samples: &[String]) -> Need {
    Need {
        action,
        level,
        samples: samples.iter().cloned().map(Some).collect(),
    }
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Every statement that `facts`'s channel needs, in the order the generator writes them.
/// `dlq_kms_key` is the dead-letter bucket's SSE-KMS key, which the configuration does not say.
pub fn purposes(facts: &ChannelFacts, dlq_kms_key: Option<&str>) -> Vec<Purpose> {
    let role = Caller::Role(facts.role_arn.clone().unwrap_or_else(|| {
        format!(
            "arn:{}:iam::{}:role/channel-role",
            facts.partition, facts.account
        )
    }));
    let mut out = vec![trust(facts), s3_tables(facts, &role)];
    if let Some(p) = dlq(facts, &role) {
        out.push(p);
    }
    if let Some(p) = glue(facts, &role) {
        out.push(p);
    }
    if let Some(key) = &facts.table_key {
        out.push(table_key(facts, &role, key));
        out.push(maintenance(facts, key));
    }
    if let (Some(key), Some(dlq)) = (dlq_kms_key, &facts.dlq) {
        let object = format!("{}/{}example-object", dlq.bucket_arn, dlq.prefix);
        let via = format!("s3.{}.amazonaws.com", facts.region);
        let pattern = format!("{}/*", dlq.bucket_arn);
        let key = key.to_string();
        out.push(Purpose {
            sid: "KMSAccessDLQ",
            document: Document::RolePolicy,
            caller: role.clone(),
            needs: vec![
                need("kms:Decrypt", Level::Required, std::slice::from_ref(&key)),
                need("kms:GenerateDataKey", Level::Required, std::slice::from_ref(&key)),
            ],
            resources: Some(vec![key]),
            contexts: vec![pairs(&[
                ("kms:ViaService", &via),
                ("kms:EncryptionContext:aws:s3:arn", &object),
            ])],
            conditions: vec![
                ("StringEquals", "kms:ViaService", vec![via]),
                ("StringLike", "kms:EncryptionContext:aws:s3:arn", vec![pattern]),
            ],
            guards: vec![
                Guard {
                    foreign: pairs(&[("kms:ViaService", &format!("sqs.{}.amazonaws.com", facts.region))]),
                    keeps_out: "use of the key through other services than S3 (kms:ViaService)",
                },
                Guard {
                    foreign: pairs(&[("kms:EncryptionContext:aws:s3:arn", "arn:aws:s3:::another-bucket/object")]),
                    keeps_out: "use of the key for other buckets (kms:EncryptionContext:aws:s3:arn)",
                },
            ],
            symptom: "records that fail cannot be written to the dead-letter bucket (AccessDenied writing failed records)",
        });
    }
    if let Some(p) = logs(facts, &role) {
        out.push(p);
    }
    if facts.cross_account() {
        out.push(bucket_policy(facts, &role));
    }
    out
}

fn trust(facts: &ChannelFacts) -> Purpose {
    let sample = match (facts.service, facts.source_arn.as_deref()) {
        (Service::Msk, Some(source)) => {
            // `cluster/NAME/UUID` or `topic/NAME/UUID/TOPIC` → `channel/NAME/UUID/CHANNEL`.
            let resource = source.splitn(6, ':').nth(5).unwrap_or("");
            let mut parts = resource.split('/').skip(1);
            let (name, uuid) = (
                parts.next().unwrap_or("cluster"),
                parts.next().unwrap_or("uuid"),
            );
            let channel = facts.channel_name.as_deref().unwrap_or("channel");
            format!("{}{name}/{uuid}/{channel}", facts.channel_arn_prefix())
        }
        _ => format!(
            "{}a1b2c3d4-5678-90ab-cdef-EXAMPLE11111",
            facts.channel_arn_prefix()
        ),
    };
    let other_account = if facts.account == "111111111111" {
        "222222222222"
    } else {
        "111111111111"
    };
    let not_channel = match &facts.source_arn {
        Some(arn) => arn.clone(),
        None => format!(
            "{}stream-or-cluster",
            facts.channel_arn_prefix().replace("channel/", "")
        ),
    };
    Purpose {
        sid: "TrustChannelService",
        document: Document::TrustPolicy,
        caller: Caller::Service(facts.service_principal().to_string()),
        needs: vec![Need {
            action: "sts:AssumeRole",
            level: Level::Required,
            samples: vec![None],
        }],
        resources: None,
        contexts: vec![pairs(&[("aws:SourceAccount", &facts.account), ("aws:SourceArn", &sample)])],
        conditions: vec![
            ("StringEquals", "aws:SourceAccount", vec![facts.account.clone()]),
            ("ArnLike", "aws:SourceArn", vec![format!("{}*", facts.channel_arn_prefix())]),
        ],
        guards: vec![
            Guard {
                foreign: pairs(&[("aws:SourceAccount", other_account)]),
                keeps_out: "channels of other accounts (aws:SourceAccount), the confused deputy that both guides guard against",
            },
            Guard {
                foreign: pairs(&[("aws:SourceArn", &not_channel)]),
                keeps_out: "resources of the service other than its channels (aws:SourceArn on `channel/*`)",
            },
        ],
        symptom: "the channel goes to FAILED with AccessDenied on sts:AssumeRole",
    }
}

/// The table actions on the table bucket and its tables, which the role policy and a
/// cross-account bucket policy both grant: `PutTableEncryption` required with a customer-managed
/// key, a warning without one.
fn table_needs(facts: &ChannelFacts, samples: &[String]) -> Vec<Need> {
    let encryption = if facts.table_key.is_some() {
        Level::Required
    } else {
        Level::Warn
    };
    let mut needs: Vec<Need> = TABLE_ACTIONS
        .iter()
        .map(|a| need(a, Level::Required, samples))
        .collect();
    needs.push(need("s3tables:PutTableEncryption", encryption, samples));
    needs
}

fn s3_tables(facts: &ChannelFacts, role: &Caller) -> Purpose {
    let mut purpose = table_access(
        facts,
        role,
        "S3TablesAccess",
        Document::RolePolicy,
        "the channel is ACTIVE but no data arrives, with no dead-letter entries and no logs (at creation: CREATING, then FAILED)",
    );
    let samples = [facts.table_bucket.clone(), sample_table(facts)];
    purpose
        .needs
        .push(need("s3tables:GetNamespace", Level::Suggested, &samples));
    purpose
}

/// The table actions on the table bucket and its tables, granted in `document`: the role
/// policy, or a cross-account bucket policy.
fn table_access(
    facts: &ChannelFacts,
    role: &Caller,
    sid: &'static str,
    document: Document,
    symptom: &'static str,
) -> Purpose {
    let samples = [facts.table_bucket.clone(), sample_table(facts)];
    Purpose {
        sid,
        document,
        caller: role.clone(),
        needs: table_needs(facts, &samples),
        resources: Some(vec![
            facts.table_bucket.clone(),
            format!("{}/table/*", facts.table_bucket),
        ]),
        contexts: vec![pairs(&[("aws:ResourceAccount", facts.bucket_account())])],
        conditions: Vec::new(),
        guards: Vec::new(),
        symptom,
    }
}

fn dlq(facts: &ChannelFacts, role: &Caller) -> Option<Purpose> {
    let dlq = facts.dlq.as_ref()?;
    let bucket = [dlq.bucket_arn.clone()];
    let object = [format!("{}/{}example-object", dlq.bucket_arn, dlq.prefix)];
    let location = match facts.service {
        Service::Msk => Level::Required,
        Service::Kinesis => Level::Suggested,
    };
    let other_account = if dlq.owner == "111111111111" {
        "222222222222"
    } else {
        "111111111111"
    };
    Some(Purpose {
        sid: "DLQBucketAccess",
        document: Document::RolePolicy,
        caller: role.clone(),
        needs: vec![
            need("s3:PutObject", Level::Required, &object),
            need("s3:ListBucket", Level::Required, &bucket),
            need("s3:ListBucketMultipartUploads", Level::Required, &bucket),
            need("s3:GetBucketLocation", location, &bucket),
        ],
        resources: Some(vec![dlq.bucket_arn.clone(), format!("{}/{}*", dlq.bucket_arn, dlq.prefix)]),
        contexts: vec![pairs(&[("aws:ResourceAccount", &dlq.owner)])],
        conditions: vec![("StringEquals", "aws:ResourceAccount", vec![dlq.owner.clone()])],
        guards: vec![Guard {
            foreign: pairs(&[("aws:ResourceAccount", other_account)]),
            keeps_out: "a bucket of the same name in another account (aws:ResourceAccount = the `ExpectedBucketOwner`)",
        }],
        symptom: "records that fail validation are not written to the dead-letter bucket; at creation, the channel goes to FAILED",
    })
}

fn glue(facts: &ChannelFacts, role: &Caller) -> Option<Purpose> {
    let prefix = format!(
        "arn:{}:glue:{}:{}:",
        facts.partition, facts.region, facts.account
    );
    let (resources, samples) = match facts.gsr.as_ref()? {
        GsrSchema::Named { arn, registry_arn } => (
            vec![registry_arn.clone(), arn.clone()],
            vec![registry_arn.clone(), arn.clone()],
        ),
        GsrSchema::Any => (
            vec![format!("{prefix}registry/*"), format!("{prefix}schema/*")],
            vec![
                format!("{prefix}registry/any-registry"),
                format!("{prefix}schema/any-registry/any-schema"),
            ],
        ),
    };
    let mut needs = vec![need("glue:GetSchemaVersion", Level::Required, &samples)];
    for action in [
        "glue:GetRegistry",
        "glue:GetSchema",
        "glue:GetSchemaByDefinition",
        "glue:ListRegistries",
        "glue:ListSchemas",
    ] {
        needs.push(need(action, Level::Suggested, &samples));
    }
    Some(Purpose {
        sid: "GlueSchemaRegistryAccess",
        document: Document::RolePolicy,
        caller: role.clone(),
        needs,
        resources: Some(resources),
        contexts: vec![Vec::new()],
        conditions: Vec::new(),
        guards: Vec::new(),
        symptom: "the channel cannot read the schema: at creation it goes to FAILED (an unresolvable GSR schema)",
    })
}

fn table_key(facts: &ChannelFacts, role: &Caller, key: &str) -> Purpose {
    let keys = [key.to_string()];
    let describe = match facts.service {
        Service::Kinesis => Level::Required,
        Service::Msk => Level::Suggested,
    };
    let table = sample_table(facts);
    let context = |via: &str| {
        pairs(&[
            (
                "kms:ViaService",
                &format!("{via}.{}.amazonaws.com", facts.region),
            ),
            ("kms:EncryptionContext:aws:s3:arn", &table),
        ])
    };
    Purpose {
        sid: "KMSTableKeyAccess",
        document: Document::RolePolicy,
        caller: role.clone(),
        needs: vec![
            need("kms:Decrypt", Level::Required, &keys),
            need("kms:GenerateDataKey", Level::Required, &keys),
            need("kms:DescribeKey", describe, &keys),
        ],
        resources: Some(keys.to_vec()),
        // The sources give `s3`, `s3tables` and no kms:ViaService: either service is accepted.
        contexts: vec![context("s3tables"), context("s3")],
        conditions: Vec::new(),
        guards: Vec::new(),
        symptom: "the channel cannot encrypt the table with its key: the namespace appears, the table never does",
    }
}

fn maintenance(facts: &ChannelFacts, key: &str) -> Purpose {
    let keys = [key.to_string()];
    let table = sample_table(facts);
    let other = format!(
        "{}/table/0f5e3a1c-7b2d-4e8f-9a6b-1c2d3e4f5a6b",
        facts
            .table_bucket
            .rsplit_once('/')
            .map_or("", |(head, _)| head)
            .to_string()
            + "/another-bucket"
    );
    Purpose {
        sid: "AllowS3TablesMaintenance",
        document: Document::TableKeyPolicy,
        caller: Caller::Service("maintenance.s3tables.amazonaws.com".to_string()),
        needs: vec![
            need("kms:GenerateDataKey", Level::Required, &keys),
            need("kms:Decrypt", Level::Required, &keys),
            need("kms:DescribeKey", Level::Suggested, &keys),
        ],
        resources: Some(keys.to_vec()),
        contexts: vec![pairs(&[
            ("kms:EncryptionContext:aws:s3:arn", &table),
            ("aws:SourceArn", &table),
            ("aws:SourceAccount", facts.bucket_account()),
        ])],
        conditions: vec![(
            "StringLike",
            "kms:EncryptionContext:aws:s3:arn",
            vec![format!("{}/*", facts.table_bucket)],
        )],
        guards: vec![Guard {
            foreign: pairs(&[("kms:EncryptionContext:aws:s3:arn", &other), ("aws:SourceArn", &other)]),
            keeps_out: "the tables of other buckets (kms:EncryptionContext:aws:s3:arn or aws:SourceArn on this bucket)",
        }],
        symptom: "S3 Tables maintenance cannot use the key: CreateTable fails (the S3 Tables KMS page), or the table is created and every delivery cycle fails with InternalError (the reference)",
    }
}

fn logs(facts: &ChannelFacts, role: &Caller) -> Option<Purpose> {
    let logging = facts.logging.as_ref()?;
    let group = format!(
        "arn:{}:logs:{}:{}:log-group:",
        facts.partition, facts.region, facts.account
    );
    let stream = [format!(
        "{group}{}:log-stream:{}",
        logging.group_sample, logging.stream
    )];
    let whole = [format!("{group}{}:*", logging.group_sample)];
    let create = match facts.service {
        Service::Kinesis => Level::Required,
        Service::Msk => Level::Suggested,
    };
    Some(Purpose {
        sid: "CloudWatchLogsAccess",
        document: Document::RolePolicy,
        caller: role.clone(),
        needs: vec![
            need("logs:CreateLogStream", Level::Required, &stream),
            need("logs:PutLogEvents", Level::Required, &stream),
            need("logs:CreateLogGroup", create, &whole),
            need("logs:DescribeLogStreams", Level::Suggested, &whole),
        ],
        resources: Some(vec![format!("{group}{}:*", logging.group_pattern)]),
        contexts: vec![Vec::new()],
        conditions: Vec::new(),
        guards: Vec::new(),
        symptom: "the channel is ACTIVE with no data, no dead-letter entries and no logs",
    })
}

fn bucket_policy(facts: &ChannelFacts, role: &Caller) -> Purpose {
    table_access(
        facts,
        role,
        "CrossAccountTableBucketAccess",
        Document::TableBucketPolicy,
        "the channel is ACTIVE with no data: across accounts, the role may use the bucket only when the bucket's own policy allows it too",
    )
}
