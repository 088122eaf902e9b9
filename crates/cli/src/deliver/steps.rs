//! The steps of one `deliver` run, in the order [`deliver`](super::deliver) takes them: the
//! plan (the schema, the inputs and the table's name), the warehouse opened and locked, the
//! table opened, what an earlier run left cleaned up, the cycles run, and the summary.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use iceberg::arrow::schema_to_arrow_schema;
use iceberg::table::Table;
use iceberg_catalog_sql::SqlCatalog;
use schema2iceberg_mapper::records::{RecordChecker, RecordFormat};

use super::check::BatchChecker;
use super::cycle::{CyclePolicy, CycleReport, Driver, DriverSettings};
use super::output::{self, Bar, DeliverFormat, Summary};
use super::progress::Progress;
use super::recover::{self, Recovered};
use super::target::{self, Target};
use super::{
    cycle_policy, dlq, encoding, input_keys, open_catalog, partition, table, table_rows,
    time_columns, total_bytes, DeliverArgs, DeliverError,
};
use crate::app::{EXIT_OK, EXIT_SCHEMA_ERRORS};
use crate::intake::input::{HeldBack, Source, Tail};
use crate::intake::order::{in_order, workers};
use crate::intake::{prepare, Prepared};

/// What to deliver, and where: read and checked before anything is written.
pub(super) struct Plan {
    pub(super) checker: RecordChecker,
    pub(super) record_format: RecordFormat,
    sources: Vec<Source>,
    pub(super) target: Target,
    policy: CyclePolicy,
    /// Each input as the summary names it.
    names: Vec<String>,
    /// Each input's key in the table's progress.
    keys: Vec<String>,
}

/// The schema and its checker, the inputs, the table's name and the cycle policy; an input
/// given twice is refused.
pub(super) fn plan(args: &DeliverArgs) -> Result<Plan, DeliverError> {
    let Prepared {
        checker,
        sources,
        setup,
    } = prepare(&args.source, args.color.color)?;
    if checker.partition_source().is_none() {
        return Err(DeliverError::NoPartition);
    }
    let target = target::resolve(
        args.namespace.as_deref(),
        args.table.as_deref(),
        &setup.settings,
    )?;
    let policy = cycle_policy(args, &target)?;
    let names: Vec<String> = sources.iter().map(Source::name).collect();
    let keys = input_keys(&sources)?;
    if let Some((index, _)) = keys
        .iter()
        .enumerate()
        .find(|(i, key)| keys.iter().skip(i + 1).any(|k| k == *key))
    {
        return Err(DeliverError::InputTwice(
            names.get(index).map_or("-", String::as_str).to_string(),
        ));
    }
    Ok(Plan {
        checker,
        record_format: setup.record_format,
        sources,
        target,
        policy,
        names,
        keys,
    })
}

/// The open warehouse: its folder and dead-letter folder, the runtime and catalog the cycles
/// use, and the lock that keeps a second run out until this one ends.
pub(super) struct Place {
    folder: PathBuf,
    dlq_dir: PathBuf,
    runtime: tokio::runtime::Runtime,
    catalog: SqlCatalog,
    _lock: std::fs::File,
}

/// Makes (when missing) and locks the warehouse, and opens its catalog. The dead-letter prefix
/// is checked before the warehouse is made, so that a bad prefix leaves nothing behind.
pub(super) fn open_warehouse(args: &DeliverArgs, plan: &Plan) -> Result<Place, DeliverError> {
    let target = &plan.target;
    let dlq_dir_in =
        |warehouse: &Path| dlq::folder(warehouse, &target.dlq_prefix, &target.dlq_prefix_origin);
    dlq_dir_in(
        &std::path::absolute(&args.warehouse).map_err(|source| DeliverError::Resolve {
            path: args.warehouse.clone(),
            source,
        })?,
    )?;
    let folder = table::warehouse_folder(&args.warehouse)?;
    let dlq_dir = dlq_dir_in(&folder)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(DeliverError::Runtime)?;
    let lock = table::lock_warehouse(&folder)?;
    let catalog = runtime.block_on(open_catalog(&folder))?;
    Ok(Place {
        folder,
        dlq_dir,
        runtime,
        catalog,
        _lock: lock,
    })
}

/// Where an earlier run stopped: the table's progress, what was cleaned up, and how many
/// records of each input are done.
pub(super) struct Resumed {
    pub(super) progress: Progress,
    pub(super) recovered: Recovered,
    pub(super) done: Vec<u64>,
}

impl Place {
    /// The table, created when missing; or the existing one that differs from the schema's.
    pub(super) fn open_table(&self, plan: &Plan) -> Result<table::Opened, DeliverError> {
        Ok(self.runtime.block_on(table::open_or_create(
            &self.catalog,
            &plan.checker,
            &plan.target,
        ))?)
    }

