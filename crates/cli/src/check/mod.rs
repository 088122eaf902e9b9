//! `schema2iceberg check`: the CI gate over a repository of schemas and channel configurations.

//! A check is planned (`plan`: config, files, channel configurations; every usage error), run
//! (`run`: each schema compiled on all cores) and reported (`report`: the files sorted, rendered).

mod classify;
pub mod output;
mod plan;
mod policy_check;
mod report;
mod run;

use std::io::Write;
use std::path::PathBuf;

use crate::app::{color_enabled, ColorArg, Command, ReadArgs};
use crate::project::source::SourceOptions;

pub use crate::project::config::ChannelPolicies;
pub use crate::project::discover::FileId;
use output::Report;
use plan::Planned;

/// The `after_help` of `check --help`.
pub(crate) const HELP: &str = "\
Every schema is compiled and every diagnostic reported; one bad file never stops the others.
Files are checked in parallel and reported sorted by path, relative to the current directory.
Settings per glob (partition field, channel configuration, draft, skips, severities) come from
schema2iceberg.toml, found in the current directory or a parent; docs/ci.md lists its keys.
A channel configuration that the config names is validated with the schemas that use it, also
when it is the only path given. JSON files that are not schemas (package.json, sample records,
unnamed channel configurations, definitions only) are reported as such, not compiled.
The policy documents beside a channel (--role-policy, --trust-policy, --table-key-policy,
--table-bucket-policy, or `[[channels]]` in schema2iceberg.toml) are evaluated as IAM does against
what the channel needs; each permission missing is reported at the statement that comes closest,
with the failure it causes. A changed policy document brings its channel into the check.

Examples:
  schema2iceberg check schemas/
  schema2iceberg check schemas/event.json --partition event_time --channel-config channel.json
  schema2iceberg check --channel-config channel.json --role-policy iam/role.json
  schema2iceberg check --channel-config c.json --trust-policy t.json --table-key-policy k.json
  schema2iceberg check --format github --deny warnings
  schema2iceberg check --format sarif > schema2iceberg.sarif

Exit codes: 0 no errors, 1 errors remain after the severity overrides, 2 usage or I/O error.";

#[derive(Debug, clap::Args)]
#[command(
    about = "Check every schema (and channel configuration) in a repository: the CI gate",
    after_help = HELP
)]
#[command(
    mut_arg("draft", |a| a.help("Read every schema as this draft, whatever its $schema says")),
    mut_arg("ref_root", |a| a.help("The folder that file $refs may read from [default: the config's folder, else the current directory]")),
)]
pub struct CheckArgs {
    /// Files, directories (searched recursively for *.json) and globs [default: .]
    #[arg(value_name = "PATHS")]
    paths: Vec<PathBuf>,
    /// The repository config [default: schema2iceberg.toml in the current directory or a parent]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The hour-partition field, for a single schema given on the command line.
    #[arg(long, value_name = "FIELD")]
    partition: Option<String>,
    /// A channel configuration (Kinesis or MSK) to validate with the schemas; repeatable.
    #[arg(long, value_name = "FILE")]
    channel_config: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    format: CheckFormat,
    /// Make CODE an error (`warnings`: every warning); repeatable.
    #[arg(long, value_name = "CODE|warnings")]
    deny: Vec<String>,
    /// Drop CODE's diagnostics; repeatable.
    #[arg(long, value_name = "CODE")]
    allow: Vec<String>,
    /// Make CODE a warning; repeatable.
    #[arg(long, value_name = "CODE")]
    warn: Vec<String>,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    color: ColorArg,
    // Last: its help heading applies to every flag after it.
    #[command(flatten)]
    policies: PolicyArgs,
}

