//! The whole `create-channel` request, built once for both services, and the rules on values
//! that Kinesis and MSK share: names, freshness, compression, table names, the partition source,
//! the dead-letter queue, KMS keys and ARNs.

use schema2iceberg_parser::json::JsonId;
use schema2iceberg_parser::{Code, Number};

use super::arn::{Arn, ArnSpec, KMS_KEY_ARN, S3_BUCKET_ARN};
use super::names::{capitals_or, describe_char, first_bad, is_account, name_problem};
use super::{kinesis, msk, Checker, Part, Service, Setting};
use super::{
    ARN, BUCKET_OWNER, CHANNEL_NAME, COMPRESSION, DATA_FRESHNESS, DESTINATION, ERROR_PREFIX,
    KMS_KEY, PARTITION_SPEC, SOURCE_NAME, TABLE_COUNT,
};

/// What a whole `create-channel` request names differently in each service; the rest of the
/// request is the same.
pub(super) struct RequestKeys {
    /// The longest `ChannelName`: 128 characters for Kinesis, 64 for MSK.
    pub(super) channel_name_max: usize,
    /// The request's own ARN: Kinesis's `ServiceExecutionRoleARN`, MSK's `ClusterArn`.
    pub(super) arn_key: &'static str,
    /// The pattern of that ARN.
    pub(super) arn_spec: &'static ArnSpec,
    /// The streaming-table destination: `S3TablesDestinationConfiguration` or
    /// `IcebergDestinationConfiguration`.
    pub(super) destination: &'static str,
    /// The source list: `StreamConfigurationList` or `TopicConfigurationList`.
    pub(super) sources: &'static str,
}

impl<'a> Checker<'a> {
    /// The request keys of this file's service.
    pub(super) fn keys(&self) -> &'static RequestKeys {
        match self.service {
            Service::Kinesis => &kinesis::REQUEST,
            Service::Msk => &msk::REQUEST,
        }
    }

    /// What both services' destinations hold under their own names: the freshness, the
    /// required dead-letter-queue bucket (`dead_letter_queue`) and the required list of exactly
    /// one table (`tables`), each entry checked by the service's `table`.
    pub(super) fn destination_tables(
        &mut self,
        obj: JsonId,
        what: &str,
        dead_letter_queue: &str,
        tables: &str,
        table: fn(&mut Self, JsonId),
    ) {
        if let Some(id) = self.get(obj, "DataFreshnessInSeconds") {
            self.freshness(id);
        }
        if let Some(id) = self.require(obj, dead_letter_queue, what) {
            if self.object(id, dead_letter_queue) {
                self.dead_letter_queue(id, dead_letter_queue);
            }
        }
        if let Some(id) = self.require(obj, tables, what) {
            if let Some(items) = self.array(id, tables) {
                self.count_one(id, items.len(), tables, &TABLE_COUNT);
                for item in self.objects(items, tables) {
                    table(self, item);
                }
            }
        }
    }

    /// A whole request: its name, its own ARN, then each part under its API name.
    pub(super) fn request(&mut self, root: JsonId) {
        let keys = self.keys();
        if let Some(id) = self.get(root, "ChannelName") {
            self.channel_name(id, keys.channel_name_max);
        }
        if let Some(id) = self.get(root, keys.arn_key) {
            self.arn(id, keys.arn_key, keys.arn_spec, &ARN);
        }
        let tables = self.get(root, keys.destination);
        if let Some(general) = self.get(root, "S3DestinationConfiguration") {
            self.general_purpose_destination(general, tables.is_some(), keys.destination);
        }
        if let Some(id) = tables {
            self.parts.push((Part::Destination, id));
            if self.object(id, keys.destination) {
                self.destination(id);
            }
        }
        if let Some(id) = self.get(root, keys.sources) {
            self.parts.push((Part::Sources, id));
            self.sources(id, keys.sources);
        }
        if let Some(id) = self.get(root, "EncryptionConfiguration") {
            self.parts.push((Part::Encryption, id));
            if self.object(id, "EncryptionConfiguration") {
                self.encryption(id);
            }
        }
    }

    /// The streaming-table destination object of this file's service.
    pub(super) fn destination(&mut self, obj: JsonId) {
        match self.service {
            Service::Kinesis => self.kinesis_destination(obj),
            Service::Msk => self.msk_destination(obj),
        }
    }

    /// The stream or topic list under `key`.
    pub(super) fn sources(&mut self, list: JsonId, key: &str) {
        match self.service {
            Service::Kinesis => self.stream_list(list, key),
            Service::Msk => self.topic_list(list, key),
        }
    }

    /// The encryption object of this file's service.
    pub(super) fn encryption(&mut self, obj: JsonId) {
        match self.service {
            Service::Kinesis => self.kinesis_encryption(obj),
            Service::Msk => self.msk_encryption(obj),
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

    pub(super) fn no_partition_spec(&mut self, obj: JsonId, extra: &str) {
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

    pub(super) fn count_one(&mut self, list: JsonId, len: usize, key: &str, code: &Code) {
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
        self.setting(Setting::ChannelName, id, value);
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

    pub(super) fn freshness(&mut self, id: JsonId) {
        let Some(n) = self.integer(id, "DataFreshnessInSeconds") else {
            return;
        };
        self.setting(Setting::DataFreshness, id, n.as_str());
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

    pub(super) fn compression(&mut self, id: JsonId, allowed: &[&str]) {
        let Some(value) = self.string(id, "CompressionType") else {
            return;
        };
        self.setting(Setting::Compression, id, value);
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

    /// A namespace or table name, checked by [`name_problem`].
    pub(super) fn table_name(&mut self, id: JsonId, key: &str, namespace: bool) {
        let Some(value) = self.string(id, key) else {
            return;
        };
        let setting = if namespace {
            Setting::Namespace
        } else {
            Setting::TableName
        };
        self.setting(setting, id, value);
        if let Some(problem) = name_problem(value, key, namespace) {
            self.bad(problem.code, id, problem.message, Some(problem.help));
        }
    }

    fn setting(&mut self, setting: Setting, id: JsonId, value: &str) {
        let location = self.file.location(id);
        self.settings.push((setting, value.to_string(), location));
    }

    pub(super) fn source_name(&mut self, id: JsonId) {
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

    pub(super) fn time_hour(&mut self, id: JsonId, key: &str) {
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

    pub(super) fn dead_letter_queue(&mut self, obj: JsonId, what: &str) {
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
            self.setting(Setting::ErrorOutputPrefix, id, value);
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

    pub(super) fn kms_key(&mut self, id: JsonId, key: &str) {
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
        match message {
            Some(message) => self.bad(&KMS_KEY, id, message, help),
            None => self.seen_arn(id, key, value),
        }
    }

    pub(super) fn arn(&mut self, id: JsonId, key: &str, spec: &ArnSpec, code: &Code) {
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
        } else {
            self.seen_arn(id, key, value);
        }
    }

    /// Keeps a well-formed ARN, to compare its Region and account with the stream's or
    /// cluster's once every file is read ([`super::places`]).
    pub(super) fn seen_arn(&mut self, id: JsonId, key: &str, value: &str) {
        if let Some(arn) = Arn::parse(value) {
            let location = self.file.key_location(id);
            self.arns.push(super::places::SeenArn {
                key: key.to_string(),
                value: value.to_string(),
                region: arn.region.to_string(),
                account: arn.account.to_string(),
                location,
            });
        }
    }
}
