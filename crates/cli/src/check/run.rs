//! Running a check: compiles every planned schema on all cores (scoped threads pulling from an
//! atomic index, results in input order) and turns each into its file report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use schema2iceberg_mapper::{compile, CompileOptions, Compiled};
use schema2iceberg_parser::{Diagnostic, Location, Workspace};

use super::classify;
use super::output::{self, DiagnosticReport, FileKind, FileReport, TableSummary};
use super::plan::{ChannelGroup, Checkable};
use super::report::render_file_text;
use super::{CheckFormat, CheckRequest};
use crate::codes;
use crate::project::config::{Config, FileSettings};
use crate::project::display_of;
use crate::project::severity::Overrides;
use crate::project::source::{self, SchemaSource};

/// One schema's result: its report, and its text block (empty unless the format is text).
pub(super) struct SchemaOutcome {
    pub(super) report: FileReport,
    pub(super) text: String,
}

/// What every schema of one run shares.
pub(super) struct Run<'a> {
    pub(super) request: &'a CheckRequest,
    pub(super) format: CheckFormat,
    pub(super) config: &'a Config,
    pub(super) cli_overrides: &'a Overrides,
    pub(super) groups: &'a BTreeMap<Vec<PathBuf>, ChannelGroup>,
    pub(super) channel_texts: &'a BTreeMap<String, String>,
}

