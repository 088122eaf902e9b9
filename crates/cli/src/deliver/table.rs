//! The catalog and the table: the SQLite SQL catalog in `<warehouse>/catalog.db`, the
//! warehouse lock, and the channel's table, created as the channel creates it or, when it
//! exists, compared with the schema's table (a channel's table cannot evolve).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
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

/// Why the warehouse, its catalog or the table cannot be used: a usage or I/O error (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("cannot create the warehouse `{}`: {source}", .path.display())]
    CreateWarehouse {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot resolve `{}`: {source}", .path.display())]
    Resolve {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot open `{}` (it must be a plain file, not a link): {source}", .path.display())]
    OpenLock {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("another deliver is writing to the warehouse `{}` (it holds `{}`); nothing was written. Run again when it has finished", .warehouse.display(), .lock.display())]
    Locked { warehouse: PathBuf, lock: PathBuf },
    #[error("cannot lock `{}`: {source}", .path.display())]
    Lock {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the table `{table}` in `{}` has its files at `{}`, outside this warehouse `{}`: the warehouse was copied or moved, and its catalog still names the original's files. Nothing was written; deliver into the original warehouse, or into a new one", .catalog.display(), .files.display(), .warehouse.display())]
    Outside {
        table: String,
        catalog: PathBuf,
        files: PathBuf,
        warehouse: PathBuf,
    },
    #[error("cannot open the catalog `{}`: {source}", .database.display())]
    OpenCatalog {
        database: PathBuf,
        source: Box<iceberg::Error>,
    },
    #[error("the schema does not compile to a table")]
    NotCompiled,
    #[error("the catalog: {0}")]
    Catalog(Box<iceberg::Error>),
    #[error("cannot create the namespace `{namespace}`: {source}")]
    CreateNamespace {
        namespace: String,
        source: Box<iceberg::Error>,
    },
    #[error("cannot load the table `{name}`: {source}")]
    LoadTable {
        name: String,
        source: Box<iceberg::Error>,
    },
    #[error("cannot create the table `{name}`: {source}")]
    CreateTable {
        name: String,
        source: Box<iceberg::Error>,
    },
}

fn create_warehouse(warehouse: &Path) -> Result<(), TableError> {
    std::fs::create_dir_all(warehouse).map_err(|source| TableError::CreateWarehouse {
        path: warehouse.to_path_buf(),
        source,
    })
}

fn resolve_error(warehouse: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
    move |source| TableError::Resolve {
        path: warehouse.to_path_buf(),
        source,
    }
}

/// The catalog name every row of `catalog.db` is keyed by; pyiceberg's `SqlCatalog` and Spark's
/// JDBC catalog must be opened with the same name to see the table.
pub const CATALOG_NAME: &str = "schema2iceberg";

/// The lock file that one `deliver` run holds on a warehouse for its whole run.
pub const LOCK_FILE: &str = "deliver.lock";

/// Takes the warehouse's lock, or fails at once when another run holds it. Needed for exactly
/// once: `Transaction::commit` reloads the table and re-applies the append on a conflict, and
/// `fast_append` checks nothing, so two runs that started at the same position would both
/// commit the same records; and the catalog's `create_table` race ends in a raw SQL error.
pub(crate) fn lock_warehouse(warehouse: &Path) -> Result<std::fs::File, TableError> {
    create_warehouse(warehouse)?;
    let path = warehouse.join(LOCK_FILE);
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    no_follow(&mut options);
    let file = options.open(&path).map_err(|source| TableError::OpenLock {
        path: path.clone(),
        source,
    })?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(TableError::Locked {
            warehouse: warehouse.to_path_buf(),
            lock: path,
        }),
        Err(std::fs::TryLockError::Error(source)) => Err(TableError::Lock { path, source }),
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
pub(crate) fn warehouse_folder(warehouse: &Path) -> Result<PathBuf, TableError> {
    create_warehouse(warehouse)?;
    std::fs::canonicalize(warehouse).map_err(resolve_error(warehouse))
}

/// Refuses a table whose files are outside the warehouse: a copied or moved warehouse's
/// catalog still names the original's files, and writing through it would write there, under
/// another lock.
pub(crate) fn check_inside(table: &Table, warehouse: &Path) -> Result<(), TableError> {
    let location = table.metadata().location();
    let folder = Path::new(location.strip_prefix("file://").unwrap_or(location));
    let resolved = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    if resolved.starts_with(warehouse) {
        return Ok(());
    }
    Err(TableError::Outside {
        table: table.identifier().to_string(),
        catalog: warehouse.join("catalog.db"),
        files: resolved,
        warehouse: warehouse.to_path_buf(),
    })
}

/// The catalog in `<warehouse>/catalog.db` (an absolute path: the catalog stores absolute
/// `file://` locations), created when missing.
pub async fn open_catalog(warehouse: &Path) -> Result<SqlCatalog, TableError> {
    create_warehouse(warehouse)?;
    let warehouse = std::path::absolute(warehouse).map_err(resolve_error(warehouse))?;
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
        .map_err(|source| TableError::OpenCatalog {
            database,
            source: Box::new(source),
        })
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
) -> Result<Opened, TableError> {
    let compiled = checker.compiled();
    let (Some(schema), Some(spec)) = (&compiled.schema, &compiled.partition_spec) else {
        return Err(TableError::NotCompiled);
    };
    let namespace = NamespaceIdent::new(target.namespace.clone());
    let ident = TableIdent::new(namespace.clone(), target.table.clone());
    if !catalog
        .namespace_exists(&namespace)
        .await
        .map_err(|e| TableError::Catalog(Box::new(e)))?
    {
        catalog
            .create_namespace(&namespace, HashMap::new())
            .await
            .map_err(|source| TableError::CreateNamespace {
                namespace: target.namespace.clone(),
                source: Box::new(source),
            })?;
    }
    if catalog
        .table_exists(&ident)
        .await
        .map_err(|e| TableError::Catalog(Box::new(e)))?
    {
        let table = catalog
            .load_table(&ident)
            .await
            .map_err(|source| TableError::LoadTable {
                name: target.name(),
                source: Box::new(source),
            })?;
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
        .map_err(|source| TableError::CreateTable {
            name: target.name(),
            source: Box::new(source),
        })?;
    Ok(Opened::Table {
        table,
        created: true,
    })
}
