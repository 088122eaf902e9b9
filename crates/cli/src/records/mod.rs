//! `schema2iceberg records`: which sample records a channel would deliver to the table, and
//! which it would send to the dead-letter queue, and why. This module holds the arguments and
//! the setup (schema, partition, record format); `input` reads the records, `run` checks them on
//! every core and `output` prints them, in input order.

pub(crate) mod output;
pub(crate) mod run;

use std::io::Write;

use crate::app::{color_enabled, ColorArg, Command, EXIT_OK, EXIT_SCHEMA_ERRORS};
use crate::intake::input::InputError;
use crate::intake::{prepare, IntakeError, Prepared, RecordSourceArgs};
use output::{RecordsFormat, Show, Style, Tally};

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

/// `records`, in the one shape of a command ([`Command`]).
#[derive(Debug)]
pub(crate) struct Records;

/// Everything `records` needs: the checker and inputs set up as the channel is, and how to
/// print the verdicts.
pub(crate) struct RecordsRequest {
    prepared: Prepared,
    style: Style,
    workers: usize,
}

/// What a run found besides the verdicts it printed.
#[derive(Debug)]
pub(crate) struct RecordsOutcome {
    tally: Tally,
}

/// Why `records` stopped: a usage error (exit 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum RecordsError {
    #[error(transparent)]
    Intake(#[from] IntakeError),
    /// An input that is not of its `--input` kind, or cannot be read; the records before it
    /// were checked and printed.
    #[error("{0}")]
    Input(InputError),
    /// Standard output cannot be written.
    #[error("cannot write to standard output: {0}")]
    Write(std::io::Error),
}

impl Command for Records {
    type Args = RecordsArgs;
    type Request = RecordsRequest;
    type Outcome = RecordsOutcome;
    type Error = RecordsError;

    fn request(args: RecordsArgs) -> Result<RecordsRequest, RecordsError> {
        let prepared = prepare(&args.source, args.color.color)?;
        let style = Style {
            format: args.format,
            show: args.show,
            input: args.source.input,
            record_format: prepared.setup.record_format,
            color: args.format == RecordsFormat::Text && color_enabled(args.color.color),
        };
        Ok(RecordsRequest {
            prepared,
            style,
            workers: crate::intake::order::workers(),
        })
    }

    /// Checks every record of every input, printing the verdicts in input order as they come.
    fn run(request: &RecordsRequest, out: &mut dyn Write) -> Result<RecordsOutcome, RecordsError> {
        let pipeline = run::Pipeline {
            checker: &request.prepared.checker,
            sources: &request.prepared.sources,
            kind: request.style.input,
            style: request.style,
            workers: request.workers,
        };
        let ran = pipeline.run(out);
        ran.write_result.map_err(RecordsError::Write)?;
        match ran.input_error {
            Some(e) => Err(RecordsError::Input(e)),
            None => Ok(RecordsOutcome { tally: ran.tally }),
        }
    }

    fn finish(outcome: RecordsOutcome) -> u8 {
        if outcome.tally.dead_letters() > 0 {
            EXIT_SCHEMA_ERRORS
        } else {
            EXIT_OK
        }
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
