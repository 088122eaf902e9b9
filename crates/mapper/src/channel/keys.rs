//! Unknown and misplaced keys: every object of a configuration is held to the keys its API type
//! has, as the AWS CLI holds a request to them ("Unknown parameter"). A key of another object
//! one level down or up is said to belong there; another key gets the closest known key as a
//! "did you mean", or the whole list.
//!
//! The key lists are the API references' (`../shared/reference/aws-streaming-tables-facts.md`,
//! section 3, and the request keys `recognise.rs` scores by). An object whose full key list the
//! references do not give (a Kinesis `S3DestinationConfiguration`, `Tags`, MSK `LoggingInfo`)
//! is not descended into: a missed unknown key there is better than a false error.

use schema2iceberg_parser::json::{JsonId, JsonValue};

use super::{Checker, Service, Shape, UNKNOWN_KEY};

/// An API object type: its keys, each with the type of its value when that is an object (or a
/// list of objects) whose keys are known.
struct ObjectType {
    name: &'static str,
    keys: &'static [(&'static str, Option<&'static ObjectType>)],
}

const K_FIELD: ObjectType = ObjectType {
    name: "PartitionField",
    keys: &[("SourceName", None), ("Transform", None)],
};
const K_PARTITION_SPEC: ObjectType = ObjectType {
    name: "PartitionSpec",
    keys: &[("PartitionFields", Some(&K_FIELD))],
};
const K_TABLE: ObjectType = ObjectType {
    name: "S3TablesConfiguration",
    keys: &[
        ("Namespace", None),
        ("TableName", None),
        ("TableBucketARN", None),
        ("CompressionType", None),
        ("PartitionSpec", Some(&K_PARTITION_SPEC)),
    ],
};
const K_DLQ: ObjectType = ObjectType {
    name: "DeadLetterQueueS3Configuration",
    keys: &[
        ("BucketARN", None),
        ("ExpectedBucketOwner", None),
        ("ErrorOutputPrefix", None),
    ],
};
const K_DESTINATION: ObjectType = ObjectType {
    name: "S3TablesDestinationConfiguration",
    keys: &[
        ("DataFreshnessInSeconds", None),
        ("DeadLetterQueueS3Configuration", Some(&K_DLQ)),
        ("S3TablesConfigurationList", Some(&K_TABLE)),
    ],
};
const K_RECORD_CONFIGURATION: ObjectType = ObjectType {
    name: "RecordConfiguration",
    keys: &[("RecordFormatType", None), ("GSRSchemaARN", None)],
};
const K_STREAM: ObjectType = ObjectType {
    name: "StreamConfiguration",
    keys: &[
        ("StreamARN", None),
        ("RecordConfiguration", Some(&K_RECORD_CONFIGURATION)),
    ],
};
const K_ENCRYPTION: ObjectType = ObjectType {
    name: "EncryptionConfiguration",
    keys: &[("EncryptionType", None), ("KeyId", None)],
};
const K_CLOUDWATCH: ObjectType = ObjectType {
    name: "CloudWatchLogs",
    keys: &[
        ("Enabled", None),
        ("LogGroupName", None),
        ("LogStreamName", None),
    ],
};
const K_LOGGING: ObjectType = ObjectType {
    name: "LoggingConfiguration",
    keys: &[("CloudWatchLogs", Some(&K_CLOUDWATCH))],
};
const K_REQUEST: ObjectType = ObjectType {
    name: "CreateChannel request",
    keys: &[
        ("ChannelName", None),
        ("ServiceExecutionRoleARN", None),
        ("StreamConfigurationList", Some(&K_STREAM)),
        ("S3DestinationConfiguration", None),
        ("S3TablesDestinationConfiguration", Some(&K_DESTINATION)),
        ("EncryptionConfiguration", Some(&K_ENCRYPTION)),
        ("LoggingConfiguration", Some(&K_LOGGING)),
        ("Tags", None),
    ],
};

