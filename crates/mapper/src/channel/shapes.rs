//! What goes inside each object of a `create-channel` request: its required keys and a minimal
//! valid example, for the help of `channel-missing-key` (the message names the missing key; the
//! help shows the whole object, so that one fix makes it complete). The keys are the ones the
//! checks in `kinesis.rs`, `msk.rs` and `fields.rs` require, from the API references in
//! `../shared/reference/aws-streaming-tables-facts.md`, section 3.

use super::Service;

/// An API object: its name as the messages give it, its required keys, and a minimal example.
struct Shape {
    service: Option<Service>,
    name: &'static str,
    required: &'static [&'static str],
    example: &'static str,
}

const SHAPES: &[Shape] = &[
    Shape {
        service: Some(Service::Kinesis),
        name: "S3TablesDestinationConfiguration",
        required: &[
            "DeadLetterQueueS3Configuration",
            "S3TablesConfigurationList",
        ],
        example: r#"{"DeadLetterQueueS3Configuration": {"BucketARN": "arn:aws:s3:::orders-dlq", "ExpectedBucketOwner": "123456789012"}, "S3TablesConfigurationList": [{"Namespace": "sales", "TableName": "orders", "TableBucketARN": "arn:aws:s3tables:us-east-1:123456789012:bucket/tables", "CompressionType": "ZSTD", "PartitionSpec": {"PartitionFields": [{"SourceName": "event_time", "Transform": "TIME_HOUR"}]}}]}"#,
    },
    Shape {
        service: Some(Service::Kinesis),
        name: "S3TablesConfiguration",
        required: &[
            "Namespace",
            "TableName",
            "TableBucketARN",
            "CompressionType",
        ],
        example: r#"{"Namespace": "sales", "TableName": "orders", "TableBucketARN": "arn:aws:s3tables:us-east-1:123456789012:bucket/tables", "CompressionType": "ZSTD", "PartitionSpec": {"PartitionFields": [{"SourceName": "event_time", "Transform": "TIME_HOUR"}]}}"#,
    },
    Shape {
        service: Some(Service::Kinesis),
        name: "PartitionSpec",
        required: &["PartitionFields"],
        example: r#"{"PartitionFields": [{"SourceName": "event_time", "Transform": "TIME_HOUR"}]}"#,
    },
    Shape {
        service: Some(Service::Kinesis),
        name: "PartitionField",
        required: &["SourceName", "Transform"],
        example: r#"{"SourceName": "event_time", "Transform": "TIME_HOUR"}"#,
    },
    Shape {
        service: Some(Service::Kinesis),
        name: "StreamConfiguration",
        required: &["StreamARN", "RecordConfiguration"],
        example: r#"{"StreamARN": "arn:aws:kinesis:us-east-1:123456789012:stream/orders", "RecordConfiguration": {"RecordFormatType": "JSON", "GSRSchemaARN": "arn:aws:glue:us-east-1:123456789012:schema/registry/orders"}}"#,
    },
    Shape {
        service: Some(Service::Kinesis),
        name: "RecordConfiguration",
        required: &["RecordFormatType", "GSRSchemaARN"],
        example: r#"{"RecordFormatType": "JSON", "GSRSchemaARN": "arn:aws:glue:us-east-1:123456789012:schema/registry/orders"}"#,
    },
    Shape {
        service: Some(Service::Kinesis),
        name: "EncryptionConfiguration",
        required: &["EncryptionType", "KeyId"],
        example: r#"{"EncryptionType": "KMS", "KeyId": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"}"#,
    },
    Shape {
        service: Some(Service::Kinesis),
        name: "DeadLetterQueueS3Configuration",
        required: &["BucketARN", "ExpectedBucketOwner"],
        example: r#"{"BucketARN": "arn:aws:s3:::orders-dlq", "ExpectedBucketOwner": "123456789012", "ErrorOutputPrefix": "errors/orders/"}"#,
    },
    Shape {
        service: Some(Service::Msk),
        name: "IcebergDestinationConfiguration",
        required: &[
            "AppendOnly",
            "ServiceExecutionRoleArn",
            "DeadLetterQueueS3",
            "DestinationTableList",
        ],
        example: r#"{"AppendOnly": true, "ServiceExecutionRoleArn": "arn:aws:iam::123456789012:role/msk-delivery", "Catalog": {"WarehouseLocation": "arn:aws:s3tables:us-east-1:123456789012:bucket/tables"}, "DeadLetterQueueS3": {"BucketArn": "arn:aws:s3:::orders-dlq"}, "DestinationTableList": [{"DestinationDatabaseName": "sales", "DestinationTableName": "orders", "PartitionSpec": {"PartitionStrategy": "TIME_HOUR", "SourceList": [{"SourceName": "event_time"}]}}]}"#,
    },
    Shape {
        service: Some(Service::Msk),
        name: "DestinationTable",
        required: &["DestinationDatabaseName", "DestinationTableName"],
        example: r#"{"DestinationDatabaseName": "sales", "DestinationTableName": "orders", "PartitionSpec": {"PartitionStrategy": "TIME_HOUR", "SourceList": [{"SourceName": "event_time"}]}}"#,
    },
    Shape {
        service: Some(Service::Msk),
        name: "PartitionSpec",
        required: &["PartitionStrategy", "SourceList"],
        example: r#"{"PartitionStrategy": "TIME_HOUR", "SourceList": [{"SourceName": "event_time"}]}"#,
    },
    Shape {
        service: Some(Service::Msk),
        name: "SourceList entry",
        required: &["SourceName"],
        example: r#"{"SourceName": "event_time"}"#,
    },
    Shape {
        service: Some(Service::Msk),
        name: "TopicConfiguration",
        required: &["TopicArn", "RecordConverter"],
        example: r#"{"TopicArn": "arn:aws:kafka:us-east-1:123456789012:topic/orders-cluster/abcd1234-ab12-cd34-ef56-abcdef123456-1/orders", "RecordConverter": {"ValueConverter": "JSON_SCHEMA_GSR"}}"#,
    },
    Shape {
        service: Some(Service::Msk),
        name: "RecordConverter",
        required: &["ValueConverter"],
        example: r#"{"ValueConverter": "JSON_SCHEMA_GSR"}"#,
    },
    Shape {
        service: Some(Service::Msk),
        name: "RecordSchema",
        required: &["GsrArn"],
        example: r#"{"GsrArn": "arn:aws:glue:us-east-1:123456789012:schema/registry/orders"}"#,
    },
    Shape {
        service: Some(Service::Msk),
        name: "EncryptionConfiguration",
        required: &["KmsKeyArn"],
        example: r#"{"KmsKeyArn": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"}"#,
    },
    Shape {
        service: Some(Service::Msk),
        name: "DeadLetterQueueS3",
        required: &["BucketArn"],
        example: r#"{"BucketArn": "arn:aws:s3:::orders-dlq"}"#,
    },
    Shape {
        service: Some(Service::Msk),
        name: "SchemaEvolution",
        required: &["EnableSchemaEvolution"],
        example: r#"{"EnableSchemaEvolution": false}"#,
    },
    Shape {
        service: Some(Service::Msk),
        name: "TableCreation",
        required: &["EnableTableCreation"],
        example: r#"{"EnableTableCreation": true}"#,
    },
];

/// The help of a key missing from `what` in a `service` configuration: the object's required
/// keys and a minimal example; `None` for an object this table does not hold.
pub(super) fn missing_key_help(service: Service, what: &str) -> Option<String> {
    let shape = SHAPES
        .iter()
        .find(|s| s.name == what && s.service.is_none_or(|only| only == service))?;
    let keys: Vec<String> = shape.required.iter().map(|k| format!("`{k}`")).collect();
    Some(format!(
        "{} requires {}; a minimal one: {}",
        super::access::every(what),
        keys.join(", "),
        shape.example
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every example is JSON and holds every key its shape requires.
    #[test]
    fn examples_hold_their_required_keys() {
        for shape in SHAPES {
            let value: serde_json::Value = serde_json::from_str(shape.example)
                .unwrap_or_else(|e| panic!("{}: {e}", shape.name));
            for key in shape.required {
                assert!(value.get(key).is_some(), "{}: no {key}", shape.name);
            }
        }
        assert!(missing_key_help(Service::Kinesis, "StreamConfiguration")
            .is_some_and(|h| h.contains("`StreamARN`, `RecordConfiguration`")));
        assert!(missing_key_help(Service::Msk, "StreamConfiguration").is_none());
    }
}
