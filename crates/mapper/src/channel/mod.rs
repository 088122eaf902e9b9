//! Checks the channel configuration files given with `--channel-config` against what AWS
//! documents for Kinesis and MSK streaming-tables channels, and collects the partition source
//! that they name.
//!
//! Each file is recognised by its shape (see [`recognise`]); the checks run on whatever is given,
//! so a destination configuration on its own is valid input. The rules and their sources are in
//! `../shared/reference/aws-streaming-tables-facts.md`, section 3. Nothing here reads the schema:
//! the caller compiles the schema with the `SourceName`s found, and reports there whether each
//! names a timestamptz column.
//!
//! These are AWS's rules for the channel, not rules of docs/mapping.md: docs/ci.md ("Channel
//! configurations") documents them. This file holds the code table, the public types, the run
//! over the files; `access.rs` holds the `Checker`'s typed access to JSON values, and the checks live in
//! `recognise.rs` (which service and part a file is), `fields.rs` (the request and the rules
//! both services share), `kinesis.rs`, `msk.rs` and `arn.rs` (ARN patterns).

mod access;
mod arn;
mod fields;
mod keys;
mod kinesis;
mod msk;
mod names;
mod places;
mod recognise;
mod shapes;

pub use names::{name_problem, NameProblem};
pub use recognise::recognise;
use recognise::ACCEPTED_SHAPES;

use schema2iceberg_parser::json::{JsonDoc, JsonId};
use schema2iceberg_parser::{Diagnostic, JsonFile, Location};

