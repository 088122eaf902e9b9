//! What a channel's permissions depend on, read from its configuration files (the ones that
//! [`crate::channel::check_channel_configs`] accepts): the service, the role, the account and
//! Region, the table bucket, the dead-letter bucket, the Glue schema, the table key and the log
//! group (`../shared/reference/aws-channel-permissions-facts.md`, section 1b).

use schema2iceberg_parser::json::{JsonDoc, JsonId, JsonValue};
use schema2iceberg_parser::{JsonFile, Location};

use crate::channel::{recognise, Service, Shape};

/// Why the facts of a configuration cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FactsError {
    /// No file has the shape of a channel configuration.
    #[error("no file is a Kinesis or MSK channel configuration")]
    NoChannel,
    /// The files name no table bucket.
    #[error("the channel configuration names no table bucket (Kinesis `TableBucketARN`, MSK `Catalog.WarehouseLocation`), so no permission can be scoped to it")]
    NoTableBucket,
    /// The files name no Region or account.
    #[error("the channel configuration names no Region and account: give the role ARN and the stream or cluster ARN (the whole create-channel request)")]
    NoAccount,
}

/// The Glue Schema Registry schema that the channel reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GsrSchema {
    /// A schema named by its ARN.
    Named {
        /// `arn:…:glue:REGION:ACCOUNT:schema/REGISTRY/SCHEMA`.
        arn: String,
        /// `arn:…:glue:REGION:ACCOUNT:registry/REGISTRY`.
        registry_arn: String,
    },
    /// MSK `JSON_SCHEMA_GSR`: each record names its schema version, so any registry of the
    /// account and Region.
    Any,
}

/// The dead-letter bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dlq {
    /// `arn:aws:s3:::BUCKET`.
    pub bucket_arn: String,
    /// `ExpectedBucketOwner`, else the role's account.
    pub owner: String,
    /// `ErrorOutputPrefix`, or empty.
    pub prefix: String,
}

/// The CloudWatch Logs group the channel logs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logging {
    /// The group name, or the pattern of the documented default (`/aws/kinesis/NAME/*`).
    pub group_pattern: String,
    /// A group name that the channel could use, for the check (the default's id filled in).
    pub group_sample: String,
    /// The log stream name (Kinesis `LogStreamName`, default `DestinationDelivery`).
    pub stream: String,
}

/// Everything the permissions of one channel depend on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelFacts {
    /// Kinesis or MSK.
    pub service: Service,
    /// `ChannelName`, when the files give it.
    pub channel_name: Option<String>,
    /// The execution role's ARN, when the files give it.
    pub role_arn: Option<String>,
    /// The ARN partition (`aws`, `aws-us-gov`, …).
    pub partition: String,
    /// The role's account (else the table bucket's).
    pub account: String,
    /// The Region of the stream or cluster (else the table bucket's).
    pub region: String,
    /// The table bucket's ARN.
    pub table_bucket: String,
    /// Where the table bucket's ARN is written.
    pub table_bucket_at: Location,
    /// The dead-letter bucket.
    pub dlq: Option<Dlq>,
    /// The Glue schema.
    pub gsr: Option<GsrSchema>,
    /// The table's customer managed key, when there is one.
    pub table_key: Option<String>,
    /// Where the key is written.
    pub table_key_at: Option<Location>,
    /// The stream or cluster ARN.
    pub source_arn: Option<String>,
    /// The log group, when CloudWatch Logs delivery is on.
    pub logging: Option<Logging>,
    /// The namespace (Kinesis `Namespace`, MSK `DestinationDatabaseName`).
    pub namespace: Option<String>,
    /// The table's name.
    pub table_name: Option<String>,
}

impl ChannelFacts {
    /// The account of the table bucket.
    pub fn bucket_account(&self) -> &str {
        self.table_bucket.split(':').nth(4).unwrap_or("")
    }

    /// Whether the table bucket is in another account than the role.
    pub fn cross_account(&self) -> bool {
        self.bucket_account() != self.account
    }

