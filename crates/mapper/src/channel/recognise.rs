//! Recognises a channel configuration file by its shape: which service (Kinesis or MSK) and
//! which part of a `create-channel` request (the whole request, the destination, the source
//! list or the encryption) it holds, judged by its keys.

use schema2iceberg_parser::json::{JsonDoc, JsonId, JsonValue};
use schema2iceberg_parser::JsonFile;

use super::{Service, Shape};

pub(super) const ACCEPTED_SHAPES: &str = "give the JSON of `aws kinesis create-channel`: an `--s3-tables-destination-configuration` object, a `--stream-configuration-list` array, an `--encryption-configuration` object, or one object holding them as `S3TablesDestinationConfiguration`, `StreamConfigurationList` and `EncryptionConfiguration`; or of `aws kafka create-channel`: an `--iceberg-destination-configuration` object (bare or under `IcebergDestinationConfiguration`), a `--topic-configuration-list` array, or an `--encryption-configuration` object";

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
