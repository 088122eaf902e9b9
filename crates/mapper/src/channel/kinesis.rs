//! The Kinesis parts of a channel configuration (`aws kinesis create-channel`): the S3 Tables
//! destination and its table entries, the partition fields, the stream list with its record
//! format, and the encryption.

use schema2iceberg_parser::json::JsonId;

use super::arn::{GSR_ARN, ROLE_ARN, STREAM_ARN, TABLE_BUCKET_ARN};
use super::fields::RequestKeys;
use super::names::capitals_or;
use super::{Checker, RecordFormat};
use super::{
    ARN, COMPRESSION, ENCRYPTION_TYPE, GSR_SCHEMA_ARN, PARTITION_SPEC, RECORD_FORMAT, STREAM_COUNT,
};

/// The names of a whole Kinesis request.
pub(super) const REQUEST: RequestKeys = RequestKeys {
    channel_name_max: 128,
    arn_key: "ServiceExecutionRoleARN",
    arn_spec: &ROLE_ARN,
    destination: "S3TablesDestinationConfiguration",
    sources: "StreamConfigurationList",
};

impl<'a> Checker<'a> {
    pub(super) fn kinesis_destination(&mut self, obj: JsonId) {
        const WHAT: &str = "S3TablesDestinationConfiguration";
        self.destination_tables(
            obj,
            WHAT,
            "DeadLetterQueueS3Configuration",
            "S3TablesConfigurationList",
            Self::kinesis_table,
        );
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

    pub(super) fn stream_list(&mut self, list: JsonId, key: &str) {
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

    pub(super) fn kinesis_encryption(&mut self, obj: JsonId) {
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
}