    /// Refuses a table outside the warehouse (a copied warehouse), reads the table's progress,
    /// and removes what an unfinished cycle left.
    pub(super) fn resume(&self, table: &Table, plan: &Plan) -> Result<Resumed, DeliverError> {
        table::check_inside(table, &self.folder)?;
        let progress = Progress::of_table(table)?;
        let recovered = self.runtime.block_on(recover::clean_up(
            &self.folder,
            table,
            &progress,
            &self.dlq_dir,
        ))?;
        let done = (plan.keys.iter())
            .map(|key| progress.of_input(key).map_or(0, |p| p.records))
            .collect();
        Ok(Resumed {
            progress,
            recovered,
            done,
        })
    }
}

/// What the cycles did, for the summary.
pub(super) struct Delivered {
    reports: Vec<CycleReport>,
    table_rows: u64,
    time_columns: Vec<String>,
    /// The inputs' records in the dead-letter folder, over every run.
    dead_letters: u64,
    held_back: Vec<HeldBack>,
}

/// Checks the records on the workers and runs the cycles on this thread, with the progress
/// bar; an error stops the run with the open cycle uncommitted.
pub(super) fn run_cycles(
    args: &DeliverArgs,
    plan: &Plan,
    place: &Place,
    table: Table,
    progress: Progress,
    done: &[u64],
) -> Result<Delivered, DeliverError> {
    let metadata = table.metadata();
    let arrow_schema = Arc::new(
        schema_to_arrow_schema(metadata.current_schema())
            .map_err(|e| DeliverError::ArrowSchema(Box::new(e)))?,
    );
    let splitter = partition::HourSplitter::new(
        metadata.default_partition_spec(),
        Arc::clone(metadata.current_schema()),
    )
    .map_err(DeliverError::Partitioning)?;
    let batch_checker = BatchChecker {
        checker: &plan.checker,
        arrow_schema: Arc::clone(&arrow_schema),
        names: &plan.names,
        done,
        payload: args.dlq_payload,
    };
    let bar = Bar::new(total_bytes(&plan.sources, args.source.input));
    let mut reports = Vec::new();
    let text = args.format == DeliverFormat::Text;
    let mut on_cycle = |report: &CycleReport| {
        if text {
            bar.print(&output::cycle_line(report));
        }
        reports.push(report.clone());
    };
    let settings = DriverSettings {
        splitter,
        policy: plan.policy,
        properties: encoding::writer_properties(plan.target.compression, &arrow_schema),
        warehouse: place.folder.clone(),
        dlq_dir: place.dlq_dir.clone(),
        keys: &plan.keys,
        allow_duplicate_content: args.allow_duplicate_content,
    };
    let (runtime, catalog) = (&place.runtime, &place.catalog);
    let mut driver = Driver::new(runtime, catalog, table, settings, progress, &mut on_cycle);
    let read = in_order(
        &plan.sources,
        args.source.input,
        Tail::HoldIncomplete,
        workers(),
        &|batch| batch_checker.check(batch),
        &mut |checked| {
            bar.advance(checked.bytes);
            driver.take(checked)
        },
    );
    let finished = driver.finish(read.error);
    let dead_letters = driver.dead_letters_of_inputs();
    let table_rows = table_rows(&driver.table);
    let time_columns = time_columns(driver.table.metadata().current_schema());
    drop(driver);
    bar.finish();
    finished?;
    Ok(Delivered {
        reports,
        table_rows,
        time_columns,
        dead_letters,
        held_back: read.held_back,
    })
}

/// The summary, rendered, and the exit code: 1 when any of the inputs' records is in the
/// dead-letter folder.
pub(super) fn summary(
    args: &DeliverArgs,
    plan: &Plan,
    place: &Place,
    created: bool,
    recovered: &Recovered,
    delivered: Delivered,
) -> (String, u8) {
    let summary = Summary {
        table: &plan.target.name(),
        warehouse: &place.folder,
        created,
        cycles: &delivered.reports,
        table_rows: delivered.table_rows,
        dead_letter_folder: &place.dlq_dir,
        time_columns: delivered.time_columns,
        held_back: (delivered.held_back.iter())
            .map(|held| {
                let name = plan.names.get(held.input).cloned().unwrap_or_default();
                (name, held.line, held.bytes)
            })
            .collect(),
        removed: &recovered.removed,
        not_removed: &recovered.left,
        earlier_dead_letters: delivered.dead_letters,
    };
    let rendered = match args.format {
        DeliverFormat::Text => summary.text(),
        DeliverFormat::Json => summary.json(),
    };
    // What the table and the dead-letter folder hold for these inputs, on every run: a rerun
    // that finds nothing new exits as the run that delivered them did.
    let this_run: u64 = delivered.reports.iter().map(|c| c.dead_letters).sum();
    let exit = if delivered.dead_letters.max(this_run) > 0 {
        EXIT_SCHEMA_ERRORS
    } else {
        EXIT_OK
    };
    (rendered, exit)
}
