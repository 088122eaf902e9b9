//! `schema2iceberg policies`: the role, trust, table-key and table-bucket policy documents that a
//! Kinesis or MSK streaming-tables channel needs, generated from its configuration. The
//! documents come from `schema2iceberg_mapper::policies`; this module reads the files, checks
//! the configuration as `check` does, and prints or writes the documents.

use std::io::Write;
use std::path::{Path, PathBuf};

use schema2iceberg_mapper::channel::check_channel_configs;
use schema2iceberg_mapper::policies::{
    channel_facts, generate, Documents, FactsError, GenerateOptions,
};
use schema2iceberg_parser::{Diagnostic, JsonFile, Severity};

use crate::app::{stderr_color_enabled, ColorArg, Command, EXIT_OK, EXIT_SCHEMA_ERRORS};
use crate::render;

/// The `after_help` of `policies --help`.
pub(crate) const HELP: &str = "\
Four of the channel failures in the reference's troubleshooting table are permissions, and each
shows up only after the channel exists: a namespace with no table (no s3tables:PutTableEncryption
with a customer managed key), CreateTable or every delivery cycle failing (the table key's policy
has no grant for maintenance.s3tables.amazonaws.com), a channel ACTIVE with no data, no
dead-letter entries and no logs (S3 Tables or CloudWatch Logs actions missing), and a FAILED
channel with AccessDenied on sts:AssumeRole (the trust policy names the wrong principal or
aws:SourceArn). policies prints the documents that prevent them, least privilege, with every ARN
taken from the channel configuration (every form that check accepts):
  role-policy                 the execution role's permission policy: S3TablesAccess,
                              DLQBucketAccess, GlueSchemaRegistryAccess, KMSTableKeyAccess (with
                              a customer managed key), KMSAccessDLQ (with --dlq-kms-key),
                              CloudWatchLogsAccess (when logging is on)
  trust-policy                the role's trust policy: the service principal, aws:SourceAccount,
                              aws:SourceArn on the service's channel/*
  table-key-policy-statement  the statement to add to the table key's policy (null without one)
  table-bucket-policy         only when the table bucket is in another account than the role
  lake-formation              with --query-role: the two grant-permissions commands for Athena
Only what the AWS user guides require is written; docs/policies.md says where the sources
disagree and what was decided. `check --role-policy … --trust-policy …` checks the documents
you already have against the same table.

--out DIR writes role-policy.json, trust-policy.json, table-key-policy-statement.json and
table-key-policy.json (the key's whole policy: AWS's default statement, which lets IAM policies
of the account use the key, and the maintenance statement), table-bucket-policy.json and
lake-formation.sh where they apply; `check` takes them back.

Examples:
  schema2iceberg policies --channel-config channels/orders-kinesis.json
  schema2iceberg policies --channel-config channels/orders-msk.json --format json | jq '.\"role-policy\"'
  schema2iceberg policies --channel-config destination.json --channel-config streams.json \\
    --dlq-kms-key arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab
  schema2iceberg policies --channel-config channel.json --out iam/
  aws iam put-role-policy --role-name kds-streaming-tables --policy-name channel \\
    --policy-document file://iam/role-policy.json

Exit codes: 0 the documents were printed, 1 the channel configuration has errors (shown on
standard error), 2 usage or I/O error.";

/// Output formats of `policies`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PoliciesFormat {
    /// Each document under a heading that says what to attach it to, and why.
    Text,
    /// One object with the keys role-policy, trust-policy, table-key-policy-statement,
    /// table-bucket-policy (and lake-formation with --query-role).
    Json,
}

#[derive(Debug, clap::Args)]
#[command(
    about = "Print the role, trust, table-key and table-bucket policies that a channel needs, from its configuration",
    after_help = HELP
)]
pub struct PoliciesArgs {
    /// A Kinesis or MSK channel configuration, as check reads it; repeatable for one split over
    /// files.
    #[arg(long, value_name = "FILE", required = true)]
    channel_config: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = PoliciesFormat::Text)]
    format: PoliciesFormat,
    /// The KMS key ARN of the dead-letter bucket's SSE-KMS encryption (the configuration does
    /// not say it): adds the KMSAccessDLQ statement.
    #[arg(long, value_name = "ARN")]
    dlq_kms_key: Option<String>,
    /// The ARN of a role that queries the table from Athena: adds the Lake Formation grants.
    #[arg(long, value_name = "ARN")]
    query_role: Option<String>,
    /// Write one file per document into DIR (created if missing) instead of printing them.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    color: ColorArg,
}