const M_SOURCE: ObjectType = ObjectType {
    name: "SourceList entry",
    keys: &[("SourceName", None)],
};
const M_PARTITION_SPEC: ObjectType = ObjectType {
    name: "PartitionSpec",
    keys: &[("PartitionStrategy", None), ("SourceList", Some(&M_SOURCE))],
};
const M_TABLE: ObjectType = ObjectType {
    name: "DestinationTable",
    keys: &[
        ("DestinationDatabaseName", None),
        ("DestinationTableName", None),
        ("PartitionSpec", Some(&M_PARTITION_SPEC)),
    ],
};
const M_DLQ: ObjectType = ObjectType {
    name: "DeadLetterQueueS3",
    keys: &[
        ("BucketArn", None),
        ("ErrorOutputPrefix", None),
        ("ExpectedBucketOwner", None),
    ],
};
const M_CATALOG: ObjectType = ObjectType {
    name: "Catalog",
    keys: &[("CatalogArn", None), ("WarehouseLocation", None)],
};
const M_SCHEMA_EVOLUTION: ObjectType = ObjectType {
    name: "SchemaEvolution",
    keys: &[("EnableSchemaEvolution", None)],
};
const M_TABLE_CREATION: ObjectType = ObjectType {
    name: "TableCreation",
    keys: &[("EnableTableCreation", None)],
};
const M_DESTINATION: ObjectType = ObjectType {
    name: "IcebergDestinationConfiguration",
    keys: &[
        ("AppendOnly", None),
        ("Catalog", Some(&M_CATALOG)),
        ("CompressionType", None),
        ("DataFreshnessInSeconds", None),
        ("DeadLetterQueueS3", Some(&M_DLQ)),
        ("DestinationTableList", Some(&M_TABLE)),
        ("SchemaEvolution", Some(&M_SCHEMA_EVOLUTION)),
        ("ServiceExecutionRoleArn", None),
        ("TableCreation", Some(&M_TABLE_CREATION)),
    ],
};
const M_RECORD_SCHEMA: ObjectType = ObjectType {
    name: "RecordSchema",
    keys: &[("GsrArn", None)],
};
const M_RECORD_CONVERTER: ObjectType = ObjectType {
    name: "RecordConverter",
    keys: &[("ValueConverter", None)],
};
const M_TOPIC: ObjectType = ObjectType {
    name: "TopicConfiguration",
    keys: &[
        ("TopicArn", None),
        ("RecordConverter", Some(&M_RECORD_CONVERTER)),
        ("RecordSchema", Some(&M_RECORD_SCHEMA)),
    ],
};
const M_ENCRYPTION: ObjectType = ObjectType {
    name: "EncryptionConfiguration",
    keys: &[("KmsKeyArn", None)],
};
const M_REQUEST: ObjectType = ObjectType {
    name: "CreateChannel request",
    keys: &[
        ("ChannelName", None),
        ("ClusterArn", None),
        ("EncryptionConfiguration", Some(&M_ENCRYPTION)),
        ("IcebergDestinationConfiguration", Some(&M_DESTINATION)),
        ("S3DestinationConfiguration", None),
        ("Tags", None),
        ("TopicConfigurationList", Some(&M_TOPIC)),
        ("LoggingInfo", None),
    ],
};

/// The deepest nesting walked: a request is five objects deep at most.
const MAX_DEPTH: usize = 8;

