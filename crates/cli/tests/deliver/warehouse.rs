//! Reading a warehouse that `deliver` wrote, for the deliver test crates: its one table, every
//! row by a table scan, and the files on disk.

use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use futures::TryStreamExt;
use iceberg::table::Table;
use iceberg::Catalog;
use schema2iceberg::deliver::open_catalog;

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Every row of the table, by a table scan into Arrow.
pub async fn scan_all(table: &Table) -> Vec<RecordBatch> {
    table
        .scan()
        .select_all()
        .build()
        .unwrap()
        .to_arrow()
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

/// The one table of the warehouse, if any.
pub async fn the_table(warehouse: &Path) -> Option<Table> {
    if !warehouse.join("catalog.db").exists() {
        return None;
    }
    let catalog = open_catalog(warehouse).await.unwrap();
    let mut tables = Vec::new();
    for namespace in catalog.list_namespaces(None).await.unwrap() {
        tables.extend(catalog.list_tables(&namespace).await.unwrap());
    }
    assert!(tables.len() <= 1, "more than one table: {tables:?}");
    match tables.first() {
        Some(ident) => Some(catalog.load_table(ident).await.unwrap()),
        None => None,
    }
}

/// Every file under `dir`, links not followed.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            found.extend(walk(&entry.path()));
        } else {
            found.push(entry.path());
        }
    }
    found.sort();
    found
}
