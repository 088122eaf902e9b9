//! One side of a `diff`, loaded from bytes: an Iceberg table's metadata or schema, read with the
//! `iceberg` crate's serde, or a JSON Schema to compile (with its column sources).

use std::path::{Path, PathBuf};

use iceberg::spec::{PartitionSpec, Schema, TableMetadata};
use schema2iceberg_mapper::{compile, ColumnSource, CompileOptions, Compiled};
use schema2iceberg_parser::{Draft, Severity};

use super::{from_channel, DiffRequest, FormatChoice};
use crate::project::config::Config;
use crate::project::source::{self, SchemaSource};
use crate::render;

/// How both sides of one pair are read: the flags of the request over the settings that
/// `schema2iceberg.toml` gives NEW's path.
pub(super) struct SideOptions {
    partition: Option<String>,
    draft: Option<Draft>,
    ref_root: PathBuf,
    color: bool,
}

impl SideOptions {
    /// How both sides of the pair whose NEW is `new_full` are read, and how its record format
    /// was chosen: the partition is the channel configurations' `SourceName`, which wins, and
    /// the reference root the one `check` would read NEW with.
    pub(super) fn for_new(
        request: &DiffRequest,
        config: &Config,
        new_full: &Path,
    ) -> (SideOptions, FormatChoice) {
        let settings = config.settings_for(new_full);
        let channel = from_channel(request, &settings);
        let options = SideOptions {
            partition: channel
                .partition
                .or_else(|| request.source.partition.first().cloned())
                .or_else(|| settings.partition.clone()),
            draft: request.source.draft.or(settings.draft),
            ref_root: config.ref_root_for(
                request.source.ref_root.as_deref(),
                &request.dir,
                &settings,
                new_full,
            ),
            color: request.source.color,
        };
        (options, channel.choice)
    }
}

/// One side of a comparison, loaded.
pub(super) struct Loaded {
    pub(super) display: String,
    pub(super) kind: &'static str,
    pub(super) schema: Schema,
    pub(super) spec: PartitionSpec,
    pub(super) columns: Vec<ColumnSource>,
}

/// What a side failed with: its diagnostics, rendered, and one line for each.
pub(super) struct NotCompiled {
    pub(super) display: String,
    pub(super) rendered: String,
    pub(super) lines: Vec<String>,
}

fn is_table_metadata(value: &serde_json::Value) -> bool {
    value.get("format-version").is_some()
        && (value.get("schemas").is_some() || value.get("schema").is_some())
}

fn is_iceberg_schema(value: &serde_json::Value) -> bool {
    value.get("type").and_then(|t| t.as_str()) == Some("struct")
        && value.get("fields").is_some_and(|f| f.is_array())
}

/// Loads one side from bytes: an Iceberg table's metadata or schema, or a JSON Schema to compile.
pub(super) fn load(
    display: &str,
    path_for_refs: &Path,
    bytes: Vec<u8>,
    options: &SideOptions,
) -> Result<Loaded, NotCompiled> {
    let SideOptions {
        partition,
        draft,
        ref_root,
        color,
    } = options;
    let (partition, draft, color) = (partition.as_deref(), *draft, *color);
    if let Some(iceberg) = iceberg_side(display, &bytes) {
        return iceberg;
    }
    let ws = source::workspace(
        &SchemaSource {
            display,
            path: Some(path_for_refs),
            ref_root: Some(ref_root.to_path_buf()),
            draft,
        },
        bytes,
    );
    let compiled: Compiled = compile(
        &ws,
        &CompileOptions {
            partition: partition.map(str::to_string).into_iter().collect(),
            column_sources: true,
            ..CompileOptions::default()
        },
    );
    match (compiled.schema, compiled.partition_spec) {
        (Some(schema), Some(spec)) => Ok(Loaded {
            display: display.to_string(),
            kind: "json-schema",
            schema,
            spec,
            columns: compiled.columns,
        }),
        _ => {
            let mut rendered = String::new();
            let mut lines = Vec::new();
            for d in compiled
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
            {
                let source = ws.source_text(&d.location.file);
                rendered.push_str(&render::diagnostic(source, d, color));
                rendered.push('\n');
                lines.push(format!(
                    "{}:{}:{}: error[{}]: {}",
                    d.location.file, d.location.line, d.location.column, d.code, d.message
                ));
            }
            Err(NotCompiled {
                display: display.to_string(),
                rendered,
                lines,
            })
        }
    }
}

impl NotCompiled {
    /// A side that failed for one reason, not with diagnostics.
    pub(super) fn one(display: &str, message: String) -> NotCompiled {
        NotCompiled {
            display: display.to_string(),
            rendered: format!("error: {message}\n"),
            lines: vec![message],
        }
    }
}

/// An Iceberg table's metadata or schema, read with the `iceberg` crate's serde; `None` when the
/// bytes are neither, and so a JSON Schema to compile.
fn iceberg_side(display: &str, bytes: &[u8]) -> Option<Result<Loaded, NotCompiled>> {
    let value = serde_json::from_slice::<serde_json::Value>(bytes).ok()?;
    if is_table_metadata(&value) {
        return Some(match serde_json::from_value::<TableMetadata>(value) {
            Ok(metadata) => Ok(Loaded {
                display: display.to_string(),
                kind: "iceberg-table-metadata",
                schema: metadata.current_schema().as_ref().clone(),
                spec: metadata.default_partition_spec().as_ref().clone(),
                columns: Vec::new(),
            }),
            Err(e) => Err(NotCompiled::one(
                display,
                format!("`{display}` looks like Iceberg table metadata, but it is not valid: {e}"),
            )),
        });
    }
    if is_iceberg_schema(&value) {
        return Some(match serde_json::from_value::<Schema>(value) {
            Ok(schema) => Ok(Loaded {
                display: display.to_string(),
                kind: "iceberg-schema",
                spec: PartitionSpec::unpartition_spec(),
                schema,
                columns: Vec::new(),
            }),
            Err(e) => Err(NotCompiled::one(
                display,
                format!("`{display}` looks like an Iceberg schema, but it is not valid: {e}"),
            )),
        });
    }
    None
}
