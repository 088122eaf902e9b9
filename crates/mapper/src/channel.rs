//! Checks the channel configuration files given with `--channel-config` against what AWS
//! documents for Kinesis and MSK streaming-tables channels, and collects the partition source
//! that they name.
//!
//! Each file is recognised by its shape (see [`recognise`]); the checks run on whatever is given,
//! so a destination configuration on its own is valid input. The rules and their sources are in
//! `../shared/reference/aws-streaming-tables-facts.md`, section 3. Nothing here reads the schema:
//! the caller compiles the schema with the `SourceName`s found, and reports there whether each
//! names a timestamptz column.

use schema2iceberg_parser::json::{JsonDoc, JsonId, JsonValue};
use schema2iceberg_parser::{Code, Diagnostic, JsonFile, Location, Number};

schema2iceberg_parser::code_table! {
    UNRECOGNISED = "channel-unrecognised", Error, rule [] section "channel configurations (docs/ci.md)",
        "A `--channel-config` file has none of the shapes of a Kinesis or MSK channel configuration, so nothing in it can be checked.",
        "Give the JSON that you pass to `aws kinesis create-channel` (`--s3-tables-destination-configuration`, `--stream-configuration-list`, `--encryption-configuration`, or one object with all three under their API names) or to `aws kafka create-channel` (`--iceberg-destination-configuration`, bare or under `IcebergDestinationConfiguration`, `--topic-configuration-list`, `--encryption-configuration`).",
        r#"{"Bucket": "my-bucket"}"#;
    MISSING_KEY = "channel-missing-key", Error, rule [] section "channel configurations (docs/ci.md)",
        "A key that the CreateChannel API requires is missing.",
        "Add the key; the message names the object that needs it.",
        r#"{"S3TablesConfigurationList": [{"Namespace": "sales", "CompressionType": "ZSTD"}]}"#;
    WRONG_TYPE = "channel-wrong-type", Error, rule [] section "channel configurations (docs/ci.md)",
        "A value has the wrong JSON type, such as a string where the API takes a number; the AWS CLI rejects the parameter.",
        "Write the value with the type that the message names: numbers without quotes, ARNs and account ids in quotes.",
        r#"{"DataFreshnessInSeconds": "300"}"#;
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
}

/// Recognises each file by its shape and checks everything AWS documents.
pub fn check_channel_configs(files: &[JsonFile]) -> ChannelCheck {
    let mut per_file: Vec<Vec<Diagnostic>> = Vec::with_capacity(files.len());
    let mut partition_sources = Vec::new();
    let mut record_formats = Vec::new();
    // Parts seen so far, across files, with the file that gave each.
    let mut parts: Vec<(Part, String)> = Vec::new();
    let mut first_service: Option<(Service, String)> = None;

    for file in files {
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
                    parts: Vec::new(),
                };
                checker.check(root, shape);
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
            }
        }
        diagnostics.sort_by_key(|d| d.location.span.start());
        diagnostics.dedup();
        per_file.push(diagnostics);
    }

    ChannelCheck {
        diagnostics: per_file.into_iter().flatten().collect(),
        partition_sources,
        record_formats,
    }
}

const ACCEPTED_SHAPES: &str = "give the JSON of `aws kinesis create-channel`: an `--s3-tables-destination-configuration` object, a `--stream-configuration-list` array, an `--encryption-configuration` object, or one object holding them as `S3TablesDestinationConfiguration`, `StreamConfigurationList` and `EncryptionConfiguration`; or of `aws kafka create-channel`: an `--iceberg-destination-configuration` object (bare or under `IcebergDestinationConfiguration`), a `--topic-configuration-list` array, or an `--encryption-configuration` object";

/// One shape that a file may have: the keys that identify it, and every key it may hold.
struct Candidate {
    service: Service,
    shape: Shape,
    identifying: &'static [&'static str],
    keys: &'static [&'static str],
}

const KINESIS_DESTINATION_KEYS: &[&str] = &[
    "DataFreshnessInSeconds",
    "DeadLetterQueueS3Configuration",
    "S3TablesConfigurationList",
];
const MSK_DESTINATION_KEYS: &[&str] = &[
    "AppendOnly",
    "Catalog",
    "CompressionType",
    "DataFreshnessInSeconds",
    "DeadLetterQueueS3",
    "DestinationTableList",
    "SchemaEvolution",
    "ServiceExecutionRoleArn",
    "TableCreation",
];

/// The object shapes, in the order that breaks a tie.
const OBJECT_SHAPES: &[Candidate] = &[
    Candidate {
        service: Service::Kinesis,
        shape: Shape::Request,
        identifying: &[
            "S3TablesDestinationConfiguration",
            "StreamConfigurationList",
            "S3DestinationConfiguration",
        ],
        keys: &[
            "ChannelName",
            "ServiceExecutionRoleARN",
            "StreamConfigurationList",
            "S3DestinationConfiguration",
            "S3TablesDestinationConfiguration",
            "EncryptionConfiguration",
            "LoggingConfiguration",
            "Tags",
        ],
    },
    Candidate {
        service: Service::Kinesis,
        shape: Shape::Destination,
        identifying: KINESIS_DESTINATION_KEYS,
        keys: KINESIS_DESTINATION_KEYS,
    },
    Candidate {
        service: Service::Kinesis,
        shape: Shape::Encryption,
        identifying: &["EncryptionType", "KeyId"],
        keys: &["EncryptionType", "KeyId"],
    },
    Candidate {
        service: Service::Msk,
        shape: Shape::Request,
        identifying: &[
            "IcebergDestinationConfiguration",
            "TopicConfigurationList",
            "ClusterArn",
            "LoggingInfo",
        ],
        keys: &[
            "ChannelName",
            "ClusterArn",
            "EncryptionConfiguration",
            "IcebergDestinationConfiguration",
            "S3DestinationConfiguration",
            "Tags",
            "TopicConfigurationList",
            "LoggingInfo",
        ],
    },
    Candidate {
        service: Service::Msk,
        shape: Shape::Destination,
        identifying: &[
            "AppendOnly",
            "Catalog",
            "DeadLetterQueueS3",
            "DestinationTableList",
            "SchemaEvolution",
            "TableCreation",
        ],
        keys: MSK_DESTINATION_KEYS,
    },
    Candidate {
        service: Service::Msk,
        shape: Shape::Encryption,
        identifying: &["KmsKeyArn"],
        keys: &["KmsKeyArn"],
    },
];

const ARRAY_SHAPES: &[Candidate] = &[
    Candidate {
        service: Service::Kinesis,
        shape: Shape::Sources,
        identifying: &["StreamARN", "RecordConfiguration"],
        keys: &["StreamARN", "RecordConfiguration"],
    },
    Candidate {
        service: Service::Msk,
        shape: Shape::Sources,
        identifying: &["TopicArn", "RecordConverter", "RecordSchema"],
        keys: &["TopicArn", "RecordConverter", "RecordSchema"],
    },
];