    /// The user guide whose requirements decide: "Kinesis" or "MSK".
    pub fn service_guide(&self) -> &'static str {
        match self.service {
            Service::Kinesis => "Kinesis",
            Service::Msk => "MSK",
        }
    }

    /// The service principal that assumes the role.
    pub fn service_principal(&self) -> &'static str {
        match self.service {
            Service::Kinesis => "kinesis.amazonaws.com",
            Service::Msk => "kafka.amazonaws.com",
        }
    }

    /// The ARN prefix of the service's channels: `arn:aws:kinesis:REGION:ACCOUNT:channel/`.
    pub fn channel_arn_prefix(&self) -> String {
        let service = match self.service {
            Service::Kinesis => "kinesis",
            Service::Msk => "kafka",
        };
        format!(
            "arn:{}:{service}:{}:{}:channel/",
            self.partition, self.region, self.account
        )
    }
}

/// A value found, with where it is written.
struct Found {
    value: String,
    at: Location,
}

/// Reads the facts of one channel from its configuration files.
pub fn channel_facts(files: &[JsonFile]) -> Result<ChannelFacts, FactsError> {
    let mut service = None;
    let mut get = Getter::default();
    for file in files {
        let Some(doc) = &file.json else { continue };
        let Some((s, shape)) = recognise(file) else {
            continue;
        };
        service = service.or(Some(s));
        get.read(file, doc, s, shape);
    }
    let service = service.ok_or(FactsError::NoChannel)?;
    let bucket = get.table_bucket.ok_or(FactsError::NoTableBucket)?;
    let field = |arn: &str, i: usize| arn.split(':').nth(i).map(str::to_string);
    let account = get
        .role
        .as_deref()
        .and_then(|r| field(r, 4))
        .or_else(|| field(&bucket.value, 4))
        .filter(|a| !a.is_empty())
        .ok_or(FactsError::NoAccount)?;
    let region = get
        .source
        .as_deref()
        .and_then(|r| field(r, 3))
        .or_else(|| field(&bucket.value, 3))
        .filter(|a| !a.is_empty())
        .ok_or(FactsError::NoAccount)?;
    let partition = field(&bucket.value, 1).unwrap_or_else(|| "aws".to_string());
    let gsr = gsr_schema(get.gsr.take(), get.any_gsr);
    let dlq = get.dlq_bucket.map(|bucket_arn| Dlq {
        bucket_arn,
        owner: get.dlq_owner.clone().unwrap_or_else(|| account.clone()),
        prefix: get.dlq_prefix.clone().unwrap_or_default(),
    });
    let logging = logging(
        get.log_group.take(),
        get.log_stream.take(),
        get.channel_name.as_deref(),
    );
    Ok(ChannelFacts {
        service,
        channel_name: get.channel_name,
        role_arn: get.role,
        partition,
        account,
        region,
        table_bucket: bucket.value,
        table_bucket_at: bucket.at,
        dlq,
        gsr,
        table_key: get.key.as_ref().map(|k| k.value.clone()),
        table_key_at: get.key.map(|k| k.at),
        source_arn: get.source,
        logging,
        namespace: get.namespace,
        table_name: get.table_name,
    })
}

/// The Glue Schema Registry schema the records name: one named schema (with its registry), any
/// schema, or none.
fn gsr_schema(gsr: Option<String>, any_gsr: bool) -> Option<GsrSchema> {
    let gsr = gsr.map(|arn| {
        let registry = arn
            .split_once(":schema/")
            .and_then(|(head, names)| Some(format!("{head}:registry/{}", names.split('/').next()?)))
            .unwrap_or_default();
        GsrSchema::Named {
            arn,
            registry_arn: registry,
        }
    });
    gsr.or(any_gsr.then_some(GsrSchema::Any))
}

/// The log group and stream the channel writes to, when it logs: the configured group, or the
/// channel's own under `/aws/kinesis/`.
fn logging(
    log_group: Option<Option<String>>,
    log_stream: Option<String>,
    channel_name: Option<&str>,
) -> Option<Logging> {
    let stream = log_stream.unwrap_or_else(|| "DestinationDelivery".to_string());
    log_group.map(|group| match group {
        Some(group) => Logging {
            group_pattern: group.clone(),
            group_sample: group,
            stream,
        },
        None => {
            let name = channel_name.unwrap_or("*");
            Logging {
                group_pattern: format!("/aws/kinesis/{name}/*"),
                group_sample: format!("/aws/kinesis/{name}/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111"),
                stream,
            }
        }
    })
}

