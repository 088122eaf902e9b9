//! `deliver` (issue 14, spike): writes the records a channel delivers into a real Iceberg table
//! in an embedded SQLite SQL catalog (`<warehouse>/catalog.db`, the JDBC / pyiceberg `SqlCatalog`
//! layout), one `fast_append` commit per delivery cycle. Not wired into the command line yet;
//! see docs/deliver-notes.md for what works and what issue 14 still needs.

mod arrow;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use iceberg::arrow::{schema_to_arrow_schema, RecordBatchPartitionSplitter};
use iceberg::io::LocalFsStorageFactory;
use iceberg::spec::DataFileFormat;
use iceberg::table::Table;
use iceberg::transaction::{ApplyTransactionAction, Transaction};
use iceberg::writer::base_writer::data_file_writer::DataFileWriterBuilder;
use iceberg::writer::file_writer::location_generator::{
    DefaultFileNameGenerator, DefaultLocationGenerator,
};
use iceberg::writer::file_writer::rolling_writer::RollingFileWriterBuilder;
use iceberg::writer::file_writer::ParquetWriterBuilder;
use iceberg::writer::partitioning::fanout_writer::FanoutWriter;
use iceberg::writer::partitioning::PartitioningWriter;
use iceberg::{Catalog, CatalogBuilder, NamespaceIdent, TableCreation, TableIdent};
use iceberg_catalog_sql::{
    SqlBindStyle, SqlCatalog, SqlCatalogBuilder, SQL_CATALOG_PROP_BIND_STYLE, SQL_CATALOG_PROP_URI,
    SQL_CATALOG_PROP_WAREHOUSE,
};
use parquet::file::properties::WriterProperties;
use schema2iceberg_mapper::records::{Cell, RecordChecker, Verdict};

/// The catalog name every row of `catalog.db` is keyed by; pyiceberg's `SqlCatalog` and Spark's
/// JDBC catalog must be opened with the same name to see the table.
pub const CATALOG_NAME: &str = "schema2iceberg";

/// The snapshot-summary property holding how many records of the input the table holds after
/// this snapshot's cycle (a 1-based record position, as `records` numbers them).
pub const POSITION_PROPERTY: &str = "schema2iceberg.input-position";

/// Where and how to deliver.
#[derive(Debug, Clone)]
pub struct DeliverOptions {
    /// The warehouse folder: `catalog.db`, and the table under `<namespace>/<table>/`.
    pub warehouse: PathBuf,
    /// The namespace (the channel's database).
    pub namespace: String,
    /// The table name.
    pub table: String,
    /// Records per delivery cycle: one commit each.
    pub cycle_records: usize,
    /// Stop after this many cycles (a test hook for kill-and-resume).
    pub max_cycles: Option<usize>,
}

/// What one delivery cycle did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CycleReport {
    /// The snapshot the cycle committed; `None` when no record was delivered (no commit).
    pub snapshot_id: Option<i64>,
    /// Records written to the table.
    pub delivered: usize,
    /// Records the channel would send to the dead-letter queue.
    pub dead_letters: usize,
    /// Data files written.
    pub data_files: usize,
    /// Bytes of data files written.
    pub bytes: u64,
    /// How many records of the input are done after this cycle.
    pub position: u64,
}

/// Delivers `records` (one input, in order) into the table, cycle by cycle. Records before the
/// position the table's current snapshot records are skipped, so a second run delivers nothing
/// twice.
pub fn deliver(
    checker: &RecordChecker,
    records: &[Vec<u8>],
    options: &DeliverOptions,
) -> Result<Vec<CycleReport>, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(deliver_async(checker, records, options))
}

