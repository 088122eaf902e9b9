//! The partition spec, compared by source column path and transform.

use super::{verdicts, Change, ChangeKind, Fate, IcebergVerdict, Records, Side, TableVerdict};
use super::{NEW_TABLE, PARTITION_RECORDS};
use crate::channel::RecordFormat;

/// `hour(event_time)`, one per partition field; empty when unpartitioned.
pub(super) fn partition_fields(side: &Side<'_>) -> Vec<String> {
    side.partition_spec
        .fields()
        .iter()
        .map(|f| {
            let source = side
                .schema
                .name_by_field_id(f.source_id)
                .map_or_else(|| format!("field {}", f.source_id), str::to_string);
            format!("{}({source})", f.transform)
        })
        .collect()
}

/// The partition spec compared by source column path and transform; partition field names and
/// ids are the channel's own and differ between tables without changing the layout.
pub(super) fn partition_change(
    old: &Side<'_>,
    new: &Side<'_>,
    formats: &[RecordFormat],
) -> Option<Change> {
    let before = partition_fields(old);
    let after = partition_fields(new);
    if before == after {
        return None;
    }
    let source_location = |side: &Side<'_>| {
        side.partition_spec.fields().iter().find_map(|f| {
            let name = side.schema.name_by_field_id(f.source_id)?;
            side.columns
                .iter()
                .find(|c| c.path == name)
                .and_then(|c| c.location.clone())
        })
    };
    let rendered = |fields: Vec<String>| (!fields.is_empty()).then(|| fields.join(", "));
    Some(Change {
        kind: ChangeKind::PartitionChanged,
        path: String::new(),
        old: rendered(before),
        new: rendered(after),
        location: source_location(new).or_else(|| source_location(old)),
        table: TableVerdict::Changed,
        channel: verdicts(
            formats,
            ChangeKind::PartitionChanged,
            Fate::new(Records::Unaffected, PARTITION_RECORDS),
        ),
        iceberg: IcebergVerdict::Allowed,
        reason: format!("{NEW_TABLE}; Iceberg can evolve a partition spec, and data already written keeps its old layout"),
        note: None,
    })
}