schema2iceberg_parser::code_table! {
    UNRECOGNISED = "channel-unrecognised", Error, rule [] section "channel configurations (docs/ci.md)",
        "A `--channel-config` file has none of the shapes of a Kinesis or MSK channel configuration, so nothing in it can be checked.",
        "Give the JSON that you pass to `aws kinesis create-channel` (`--s3-tables-destination-configuration`, `--stream-configuration-list`, `--encryption-configuration`, or one object with all three under their API names) or to `aws kafka create-channel` (`--iceberg-destination-configuration`, bare or under `IcebergDestinationConfiguration`, `--topic-configuration-list`, `--encryption-configuration`).",
        r#"{"Bucket": "my-bucket"}"#;
    MISSING_KEY = "channel-missing-key", Error, rule [] section "channel configurations (docs/ci.md)",
        "A key that the CreateChannel API requires is missing.",
        "Add the key; the message names the object that needs it, and the help lists that object's required keys with a minimal example.",
        r#"{"S3TablesConfigurationList": [{"Namespace": "sales", "CompressionType": "ZSTD"}]}"#;
    WRONG_TYPE = "channel-wrong-type", Error, rule [] section "channel configurations (docs/ci.md)",
        "A value has the wrong JSON type, such as a string where the API takes a number; the AWS CLI rejects the parameter.",
        "Write the value with the type that the message names: numbers without quotes, ARNs and account ids in quotes.",
        r#"{"DataFreshnessInSeconds": "300"}"#;
    UNKNOWN_KEY = "channel-unknown-key", Error, rule [] section "channel configurations (docs/ci.md)",
        "A key is not a key of its object's API type (`RecordFormat` for `RecordFormatType`, `Compression` for `CompressionType`, or a key of the object one level down or up, such as `RecordFormatType` directly in a stream entry); the AWS CLI rejects it as an unknown parameter.",
        "Write the key that the help names, or move the key to the object it belongs to.",
        r#"{"StreamARN": "arn:aws:kinesis:…", "RecordFormatType": "JSON"}"#;
    KEY_CASE = "channel-key-case", Error, rule [] section "channel configurations (docs/ci.md)",
        "A key differs only in letter case from a key of the API (`compressionType` for `CompressionType`, `BucketArn` for Kinesis's `BucketARN`); API keys are case-sensitive, so the AWS CLI rejects it as an unknown parameter.",
        "Spell the key exactly as the API does; CloudFormation and CDK spellings differ from the CLI's JSON.",
        r#"{"DeadLetterQueueS3Configuration": {"BucketArn": "arn:aws:s3:::my-dlq"}}"#;
    DUPLICATE_PART = "channel-duplicate-part", Error, rule [] section "channel configurations (docs/ci.md)",
        "Two `--channel-config` files (or two parts of one) give the same part of a channel: two destinations, two stream lists or two encryption configurations; one channel takes one of each.",
        "Give each part once: one channel configuration per schema.",
        r#"a.json: {"S3TablesConfigurationList": […]}, b.json: {"S3TablesConfigurationList": […]}"#;
    MIXED_SERVICES = "channel-mixed-services", Error, rule [] section "channel configurations (docs/ci.md)",
        "The `--channel-config` files mix a Kinesis configuration with an MSK one; a channel belongs to one service.",
        "Give only the files of the one channel that writes this table.",
        r#"a.json: {"S3TablesConfigurationList": […]}, b.json: {"DestinationTableList": […]}"#;
    DESTINATION = "channel-destination", Error, rule [] section "channel configurations (docs/ci.md)",
        "The request gives both an S3 Tables (Iceberg) destination and a general purpose S3 destination, which are mutually exclusive, or gives only the general purpose S3 one, which creates no Iceberg table.",
        "Keep only `S3TablesDestinationConfiguration` (Kinesis) or `IcebergDestinationConfiguration` (MSK).",
        r#"{"S3TablesDestinationConfiguration": {…}, "S3DestinationConfiguration": {…}}"#;
    CHANNEL_NAME = "channel-channel-name", Error, rule [] section "channel configurations (docs/ci.md)",
        "`ChannelName` is empty, too long (Kinesis 128, MSK 64 characters) or uses a character other than letters, digits, `_`, `.` and `-`.",
        "Use only letters, digits, `_`, `.` and `-`.",
        r#"{"ChannelName": "orders to iceberg", "S3TablesDestinationConfiguration": {…}}"#;
    DATA_FRESHNESS = "channel-data-freshness", Error, rule [] section "channel configurations (docs/ci.md)",
        "`DataFreshnessInSeconds` is outside 300–900 seconds (5–15 minutes), the range that both the Kinesis API and the MSK guide document; MSK's CloudFormation page says 60, which conflicts with its guide, so the guide's 300 is used.",
        "Choose a value from 300 to 900; leave it out for the default (Kinesis 300, MSK 600).",
        r#"{"DataFreshnessInSeconds": 60}"#;
    TABLE_COUNT = "channel-table-count", Error, rule [] section "channel configurations (docs/ci.md)",
        "`S3TablesConfigurationList` (Kinesis) or `DestinationTableList` (MSK) does not hold exactly one table; a channel currently writes one table.",
        "Give exactly one table entry, and create one channel per table.",
        r#"{"S3TablesConfigurationList": []}"#;
    STREAM_COUNT = "channel-stream-count", Error, rule [] section "channel configurations (docs/ci.md)",
        "`StreamConfigurationList` (Kinesis) or `TopicConfigurationList` (MSK) does not hold exactly one source; a channel currently reads one stream or topic.",
        "Give exactly one stream or topic, and create one channel per source.",
        r#"[{"StreamARN": "…"}, {"StreamARN": "…"}]"#;
    COMPRESSION = "channel-compression", Error, rule [] section "channel configurations (docs/ci.md)",
        "`CompressionType` is not one of the allowed values (Kinesis: `NONE`, `ZSTD`, `SNAPPY`; MSK: `ZSTD`, `SNAPPY`), or is missing on Kinesis, where every table entry requires it. On MSK it may be left out, because the MSK guide documents `ZSTD` as the default.",
        "Write `ZSTD`, `SNAPPY` or (Kinesis only) `NONE`, in capitals.",
        r#"{"S3TablesConfigurationList": [{"CompressionType": "GZIP"}]}"#;
    NAME_PATTERN = "channel-name-pattern", Error, rule [] section "channel configurations (docs/ci.md)",
        "A namespace or table name (`Namespace`/`TableName`, MSK `DestinationDatabaseName`/`DestinationTableName`) is empty, longer than 255 characters, or uses a character other than lowercase letters, digits and `_`; uppercase names also hide the table from Athena and Lake Formation.",
        "Use only lowercase letters, digits and `_`.",
        r#"{"Namespace": "Sales-Data"}"#;
    NAME_RULE = "channel-name-rule", Error, rule [] section "channel configurations (docs/ci.md)",
        "A namespace or table name breaks an S3 Tables naming rule beyond the API pattern: names begin with a letter or digit, namespaces also end with one, and namespaces must not begin with `aws`.",
        "Rename it: drop leading and trailing `_`, and do not begin a namespace with `aws`.",
        r#"{"Namespace": "aws_events"}"#;
    ARN = "channel-arn", Error, rule [] section "channel configurations (docs/ci.md)",
        "An ARN (table bucket, dead-letter bucket, stream, topic, cluster, role, catalog or warehouse location) does not have the shape that the API's pattern requires.",
        "Copy the ARN from the console or from `describe`/`get` output; the help shows the shape.",
        r#"{"TableBucketARN": "arn:aws:s3:::my-table-bucket"}"#;
    BUCKET_OWNER = "channel-bucket-owner", Error, rule [] section "channel configurations (docs/ci.md)",
        "`ExpectedBucketOwner` of the dead-letter bucket is not a 12-digit account id, or is missing on Kinesis, where it is required (it is optional on MSK).",
        "Give the 12-digit id of the account that owns the dead-letter bucket, as a string.",
        r#"{"DeadLetterQueueS3Configuration": {"BucketARN": "arn:aws:s3:::my-dlq"}}"#;
    ERROR_PREFIX = "channel-error-prefix", Error, rule [] section "channel configurations (docs/ci.md)",
        "Kinesis `ErrorOutputPrefix` is empty, longer than 512 characters, or uses a character other than letters, digits and `!-_'.*()/`.",
        "Use only letters, digits and `!-_'.*()/`, or leave the key out for the default prefix.",
        r#"{"ErrorOutputPrefix": "errors/{channel}/"}"#;
    PARTITION_SPEC = "channel-partition-spec", Error, rule [] section "channel configurations (docs/ci.md)",
        "The table's partition spec is missing or is not exactly one `TIME_HOUR` field: Kinesis `PartitionFields` needs one field with `Transform` `TIME_HOUR`; MSK needs `PartitionStrategy` `TIME_HOUR` and a `SourceList` of exactly one entry (a missing or empty `SourceList` fails with `InvalidParameter: sourceList`).",
        "Partition by the hour of one `date-time` property: one field, transform `TIME_HOUR`.",
        r#"{"PartitionSpec": {"PartitionFields": [{"SourceName": "event_time", "Transform": "DAY"}]}}"#;
    SOURCE_NAME = "channel-source-name", Error, rule [] section "channel configurations (docs/ci.md)",
        "A partition `SourceName` is empty, longer than 255 characters, or uses a character other than letters, digits, `.` and `_` (the Kinesis API pattern; MSK documents no pattern and is held to the same one).",
        "Partition by a property whose name uses only letters, digits, `.` and `_`.",
        r#"{"SourceName": "event-time"}"#;
    RECORD_FORMAT = "channel-record-format", Error, rule [] section "channel configurations (docs/ci.md)",
        "The record format cannot feed a streaming table: Kinesis `RecordFormatType` must be `GSR_JSON` or `JSON` (`STRING` and `BYTE_ARRAY` deliver only to general purpose S3), and MSK `ValueConverter` must be `JSON` or `JSON_SCHEMA_GSR`.",
        "Use `GSR_JSON` or `JSON` (Kinesis), `JSON_SCHEMA_GSR` or `JSON` (MSK).",
        r#"[{"RecordConfiguration": {"RecordFormatType": "STRING"}}]"#;
    GSR_SCHEMA_ARN = "channel-gsr-schema-arn", Error, rule [] section "channel configurations (docs/ci.md)",
        "The Glue Schema Registry schema is missing, misplaced or malformed: Kinesis needs `GSRSchemaARN` for `GSR_JSON` and `JSON` alike; MSK `JSON` needs `RecordSchema.GsrArn`, and `JSON_SCHEMA_GSR` must not have it; an ARN must be `arn:aws:glue:<region>:<account>:schema/<registry-name>/<schema-name>`.",
        "Give the schema's ARN where the record format needs one, and nowhere else.",
        r#"[{"RecordConfiguration": {"RecordFormatType": "JSON"}}]"#;
    ENCRYPTION_TYPE = "channel-encryption-type", Error, rule [] section "channel configurations (docs/ci.md)",
        "Kinesis `EncryptionType` is not `KMS`, its only valid value.",
        "Write `\"EncryptionType\": \"KMS\"`.",
        r#"{"EncryptionType": "AES256", "KeyId": "arn:aws:kms:…:key/…"}"#;
    KMS_KEY = "channel-kms-key", Error, rule [] section "channel configurations (docs/ci.md)",
        "The KMS key (`KeyId`, MSK `KmsKeyArn`) is not the full ARN of a customer managed key: an alias, an alias ARN, a bare key id, or the `aws/kinesis` service key. The Kinesis API text accepts aliases and key ids, but AWS's own Kinesis guidance says aliases are not supported, so the safe form is required.",
        "Give the key's full ARN, `arn:aws:kms:<region>:<account>:key/<key-id>`, of a customer managed key.",
        r#"{"EncryptionType": "KMS", "KeyId": "alias/my-key"}"#;
    SCHEMA_EVOLUTION = "channel-schema-evolution", Error, rule [] section "channel configurations (docs/ci.md)",
        "MSK `SchemaEvolution.EnableSchemaEvolution` is true, but MSK streaming tables do not support schema evolution.",
        "Set `EnableSchemaEvolution` to false; to change the schema, create a new channel and table.",
        r#"{"SchemaEvolution": {"EnableSchemaEvolution": true}}"#;
    OTHER_REGION = "channel-other-region", Error, rule [] section "channel configurations (docs/ci.md)",
        "An ARN of the configuration (table bucket, role, GSR schema, KMS key, catalog) is in another Region than the channel's source (the stream, or the MSK cluster or topic). A channel delivers within one Region: such a channel goes from CREATING to FAILED, which cannot be recovered.",
        "Use resources in the source's Region; the message names both ARNs.",
        r#"{"StreamARN": "arn:aws:kinesis:us-east-1:…", "TableBucketARN": "arn:aws:s3tables:eu-west-1:…"}"#;
    CROSS_ACCOUNT = "channel-cross-account", Warning, rule [] section "channel configurations (docs/ci.md)",
        "An ARN of the configuration is in another account than the channel's source: the channel's role needs access granted across accounts (a resource policy, and a key policy for a KMS key). The Kinesis guide says Iceberg delivery does not support other accounts; the MSK guide shows a table bucket policy for it.",
        "Grant the role access in the other account, or use a resource in the source's account; `schema2iceberg policies` (where available) writes the documents.",
        r#"{"StreamARN": "arn:aws:kinesis:us-east-1:111111111111:…", "TableBucketARN": "arn:aws:s3tables:us-east-1:222222222222:…"}"#;
    TABLE_CREATION = "channel-table-creation", Warning, rule [] section "channel configurations (docs/ci.md)",
        "MSK `TableCreation.EnableTableCreation` is false, so the channel does not create the table that schema2iceberg describes; a streaming-tables channel creates a new table.",
        "Set `EnableTableCreation` to true, and let the channel create the table.",
        r#"{"TableCreation": {"EnableTableCreation": false}}"#;
}