/// The values found so far, across files.
#[derive(Default)]
struct Getter {
    channel_name: Option<String>,
    role: Option<String>,
    source: Option<String>,
    table_bucket: Option<Found>,
    dlq_bucket: Option<String>,
    dlq_owner: Option<String>,
    dlq_prefix: Option<String>,
    gsr: Option<String>,
    any_gsr: bool,
    key: Option<Found>,
    /// `Some(None)`: logging on, default group; `Some(Some(g))`: group `g`.
    log_group: Option<Option<String>>,
    log_stream: Option<String>,
    namespace: Option<String>,
    table_name: Option<String>,
}

fn string(doc: &JsonDoc, from: JsonId, path: &[&str]) -> Option<String> {
    match doc.value(doc.walk(from, path.iter().copied())?) {
        JsonValue::String(s) => Some(s.to_string()),
        _ => None,
    }
}

fn found(file: &JsonFile, doc: &JsonDoc, from: JsonId, path: &[&str]) -> Option<Found> {
    let id = doc.walk(from, path.iter().copied())?;
    match doc.value(id) {
        JsonValue::String(s) => Some(Found {
            value: s.to_string(),
            at: file.location(id),
        }),
        _ => None,
    }
}

impl Getter {
    fn read(&mut self, file: &JsonFile, doc: &JsonDoc, service: Service, shape: Shape) {
        let root = doc.root();
        match (service, shape) {
            (Service::Kinesis, Shape::Request) => {
                self.channel_name =
                    self.channel_name
                        .take()
                        .or(string(doc, root, &["ChannelName"]));
                self.role = self
                    .role
                    .take()
                    .or(string(doc, root, &["ServiceExecutionRoleARN"]));
                if let Some(id) = doc.walk(root, ["S3TablesDestinationConfiguration"]) {
                    self.kinesis_destination(file, doc, id);
                }
                if let Some(id) = doc.walk(root, ["StreamConfigurationList"]) {
                    self.kinesis_streams(doc, id);
                }
                if let Some(id) = doc.walk(root, ["EncryptionConfiguration"]) {
                    self.key = self.key.take().or(found(file, doc, id, &["KeyId"]));
                }
                let logs = ["LoggingConfiguration", "CloudWatchLogs"];
                if let Some(id) = doc.walk(root, logs) {
                    if matches!(
                        doc.walk(id, ["Enabled"]).map(|e| doc.value(e)),
                        Some(JsonValue::Bool(true))
                    ) {
                        self.log_group = Some(string(doc, id, &["LogGroupName"]));
                        self.log_stream = string(doc, id, &["LogStreamName"]);
                    }
                }
            }
            (Service::Kinesis, Shape::Destination) => self.kinesis_destination(file, doc, root),
            (Service::Kinesis, Shape::Sources) => self.kinesis_streams(doc, root),
            (Service::Kinesis, Shape::Encryption) => {
                self.key = self.key.take().or(found(file, doc, root, &["KeyId"]));
            }
            (Service::Msk, Shape::Request) => {
                self.channel_name =
                    self.channel_name
                        .take()
                        .or(string(doc, root, &["ChannelName"]));
                self.source = self.source.take().or(string(doc, root, &["ClusterArn"]));
                let destination = doc.walk(root, ["IcebergDestinationConfiguration"]);
                if let Some(id) = destination {
                    self.msk_destination(file, doc, id);
                } else if doc.walk(root, ["DestinationTableList"]).is_some() {
                    // A bare destination recognised as a request by its `LoggingInfo`.
                    self.msk_destination(file, doc, root);
                }
                if let Some(id) = doc.walk(root, ["TopicConfigurationList"]) {
                    self.msk_topics(doc, id);
                }
                if let Some(id) = doc.walk(root, ["EncryptionConfiguration"]) {
                    self.key = self.key.take().or(found(file, doc, id, &["KmsKeyArn"]));
                }
                if let Some(id) = doc.walk(root, ["LoggingInfo", "CloudWatchLogs"]) {
                    if matches!(
                        doc.walk(id, ["Enabled"]).map(|e| doc.value(e)),
                        Some(JsonValue::Bool(true))
                    ) {
                        self.log_group = string(doc, id, &["LogGroup"]).map(Some);
                    }
                }
            }
            (Service::Msk, Shape::Destination) => self.msk_destination(file, doc, root),
            (Service::Msk, Shape::Sources) => self.msk_topics(doc, root),
            (Service::Msk, Shape::Encryption) => {
                self.key = self.key.take().or(found(file, doc, root, &["KmsKeyArn"]));
            }
        }
    }

