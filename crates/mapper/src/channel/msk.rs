//! The MSK parts of a channel configuration (`aws kafka create-channel`): the Iceberg
//! destination and its table entries with their partition spec, the topic list with its value
//! converter and schema, and the encryption.

use schema2iceberg_parser::json::JsonId;

use super::arn::{CATALOG_ARN, CLUSTER_ARN, GSR_ARN, ROLE_ARN, TABLE_BUCKET_ARN, TOPIC_ARN};
use super::fields::RequestKeys;
use super::names::capitals_or;
use super::{Checker, RecordFormat};
use super::{
    ARN, GSR_SCHEMA_ARN, PARTITION_SPEC, RECORD_FORMAT, SCHEMA_EVOLUTION, STREAM_COUNT,
    TABLE_CREATION,
};

/// The names of a whole MSK request.
pub(super) const REQUEST: RequestKeys = RequestKeys {
    channel_name_max: 64,
    arn_key: "ClusterArn",
    arn_spec: &CLUSTER_ARN,
    destination: "IcebergDestinationConfiguration",
    sources: "TopicConfigurationList",
};

impl<'a> Checker<'a> {
    pub(super) fn msk_destination(&mut self, obj: JsonId) {
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
        self.destination_tables(
            obj,
            WHAT,
            "DeadLetterQueueS3",
            "DestinationTableList",
            Self::msk_table,
        );
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

    pub(super) fn topic_list(&mut self, list: JsonId, key: &str) {
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

    pub(super) fn msk_encryption(&mut self, obj: JsonId) {
        if let Some(id) = self.require(obj, "KmsKeyArn", "EncryptionConfiguration") {
            self.kms_key(id, "KmsKeyArn");
        }
    }
}
