//! The catalog and the table: the SQLite SQL catalog in `<warehouse>/catalog.db`, the
//! warehouse lock, and the channel's table, created as the channel creates it or, when it
//! exists, compared with the schema's table (a channel's table cannot evolve).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use iceberg::io::LocalFsStorageFactory;
use iceberg::table::Table;
use iceberg::{Catalog, CatalogBuilder, NamespaceIdent, TableCreation, TableIdent};
use iceberg_catalog_sql::{
    SqlBindStyle, SqlCatalog, SqlCatalogBuilder, SQL_CATALOG_PROP_BIND_STYLE, SQL_CATALOG_PROP_URI,
    SQL_CATALOG_PROP_WAREHOUSE,
};
use schema2iceberg_mapper::formats::table_metadata;
use schema2iceberg_mapper::records::RecordChecker;

use super::target::Target;

/// The catalog name every row of `catalog.db` is keyed by; pyiceberg's `SqlCatalog` and Spark's
/// JDBC catalog must be opened with the same name to see the table.
pub const CATALOG_NAME: &str = "schema2iceberg";

/// The lock file that one `deliver` run holds on a warehouse for its whole run.
pub const LOCK_FILE: &str = "deliver.lock";

/// Takes the warehouse's lock, or fails at once when another run holds it. Needed for exactly
/// once: `Transaction::commit` reloads the table and re-applies the append on a conflict, and
/// `fast_append` checks nothing, so two runs that started at the same position would both
/// commit the same records; and the catalog's `create_table` race ends in a raw SQL error.
pub(crate) fn lock_warehouse(warehouse: &Path) -> Result<std::fs::File, String> {
    std::fs::create_dir_all(warehouse)
        .map_err(|e| format!("cannot create the warehouse `{}`: {e}", warehouse.display()))?;
    let path = warehouse.join(LOCK_FILE);
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    no_follow(&mut options);
    let file = options.open(&path).map_err(|e| {
        format!(
            "cannot open `{}` (it must be a plain file, not a link): {e}",
            path.display()
        )
    })?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(format!(
            "another deliver is writing to the warehouse `{}` (it holds `{}`); nothing was written. Run again when it has finished",
            warehouse.display(),
            path.display()
        )),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(format!("cannot lock `{}`: {e}", path.display()))
        }
    }
}

/// Opening a file does not follow a link at its last component (on Unix): a link planted in
/// the warehouse does not make a run write elsewhere.
fn no_follow(options: &mut std::fs::OpenOptions) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    #[cfg(not(unix))]
    let _ = options;
}

/// Creates a new file at `path` to write, failing when anything (a link included) is there.
pub(crate) fn create_new_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    no_follow(&mut options);
    options.open(path)
}

/// The warehouse folder, created when missing, by its canonical path: the catalog stores
/// absolute locations, and a table's files must be inside this folder.
pub(crate) fn warehouse_folder(warehouse: &Path) -> Result<std::path::PathBuf, String> {
    std::fs::create_dir_all(warehouse)
        .map_err(|e| format!("cannot create the warehouse `{}`: {e}", warehouse.display()))?;
    std::fs::canonicalize(warehouse)
        .map_err(|e| format!("cannot resolve `{}`: {e}", warehouse.display()))
}

/// Refuses a table whose files are outside the warehouse: a copied or moved warehouse's
/// catalog still names the original's files, and writing through it would write there, under
/// another lock.
pub(crate) fn check_inside(table: &Table, warehouse: &Path) -> Result<(), String> {
    let location = table.metadata().location();
    let folder = Path::new(location.strip_prefix("file://").unwrap_or(location));
    let resolved = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    if resolved.starts_with(warehouse) {
        return Ok(());
    }
    Err(format!(
        "the table `{}` in `{}` has its files at `{}`, outside this warehouse `{}`: the warehouse was copied or moved, and its catalog still names the original's files. Nothing was written; deliver into the original warehouse, or into a new one",
        table.identifier(),
        warehouse.join("catalog.db").display(),
        resolved.display(),
        warehouse.display()
    ))
}

/// The catalog in `<warehouse>/catalog.db` (an absolute path: the catalog stores absolute
/// `file://` locations), created when missing.
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

/// The table, and whether this run created it.
pub(crate) enum Opened {
    /// The table to write.
    Table { table: Table, created: bool },
    /// The table exists and differs from the schema's: the channel's table cannot evolve.
    Differs(Table),
}

/// The table properties the channel sets, with the codec of the target's `CompressionType`.
pub(crate) fn channel_properties(target: &Target) -> Vec<(String, String)> {
    table_metadata::channel_properties(target.compression.property())
}

/// Opens the table, or creates it as the channel would (namespace first).
pub(crate) async fn open_or_create(
    catalog: &SqlCatalog,
    checker: &RecordChecker,
    target: &Target,
) -> Result<Opened, String> {
    let compiled = checker.compiled();
    let (Some(schema), Some(spec)) = (&compiled.schema, &compiled.partition_spec) else {
        return Err("the schema does not compile to a table".to_string());
    };
    let namespace = NamespaceIdent::new(target.namespace.clone());
    let ident = TableIdent::new(namespace.clone(), target.table.clone());
    let catalog_error = |e: iceberg::Error| format!("the catalog: {e}");
    if !catalog
        .namespace_exists(&namespace)
        .await
        .map_err(catalog_error)?
    {
        catalog
            .create_namespace(&namespace, HashMap::new())
            .await
            .map_err(|e| format!("cannot create the namespace `{}`: {e}", target.namespace))?;
    }
    if catalog.table_exists(&ident).await.map_err(catalog_error)? {
        let table = catalog
            .load_table(&ident)
            .await
            .map_err(|e| format!("cannot load the table `{}`: {e}", target.name()))?;
        let metadata = table.metadata();
        let same = metadata.current_schema().as_ref() == schema
            && metadata.default_partition_spec().fields() == spec.fields()
            && channel_properties(target)
                .iter()
                .all(|(key, value)| metadata.properties().get(key) == Some(value));
        return Ok(if same {
            Opened::Table {
                table,
                created: false,
            }
        } else {
            Opened::Differs(table)
        });
    }
    let creation = TableCreation::builder()
        .name(target.table.clone())
        .schema(schema.clone())
        .partition_spec(spec.clone())
        .properties(channel_properties(target))
        .build();
    let table = catalog
        .create_table(&namespace, creation)
        .await
        .map_err(|e| format!("cannot create the table `{}`: {e}", target.name()))?;
    Ok(Opened::Table {
        table,
        created: true,
    })
}