/// The catalog in `<warehouse>/catalog.db`, created when missing.
pub async fn open_catalog(warehouse: &Path) -> Result<SqlCatalog, String> {
    std::fs::create_dir_all(warehouse)
        .map_err(|e| format!("cannot create the warehouse `{}`: {e}", warehouse.display()))?;
    let warehouse = std::path::absolute(warehouse)
        .map_err(|e| format!("cannot resolve `{}`: {e}", warehouse.display()))?;
    let database = warehouse.join("catalog.db");
    let props = HashMap::from([
        (
            SQL_CATALOG_PROP_URI.to_string(),
            format!("sqlite:{}?mode=rwc", database.display()),
        ),
        (
            SQL_CATALOG_PROP_WAREHOUSE.to_string(),
            format!("file://{}", warehouse.display()),
        ),
        (
            SQL_CATALOG_PROP_BIND_STYLE.to_string(),
            SqlBindStyle::DollarNumeric.to_string(),
        ),
    ]);
    SqlCatalogBuilder::default()
        .with_storage_factory(Arc::new(LocalFsStorageFactory))
        .load(CATALOG_NAME, props)
        .await
        .map_err(|e| format!("cannot open the catalog `{}`: {e}", database.display()))
}

/// The table, created as the channel creates it when missing.
async fn table(
    catalog: &SqlCatalog,
    checker: &RecordChecker,
    options: &DeliverOptions,
) -> Result<Table, String> {
    let compiled = checker.compiled();
    let (Some(schema), Some(spec)) = (&compiled.schema, &compiled.partition_spec) else {
        return Err("the schema does not compile to a table".to_string());
    };
    let namespace = NamespaceIdent::new(options.namespace.clone());
    let ident = TableIdent::new(namespace.clone(), options.table.clone());
    let exists = catalog
        .namespace_exists(&namespace)
        .await
        .map_err(|e| e.to_string())?;
    if !exists {
        catalog
            .create_namespace(&namespace, HashMap::new())
            .await
            .map_err(|e| format!("cannot create the namespace: {e}"))?;
    }
    if catalog
        .table_exists(&ident)
        .await
        .map_err(|e| e.to_string())?
    {
        let table = catalog
            .load_table(&ident)
            .await
            .map_err(|e| format!("cannot load the table: {e}"))?;
        let metadata = table.metadata();
        // TODO(issue 14): print the differences as `diff` does, and exit 1.
        if metadata.current_schema().as_ref() != schema
            || metadata.default_partition_spec().fields() != spec.fields()
        {
            return Err(format!(
                "the table `{}.{}` exists with another schema or partition spec than the schema compiles to; the channel's table cannot evolve",
                options.namespace, options.table
            ));
        }
        return Ok(table);
    }
    let creation = TableCreation::builder()
        .name(options.table.clone())
        .schema(schema.clone())
        .partition_spec(spec.clone())
        .properties([
            ("write.format.default".to_string(), "parquet".to_string()),
            (
                "write.parquet.compression-codec".to_string(),
                "zstd".to_string(),
            ),
        ])
        .build();
    catalog
        .create_table(&namespace, creation)
        .await
        .map_err(|e| format!("cannot create the table: {e}"))
}

/// The lock file that one `deliver` run holds on a warehouse for its whole run.
pub const LOCK_FILE: &str = "deliver.lock";

/// Takes the warehouse's lock, or fails at once when another run holds it. Needed for exactly
/// once: `Transaction::commit` reloads the table and re-applies the append on a conflict, so two
/// runs that both started at the same position would both commit the same records.
fn lock_warehouse(warehouse: &Path) -> Result<std::fs::File, String> {
    std::fs::create_dir_all(warehouse)
        .map_err(|e| format!("cannot create the warehouse `{}`: {e}", warehouse.display()))?;
    let path = warehouse.join(LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("cannot open `{}`: {e}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(format!(
            "another deliver is writing to the warehouse `{}` (it holds `{}`); run again when it has finished",
            warehouse.display(),
            path.display()
        )),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(format!("cannot lock `{}`: {e}", path.display()))
        }
    }
}

/// How far into the input the table's current snapshot reached.
fn committed_position(table: &Table) -> Result<u64, String> {
    let Some(snapshot) = table.metadata().current_snapshot() else {
        return Ok(0);
    };
    match snapshot
        .summary()
        .additional_properties
        .get(POSITION_PROPERTY)
    {
        Some(text) => text.parse().map_err(|_| {
            format!("the current snapshot's `{POSITION_PROPERTY}` is `{text}`, not a position")
        }),
        None => Ok(0),
    }
}

