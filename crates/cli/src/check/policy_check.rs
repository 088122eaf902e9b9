//! Checking the policy documents of each channel planned (`--role-policy` and the other policy
//! flags, and `[[channels]]` entries): the channel's configuration read, and each document
//! evaluated against what the channel needs (`schema2iceberg_mapper::policies`). Each policy
//! document is a file of the report; what the check says about the configuration itself (a
//! cross-account bucket) goes to the configuration's report.

use std::collections::BTreeMap;

use schema2iceberg_mapper::channel::check_channel_configs;
use schema2iceberg_mapper::policies::{channel_facts, check_policies, PolicyFiles};
use schema2iceberg_parser::{Diagnostic, JsonFile, Severity};

use super::output::{self, DiagnosticReport, FileKind, FileReport};
use super::plan::Plan;
use super::report::render_file_text;
use super::run::SchemaOutcome;
use super::{CheckRequest, UsageError};
use crate::project::config::ChannelPolicies;
use crate::project::display_of;

/// What the policy checks found: a report for each policy document, and the diagnostics that
/// point into channel configurations.
pub(super) struct PolicyResults {
    pub(super) outcomes: Vec<SchemaOutcome>,
    pub(super) channel_diagnostics: Vec<Diagnostic>,
}

/// Checks every planned channel's documents. A document given for two channels is reported
/// once, with the findings of both.
pub(super) fn check_all(request: &CheckRequest, plan: &Plan) -> Result<PolicyResults, UsageError> {
    let overrides = plan.config.overrides.layered(&plan.cli_overrides);
    let mut by_file: BTreeMap<String, (Vec<Diagnostic>, Option<String>)> = BTreeMap::new();
    let mut channel_diagnostics = Vec::new();
    for entry in &plan.policy_checks {
        let checked = check_one(request, entry)?;
        for (display, text) in checked.documents {
            by_file.entry(display).or_insert((Vec::new(), text));
        }
        for d in checked.diagnostics {
            let file = d.location.file.to_string();
            match by_file.get_mut(&file) {
                Some((list, _)) => list.push(d),
                None => channel_diagnostics.push(d),
            }
        }
    }
    let outcomes = by_file
        .into_iter()
        .map(|(display, (diagnostics, text))| {
            let mut kept: Vec<Diagnostic> = Vec::new();
            for d in diagnostics.into_iter().filter_map(|d| overrides.apply(d)) {
                if !kept.contains(&d) {
                    kept.push(d);
                }
            }
            kept.sort_by_key(|d| d.location.span.start());
            let rendered =
                render_file_text(&display, &kept, |_| text.as_deref(), request.source.color);
            SchemaOutcome {
                report: FileReport {
                    path: display,
                    kind: FileKind::Policy,
                    status: output::status(&kept),
                    table: None,
                    diagnostics: kept.iter().map(DiagnosticReport::from_diagnostic).collect(),
                },
                text: rendered,
            }
        })
        .collect();
    Ok(PolicyResults {
        outcomes,
        channel_diagnostics,
    })
}

/// The documents of one channel (their names and texts) and everything found in them.
struct Checked {
    documents: Vec<(String, Option<String>)>,
    diagnostics: Vec<Diagnostic>,
}

fn read(
    request: &CheckRequest,
    path: &std::path::Path,
) -> Result<(JsonFile, Vec<Diagnostic>), UsageError> {
    let display = display_of(path, &request.dir);
    let bytes = std::fs::read(path).map_err(|source| UsageError::Read {
        shown: display.clone(),
        source,
    })?;
    Ok(JsonFile::parse(display, bytes))
}

fn check_one(request: &CheckRequest, entry: &ChannelPolicies) -> Result<Checked, UsageError> {
    let mut configs = Vec::new();
    for path in &entry.configs {
        configs.push(read(request, path)?.0);
    }
    let mut diagnostics = Vec::new();
    let mut documents = Vec::new();
    let mut document = |path: &std::path::Path| -> Result<JsonFile, UsageError> {
        let (file, parse) = read(request, path)?;
        documents.push((file.display.clone(), file.text_str().map(str::to_string)));
        diagnostics.extend(parse);
        Ok(file)
    };
    let files = PolicyFiles {
        role: entry
            .role
            .iter()
            .map(|p| document(p))
            .collect::<Result<_, _>>()?,
        trust: entry.trust.as_deref().map(&mut document).transpose()?,
        table_key: entry.table_key.as_deref().map(&mut document).transpose()?,
        table_bucket: entry
            .table_bucket
            .as_deref()
            .map(&mut document)
            .transpose()?,
        dlq_kms_key: entry.dlq_kms_key.clone(),
    };
    // A configuration with errors is reported as such; its permissions cannot be worked out.
    let configuration = check_channel_configs(&configs);
    let usable = !configuration
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    // Reported with the configuration (once, with its other findings), wherever it is read.
    diagnostics.extend(configuration.diagnostics);
    if usable {
        let names: Vec<&str> = configs.iter().map(|f| f.display.as_str()).collect();
        let facts = channel_facts(&configs).map_err(|source| UsageError::Permissions {
            names: names.join(", "),
            source,
        })?;
        diagnostics.extend(check_policies(&facts, &files));
    }
    Ok(Checked {
        documents,
        diagnostics,
    })
}