/// Compiles every schema on all cores; the results come back in input order.
pub(super) fn compile_all(
    run: &Run<'_>,
    schemas: &[Checkable],
    schema_groups: &[Vec<PathBuf>],
) -> Vec<SchemaOutcome> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<SchemaOutcome>>> =
        Mutex::new((0..schemas.len()).map(|_| None).collect());
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(schemas.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(schema) = schemas.get(i) else { break };
                let group = schema_groups.get(i).and_then(|g| run.groups.get(g));
                let outcome = check_schema(run, schema, group);
                if let Ok(mut slots) = results.lock() {
                    if let Some(slot) = slots.get_mut(i) {
                        *slot = Some(outcome);
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// Checks one schema: reads it, sets aside files that are not table schemas, compiles it and
/// makes its report. Over 80 lines: each step is a function of its own, and what remains is
/// the order of the steps and the diagnostics passed between them.
fn check_schema(run: &Run<'_>, schema: &Checkable, group: Option<&ChannelGroup>) -> SchemaOutcome {
    let Run {
        request,
        format,
        config,
        cli_overrides,
        channel_texts,
        ..
    } = *run;
    let settings = config.settings_for(&schema.path);
    let overrides = settings.overrides.layered(cli_overrides);
    let (partition, origin, extra) = partition_for(request, &settings, group);
    let bytes = match std::fs::read(&schema.path) {
        Ok(bytes) => bytes,
        Err(e) => return unreadable(schema, &e, request.source.color),
    };
    let ref_root = config.ref_root_for(
        request.source.ref_root.as_deref(),
        &request.dir,
        &settings,
        &schema.path,
    );
    let ws = source::workspace(
        &SchemaSource {
            display: &schema.display,
            path: Some(&schema.path),
            ref_root: Some(ref_root),
            draft: request.source.draft.or(settings.draft),
        },
        bytes,
    );
    let main = ws.documents().first();
    let main_json = main.and_then(|d| d.json.as_deref());
    let main_text = main.map_or(&[][..], |d| d.bytes());
    let content = classify::classify(main_json, &schema.display, main_text);
    if let Some(d) = classify::diagnostic(content, main_json, &schema.display, main_text) {
        return not_a_table(
            schema,
            content,
            overrides.apply(d),
            main.and_then(|d| d.text_str()),
            request.source.color,
        );
    }
    let compiled = compile(
        &ws,
        &CompileOptions {
            partition: partition.clone().into_iter().collect(),
            partition_origin: origin,
            lints: true,
            column_sources: false,
        },
    );
    let renames = renames(&ws, &request.dir);
    let mut diagnostics: Vec<Diagnostic> = extra;
    diagnostics.extend(compiled.diagnostics.iter().cloned());
    let kept: Vec<Diagnostic> = diagnostics
        .into_iter()
        .filter_map(|d| overrides.apply(d))
        .map(|mut d| {
            if let Some((_, shown)) = renames.iter().find(|(old, _)| *old == *d.location.file) {
                d.location.file = shown.as_str().into();
            }
            d
        })
        .collect();
    let table = table_summary(&compiled, partition);
    // Snippets cost more than the compile; only the text format shows them.
    let text = if format != CheckFormat::Text {
        String::new()
    } else {
        render_file_text(
            &schema.display,
            &kept,
            |file| {
                let file = renames
                    .iter()
                    .find(|(_, shown)| shown == file)
                    .map_or(file, |(old, _)| old.as_str());
                ws.source_text(file)
                    .or_else(|| channel_texts.get(file).map(String::as_str))
            },
            request.source.color,
        )
    };
    let report = FileReport {
        path: schema.display.clone(),
        kind: FileKind::Schema,
        status: output::status(&kept),
        table,
        diagnostics: kept.iter().map(DiagnosticReport::from_diagnostic).collect(),
    };
    SchemaOutcome { report, text }
}

/// The partition of one schema: its channel configuration's `SourceName` wins over
/// `--partition` and the config's `partition` (with a `partition-mismatch` where they differ),
/// and is where the partition's diagnostics point.
fn partition_for(
    request: &CheckRequest,
    settings: &FileSettings,
    group: Option<&ChannelGroup>,
) -> (Option<String>, Option<Location>, Vec<Diagnostic>) {
    let mut extra = Vec::new();
    let mut partition = request
        .source
        .partition
        .first()
        .cloned()
        .or(settings.partition.clone());
    let mut origin = None;
    if let Some((source, location)) = group.and_then(|g| g.sources.first()) {
        match &partition {
            Some(p) if p != source => extra.push(Diagnostic::new(
                &codes::PARTITION_MISMATCH,
                location.clone(),
                format!("the channel configuration partitions on `{source}`, but `{p}` was given for this schema; the channel's `SourceName` is used"),
            )),
            _ => {}
        }
        partition = Some(source.clone());
        origin = Some(location.clone());
    }
    (partition, origin, extra)
}

/// The outcome of a schema that cannot be read: one diagnostic at its first line.
fn unreadable(schema: &Checkable, e: &std::io::Error, color: bool) -> SchemaOutcome {
    let d = Diagnostic::new(
        &schema2iceberg_parser::codes::REF_UNREADABLE,
        Location {
            file: schema.display.as_str().into(),
            line: 1,
            column: 1,
            ..Location::default()
        },
        format!("cannot read `{}`: {e}", schema.display),
    );
    let report = FileReport {
        path: schema.display.clone(),
        kind: FileKind::Schema,
        status: output::status(std::slice::from_ref(&d)),
        table: None,
        diagnostics: vec![DiagnosticReport::from_diagnostic(&d)],
    };
    let text = render_file_text(&schema.display, &[d], |_| None, color);
    SchemaOutcome { report, text }
}

/// The outcome of a file that is not a table schema (a channel configuration, definitions only,
/// or not a schema at all): its one diagnostic, if the overrides keep it; nothing is compiled.
fn not_a_table(
    schema: &Checkable,
    content: classify::Content,
    kept: Option<Diagnostic>,
    source: Option<&str>,
    color: bool,
) -> SchemaOutcome {
    let kept: Vec<Diagnostic> = kept.into_iter().collect();
    let text = render_file_text(&schema.display, &kept, |_| source, color);
    let report = FileReport {
        path: schema.display.clone(),
        kind: match content {
            classify::Content::ChannelConfig => FileKind::ChannelConfig,
            classify::Content::Policy => FileKind::Policy,
            classify::Content::DefinitionsOnly => FileKind::Definitions,
            _ => FileKind::Other,
        },
        status: output::status(&kept),
        table: None,
        diagnostics: kept.iter().map(DiagnosticReport::from_diagnostic).collect(),
    };
    SchemaOutcome { report, text }
}

/// The parser names a referenced file beside the main file's name, or from the process's
/// current directory; `check` names it from its own folder, as every other file. Each pair is
/// (the parser's name, `check`'s).
fn renames(ws: &Workspace, dir: &Path) -> Vec<(String, String)> {
    ws.documents()
        .iter()
        .skip(1)
        .filter_map(|doc| {
            let shown = display_of(&doc.url.to_file_path().ok()?, dir);
            (shown != doc.display).then(|| (doc.display.clone(), shown))
        })
        .collect()
}

/// The table's size and partition, for the report; `None` when nothing compiled.
fn table_summary(compiled: &Compiled, partition: Option<String>) -> Option<TableSummary> {
    compiled.schema.as_ref().map(|s| TableSummary {
        columns: s.as_struct().fields().len(),
        fields: usize::try_from(s.highest_field_id()).unwrap_or(0),
        partition: compiled
            .partition_spec
            .as_ref()
            .filter(|spec| !spec.fields().is_empty())
            .and(partition),
    })
}
