//! What `deliver` prints: a line per cycle as it commits, a summary, and commands that read the
//! table (text); or one JSON document at the end (json); and a progress bar on a terminal's
//! standard error.

use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use super::cycle::CycleReport;
use super::table::CATALOG_NAME;

/// Output formats of `deliver`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum DeliverFormat {
    /// A line per cycle as it commits, then a summary and the commands to read the table.
    Text,
    /// One JSON document at the end: the cycles, the summary and the commands.
    Json,
}

/// One cycle's line.
pub(crate) fn cycle_line(cycle: &CycleReport) -> String {
    let commit = match cycle.snapshot_id {
        Some(id) => format!(
            "snapshot {id}, {} delivered in {} data file(s) ({})",
            cycle.delivered,
            cycle.data_files,
            size(cycle.bytes)
        ),
        None => "no record delivered (the commit records only the progress)".to_string(),
    };
    let dead = match &cycle.dead_letter_file {
        Some(file) => format!(", {} to the dead-letter queue ({file})", cycle.dead_letters),
        None => String::new(),
    };
    format!("cycle {}: {commit}{dead}\n", cycle.cycle)
}

fn size(bytes: u64) -> String {
    if bytes < 10 * 1024 {
        format!("{bytes} B")
    } else if bytes < 10 * 1024 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    }
}

/// What a whole run did.
pub(crate) struct Summary<'a> {
    pub(crate) table: &'a str,
    pub(crate) warehouse: &'a Path,
    pub(crate) created: bool,
    pub(crate) cycles: &'a [CycleReport],
    /// Rows in the table after the run (`total-records` of its current snapshot).
    pub(crate) table_rows: u64,
    pub(crate) dead_letter_folder: &'a Path,
    /// The table's `time` columns (dotted paths), which Spark 3.5 cannot read.
    pub(crate) time_columns: Vec<String>,
    /// The last lines held back because they have no newline yet: input, line, bytes.
    pub(crate) held_back: Vec<(String, u64, u64)>,
    /// What a run that stopped had left, removed before this run wrote anything.
    pub(crate) removed: &'a [String],
    /// What of that could not be removed, each with why.
    pub(crate) not_removed: &'a [String],
    /// The records of the inputs that the dead-letter folder holds, over every run.
    pub(crate) earlier_dead_letters: u64,
}

impl Summary<'_> {
    fn delivered(&self) -> u64 {
        self.cycles.iter().map(|c| c.delivered).sum()
    }

    fn dead_letters(&self) -> u64 {
        self.cycles.iter().map(|c| c.dead_letters).sum()
    }

    /// The text summary, with the commands that read the table.
    pub(crate) fn text(&self) -> String {
        let snapshots = self
            .cycles
            .iter()
            .filter(|c| c.snapshot_id.is_some())
            .count();
        let mut out = String::new();
        if !self.removed.is_empty() {
            out.push_str(&format!(
                "removed {} file(s) that a run which stopped part-way had written and no commit lists:\n",
                self.removed.len()
            ));
            for path in self.removed {
                out.push_str(&format!("  {path}\n"));
            }
        }
        if !self.not_removed.is_empty() {
            out.push_str("could not remove these files, which no commit lists:\n");
            for problem in self.not_removed {
                out.push_str(&format!("  {problem}\n"));
            }
        }
        if self.cycles.is_empty() {
            out.push_str(&format!(
                "nothing new: every record of the input is already in `{}` or its dead-letter folder{}\n",
                self.table,
                match self.earlier_dead_letters {
                    0 => String::new(),
                    n => format!(" ({n} of them in the dead-letter folder)"),
                }
            ));
        } else {
            out.push_str(&format!(
                "{} record(s) delivered to `{}`{} and {} sent to the dead-letter queue, in {} cycle(s) ({} new snapshot(s))\n",
                self.delivered(),
                self.table,
                if self.created { " (created)" } else { "" },
                self.dead_letters(),
                self.cycles.len(),
                snapshots,
            ));
        }
        out.push_str(&format!(
            "the table holds {} row(s); catalog {} (catalog name `{CATALOG_NAME}`)\n",
            self.table_rows,
            self.warehouse.join("catalog.db").display()
        ));
        if self.dead_letters() > 0 {
            out.push_str(&format!(
                "dead-letter folder: {}\n",
                self.dead_letter_folder.display()
            ));
        }
        for (input, line, bytes) in &self.held_back {
            out.push_str(&format!(
                "held back: `{input}` line {line} ({bytes} bytes) has no newline yet, so it is not a record until its producer ends it; a later run delivers it\n"
            ));
        }
        out.push_str(&format!(
            "\nRead the table with pyiceberg (pip install \"pyiceberg[sql-sqlite,pyarrow]\"):\n  {}\n",
            pyiceberg_command(self.warehouse, self.table)
        ));
        out.push_str(&format!(
            "or with Spark 3.5 and Iceberg's JDBC catalog (docs/deliver.md also shows DuckDB):\n  {}\n",
            spark_command(self.warehouse, self.table)
        ));
        if !self.time_columns.is_empty() {
            out.push_str(&format!(
                "  note: Spark 3.5 cannot read Iceberg `time` columns ({}); select the other columns\n",
                self.time_columns.join(", ")
            ));
        }
        out
    }

    /// The JSON document.
    pub(crate) fn json(&self) -> String {
        let value = json!({
            "table": self.table,
            "created": self.created,
            "warehouse": self.warehouse.display().to_string(),
            "catalog": {
                "name": CATALOG_NAME,
                "uri": format!("sqlite:///{}", self.warehouse.join("catalog.db").display()),
            },
            "cycles": self.cycles,
            "summary": {
                "delivered": self.delivered(),
                "dead-letters": self.dead_letters(),
                "cycles": self.cycles.len(),
                "table-rows": self.table_rows,
                "dead-letter-folder": self.dead_letter_folder.display().to_string(),
            },
            "held-back": self.held_back.iter().map(|(input, line, bytes)| json!({
                "input": input, "line": line, "bytes": bytes,
            })).collect::<Vec<_>>(),
            "removed": self.removed,
            "not-removed": self.not_removed,
            "read": {
                "pyiceberg": pyiceberg_command(self.warehouse, self.table),
                "spark": spark_command(self.warehouse, self.table),
                "spark-cannot-read": self.time_columns,
            },
        });
        crate::render::pretty_value_line(&value)
    }
}