/// Which service a configuration file is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    /// `aws kinesis create-channel`.
    Kinesis,
    /// `aws kafka create-channel`.
    Msk,
}

impl Service {
    fn name(self) -> &'static str {
        match self {
            Service::Kinesis => "Kinesis",
            Service::Msk => "MSK",
        }
    }

    fn a_name(self) -> &'static str {
        match self {
            Service::Kinesis => "a Kinesis",
            Service::Msk => "an MSK",
        }
    }
}

/// Which part of a channel configuration a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A whole request: the parts under their API names (`S3TablesDestinationConfiguration`,
    /// `StreamConfigurationList`, `EncryptionConfiguration`; MSK `IcebergDestinationConfiguration`,
    /// `TopicConfigurationList`, `EncryptionConfiguration`).
    Request,
    /// A bare destination: Kinesis `--s3-tables-destination-configuration`, MSK
    /// `--iceberg-destination-configuration`.
    Destination,
    /// A bare source list: Kinesis `--stream-configuration-list`, MSK `--topic-configuration-list`.
    Sources,
    /// A bare `--encryption-configuration`.
    Encryption,
}

/// How a channel's records are written, which decides what a new schema version does to them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordFormat {
    /// Plain JSON (Kinesis `RecordFormatType` and MSK `ValueConverter` `JSON`): the channel
    /// validates every record against the schema version it was created with.
    Json,
    /// Framed by the Glue Schema Registry serializer (Kinesis `GSR_JSON`, MSK
    /// `JSON_SCHEMA_GSR`): every record names the schema version it was produced with.
    GsrJson,
}