/// The policy documents that `check` evaluates against `--channel-config`.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Permissions (checked against --channel-config; docs/policies.md)")]
struct PolicyArgs {
    /// A policy attached to the channel's execution role; repeatable, evaluated together
    #[arg(long, value_name = "FILE")]
    role_policy: Vec<PathBuf>,
    /// The execution role's trust policy
    #[arg(long, value_name = "FILE")]
    trust_policy: Option<PathBuf>,
    /// The key policy of the table's customer managed key
    #[arg(long, value_name = "FILE")]
    table_key_policy: Option<PathBuf>,
    /// The table bucket's policy (required when the bucket is in another account than the role)
    #[arg(long, value_name = "FILE")]
    table_bucket_policy: Option<PathBuf>,
    /// The KMS key ARN of the dead-letter bucket's SSE-KMS encryption, which the channel
    /// configuration does not say
    #[arg(long, value_name = "ARN")]
    dlq_kms_key: Option<String>,
}

/// `check`, in the one shape of a command ([`Command`]).
#[derive(Debug)]
pub struct Check;

impl Command for Check {
    type Args = CheckArgs;
    type Request = CheckRequest;
    type Outcome = Checked;
    type Error = UsageError;

    fn request(args: CheckArgs) -> Result<CheckRequest, UsageError> {
        Ok(CheckRequest {
            dir: PathBuf::from("."),
            paths: args.paths,
            config: args.config,
            channel_configs: args.channel_config,
            policies: ChannelPolicies {
                configs: Vec::new(),
                role: args.policies.role_policy,
                trust: args.policies.trust_policy,
                table_key: args.policies.table_key_policy,
                table_bucket: args.policies.table_bucket_policy,
                dlq_kms_key: args.policies.dlq_kms_key,
            },
            source: SourceOptions {
                draft: args.read.draft.draft,
                ref_root: args.read.ref_root,
                partition: args.partition.into_iter().collect(),
                color: args.format == CheckFormat::Text && color_enabled(args.color.color),
            },
            allow: args.allow,
            warn: args.warn,
            deny: args.deny,
            format: args.format,
            output: FileId::of_stdout(),
        })
    }

    /// Runs the whole check and writes the report in the request's format.
    fn run(request: &CheckRequest, out: &mut dyn Write) -> Result<Checked, UsageError> {
        let (checked, text) = check_all(request)?;
        out.write_all(text.as_bytes()).map_err(UsageError::Write)?;
        Ok(checked)
    }

    fn finish(checked: Checked) -> u8 {
        let exit = checked.exit;
        // As for `compile`: the process exits next, so the report is not freed piece by piece.
        std::mem::forget(checked);
        exit
    }
}

/// Output formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    /// rustc-style diagnostics grouped by file, then a summary line.
    Text,
    /// One JSON report (its schema: docs/report.schema.json).
    Json,
    /// GitHub Actions workflow commands, shown as annotations on the pull request.
    Github,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
}

/// What to check, and how; the command line in a form tests can build.
#[derive(Debug, Clone)]
pub struct CheckRequest {
    /// The folder the check runs in: relative paths and the config search start here.
    pub dir: PathBuf,
    /// Files, directories and globs, relative to `dir`; empty means `dir` itself.
    pub paths: Vec<PathBuf>,
    /// An explicit config file; otherwise `schema2iceberg.toml` in `dir` or a parent.
    pub config: Option<PathBuf>,
    /// Channel configurations that apply to every schema checked.
    pub channel_configs: Vec<PathBuf>,
    /// Policy documents to check against `channel_configs`: `--role-policy` (repeatable),
    /// `--trust-policy`, `--table-key-policy`, `--table-bucket-policy` and `--dlq-kms-key`,
    /// held as one channel's entry (its `configs` are left empty: they are `channel_configs`).
    pub policies: ChannelPolicies,
    /// The draft override and the reference root for every schema, the partition field for a
    /// single schema, and whether to color the text format.
    pub source: SourceOptions,
    /// `--allow`, `--warn`, `--deny` codes (or `warnings`), in that order of the vectors.
    pub allow: Vec<String>,
    /// See `allow`.
    pub warn: Vec<String>,
    /// See `allow`.
    pub deny: Vec<String>,
    /// The output format.
    pub format: CheckFormat,
    /// The file standard output is redirected into, when it is one: never checked, since it
    /// is the report being written (`check --format json > report.json` in the folder searched).
    pub output: Option<FileId>,
}