/// A shell command that prints the table with pyiceberg (verified with pyiceberg 0.12.0).
pub(crate) fn pyiceberg_command(warehouse: &Path, table: &str) -> String {
    let warehouse = warehouse.display();
    format!(
        "python3 -c 'from pyiceberg.catalog.sql import SqlCatalog; c = SqlCatalog(\"{CATALOG_NAME}\", uri=\"sqlite:///{warehouse}/catalog.db\", warehouse=\"file://{warehouse}\"); print(c.load_table(\"{table}\").scan().to_arrow())'"
    )
}

/// A shell command that queries the table with Spark SQL through Iceberg's JDBC catalog
/// (verified with Spark 3.5.9 and Iceberg 1.10.2, from local jars; see docs/deliver.md), one
/// option a line.
pub(crate) fn spark_command(warehouse: &Path, table: &str) -> String {
    let warehouse = warehouse.display();
    let catalog = format!("spark.sql.catalog.{CATALOG_NAME}");
    [
        "spark-sql --packages org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.2,org.xerial:sqlite-jdbc:3.40.1.0".to_string(),
        format!("--conf {catalog}=org.apache.iceberg.spark.SparkCatalog"),
        format!("--conf {catalog}.catalog-impl=org.apache.iceberg.jdbc.JdbcCatalog"),
        format!("--conf {catalog}.uri=jdbc:sqlite:{warehouse}/catalog.db"),
        format!("--conf {catalog}.warehouse=file://{warehouse}"),
        "--conf spark.sql.session.timeZone=UTC".to_string(),
        format!("-e 'SELECT * FROM {CATALOG_NAME}.{table}'"),
    ]
    .join(" \\\n    ")
}

/// The progress bar: on standard error when it is a terminal, shown once a run has taken more
/// than a second.
pub(crate) struct Bar {
    bar: Option<indicatif::ProgressBar>,
    started: Instant,
    /// Shared by the consumer that counts and the cycle lines that print; both on one thread.
    shown: std::cell::Cell<bool>,
}

impl Bar {
    /// A bar over `total` input bytes (unknown for standard input).
    pub(crate) fn new(total: Option<u64>) -> Bar {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                total,
                indicatif::ProgressDrawTarget::hidden(),
            );
            let template = if total.is_some() {
                "{elapsed_precise} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}) {msg}"
            } else {
                "{elapsed_precise} {bytes} ({bytes_per_sec}) {msg}"
            };
            if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        });
        Bar {
            bar,
            started: Instant::now(),
            shown: std::cell::Cell::new(false),
        }
    }

    /// Counts `bytes` more of the input read.
    pub(crate) fn advance(&self, bytes: u64) {
        let Some(bar) = &self.bar else { return };
        bar.inc(bytes);
        if !self.shown.get() && self.started.elapsed() > Duration::from_secs(1) {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            self.shown.set(true);
        }
    }

    /// Prints `text` on standard output without tearing the bar.
    pub(crate) fn print(&self, text: &str) {
        let write = || {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
        };
        match &self.bar {
            Some(bar) if self.shown.get() => bar.suspend(write),
            _ => write(),
        }
    }

    /// Removes the bar.
    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