/// Which service and which part of a configuration `file` holds, judged by its keys. Each
/// shape that has one of its identifying keys scores two for each key of its own written
/// exactly and one for each written in another case; the highest score wins. So a Kinesis
/// destination with one key spelt the MSK way is still a Kinesis destination, and a misspelt
/// key is still recognised, and then reported.
pub fn recognise(file: &JsonFile) -> Option<(Service, Shape)> {
    let doc = file.json.as_ref()?;
    let root = doc.root();
    let keys_of = |id: JsonId| -> Vec<&str> {
        match doc.value(id) {
            JsonValue::Object(members) => members.iter().map(|m| m.key.as_str()).collect(),
            _ => Vec::new(),
        }
    };
    let (keys, candidates) = match doc.value(root) {
        JsonValue::Array(items) => (
            items.iter().flat_map(|item| keys_of(*item)).collect(),
            ARRAY_SHAPES,
        ),
        JsonValue::Object(_) => (keys_of(root), OBJECT_SHAPES),
        _ => return None,
    };
    let score = |candidate: &Candidate| -> Option<usize> {
        let has_ci = |k: &str| keys.iter().any(|key| key.eq_ignore_ascii_case(k));
        if !candidate.identifying.iter().any(|k| has_ci(k)) {
            return None;
        }
        Some(
            keys.iter()
                .map(|key| {
                    if candidate.keys.contains(key) {
                        2
                    } else if candidate.keys.iter().any(|k| k.eq_ignore_ascii_case(key)) {
                        1
                    } else {
                        0
                    }
                })
                .sum(),
        )
    };
    let mut best: Option<(usize, &Candidate)> = None;
    for candidate in candidates {
        if let Some(points) = score(candidate) {
            if best.is_none_or(|(top, _)| points > top) {
                best = Some((points, candidate));
            }
        }
    }
    if let Some((_, candidate)) = best {
        return Some((candidate.service, candidate.shape));
    }
    // A request that gives only its encryption (and perhaps its name): the service shows in
    // the encryption's own keys.
    let encryption = find_ci(doc, root, "EncryptionConfiguration")?;
    if find_ci(doc, encryption, "KmsKeyArn").is_some() {
        Some((Service::Msk, Shape::Request))
    } else {
        Some((Service::Kinesis, Shape::Request))
    }
}