impl CheckRequest {
    /// A request to check everything in `dir`, with no options.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        CheckRequest {
            dir: dir.into(),
            paths: Vec::new(),
            config: None,
            channel_configs: Vec::new(),
            policies: ChannelPolicies::default(),
            source: SourceOptions::default(),
            allow: Vec::new(),
            warn: Vec::new(),
            deny: Vec::new(),
            format: CheckFormat::Text,
            output: None,
        }
    }
}

/// The result of one check, besides the report rendered on standard output.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The report, format-independent.
    pub report: Report,
    /// The exit code.
    pub exit: u8,
}

/// A mistake in the request itself, or a file that cannot be read: exit code 2, the message
/// printed after `error: `.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// A file that cannot be read.
    #[error("cannot read `{shown}`: {source}")]
    Read {
        shown: String,
        source: std::io::Error,
    },
    /// `--allow`/`--warn`/`--deny` of a code that does not exist.
    #[error("`{0}` is not a diagnostic code (docs/diagnostics.md lists them; `warnings` is the group of all warnings)")]
    UnknownCode(String),
    /// A code given two levels.
    #[error("`{0}` is given to more than one of --allow, --warn and --deny")]
    CodeTwice(String),
    /// `--config` of a file that does not exist.
    #[error("config file `{0}` does not exist")]
    NoConfig(String),
    /// Policy flags without `--channel-config`.
    #[error("--role-policy, --trust-policy, --table-key-policy, --table-bucket-policy and --dlq-kms-key are checked against a channel: give its --channel-config")]
    PoliciesWithoutChannel,
    /// A `--dlq-kms-key` that is not a key ARN.
    #[error("--dlq-kms-key `{0}` is not a KMS key ARN (arn:aws:kms:REGION:ACCOUNT:key/ID)")]
    NotAKmsKey(String),
    /// A policy document that does not exist.
    #[error("policy document `{0}` does not exist")]
    NoPolicyDocument(String),
    /// A `--channel-config` that does not exist.
    #[error("channel configuration `{0}` does not exist")]
    NoChannelConfig(String),
    /// A path or glob that finds nothing.
    #[error(transparent)]
    Paths(#[from] crate::project::discover::DiscoverError),
    /// `--partition` with more than one schema.
    #[error("--partition is for a single schema, but {0} schemas were found; set `partition` per glob in {file}", file = crate::project::config::FILE_NAME)]
    PartitionForMany(usize),
    /// A channel whose permissions cannot be checked.
    #[error("the permissions of the channel in {names} cannot be checked: {source}")]
    Permissions {
        names: String,
        source: schema2iceberg_mapper::policies::FactsError,
    },
    /// The JSON report cannot be written.
    #[error("cannot write the report as JSON: {0}")]
    Json(serde_json::Error),
    /// Standard output cannot be written.
    #[error("cannot write the report: {0}")]
    Write(std::io::Error),
}

/// Runs the whole check: the result, and the report rendered in the request's format.
fn check_all(request: &CheckRequest) -> Result<(Checked, String), UsageError> {
    let format = request.format;
    let plan = match plan::plan(request)? {
        Planned::Ready(plan) => plan,
        Planned::ConfigMistakes(failure) => {
            return report::config_failure(request, format, failure)
        }
    };
    let run = run::Run {
        request,
        format,
        config: &plan.config,
        cli_overrides: &plan.cli_overrides,
        groups: &plan.groups,
        channel_texts: &plan.channel_texts,
    };
    let mut outcomes = run::compile_all(&run, &plan.schemas, &plan.schema_groups);
    let policies = policy_check::check_all(request, &plan)?;
    outcomes.extend(policies.outcomes);
    report::report(
        request,
        format,
        &plan,
        outcomes,
        policies.channel_diagnostics,
    )
}