    fn kinesis_destination(&mut self, file: &JsonFile, doc: &JsonDoc, id: JsonId) {
        self.table_bucket = self.table_bucket.take().or(found(
            file,
            doc,
            id,
            &["S3TablesConfigurationList", "0", "TableBucketARN"],
        ));
        let table = ["S3TablesConfigurationList", "0"];
        self.names(doc, id, &table, "Namespace", "TableName");
        self.dlq(doc, id, "DeadLetterQueueS3Configuration", "BucketARN");
    }

    fn names(&mut self, doc: &JsonDoc, id: JsonId, table: &[&str], namespace: &str, name: &str) {
        let path = |key: &str| -> Vec<String> {
            table
                .iter()
                .map(|s| s.to_string())
                .chain([key.to_string()])
                .collect()
        };
        let get = |key: &str| {
            let p = path(key);
            let refs: Vec<&str> = p.iter().map(String::as_str).collect();
            string(doc, id, &refs)
        };
        self.namespace = self.namespace.take().or(get(namespace));
        self.table_name = self.table_name.take().or(get(name));
    }

    fn dlq(&mut self, doc: &JsonDoc, id: JsonId, key: &str, bucket: &str) {
        self.dlq_bucket = self.dlq_bucket.take().or(string(doc, id, &[key, bucket]));
        self.dlq_owner = self
            .dlq_owner
            .take()
            .or(string(doc, id, &[key, "ExpectedBucketOwner"]));
        self.dlq_prefix = self
            .dlq_prefix
            .take()
            .or(string(doc, id, &[key, "ErrorOutputPrefix"]));
    }

    fn kinesis_streams(&mut self, doc: &JsonDoc, id: JsonId) {
        self.source = self.source.take().or(string(doc, id, &["0", "StreamARN"]));
        self.gsr = self.gsr.take().or(string(
            doc,
            id,
            &["0", "RecordConfiguration", "GSRSchemaARN"],
        ));
    }

    fn msk_destination(&mut self, file: &JsonFile, doc: &JsonDoc, id: JsonId) {
        self.role = self
            .role
            .take()
            .or(string(doc, id, &["ServiceExecutionRoleArn"]));
        self.table_bucket =
            self.table_bucket
                .take()
                .or(found(file, doc, id, &["Catalog", "WarehouseLocation"]));
        if self.table_bucket.is_none() {
            // The catalog ARN names the bucket: `…:glue:R:A:catalog/s3tablescatalog/BUCKET`.
            if let Some(catalog) = found(file, doc, id, &["Catalog", "CatalogArn"]) {
                let mut parts = catalog.value.splitn(6, ':');
                let (_, partition, _, region, account, resource) = (
                    parts.next(),
                    parts.next(),
                    parts.next(),
                    parts.next(),
                    parts.next(),
                    parts.next(),
                );
                if let (Some(p), Some(r), Some(a), Some(name)) = (
                    partition,
                    region,
                    account,
                    resource.and_then(|r| r.strip_prefix("catalog/s3tablescatalog/")),
                ) {
                    self.table_bucket = Some(Found {
                        value: format!("arn:{p}:s3tables:{r}:{a}:bucket/{name}"),
                        at: catalog.at,
                    });
                }
            }
        }
        self.dlq(doc, id, "DeadLetterQueueS3", "BucketArn");
        let table = ["DestinationTableList", "0"];
        self.names(
            doc,
            id,
            &table,
            "DestinationDatabaseName",
            "DestinationTableName",
        );
    }

    fn msk_topics(&mut self, doc: &JsonDoc, id: JsonId) {
        if self.source.is_none() {
            // The topic ARN gives the Region when the cluster ARN is not in the files.
            self.source = string(doc, id, &["0", "TopicArn"]);
        }
        match string(doc, id, &["0", "RecordSchema", "GsrArn"]) {
            Some(arn) => self.gsr = self.gsr.take().or(Some(arn)),
            None => {
                let converter = string(doc, id, &["0", "RecordConverter", "ValueConverter"]);
                self.any_gsr |= converter.as_deref() == Some("JSON_SCHEMA_GSR");
            }
        }
    }
}