impl Checker<'_> {
    /// Reports every key that the API type of its object does not have, from the file's root.
    pub(super) fn unknown_keys(&mut self, root: JsonId, shape: Shape) {
        let (kinesis, msk) = match shape {
            Shape::Request => (&K_REQUEST, &M_REQUEST),
            Shape::Destination => (&K_DESTINATION, &M_DESTINATION),
            Shape::Sources => (&K_STREAM, &M_TOPIC),
            Shape::Encryption => (&K_ENCRYPTION, &M_ENCRYPTION),
        };
        let top = match self.service {
            Service::Kinesis => kinesis,
            Service::Msk => msk,
        };
        // A bare MSK destination may be wrapped in its API name.
        let root = match (shape, self.service) {
            (Shape::Destination, Service::Msk) => self
                .member(root, "IcebergDestinationConfiguration")
                .unwrap_or(root),
            _ => root,
        };
        self.walk_keys(root, top, None, 0);
    }

    fn member(&self, obj: JsonId, key: &str) -> Option<JsonId> {
        match self.doc.value(obj) {
            JsonValue::Object(members) => members.iter().find(|m| m.key == key).map(|m| m.value),
            _ => None,
        }
    }

    /// Checks the keys of `id` (an object of `ty`, or a list of them), then its known members.
    fn walk_keys(
        &mut self,
        id: JsonId,
        ty: &ObjectType,
        parent: Option<(&str, &ObjectType)>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        let members = match self.doc.value(id) {
            JsonValue::Array(items) => {
                for item in items.clone() {
                    self.walk_keys(item, ty, parent, depth + 1);
                }
                return;
            }
            JsonValue::Object(members) => members.clone(),
            _ => return,
        };
        for member in members {
            let key = member.key.as_str();
            let known = ty.keys.iter().find(|(k, _)| k.eq_ignore_ascii_case(key));
            match known {
                // Same letters in another case: `channel-key-case` says so where it is read.
                Some((_, Some(child))) => {
                    self.walk_keys(member.value, child, Some((key, ty)), depth + 1)
                }
                Some((_, None)) => {}
                None => self.report_unknown(member.value, key, ty, parent),
            }
        }
    }

    fn report_unknown(
        &mut self,
        value: JsonId,
        key: &str,
        ty: &ObjectType,
        parent: Option<(&str, &ObjectType)>,
    ) {
        let below = ty.keys.iter().find_map(|(child_key, child)| {
            child
                .filter(|c| c.keys.iter().any(|(k, _)| *k == key))
                .map(|_| *child_key)
        });
        let above = parent.filter(|(_, p)| p.keys.iter().any(|(k, _)| *k == key));
        let help = if let Some(child_key) = below {
            format!("`{key}` belongs one level down, inside `{child_key}`: move it there")
        } else if let Some((here, parent_type)) = above {
            format!(
                "`{key}` belongs one level up, in the {} that holds `{here}`: move it there",
                parent_type.name
            )
        } else if let Some(close) = closest(key, ty) {
            format!("did you mean `{close}`?")
        } else {
            let all: Vec<String> = ty.keys.iter().map(|(k, _)| format!("`{k}`")).collect();
            format!("the keys of {} are {}", a_type(ty), all.join(", "))
        };
        self.bad(
            &UNKNOWN_KEY,
            value,
            format!(
                "`{key}` is not a key of {}; the AWS CLI rejects it as an unknown parameter",
                a_type(ty)
            ),
            Some(help),
        );
    }
}

/// `ty`'s name with its article, for messages.
fn a_type(ty: &ObjectType) -> String {
    match ty.name.strip_suffix(" entry") {
        Some(list) => format!("a `{list}` entry"),
        None if ty.name.contains(' ') => format!("the {}", ty.name),
        None => format!("`{}`", ty.name),
    }
}

/// The known key of `ty` nearest to `key`: the one that contains it or is contained in it, or
/// the one within a third of its length in edits (case ignored).
fn closest(key: &str, ty: &ObjectType) -> Option<&'static str> {
    let lower = key.to_ascii_lowercase();
    let keys = ty.keys.iter().map(|(k, _)| *k);
    let mut best: Option<(usize, &'static str)> = None;
    for known in keys {
        let known_lower = known.to_ascii_lowercase();
        let distance = if known_lower.contains(&lower) || lower.contains(&known_lower) {
            0
        } else {
            edits(&lower, &known_lower)
        };
        if distance <= known.len().max(key.len()) / 3 && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, known));
        }
    }
    best.map(|(_, known)| known)
}

/// Levenshtein distance over bytes (keys are ASCII).
fn edits(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut previous = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(0);
            let left = row.get(j).copied().unwrap_or(0);
            let value = (above + 1)
                .min(left + 1)
                .min(previous + usize::from(ca != *cb));
            previous = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = value;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_key_is_offered() {
        assert_eq!(
            closest("RecordFormat", &K_RECORD_CONFIGURATION),
            Some("RecordFormatType")
        );
        assert_eq!(closest("Compression", &K_TABLE), Some("CompressionType"));
        assert_eq!(closest("TableBuckt", &K_TABLE), Some("TableBucketARN"));
        assert_eq!(closest("Owner", &K_DLQ), Some("ExpectedBucketOwner"));
        assert_eq!(closest("Region", &K_DLQ), None);
        assert_eq!(edits("kitten", "sitting"), 3);
    }
}