/// Why `policies` stops.
#[derive(Debug, thiserror::Error)]
pub enum PoliciesError {
    /// A file cannot be read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A document cannot be written.
    #[error("cannot write `{path}`: {source}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Standard output cannot be written.
    #[error("cannot write the documents: {0}")]
    Stdout(std::io::Error),
    /// The configuration lacks what the documents need.
    #[error(transparent)]
    Facts(#[from] FactsError),
    /// A flag's ARN has the wrong shape.
    #[error("{flag} `{value}` is not {what}")]
    Arn {
        /// The flag.
        flag: &'static str,
        /// Its value.
        value: String,
        /// The shape it needs.
        what: &'static str,
    },
}

/// What `policies` produced: the documents, or the configuration's diagnostics.
#[derive(Debug)]
pub enum Generated {
    /// The documents, and the warnings to show beside them.
    Documents(Box<Documents>, Vec<Diagnostic>),
    /// The configuration has errors; nothing is generated.
    ConfigErrors(Vec<Diagnostic>, Vec<JsonFile>),
}

/// Reads and checks the channel configuration, then generates its documents.
pub fn generate_for(
    channel_configs: &[PathBuf],
    options: &GenerateOptions,
) -> Result<Generated, PoliciesError> {
    if let Some(key) = &options.dlq_kms_key {
        arn_of(
            key,
            "--dlq-kms-key",
            "kms",
            "key/",
            "a KMS key ARN (arn:aws:kms:REGION:ACCOUNT:key/ID)",
        )?;
    }
    if let Some(role) = &options.query_role {
        arn_of(
            role,
            "--query-role",
            "iam",
            "role/",
            "an IAM role ARN (arn:aws:iam::ACCOUNT:role/NAME)",
        )?;
    }
    let mut files = Vec::new();
    let mut diagnostics = Vec::new();
    for path in channel_configs {
        let bytes = std::fs::read(path).map_err(|source| PoliciesError::Read {
            path: path.display().to_string(),
            source,
        })?;
        let (file, parse) = JsonFile::parse(path.display().to_string(), bytes);
        diagnostics.extend(parse);
        files.push(file);
    }
    diagnostics.extend(check_channel_configs(&files).diagnostics);
    if diagnostics.iter().any(|d| d.severity == Severity::Error) {
        return Ok(Generated::ConfigErrors(diagnostics, files));
    }
    let facts = channel_facts(&files)?;
    let documents = generate(&facts, options);
    let warnings = schema2iceberg_mapper::policies::check_policies(&facts, &Default::default());
    Ok(Generated::Documents(Box::new(documents), warnings))
}

fn arn_of(
    value: &str,
    flag: &'static str,
    service: &str,
    resource: &str,
    what: &'static str,
) -> Result<(), PoliciesError> {
    let parts: Vec<&str> = value.splitn(6, ':').collect();
    let ok = parts.len() == 6
        && parts.first() == Some(&"arn")
        && parts.get(2) == Some(&service)
        && parts
            .get(5)
            .is_some_and(|r| r.starts_with(resource) && r.len() > resource.len());
    if ok {
        Ok(())
    } else {
        Err(PoliciesError::Arn {
            flag,
            value: value.to_string(),
            what,
        })
    }
}

/// The text format: each document under a heading that says what to attach it to and why.
pub fn text(documents: &Documents) -> String {
    let mut out = String::new();
    let mut section = |name: &str, heading: &str, value: Option<&serde_json::Value>| {
        out.push_str(&format!("## {name}\n"));
        for line in heading.lines() {
            out.push_str(&format!("# {line}\n"));
        }
        match value {
            Some(v) => out.push_str(&render::pretty_value_line(v)),
            None => out.push_str("null\n"),
        }
        out.push('\n');
    };
    section(
        "role-policy",
        "Attach to the execution role as its permission policy.\nWithout it the channel goes from CREATING to FAILED, or is ACTIVE with no data, no\ndead-letter entries and no logs.",
        Some(&documents.role_policy),
    );
    section(
        "trust-policy",
        "The execution role's trust policy (its trust relationships).\nWithout it the channel goes to FAILED with AccessDenied on sts:AssumeRole.",
        Some(&documents.trust_policy),
    );
    let key_heading = match documents.table_key_policy_statement {
        Some(_) => "Add this statement to the key policy of the table's customer managed key.\nWithout it S3 Tables maintenance cannot use the key: CreateTable fails, or every\ndelivery cycle fails with InternalError.",
        None => "None: the table uses no customer managed key.",
    };
    section(
        "table-key-policy-statement",
        key_heading,
        documents.table_key_policy_statement.as_ref(),
    );
    let bucket_heading = match documents.table_bucket_policy {
        Some(_) => "The table bucket is in another account: its owner attaches this as the table bucket's\npolicy. Without it the channel is ACTIVE with no data.",
        None => "None: the table bucket is in the role's account.",
    };
    section(
        "table-bucket-policy",
        bucket_heading,
        documents.table_bucket_policy.as_ref(),
    );
    if let Some(serde_json::Value::Array(commands)) = &documents.lake_formation {
        out.push_str(
            "## lake-formation\n# Run before querying the table from Athena as the query role.\n",
        );
        for command in commands.iter().filter_map(serde_json::Value::as_str) {
            out.push_str(command);
            out.push('\n');
        }
    }
    out
}

/// Writes one file per document into `dir`; returns the names written, in order.
pub fn write_out(dir: &Path, documents: &Documents) -> Result<Vec<String>, PoliciesError> {
    std::fs::create_dir_all(dir).map_err(|source| PoliciesError::Write {
        path: dir.display().to_string(),
        source,
    })?;
    let mut files: Vec<(&str, String)> = vec![
        (
            "role-policy.json",
            render::pretty_value_line(&documents.role_policy),
        ),
        (
            "trust-policy.json",
            render::pretty_value_line(&documents.trust_policy),
        ),
    ];
    if let Some(v) = &documents.table_key_policy_statement {
        files.push((
            "table-key-policy-statement.json",
            render::pretty_value_line(v),
        ));
    }
    if let Some(v) = &documents.table_key_policy {
        files.push(("table-key-policy.json", render::pretty_value_line(v)));
    }
    if let Some(v) = &documents.table_bucket_policy {
        files.push(("table-bucket-policy.json", render::pretty_value_line(v)));
    }
    if let Some(serde_json::Value::Array(commands)) = &documents.lake_formation {
        let mut script = String::from(
            "#!/bin/sh\n# Lake Formation grants for querying the table from Athena.\nset -e\n",
        );
        for command in commands.iter().filter_map(serde_json::Value::as_str) {
            script.push_str(command);
            script.push('\n');
        }
        files.push(("lake-formation.sh", script));
    }
    for (name, text) in &files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|source| PoliciesError::Write {
            path: path.display().to_string(),
            source,
        })?;
    }
    Ok(files
        .into_iter()
        .map(|(name, _)| name.to_string())
        .collect())
}

