//! `schema2iceberg records`: which sample records a channel would deliver to the table, and
//! which it would send to the dead-letter queue, and why. This module holds the arguments and
//! the setup (schema, partition, record format); `input` reads the records, `run` checks them on
//! every core and `output` prints them, in input order.

pub(crate) mod output;
pub(crate) mod run;

use std::process::ExitCode;

use crate::app::{
    color_enabled, stdout_written, usage_error, ColorArg, EXIT_OK, EXIT_SCHEMA_ERRORS,
};
use crate::intake::input::InputError;
use crate::intake::{prepare, IntakeError, RecordSourceArgs};
use output::{RecordsFormat, Show, Style};

/// The `after_help` of `records --help`.
pub(crate) const HELP: &str = "\
The channel takes each record through fixed steps, and the first that fails sends the record to
the dead-letter queue (DLQ) with a reason: the framing (plain JSON, or a Glue Schema Registry
header, version 3, compression 0 or 5, naming the schema version), the JSON text, the partition
field (present and not null), JSON Schema validation (the jsonschema crate, draft-04/06/07, the
$refs that compile reads, no network), and conversion to the table's column types (a long beyond
64 bits, a decimal beyond 38 digits, a date-time that does not parse). Fields the table has no
column for are dropped, which is not a failure. records runs your producer's sample output
through the same steps locally and says, for each record, what happens and why.

The schema is read as compile reads it (same $ref and reference-root rules). The partition and
the record format come from the flags, else from --channel-config, else from the
schema2iceberg.toml entry for the schema (its partition and channel-config); a flag that
contradicts a channel configuration is a usage error.

Reason codes, in the order of the steps: gsr-not-framed, gsr-framed, gsr-header,
gsr-schema-version, malformed-json, missing-partition, missing-required, schema-violation,
out-of-range, invalid-value.

Output: records are printed in input order. --format ndjson prints one object a record with
\"input\" (the file, or -), \"record\" (1-based in that input), \"line\" (ndjson) or
\"sequence-number\" (get-records), \"verdict\" (delivered or dlq), and for the DLQ \"reason\",
\"pointer\" (\"\" is the whole record), \"message\" and \"keyword\"; with --show all, a delivered
record has \"row\" (each value in Iceberg's single-value JSON) and \"dropped\" (the pointers of
fields without a column). --format json wraps the same objects in {\"records\": [...],
\"summary\": {...}}. Memory stays bounded whatever the input size.

Examples:
  schema2iceberg records schema.json samples.ndjson --partition event_time
  producer --dry-run | schema2iceberg records schema.json --partition event_time
  aws kinesis get-records --shard-iterator \"$IT\" > batch.json
  schema2iceberg records schema.json batch.json --input get-records --channel-config channel.json
  schema2iceberg records schema.json rec1.bin rec2.bin --input raw --record-format gsr-json \\
    --schema-version-id 6b9e0c1a-3f0e-4a57-9d5e-1c2b3a4d5e6f --partition event_time
  schema2iceberg records schema.json samples.ndjson --format ndjson --show all | jq .row

Exit codes: 0 every record is delivered, 1 at least one goes to the dead-letter queue, 2 usage
or I/O error, an input that is not of its --input kind, or a schema that does not compile (its
diagnostics are shown on standard error). docs/records.md describes each step and reason.";

#[derive(Debug, clap::Args)]
#[command(
    about = "Run sample records through the channel's steps: which reach the table, which go to the dead-letter queue, and why",
    after_help = HELP
)]
pub(crate) struct RecordsArgs {
    #[command(flatten)]
    source: RecordSourceArgs,
    /// Which records to print (e.g. --show all to see each delivered record's row).
    #[arg(long, value_enum, default_value_t = Show::Failures, value_name = "WHICH")]
    show: Show,
    /// Output format (e.g. --format ndjson for one object a record).
    #[arg(long, value_enum, default_value_t = RecordsFormat::Text)]
    format: RecordsFormat,
    #[command(flatten)]
    color: ColorArg,
}

/// Runs `records`.
pub(crate) fn run(args: RecordsArgs) -> ExitCode {
    match records(&args) {
        Ok(exit) => exit,
        Err(e) => usage_error(e),
    }
}

/// Why `records` stopped: a usage error (exit 2).
#[derive(Debug, thiserror::Error)]
enum RecordsError {
    #[error(transparent)]
    Intake(#[from] IntakeError),
    /// An input that is not of its `--input` kind, or cannot be read.
    #[error("{0}")]
    Input(InputError),
}

fn records(args: &RecordsArgs) -> Result<ExitCode, RecordsError> {
    let prepared = prepare(&args.source, args.color.color)?;
    let style = Style {
        format: args.format,
        show: args.show,
        input: args.source.input,
        record_format: prepared.setup.record_format,
        color: args.format == RecordsFormat::Text && color_enabled(args.color.color),
    };
    let pipeline = run::Pipeline {
        checker: &prepared.checker,
        sources: &prepared.sources,
        kind: args.source.input,
        style,
        workers: crate::intake::order::workers(),
    };
    let stdout = std::io::stdout().lock();
    let mut out = std::io::BufWriter::with_capacity(256 * 1024, stdout);
    let outcome = pipeline.run(&mut out);
    let exit = if outcome.tally.dead_letters() > 0 {
        EXIT_SCHEMA_ERRORS
    } else {
        EXIT_OK
    };
    match outcome.input_error {
        // The records before the bad input are printed; the error decides the exit code.
        Some(e) if outcome.write_result.is_ok() => Err(RecordsError::Input(e)),
        _ => Ok(stdout_written(outcome.write_result, exit)),
    }
}

#[cfg(test)]
mod tests {
    use schema2iceberg_mapper::records::Reason;

    #[test]
    fn the_help_lists_every_reason_in_step_order() {
        let listed = HELP_REASONS.split(", ").collect::<Vec<_>>();
        let codes: Vec<&str> = Reason::ALL.iter().map(|r| r.code()).collect();
        assert_eq!(listed, codes);
        let flat = super::HELP.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(HELP_REASONS), "{flat}");
    }

    const HELP_REASONS: &str = "gsr-not-framed, gsr-framed, gsr-header, gsr-schema-version, malformed-json, missing-partition, missing-required, schema-violation, out-of-range, invalid-value";
}