async fn deliver_async(
    checker: &RecordChecker,
    records: &[Vec<u8>],
    options: &DeliverOptions,
) -> Result<Vec<CycleReport>, String> {
    let _lock = lock_warehouse(&options.warehouse)?;
    let catalog = open_catalog(&options.warehouse).await?;
    let mut table = table(&catalog, checker, options).await?;
    let start = usize::try_from(committed_position(&table)?).unwrap_or(usize::MAX);
    let mut reports = Vec::new();
    let todo = records.get(start..).unwrap_or_default();
    for (index, chunk) in todo.chunks(options.cycle_records.max(1)).enumerate() {
        if options.max_cycles.is_some_and(|max| index >= max) {
            break;
        }
        let position = (start + index * options.cycle_records.max(1) + chunk.len()) as u64;
        let mut rows = Vec::new();
        let mut dead_letters = 0;
        for bytes in chunk {
            match checker.check(bytes, true) {
                Verdict::Delivered(delivered) => rows.push(delivered.cells.unwrap_or_default()),
                // TODO(issue 14): write the DLQ folder.
                Verdict::Dlq(_) => dead_letters += 1,
            }
        }
        let (next, report) = cycle(&catalog, table, &rows, position).await?;
        table = next;
        reports.push(CycleReport {
            dead_letters,
            ..report
        });
    }
    Ok(reports)
}

/// One delivery cycle: the rows as partitioned Parquet files, and one append commit whose
/// summary records `position`.
async fn cycle(
    catalog: &SqlCatalog,
    table: Table,
    rows: &[Vec<Cell>],
    position: u64,
) -> Result<(Table, CycleReport), String> {
    let metadata = table.metadata();
    let schema = Arc::clone(metadata.current_schema());
    let spec = Arc::clone(metadata.default_partition_spec());
    // Built from the created table's schema: create_table may renumber field ids.
    let arrow_schema =
        Arc::new(schema_to_arrow_schema(&schema).map_err(|e| format!("arrow schema: {e}"))?);
    let batch = arrow::record_batch(&arrow_schema, rows)?;
    let splitter =
        RecordBatchPartitionSplitter::try_new_with_computed_values(Arc::clone(&schema), spec)
            .map_err(|e| format!("partition splitter: {e}"))?;
    let locations = DefaultLocationGenerator::new(metadata).map_err(|e| e.to_string())?;
    // Unique per cycle: the generator numbers files from 00000, and a fixed prefix would make
    // a later cycle overwrite an earlier cycle's files.
    let names = DefaultFileNameGenerator::new(
        format!("data-{}", uuid::Uuid::new_v4()),
        None,
        DataFileFormat::Parquet,
    );
    let properties = WriterProperties::builder()
        .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
        .build();
    let parquet = ParquetWriterBuilder::new(properties, Arc::clone(&schema));
    let rolling = RollingFileWriterBuilder::new_with_default_file_size(
        parquet,
        table.file_io().clone(),
        locations,
        names,
    );
    let mut writer = FanoutWriter::new(DataFileWriterBuilder::new(rolling));
    if batch.num_rows() > 0 {
        for (key, part) in splitter
            .split(&batch)
            .map_err(|e| format!("partition split: {e}"))?
        {
            writer
                .write(key, part)
                .await
                .map_err(|e| format!("writing data files: {e}"))?;
        }
    }
    let data_files = writer
        .close()
        .await
        .map_err(|e| format!("closing data files: {e}"))?;
    let report = CycleReport {
        snapshot_id: None,
        delivered: rows.len(),
        dead_letters: 0,
        data_files: data_files.len(),
        bytes: data_files.iter().map(|f| f.file_size_in_bytes()).sum(),
        position,
    };
    // TODO(issue 14): a cycle whose records all go to the DLQ still has to record its position
    // (an empty append is refused by fast_append).
    if data_files.is_empty() {
        return Ok((table, report));
    }
    let transaction = Transaction::new(&table);
    let append = transaction
        .fast_append()
        .add_data_files(data_files)
        .set_snapshot_properties(HashMap::from([(
            POSITION_PROPERTY.to_string(),
            position.to_string(),
        )]));
    let transaction = append.apply(transaction).map_err(|e| e.to_string())?;
    let table = transaction
        .commit(catalog)
        .await
        .map_err(|e| format!("commit: {e}"))?;
    let snapshot_id = table.metadata().current_snapshot_id();
    Ok((
        table,
        CycleReport {
            snapshot_id,
            ..report
        },
    ))
}