impl RecordFormat {
    /// The flag's spelling, `json` or `gsr-json`.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordFormat::Json => "json",
            RecordFormat::GsrJson => "gsr-json",
        }
    }

    /// The configuration values that select it, for people.
    pub fn api_names(self) -> &'static str {
        match self {
            RecordFormat::Json => "JSON",
            RecordFormat::GsrJson => "GSR_JSON / JSON_SCHEMA_GSR",
        }
    }
}

/// What the checks found, and the partition source that the configuration names (if any).
#[derive(Debug, Clone, Default)]
pub struct ChannelCheck {
    /// Every finding, file by file in the order given, each file's sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    /// Each `SourceName` found, with the location of its value, in file order.
    pub partition_sources: Vec<(String, Location)>,
    /// Each streaming-table record format found (`RecordFormatType`, `ValueConverter`), with the
    /// location of its value, in file order.
    pub record_formats: Vec<(RecordFormat, Location)>,
    /// The other values a local channel needs (names, compression, dead-letter prefix,
    /// freshness), each with the location of its value, in file order. Recorded as written,
    /// whether or not the value passes its rule: the diagnostics say that.
    pub settings: Vec<(Setting, String, Location)>,
}

/// A value of a channel configuration that `deliver` uses to act as the channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// `ChannelName`.
    ChannelName,
    /// Kinesis `Namespace`, MSK `DestinationDatabaseName`.
    Namespace,
    /// Kinesis `TableName`, MSK `DestinationTableName`.
    TableName,
    /// `CompressionType`.
    Compression,
    /// `ErrorOutputPrefix` of the dead-letter bucket.
    ErrorOutputPrefix,
    /// `DataFreshnessInSeconds`, as its integer text.
    DataFreshness,
}
/// Recognises each file by its shape and checks everything AWS documents.
// Over 80 lines: one pass that keeps three things in step across files (the first service seen,
// the parts seen, and each file's own sorted findings); split, each piece would need them all.
pub fn check_channel_configs(files: &[JsonFile]) -> ChannelCheck {
    let mut per_file: Vec<Vec<Diagnostic>> = Vec::with_capacity(files.len());
    let mut partition_sources = Vec::new();
    let mut record_formats = Vec::new();
    let mut settings = Vec::new();
    // Parts seen so far, across files, with the file that gave each.
    let mut parts: Vec<(Part, String)> = Vec::new();
    let mut first_service: Option<(Service, String)> = None;
    // Every well-formed ARN, with its file's index, compared once all files are read.
    let mut arns: Vec<(usize, places::SeenArn)> = Vec::new();

    for (index, file) in files.iter().enumerate() {
        let mut diagnostics = Vec::new();
        let Some(doc) = &file.json else {
            per_file.push(diagnostics);
            continue;
        };
        let root = doc.root();
        match recognise(file) {
            None => diagnostics.push(
                Diagnostic::new(
                    &UNRECOGNISED,
                    file.location(root),
                    "this file is not a Kinesis or MSK channel configuration that schema2iceberg recognises",
                )
                .with_help(ACCEPTED_SHAPES),
            ),
            Some((service, shape)) => {
                let mixed = first_service
                    .as_ref()
                    .is_some_and(|(first, _)| *first != service);
                match &first_service {
                    None => first_service = Some((service, file.display.clone())),
                    Some((first, first_file)) if *first != service => diagnostics.push(
                        Diagnostic::new(
                            &MIXED_SERVICES,
                            file.location(root),
                            format!(
                                "this is {} channel configuration, but `{}` is {} one; a channel belongs to one service",
                                service.a_name(),
                                first_file,
                                first.a_name()
                            ),
                        )
                        .with_help("give only the files of the channel that writes this table"),
                    ),
                    Some(_) => {}
                }
                let mut checker = Checker {
                    file,
                    doc,
                    service,
                    diagnostics: Vec::new(),
                    sources: Vec::new(),
                    formats: Vec::new(),
                    settings: Vec::new(),
                    parts: Vec::new(),
                    arns: Vec::new(),
                };
                checker.check(root, shape);
                arns.extend(checker.arns.drain(..).map(|arn| (index, arn)));
                diagnostics.append(&mut checker.diagnostics);
                // A file of the other service is reported once, as mixed, not again part by part.
                for (part, at) in checker.parts.into_iter().filter(|_| !mixed) {
                    if let Some((_, earlier)) = parts.iter().find(|(p, _)| *p == part) {
                        diagnostics.push(
                            Diagnostic::new(
                                &DUPLICATE_PART,
                                file.key_location(at),
                                format!(
                                    "a second {} configuration; `{}` already gives one",
                                    part.name(),
                                    earlier
                                ),
                            )
                            .with_help("one channel takes one of each part: give each part once"),
                        );
                    } else {
                        parts.push((part, file.display.clone()));
                    }
                }
                checker.sources.sort_by_key(|(_, at)| at.span.start());
                partition_sources.append(&mut checker.sources);
                record_formats.append(&mut checker.formats);
                checker.settings.sort_by_key(|(_, _, at)| at.span.start());
                settings.append(&mut checker.settings);
            }
        }
        diagnostics.sort_by_key(|d| d.location.span.start());
        diagnostics.dedup();
        per_file.push(diagnostics);
    }

    let seen: Vec<places::SeenArn> = arns.iter().map(|(_, arn)| arn.clone()).collect();
    for finding in places::compare(&seen) {
        let file = arns
            .iter()
            .find(|(_, arn)| arn.location == finding.location)
            .map_or(0, |(index, _)| *index);
        if let Some(diagnostics) = per_file.get_mut(file) {
            diagnostics.push(finding);
            diagnostics.sort_by_key(|d| d.location.span.start());
        }
    }
    ChannelCheck {
        diagnostics: per_file.into_iter().flatten().collect(),
        partition_sources,
        record_formats,
        settings,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Destination,
    Sources,
    Encryption,
}

impl Part {
    fn name(self) -> &'static str {
        match self {
            Part::Destination => "destination",
            Part::Sources => "stream or topic list",
            Part::Encryption => "encryption",
        }
    }
}

/// The checks of one file.
struct Checker<'a> {
    file: &'a JsonFile,
    doc: &'a JsonDoc,
    service: Service,
    diagnostics: Vec<Diagnostic>,
    sources: Vec<(String, Location)>,
    formats: Vec<(RecordFormat, Location)>,
    settings: Vec<(Setting, String, Location)>,
    parts: Vec<(Part, JsonId)>,
    /// The well-formed ARNs seen, for [`places::compare`].
    arns: Vec<places::SeenArn>,
}

impl<'a> Checker<'a> {
    fn check(&mut self, root: JsonId, shape: Shape) {
        self.unknown_keys(root, shape);
        match shape {
            Shape::Request => self.request(root),
            Shape::Destination => {
                self.parts.push((Part::Destination, root));
                self.destination(root);
            }
            Shape::Sources => {
                self.parts.push((Part::Sources, root));
                self.sources(root, self.keys().sources);
            }
            Shape::Encryption => {
                self.parts.push((Part::Encryption, root));
                self.encryption(root);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_prefixed_and_unique() {
        let mut names: Vec<&str> = ALL.iter().map(|c| c.name).collect();
        assert!(names.iter().all(|n| n.starts_with("channel-")));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
    }
}