/// The value of the first member of `obj` whose key equals `key` ignoring ASCII case.
fn find_ci(doc: &JsonDoc, obj: JsonId, key: &str) -> Option<JsonId> {
    match doc.value(obj) {
        JsonValue::Object(members) => members
            .iter()
            .find(|m| m.key.eq_ignore_ascii_case(key))
            .map(|m| m.value),
        _ => None,
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

fn kind(value: &JsonValue) -> &'static str {
    match value {
        JsonValue::Null => "null",
        JsonValue::Bool(_) => "a boolean",
        JsonValue::Number(_) => "a number",
        JsonValue::String(_) => "a string",
        JsonValue::Array(_) => "an array",
        JsonValue::Object(_) => "an object",
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
    parts: Vec<(Part, JsonId)>,
}

impl<'a> Checker<'a> {
    fn check(&mut self, root: JsonId, shape: Shape) {
        match (self.service, shape) {
            (Service::Kinesis, Shape::Request) => self.kinesis_request(root),
            (Service::Kinesis, Shape::Destination) => {
                self.parts.push((Part::Destination, root));
                self.kinesis_destination(root);
            }
            (Service::Kinesis, Shape::Sources) => {
                self.parts.push((Part::Sources, root));
                self.stream_list(root, "StreamConfigurationList");
            }
            (Service::Kinesis, Shape::Encryption) => {
                self.parts.push((Part::Encryption, root));
                self.kinesis_encryption(root);
            }
            (Service::Msk, Shape::Request) => self.msk_request(root),
            (Service::Msk, Shape::Destination) => {
                self.parts.push((Part::Destination, root));
                self.msk_destination(root);
            }
            (Service::Msk, Shape::Sources) => {
                self.parts.push((Part::Sources, root));
                self.topic_list(root, "TopicConfigurationList");
            }
            (Service::Msk, Shape::Encryption) => {
                self.parts.push((Part::Encryption, root));
                self.msk_encryption(root);
            }
        }
    }

    // ---- Reporting and typed access -------------------------------------------------------

    fn report(&mut self, code: &Code, location: Location, message: String, help: Option<String>) {
        let mut diagnostic = Diagnostic::new(code, location, message);
        if let Some(help) = help {
            diagnostic = diagnostic.with_help(help);
        }
        self.diagnostics.push(diagnostic);
    }

    /// Reports a bad value at its key.
    fn bad(&mut self, code: &Code, id: JsonId, message: String, help: Option<String>) {
        let location = self.file.key_location(id);
        self.report(code, location, message, help);
    }

    /// The member `key` of `obj`. A member whose key differs from `key` only in case is reported
    /// and used, so that its value is still checked and the key is not also called missing.
    fn get(&mut self, obj: JsonId, key: &str) -> Option<JsonId> {
        let JsonValue::Object(members) = self.doc.value(obj) else {
            return None;
        };
        let mut found = members.iter().find(|m| m.key == key).map(|m| m.value);
        for member in members
            .iter()
            .filter(|m| m.key != key && m.key.eq_ignore_ascii_case(key))
        {
            self.bad(
                &KEY_CASE,
                member.value,
                format!(
                    "`{}` is not a key of the {} API; keys are case-sensitive",
                    member.key,
                    self.service.name()
                ),
                Some(format!("write `{key}`")),
            );
            found = found.or(Some(member.value));
        }
        found
    }

    /// The member `key` of `obj`, reporting it missing from `what` (the API type's name).
    fn require(&mut self, obj: JsonId, key: &str, what: &str) -> Option<JsonId> {
        let found = self.get(obj, key);
        if found.is_none() {
            let location = self.file.location(obj);
            self.report(
                &MISSING_KEY,
                location,
                format!("`{key}` is missing; {} requires it", every(what)),
                None,
            );
        }
        found
    }

    fn wrong_type(&mut self, id: JsonId, key: &str, expected: &str) {
        let value = self.doc.value(id);
        let help = match (expected, value) {
            ("a string", JsonValue::Number(n)) => {
                Some(format!("write it in quotes: `\"{}\"`", n.as_str()))
            }
            ("a whole number", JsonValue::String(s))
                if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) =>
            {
                Some(format!("remove the quotes: `{s}`"))
            }
            ("a boolean", JsonValue::String(s)) if s == "true" || s == "false" => {
                Some(format!("remove the quotes: `{s}`"))
            }
            _ => None,
        };
        let message = format!("`{key}` must be {expected}, not {}", kind(value));
        self.bad(&WRONG_TYPE, id, message, help);
    }

    fn string(&mut self, id: JsonId, key: &str) -> Option<&'a str> {
        let doc = self.doc;
        match doc.value(id) {
            JsonValue::String(s) => Some(s.as_str()),
            _ => {
                self.wrong_type(id, key, "a string");
                None
            }
        }
    }

    fn object(&mut self, id: JsonId, key: &str) -> bool {
        let is_object = matches!(self.doc.value(id), JsonValue::Object(_));
        if !is_object {
            self.wrong_type(id, key, "an object");
        }
        is_object
    }

    fn array(&mut self, id: JsonId, key: &str) -> Option<&'a [JsonId]> {
        let doc = self.doc;
        match doc.value(id) {
            JsonValue::Array(items) => Some(items.as_slice()),
            _ => {
                self.wrong_type(id, key, "an array");
                None
            }
        }
    }

    /// The objects among `items`, reporting the others.
    fn objects(&mut self, items: &[JsonId], list: &str) -> Vec<JsonId> {
        let mut objects = Vec::new();
        for &item in items {
            let value = self.doc.value(item);
            if matches!(value, JsonValue::Object(_)) {
                objects.push(item);
            } else {
                let location = self.file.location(item);
                let message = format!(
                    "each entry of `{list}` must be an object, not {}",
                    kind(value)
                );
                self.report(&WRONG_TYPE, location, message, None);
            }
        }
        objects
    }

    fn boolean(&mut self, id: JsonId, key: &str) -> Option<bool> {
        match self.doc.value(id) {
            JsonValue::Bool(b) => Some(*b),
            _ => {
                self.wrong_type(id, key, "a boolean");
                None
            }
        }
    }

    /// A JSON integer. The AWS CLI reads `300.0` and `3e2` as floats and rejects them for an
    /// integer parameter, so only plain digits count.
    fn integer(&mut self, id: JsonId, key: &str) -> Option<&'a Number> {
        let doc = self.doc;
        match doc.value(id) {
            JsonValue::Number(n)
                if n.as_str()
                    .strip_prefix('-')
                    .unwrap_or(n.as_str())
                    .bytes()
                    .all(|b| b.is_ascii_digit()) =>
            {
                Some(n)
            }
            JsonValue::Number(n) => {
                let help = integer_text(n).map(|plain| format!("write `{plain}`"));
                self.bad(
                    &WRONG_TYPE,
                    id,
                    format!(
                        "`{key}` must be a whole number written without a decimal point or exponent, not `{}`",
                        n.as_str()
                    ),
                    help,
                );
                None
            }
            _ => {
                self.wrong_type(id, key, "a whole number");
                None
            }
        }
    }

    // ---- Kinesis ---------------------------------------------------------------------------

    fn kinesis_request(&mut self, root: JsonId) {
        if let Some(id) = self.get(root, "ChannelName") {
            self.channel_name(id, 128);
        }
        if let Some(id) = self.get(root, "ServiceExecutionRoleARN") {
            self.arn(id, "ServiceExecutionRoleARN", &ROLE_ARN, &ARN);
        }
        let tables = self.get(root, "S3TablesDestinationConfiguration");
        if let Some(general) = self.get(root, "S3DestinationConfiguration") {
            self.general_purpose_destination(
                general,
                tables.is_some(),
                "S3TablesDestinationConfiguration",
            );
        }
        if let Some(id) = tables {
            self.parts.push((Part::Destination, id));
            if self.object(id, "S3TablesDestinationConfiguration") {
                self.kinesis_destination(id);
            }
        }
        if let Some(id) = self.get(root, "StreamConfigurationList") {
            self.parts.push((Part::Sources, id));
            self.stream_list(id, "StreamConfigurationList");
        }
        if let Some(id) = self.get(root, "EncryptionConfiguration") {
            self.parts.push((Part::Encryption, id));
            if self.object(id, "EncryptionConfiguration") {
                self.kinesis_encryption(id);
            }
        }
    }

    fn general_purpose_destination(
        &mut self,
        general: JsonId,
        with_iceberg: bool,
        iceberg_key: &str,
    ) {
        let message = if with_iceberg {
            format!("`S3DestinationConfiguration` and `{iceberg_key}` are mutually exclusive; a channel has exactly one destination")
        } else {
            "`S3DestinationConfiguration` delivers to a general purpose S3 bucket, which creates no Iceberg table".to_string()
        };
        self.bad(
            &DESTINATION,
            general,
            message,
            Some(format!(
                "remove `S3DestinationConfiguration` and give `{iceberg_key}`"
            )),
        );
    }

    fn kinesis_destination(&mut self, obj: JsonId) {
        const WHAT: &str = "S3TablesDestinationConfiguration";
        if let Some(id) = self.get(obj, "DataFreshnessInSeconds") {
            self.freshness(id);
        }
        if let Some(id) = self.require(obj, "DeadLetterQueueS3Configuration", WHAT) {
            if self.object(id, "DeadLetterQueueS3Configuration") {
                self.dead_letter_queue(id, "DeadLetterQueueS3Configuration");
            }
        }
        if let Some(id) = self.require(obj, "S3TablesConfigurationList", WHAT) {
            if let Some(items) = self.array(id, "S3TablesConfigurationList") {
                self.count_one(id, items.len(), "S3TablesConfigurationList", &TABLE_COUNT);
                for item in self.objects(items, "S3TablesConfigurationList") {
                    self.kinesis_table(item);
                }
            }
        }
    }

    fn kinesis_table(&mut self, obj: JsonId) {
        const WHAT: &str = "S3TablesConfiguration";
        match self.get(obj, "CompressionType") {
            Some(id) => self.compression(id, &["NONE", "ZSTD", "SNAPPY"]),
            None => {
                let location = self.file.location(obj);
                self.report(
                    &COMPRESSION,
                    location,
                    "`CompressionType` is missing; Kinesis requires it on every table entry"
                        .to_string(),
                    Some("add `\"CompressionType\": \"ZSTD\"` (or `SNAPPY` or `NONE`)".to_string()),
                );
            }
        }
        if let Some(id) = self.require(obj, "Namespace", WHAT) {
            self.table_name(id, "Namespace", true);
        }
        if let Some(id) = self.require(obj, "TableName", WHAT) {
            self.table_name(id, "TableName", false);
        }
        if let Some(id) = self.require(obj, "TableBucketARN", WHAT) {
            self.arn(id, "TableBucketARN", &TABLE_BUCKET_ARN, &ARN);
        }
        match self.get(obj, "PartitionSpec") {
            None => self.no_partition_spec(obj, ""),
            Some(spec) => {
                if self.object(spec, "PartitionSpec") {
                    self.kinesis_partition_spec(spec);
                }
            }
        }
    }

    fn no_partition_spec(&mut self, obj: JsonId, extra: &str) {
        let location = self.file.location(obj);
        let example = match self.service {
            Service::Kinesis => {
                r#""PartitionSpec": {"PartitionFields": [{"SourceName": "event_time", "Transform": "TIME_HOUR"}]}"#
            }
            Service::Msk => {
                r#""PartitionSpec": {"PartitionStrategy": "TIME_HOUR", "SourceList": [{"SourceName": "event_time"}]}"#
            }
        };
        self.report(
            &PARTITION_SPEC,
            location,
            format!("the table has no `PartitionSpec`; a streaming table is partitioned by the hour of one timestamptz column{extra}"),
            Some(format!("add `{example}`, naming a `date-time` property of the schema")),
        );
    }

    fn kinesis_partition_spec(&mut self, spec: JsonId) {
        let Some(fields) = self.require(spec, "PartitionFields", "PartitionSpec") else {
            return;
        };
        let Some(items) = self.array(fields, "PartitionFields") else {
            return;
        };
        match items.len() {
            1 => {}
            0 => self.bad(
                &PARTITION_SPEC,
                fields,
                "`PartitionFields` is empty; a streaming table needs exactly one partition field".to_string(),
                Some(r#"add `{"SourceName": "event_time", "Transform": "TIME_HOUR"}`, naming a `date-time` property of the schema"#.to_string()),
            ),
            n => self.bad(
                &PARTITION_SPEC,
                fields,
                format!("`PartitionFields` has {n} fields; a streaming table is partitioned by exactly one, and multi-column partitioning is not supported"),
                Some("keep one field, the hour of the event time".to_string()),
            ),
        }
        for field in self.objects(items, "PartitionFields") {
            if let Some(id) = self.require(field, "SourceName", "PartitionField") {
                self.source_name(id);
            }
            if let Some(id) = self.require(field, "Transform", "PartitionField") {
                self.time_hour(id, "Transform");
            }
        }
    }

    fn stream_list(&mut self, list: JsonId, key: &str) {
        let Some(items) = self.array(list, key) else {
            return;
        };
        self.count_one(list, items.len(), key, &STREAM_COUNT);
        for item in self.objects(items, key) {
            if let Some(id) = self.require(item, "StreamARN", "StreamConfiguration") {
                self.arn(id, "StreamARN", &STREAM_ARN, &ARN);
            }
            let Some(config) = self.require(item, "RecordConfiguration", "StreamConfiguration")
            else {
                continue;
            };
            if !self.object(config, "RecordConfiguration") {
                continue;
            }
            if let Some(id) = self.require(config, "RecordFormatType", "RecordConfiguration") {
                self.record_format(id);
            }
            match self.get(config, "GSRSchemaARN") {
                Some(id) => self.arn(id, "GSRSchemaARN", &GSR_ARN, &GSR_SCHEMA_ARN),
                None => {
                    let location = self.file.location(config);
                    self.report(
                        &GSR_SCHEMA_ARN,
                        location,
                        "`GSRSchemaARN` is missing; a channel that writes a streaming table needs the Glue Schema Registry schema, for `GSR_JSON` and `JSON` alike".to_string(),
                        Some("add `\"GSRSchemaARN\": \"arn:aws:glue:<region>:<account>:schema/<registry-name>/<schema-name>\"`".to_string()),
                    );
                }
            }
        }
    }

    fn record_format(&mut self, id: JsonId) {
        let Some(value) = self.string(id, "RecordFormatType") else {
            return;
        };
        match value {
            "GSR_JSON" => self.formats.push((RecordFormat::GsrJson, self.file.location(id))),
            "JSON" => self.formats.push((RecordFormat::Json, self.file.location(id))),
            "STRING" | "BYTE_ARRAY" => self.bad(
                &RECORD_FORMAT,
                id,
                format!("`RecordFormatType` `{value}` delivers only to a general purpose S3 bucket, not to a streaming table"),
                Some("use `GSR_JSON` (records framed by the Glue Schema Registry serializer) or `JSON` (plain JSON)".to_string()),
            ),
            other => self.bad(
                &RECORD_FORMAT,
                id,
                format!("`{other}` is not a `RecordFormatType` that a streaming table reads"),
                Some(capitals_or(other, &["GSR_JSON", "JSON"])),
            ),
        }
    }

    fn kinesis_encryption(&mut self, obj: JsonId) {
        if let Some(id) = self.require(obj, "EncryptionType", "EncryptionConfiguration") {
            if let Some(value) = self.string(id, "EncryptionType") {
                if value != "KMS" {
                    self.bad(
                        &ENCRYPTION_TYPE,
                        id,
                        format!("`EncryptionType` is `{value}`; the only valid value is `KMS`"),
                        Some("write `\"EncryptionType\": \"KMS\"`".to_string()),
                    );
                }
            }
        }
        if let Some(id) = self.require(obj, "KeyId", "EncryptionConfiguration") {
            self.kms_key(id, "KeyId");
        }
    }

    // ---- MSK -------------------------------------------------------------------------------

    fn msk_request(&mut self, root: JsonId) {
        if let Some(id) = self.get(root, "ChannelName") {
            self.channel_name(id, 64);
        }
        if let Some(id) = self.get(root, "ClusterArn") {
            self.arn(id, "ClusterArn", &CLUSTER_ARN, &ARN);
        }
        let iceberg = self.get(root, "IcebergDestinationConfiguration");
        if let Some(general) = self.get(root, "S3DestinationConfiguration") {
            self.general_purpose_destination(
                general,
                iceberg.is_some(),
                "IcebergDestinationConfiguration",
            );
        }
        if let Some(id) = iceberg {
            self.parts.push((Part::Destination, id));
            if self.object(id, "IcebergDestinationConfiguration") {
                self.msk_destination(id);
            }
        }
        if let Some(id) = self.get(root, "TopicConfigurationList") {
            self.parts.push((Part::Sources, id));
            self.topic_list(id, "TopicConfigurationList");
        }
        if let Some(id) = self.get(root, "EncryptionConfiguration") {
            self.parts.push((Part::Encryption, id));
            if self.object(id, "EncryptionConfiguration") {
                self.msk_encryption(id);
            }
        }
    }

    fn msk_destination(&mut self, obj: JsonId) {
        const WHAT: &str = "IcebergDestinationConfiguration";
        if let Some(id) = self.require(obj, "AppendOnly", WHAT) {
            self.boolean(id, "AppendOnly");
        }
        if let Some(catalog) = self.get(obj, "Catalog") {
            if self.object(catalog, "Catalog") {
                if let Some(id) = self.get(catalog, "CatalogArn") {
                    self.arn(id, "CatalogArn", &CATALOG_ARN, &ARN);
                }
                if let Some(id) = self.get(catalog, "WarehouseLocation") {
                    self.arn(id, "WarehouseLocation", &TABLE_BUCKET_ARN, &ARN);
                }
            }
        }
        if let Some(id) = self.get(obj, "CompressionType") {
            self.compression(id, &["ZSTD", "SNAPPY"]);
        }
        if let Some(id) = self.get(obj, "DataFreshnessInSeconds") {
            self.freshness(id);
        }
        if let Some(id) = self.require(obj, "DeadLetterQueueS3", WHAT) {
            if self.object(id, "DeadLetterQueueS3") {
                self.dead_letter_queue(id, "DeadLetterQueueS3");
            }
        }
        if let Some(id) = self.require(obj, "DestinationTableList", WHAT) {
            if let Some(items) = self.array(id, "DestinationTableList") {
                self.count_one(id, items.len(), "DestinationTableList", &TABLE_COUNT);
                for item in self.objects(items, "DestinationTableList") {
                    self.msk_table(item);
                }
            }
        }
        if let Some(evolution) = self.get(obj, "SchemaEvolution") {
            if self.object(evolution, "SchemaEvolution") {
                if let Some(id) =
                    self.require(evolution, "EnableSchemaEvolution", "SchemaEvolution")
                {
                    if self.boolean(id, "EnableSchemaEvolution") == Some(true) {
                        self.bad(
                            &SCHEMA_EVOLUTION,
                            id,
                            "MSK streaming tables do not support schema evolution".to_string(),
                            Some("set `\"EnableSchemaEvolution\": false`; to change the schema, create a new channel".to_string()),
                        );
                    }
                }
            }
        }
        if let Some(id) = self.require(obj, "ServiceExecutionRoleArn", WHAT) {
            self.arn(id, "ServiceExecutionRoleArn", &ROLE_ARN, &ARN);
        }
        if let Some(creation) = self.get(obj, "TableCreation") {
            if self.object(creation, "TableCreation") {
                if let Some(id) = self.require(creation, "EnableTableCreation", "TableCreation") {
                    if self.boolean(id, "EnableTableCreation") == Some(false) {
                        self.bad(
                            &TABLE_CREATION,
                            id,
                            "with table creation off, the channel does not create the table that this schema describes".to_string(),
                            Some("set `\"EnableTableCreation\": true`".to_string()),
                        );
                    }
                }
            }
        }
    }

    fn msk_table(&mut self, obj: JsonId) {
        const WHAT: &str = "DestinationTable";
        if let Some(id) = self.require(obj, "DestinationDatabaseName", WHAT) {
            self.table_name(id, "DestinationDatabaseName", true);
        }
        if let Some(id) = self.require(obj, "DestinationTableName", WHAT) {
            self.table_name(id, "DestinationTableName", false);
        }
        let Some(spec) = self.get(obj, "PartitionSpec") else {
            self.no_partition_spec(
                obj,
                ", and without a `SourceList` AWS fails with `InvalidParameter: sourceList`",
            );
            return;
        };
        if !self.object(spec, "PartitionSpec") {
            return;
        }
        if let Some(id) = self.require(spec, "PartitionStrategy", "PartitionSpec") {
            self.time_hour(id, "PartitionStrategy");
        }
        let Some(list) = self.get(spec, "SourceList") else {
            let location = self.file.location(spec);
            self.report(
                &PARTITION_SPEC,
                location,
                "`PartitionSpec` has no `SourceList`; AWS fails with `InvalidParameter: sourceList`".to_string(),
                Some(r#"add `"SourceList": [{"SourceName": "event_time"}]`, naming a `date-time` property of the schema"#.to_string()),
            );
            return;
        };
        let Some(items) = self.array(list, "SourceList") else {
            return;
        };
        match items.len() {
            1 => {}
            0 => self.bad(
                &PARTITION_SPEC,
                list,
                "`SourceList` is empty; AWS fails with `InvalidParameter: sourceList`".to_string(),
                Some(r#"add `{"SourceName": "event_time"}`, naming a `date-time` property of the schema"#.to_string()),
            ),
            n => self.bad(
                &PARTITION_SPEC,
                list,
                format!("`SourceList` has {n} entries; `TIME_HOUR` takes exactly one source column, and multi-column partitioning is not supported"),
                Some("keep one entry, the event time".to_string()),
            ),
        }
        for item in self.objects(items, "SourceList") {
            if let Some(id) = self.require(item, "SourceName", "SourceList entry") {
                self.source_name(id);
            }
        }
    }

    fn topic_list(&mut self, list: JsonId, key: &str) {
        let Some(items) = self.array(list, key) else {
            return;
        };
        self.count_one(list, items.len(), key, &STREAM_COUNT);
        for item in self.objects(items, key) {
            if let Some(id) = self.require(item, "TopicArn", "TopicConfiguration") {
                self.arn(id, "TopicArn", &TOPIC_ARN, &ARN);
            }
            let mut converter = None;
            if let Some(rc) = self.require(item, "RecordConverter", "TopicConfiguration") {
                if self.object(rc, "RecordConverter") {
                    if let Some(id) = self.require(rc, "ValueConverter", "RecordConverter") {
                        converter = self.value_converter(id).map(|v| (v, id));
                    }
                }
            }
            let mut gsr = None;
            let schema = self.get(item, "RecordSchema");
            if let Some(rs) = schema {
                if self.object(rs, "RecordSchema") {
                    if let Some(id) = self.require(rs, "GsrArn", "RecordSchema") {
                        self.arn(id, "GsrArn", &GSR_ARN, &GSR_SCHEMA_ARN);
                        gsr = Some(id);
                    }
                }
            }
            match (converter, schema, gsr) {
                (Some(("JSON", _)), None, _) => {
                    let location = self.file.location(item);
                    self.report(
                        &GSR_SCHEMA_ARN,
                        location,
                        "`ValueConverter` `JSON` needs `RecordSchema.GsrArn`, the Glue Schema Registry schema that the records follow".to_string(),
                        Some(r#"add `"RecordSchema": {"GsrArn": "arn:aws:glue:<region>:<account>:schema/<registry-name>/<schema-name>"}`"#.to_string()),
                    );
                }
                (Some(("JSON_SCHEMA_GSR", _)), _, Some(id)) => self.bad(
                    &GSR_SCHEMA_ARN,
                    id,
                    "with `ValueConverter` `JSON_SCHEMA_GSR` each record carries its schema id, so `RecordSchema.GsrArn` must not be given".to_string(),
                    Some("remove `RecordSchema`, or use `ValueConverter` `JSON` for plain JSON records".to_string()),
                ),
                _ => {}
            }
        }
    }

    /// The converter's value when it is one that a streaming table reads.
    fn value_converter(&mut self, id: JsonId) -> Option<&'static str> {
        let value = self.string(id, "ValueConverter")?;
        match value {
            "JSON" => {
                self.formats
                    .push((RecordFormat::Json, self.file.location(id)));
                Some("JSON")
            }
            "JSON_SCHEMA_GSR" => {
                self.formats
                    .push((RecordFormat::GsrJson, self.file.location(id)));
                Some("JSON_SCHEMA_GSR")
            }
            "STRING" | "BYTE_ARRAY" => {
                self.bad(
                    &RECORD_FORMAT,
                    id,
                    format!("`ValueConverter` `{value}` delivers only to a general purpose S3 bucket, not to a streaming table"),
                    Some("use `JSON_SCHEMA_GSR` (records framed by the Glue Schema Registry serializer) or `JSON` (plain JSON)".to_string()),
                );
                None
            }
            other => {
                self.bad(
                    &RECORD_FORMAT,
                    id,
                    format!("`{other}` is not a `ValueConverter` that a streaming table reads"),
                    Some(capitals_or(other, &["JSON_SCHEMA_GSR", "JSON"])),
                );
                None
            }
        }
    }

    fn msk_encryption(&mut self, obj: JsonId) {
        if let Some(id) = self.require(obj, "KmsKeyArn", "EncryptionConfiguration") {
            self.kms_key(id, "KmsKeyArn");
        }
    }

    // ---- Shared value checks ----------------------------------------------------------------

    fn count_one(&mut self, list: JsonId, len: usize, key: &str, code: &Code) {
        let (one, many) = if code.name == TABLE_COUNT.name {
            ("table", "tables")
        } else if key == "TopicConfigurationList" {
            ("topic", "topics")
        } else {
            ("stream", "streams")
        };
        match len {
            1 => {}
            0 => self.bad(
                code,
                list,
                format!("`{key}` is empty; a channel needs exactly one {one}"),
                Some(format!("add one {one} entry")),
            ),
            n => self.bad(
                code,
                list,
                format!("`{key}` has {n} {many}; a channel currently supports exactly one"),
                Some(format!("create one channel per {one}")),
            ),
        }
    }

    fn channel_name(&mut self, id: JsonId, max: usize) {
        let Some(value) = self.string(id, "ChannelName") else {
            return;
        };
        self.text_rule(
            &CHANNEL_NAME,
            id,
            "ChannelName",
            value,
            max,
            |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'),
            "letters, digits, `_`, `.` and `-`",
        );
    }

    /// The length and character rules of a string value; the help says how to fix the one
    /// broken.
    #[allow(clippy::too_many_arguments)]
    fn text_rule(
        &mut self,
        code: &Code,
        id: JsonId,
        key: &str,
        value: &str,
        max: usize,
        ok: impl Fn(char) -> bool,
        allowed: &str,
    ) {
        let len = value.chars().count();
        let (message, help) = if len == 0 {
            (
                format!("`{key}` is empty"),
                format!("give 1–{max} characters: {allowed}"),
            )
        } else if len > max {
            (
                format!("`{key}` has {len} characters; the limit is {max}"),
                format!("shorten it to at most {max} characters"),
            )
        } else if let Some(c) = first_bad(value, ok) {
            (
                format!("{} is not allowed in `{key}`", describe_char(c)),
                format!("use only {allowed}"),
            )
        } else {
            return;
        };
        self.bad(code, id, message, Some(help));
    }

    fn freshness(&mut self, id: JsonId) {
        let Some(n) = self.integer(id, "DataFreshnessInSeconds") else {
            return;
        };
        let low = Number::from_json_text("300");
        let high = Number::from_json_text("900");
        if n.cmp_exact(&low).is_lt() || n.cmp_exact(&high).is_gt() {
            let default = match self.service {
                Service::Kinesis => 300,
                Service::Msk => 600,
            };
            self.bad(
                &DATA_FRESHNESS,
                id,
                format!(
                    "`DataFreshnessInSeconds` is {}; it must be 300–900 seconds (5–15 minutes)",
                    n.as_str()
                ),
                Some(format!(
                    "choose a value from 300 to 900, or leave it out for the default of {default}"
                )),
            );
        }
    }

    fn compression(&mut self, id: JsonId, allowed: &[&str]) {
        let Some(value) = self.string(id, "CompressionType") else {
            return;
        };
        if allowed.contains(&value) {
            return;
        }
        let message = if self.service == Service::Msk && value.eq_ignore_ascii_case("NONE") {
            "MSK streaming tables always compress their Parquet files; `CompressionType` has no `NONE`".to_string()
        } else {
            format!(
                "`{value}` is not {} `CompressionType`",
                self.service.a_name()
            )
        };
        let help = match self.service {
            Service::Kinesis => capitals_or(value, allowed),
            Service::Msk => format!(
                "{}; or leave it out for the default, `ZSTD`",
                capitals_or(value, allowed)
            ),
        };
        self.bad(&COMPRESSION, id, message, Some(help));
    }

    /// A namespace or table name: the API pattern `[0-9a-z_]+` with 1–255 characters, then the
    /// S3 Tables naming rules.
    fn table_name(&mut self, id: JsonId, key: &str, namespace: bool) {
        let Some(value) = self.string(id, key) else {
            return;
        };
        let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_';
        let len = value.chars().count();
        if len == 0 {
            self.bad(
                &NAME_PATTERN,
                id,
                format!("`{key}` is empty"),
                Some("give 1–255 characters: lowercase letters, digits and `_`".to_string()),
            );
            return;
        }
        if len > 255 {
            self.bad(
                &NAME_PATTERN,
                id,
                format!("`{key}` has {len} characters; the limit is 255"),
                Some("shorten it to at most 255 characters".to_string()),
            );
            return;
        }
        if let Some(c) = first_bad(value, allowed) {
            let why = if c.is_uppercase() {
                "; uppercase names also hide the table from Athena and Lake Formation"
            } else {
                ""
            };
            let suggestion: String = value
                .chars()
                .map(|c| match c {
                    '-' | '.' | ' ' => '_',
                    c => c.to_ascii_lowercase(),
                })
                .collect();
            let help = if suggestion.chars().all(allowed) {
                format!("use `{suggestion}`")
            } else {
                "use only lowercase letters, digits and `_`".to_string()
            };
            self.bad(
                &NAME_PATTERN,
                id,
                format!(
                    "{} is not allowed in `{key}`, which takes only lowercase letters, digits and `_`{why}",
                    describe_char(c)
                ),
                Some(help),
            );
            return;
        }
        let trimmed = if namespace {
            value.trim_matches('_')
        } else {
            value.trim_start_matches('_')
        };
        let trim_help = if trimmed.is_empty() {
            "use letters or digits".to_string()
        } else {
            format!("use `{trimmed}`")
        };
        let rule_problem = if value.starts_with('_') {
            Some((
                format!("`{key}` must begin with a letter or digit"),
                trim_help,
            ))
        } else if namespace && value.ends_with('_') {
            Some((
                format!("`{key}` ends with `_`; a namespace must end with a letter or digit"),
                trim_help,
            ))
        } else if namespace && value.starts_with("aws") {
            Some((
                format!("`{key}` begins with `aws`; S3 Tables does not allow a namespace to begin with `aws`"),
                "choose a namespace that does not begin with `aws`".to_string(),
            ))
        } else {
            None
        };
        if let Some((message, help)) = rule_problem {
            self.bad(&NAME_RULE, id, message, Some(help));
        }
    }

    fn source_name(&mut self, id: JsonId) {
        let Some(value) = self.string(id, "SourceName") else {
            return;
        };
        if !value.is_empty() {
            self.sources
                .push((value.to_string(), self.file.location(id)));
        }
        self.text_rule(
            &SOURCE_NAME,
            id,
            "SourceName",
            value,
            255,
            |c| c.is_ascii_alphanumeric() || c == '.' || c == '_',
            "letters, digits, `.` and `_`",
        );
    }

    fn time_hour(&mut self, id: JsonId, key: &str) {
        let Some(value) = self.string(id, key) else {
            return;
        };
        if value != "TIME_HOUR" {
            self.bad(
                &PARTITION_SPEC,
                id,
                format!(
                    "`{key}` is `{value}`; the only one a streaming table supports is `TIME_HOUR`"
                ),
                Some(format!("write `\"{key}\": \"TIME_HOUR\"`")),
            );
        }
    }

    fn dead_letter_queue(&mut self, obj: JsonId, what: &str) {
        let kinesis = self.service == Service::Kinesis;
        let bucket_key = if kinesis { "BucketARN" } else { "BucketArn" };
        if let Some(id) = self.require(obj, bucket_key, what) {
            self.arn(id, bucket_key, &S3_BUCKET_ARN, &ARN);
        }
        match self.get(obj, "ExpectedBucketOwner") {
            Some(id) => {
                if let Some(value) = self.string(id, "ExpectedBucketOwner") {
                    if !is_account(value) {
                        self.bad(
                            &BUCKET_OWNER,
                            id,
                            format!("`ExpectedBucketOwner` is `{value}`, not a 12-digit account id"),
                            Some("give the id of the account that owns the dead-letter bucket, such as `\"123456789012\"`".to_string()),
                        );
                    }
                }
            }
            None if kinesis => {
                let location = self.file.location(obj);
                self.report(
                    &BUCKET_OWNER,
                    location,
                    "`ExpectedBucketOwner` is missing; Kinesis requires the 12-digit id of the account that owns the dead-letter bucket".to_string(),
                    Some("add `\"ExpectedBucketOwner\": \"123456789012\"` with your account id".to_string()),
                );
            }
            None => {}
        }
        if let Some(id) = self.get(obj, "ErrorOutputPrefix") {
            let Some(value) = self.string(id, "ErrorOutputPrefix") else {
                return;
            };
            // MSK documents no pattern for the prefix, so only Kinesis's is enforced.
            if !kinesis {
                return;
            }
            self.text_rule(
                &ERROR_PREFIX,
                id,
                "ErrorOutputPrefix",
                value,
                512,
                |c| c.is_ascii_alphanumeric() || "!-_'.*()/".contains(c),
                "letters, digits and `!-_'.*()/`",
            );
        }
    }

    fn kms_key(&mut self, id: JsonId, key: &str) {
        let Some(value) = self.string(id, key) else {
            return;
        };
        let shape = "arn:aws:kms:<region>:<account>:key/<key-id>";
        let help = Some(format!(
            "give the full key ARN of a customer managed key, `{shape}`"
        ));
        let message = if value.is_empty() {
            Some(format!("`{key}` is empty"))
        } else if value.chars().count() > 2048 {
            Some(format!("`{key}` is longer than 2048 characters"))
        } else if value == "aws/kinesis"
            || value == "alias/aws/kinesis"
            || value.ends_with(":alias/aws/kinesis")
        {
            Some(format!("`{key}` names the Kinesis service key `aws/kinesis`, which cannot encrypt a channel; the key must be customer managed"))
        } else if value.starts_with("alias/") {
            Some(format!(
                "`{key}` is an alias; it must be the full key ARN, since aliases are not supported"
            ))
        } else if let Some(arn) = Arn::parse(value) {
            if arn.service == "kms" && arn.resource.starts_with("alias/") {
                Some(format!("`{key}` is an alias ARN; it must be the full key ARN, since aliases are not supported"))
            } else {
                KMS_KEY_ARN
                    .check(value)
                    .err()
                    .map(|why| format!("`{key}` is not a KMS key ARN: {why}"))
            }
        } else if value
            .strip_prefix("mrk-")
            .unwrap_or(value)
            .chars()
            .all(|c| c.is_ascii_hexdigit() || c == '-')
        {
            Some(format!("`{key}` is a bare key id, not the full key ARN"))
        } else {
            Some(format!("`{key}` is not a KMS key ARN"))
        };
        if let Some(message) = message {
            self.bad(&KMS_KEY, id, message, help);
        }
    }

    fn arn(&mut self, id: JsonId, key: &str, spec: &ArnSpec, code: &Code) {
        let Some(value) = self.string(id, key) else {
            return;
        };
        if let Err(why) = spec.check(value) {
            self.bad(
                code,
                id,
                format!("`{key}` is not {}: {why}", spec.what),
                Some(format!("write it as `{}`", spec.shape)),
            );
        }
    }
}

/// The plain digits of a whole number written as `300.0` or `3e2`; `None` for a fraction or a
/// number too large to matter.
fn integer_text(n: &Number) -> Option<String> {
    if !n.is_integer() {
        return None;
    }
    let text = n.as_str();
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let point = i64::try_from(whole.len()).ok()?.checked_add(exponent)?;
    let point = usize::try_from(point).ok().filter(|p| *p <= 18)?;
    let digits = format!("{whole}{fraction}{}", "0".repeat(point));
    let plain = digits.get(..point)?.trim_start_matches('0');
    Some(match plain {
        "" => "0".to_string(),
        plain => format!("{sign}{plain}"),
    })
}

/// `every `S3TablesConfiguration``, or `every `SourceList` entry` for `SourceList entry`.
fn every(what: &str) -> String {
    match what.strip_suffix(" entry") {
        Some(list) => format!("every `{list}` entry"),
        None => format!("every `{what}`"),
    }
}

/// `value` in capitals, if that is allowed; otherwise the list of allowed values.
fn capitals_or(value: &str, allowed: &[&str]) -> String {
    let upper = value.to_ascii_uppercase();
    if allowed.contains(&upper.as_str()) {
        format!("values are written in capitals: `{upper}`")
    } else {
        format!("use {}", or_list(allowed))
    }
}

fn or_list(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

fn first_bad(value: &str, ok: impl Fn(char) -> bool) -> Option<char> {
    value.chars().find(|c| !ok(*c))
}

fn describe_char(c: char) -> String {
    match c {
        ' ' => "a space".to_string(),
        '`' => "a backtick".to_string(),
        c if c.is_control() => format!("the control character U+{:04X}", u32::from(c)),
        c => format!("`{c}`"),
    }
}

fn is_account(value: &str) -> bool {
    value.len() == 12 && value.bytes().all(|b| b.is_ascii_digit())
}

// ---- ARNs -------------------------------------------------------------------------------------

/// The six colon-separated fields of an ARN; the resource keeps any further colons.
struct Arn<'s> {
    partition: &'s str,
    service: &'s str,
    region: &'s str,
    account: &'s str,
    resource: &'s str,
}

impl<'s> Arn<'s> {
    fn parse(value: &'s str) -> Option<Arn<'s>> {
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
struct ArnSpec {
    what: &'static str,
    shape: &'static str,
    partition: PartitionRule,
    service: &'static str,
    region: FieldRule,
    account: FieldRule,
    resource: fn(&str) -> Result<(), String>,
    max_len: usize,
}

const TABLE_BUCKET_ARN: ArnSpec = ArnSpec {
    what: "an S3 Tables table bucket ARN",
    shape: "arn:aws:s3tables:<region>:<account>:bucket/<bucket-name>",
    partition: PartitionRule::Aws,
    service: "s3tables",
    region: FieldRule::Region,
    account: FieldRule::Account,
    resource: |r| table_bucket_name(r.strip_prefix("bucket/"), "bucket/<bucket-name>"),
    max_len: 2048,
};

const S3_BUCKET_ARN: ArnSpec = ArnSpec {
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

const STREAM_ARN: ArnSpec = ArnSpec {
    what: "a Kinesis stream ARN",
    shape: "arn:aws:kinesis:<region>:<account>:stream/<stream-name>",
    partition: PartitionRule::AwsAnything,
    service: "kinesis",
    region: FieldRule::Anything,
    account: FieldRule::Account,
    resource: |r| match r.strip_prefix("stream/") {
        Some(name) if !name.is_empty() && !name.chars().any(char::is_whitespace) => Ok(()),
        Some(_) => Err("the stream name is empty or has white space".to_string()),
        None => Err(format!("the resource `{r}` does not begin with `stream/`")),
    },
    max_len: 2048,
};

const GSR_ARN: ArnSpec = ArnSpec {
    what: "a Glue Schema Registry schema ARN",
    shape: "arn:aws:glue:<region>:<account>:schema/<registry-name>/<schema-name>",
    partition: PartitionRule::Aws,
    service: "glue",
    region: FieldRule::Region,
    account: FieldRule::Account,
    resource: |r| {
        let Some(names) = r.strip_prefix("schema/") else {
            return Err(format!("the resource `{r}` does not begin with `schema/`"));
        };
        let Some((registry, schema)) = names.split_once('/') else {
            return Err(format!(
                "the resource `{r}` names no registry; it must be `schema/<registry-name>/<schema-name>`"
            ));
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

const ROLE_ARN: ArnSpec = ArnSpec {
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
        None => Err(format!("the resource `{r}` does not begin with `role/`")),
    },
    max_len: 512,
};

const KMS_KEY_ARN: ArnSpec = ArnSpec {
    what: "a KMS key ARN",
    shape: "arn:aws:kms:<region>:<account>:key/<key-id>",
    partition: PartitionRule::Aws,
    service: "kms",
    region: FieldRule::Region,
    account: FieldRule::Account,
    resource: |r| match r.strip_prefix("key/") {
        Some(id) if !id.is_empty() && !id.chars().any(char::is_whitespace) => Ok(()),
        Some(_) => Err("the key id is empty or has white space".to_string()),
        None => Err(format!("the resource `{r}` does not begin with `key/`")),
    },
    max_len: 2048,
};

const CATALOG_ARN: ArnSpec = ArnSpec {
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

const TOPIC_ARN: ArnSpec = ArnSpec {
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
            Err(format!("the resource `{r}` does not begin with `topic`"))
        }
    },
    max_len: usize::MAX,
};

const CLUSTER_ARN: ArnSpec = ArnSpec {
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
            Err(format!("the resource `{r}` does not begin with `cluster`"))
        }
    },
    max_len: usize::MAX,
};

fn table_bucket_name(name: Option<&str>, shape: &str) -> Result<(), String> {
    match name {
        Some(name) => name_of(
            name,
            3,
            63,
            |c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '-'),
            "the table bucket name",
            "lowercase letters, digits, `_` and `-`",
        ),
        None => Err(format!("the resource must be `{shape}`")),
    }
}

fn name_of(
    value: &str,
    min: usize,
    max: usize,
    ok: impl Fn(char) -> bool,
    what: &str,
    allowed: &str,
) -> Result<(), String> {
    let len = value.chars().count();
    if len < min || len > max {
        let range = if max == usize::MAX {
            format!("at least {min}")
        } else {
            format!("{min}–{max}")
        };
        return Err(format!("{what} `{value}` must have {range} characters"));
    }
    match first_bad(value, ok) {
        Some(c) => Err(format!(
            "{what} `{value}` has {}; it takes only {allowed}",
            describe_char(c)
        )),
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
    fn check(&self, value: &str) -> Result<(), String> {
        if value.is_empty() {
            return Err("it is empty".to_string());
        }
        if value.chars().count() > self.max_len {
            return Err(format!("it is longer than {} characters", self.max_len));
        }
        let Some(arn) = Arn::parse(value) else {
            return Err(if value.starts_with("arn:") {
                "it has fewer than six `:`-separated fields".to_string()
            } else {
                "it does not begin with `arn:`".to_string()
            });
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
            return Err(format!("`{}` is not an AWS partition", arn.partition));
        }
        if arn.service != self.service {
            return Err(format!(
                "the service is `{}`, not `{}`",
                arn.service, self.service
            ));
        }
        let field = |rule: FieldRule, value: &str, name: &str| -> Result<(), String> {
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
                Err(format!("the {name} field is empty"))
            } else if matches!(rule, FieldRule::Empty) {
                Err(format!("the {name} field must be empty, not `{value}`"))
            } else if matches!(rule, FieldRule::Account) {
                Err(format!("the account `{value}` is not 12 digits"))
            } else if matches!(rule, FieldRule::Region) {
                Err(format!(
                    "the region `{value}` is not a region name (lowercase letters, digits and `-`)"
                ))
            } else {
                Err(format!("the {name} `{value}` is not valid"))
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
    fn integer_text_writes_whole_numbers_plainly() {
        let plain = |t: &str| integer_text(&Number::from_json_text(t));
        assert_eq!(plain("300.0"), Some("300".to_string()));
        assert_eq!(plain("3e2"), Some("300".to_string()));
        assert_eq!(plain("3.5E2"), Some("350".to_string()));
        assert_eq!(plain("-6.0e1"), Some("-60".to_string()));
        assert_eq!(plain("0.0"), Some("0".to_string()));
        assert_eq!(plain("300.5"), None);
        assert_eq!(plain("1e30"), None);
    }

    #[test]
    fn arn_specs_say_what_is_wrong() {
        assert_eq!(
            TABLE_BUCKET_ARN.check("arn:aws:s3tables:us-east-1:ACCOUNT_ID:bucket/b-1"),
            Err("the account `ACCOUNT_ID` is not 12 digits".to_string())
        );
        assert_eq!(
            S3_BUCKET_ARN.check("arn:aws:s3:us-east-1::my-dlq"),
            Err("the region field must be empty, not `us-east-1`".to_string())
        );
        assert_eq!(
            GSR_ARN.check("arn:aws:glue:us-east-1:123456789012:registry/r"),
            Err("the resource `registry/r` does not begin with `schema/`".to_string())
        );
        assert!(TABLE_BUCKET_ARN
            .check("arn:aws:s3tables:us-east-1:123456789012:bucket/ab")
            .is_err());
        assert!(STREAM_ARN.check("not an arn").is_err());
    }

    #[test]
    fn every_code_is_prefixed_and_unique() {
        let mut names: Vec<&str> = ALL.iter().map(|c| c.name).collect();
        assert!(names.iter().all(|n| n.starts_with("channel-")));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
    }
}