/// `policies`, in the one shape of a command ([`Command`]).
#[derive(Debug)]
pub struct Policies;

/// Everything `policies` needs.
#[derive(Debug, Clone)]
pub struct PoliciesRequest {
    /// The channel configuration's files.
    pub channel_configs: Vec<PathBuf>,
    /// `--dlq-kms-key` and `--query-role`.
    pub options: GenerateOptions,
    /// The output format.
    pub format: PoliciesFormat,
    /// `--out`: the folder that gets one file per document instead of standard output.
    pub out: Option<PathBuf>,
    /// Whether to color the diagnostics, on standard error.
    pub color: bool,
}

/// What `policies` produced besides its standard output.
#[derive(Debug, Clone)]
pub struct PoliciesOutcome {
    /// The configuration's diagnostics, for standard error.
    pub stderr: String,
    /// The exit code.
    pub exit: u8,
}

impl Command for Policies {
    type Args = PoliciesArgs;
    type Request = PoliciesRequest;
    type Outcome = PoliciesOutcome;
    type Error = PoliciesError;

    fn request(args: PoliciesArgs) -> Result<PoliciesRequest, PoliciesError> {
        Ok(PoliciesRequest {
            channel_configs: args.channel_config,
            options: GenerateOptions {
                dlq_kms_key: args.dlq_kms_key,
                query_role: args.query_role,
            },
            format: args.format,
            out: args.out,
            color: stderr_color_enabled(args.color.color),
        })
    }

    /// Prints the documents, or writes them into `--out` and prints the files written; a
    /// configuration with errors gets its diagnostics and no documents.
    fn run(
        request: &PoliciesRequest,
        out: &mut dyn Write,
    ) -> Result<PoliciesOutcome, PoliciesError> {
        let (documents, warnings) = match generate_for(&request.channel_configs, &request.options)?
        {
            Generated::Documents(documents, warnings) => (documents, warnings),
            Generated::ConfigErrors(diagnostics, files) => {
                return Ok(PoliciesOutcome {
                    stderr: rendered(&diagnostics, &files, request.color),
                    exit: EXIT_SCHEMA_ERRORS,
                })
            }
        };
        let stdout = match (&request.out, request.format) {
            (Some(dir), _) => write_out(dir, &documents)?
                .iter()
                .map(|name| format!("{}\n", dir.join(name).display()))
                .collect(),
            (None, PoliciesFormat::Json) => render::pretty_value_line(&documents.to_json()),
            (None, PoliciesFormat::Text) => text(&documents),
        };
        out.write_all(stdout.as_bytes())
            .map_err(PoliciesError::Stdout)?;
        Ok(PoliciesOutcome {
            stderr: rendered(&warnings, &[], request.color),
            exit: EXIT_OK,
        })
    }

    fn finish(outcome: PoliciesOutcome) -> u8 {
        let _ = anstream::stderr().write_all(outcome.stderr.as_bytes());
        outcome.exit
    }
}

fn rendered(diagnostics: &[Diagnostic], files: &[JsonFile], color: bool) -> String {
    let mut out = String::new();
    if diagnostics.is_empty() {
        return out;
    }
    let source = |name: &str| {
        files
            .iter()
            .find(|f| f.display == name)
            .and_then(JsonFile::text_str)
    };
    render::push_diagnostics(&mut out, diagnostics, &source, color, ("", "\n\n"));
    out
}
