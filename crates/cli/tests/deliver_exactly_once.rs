//! `deliver`'s exactly-once promise on the paths a real run takes: stopped at every step of a
//! cycle and run again with other cycles, a file still being written, the same input under
//! another name, a copied warehouse, a backfill over many hours, planted links and oversized
//! records. Each test builds its inputs in a temporary folder and checks the warehouse that
//! results: every good record in the table exactly once, every failed one in the dead-letter
//! folder exactly once, and no file that no commit lists.

// A test should stop loudly on a broken fixture; the no-panic rule is for code that reads input.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "deliver/warehouse.rs"]
mod warehouse;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use iceberg::Catalog;
use schema2iceberg::deliver::PROGRESS_PROPERTY;
use serde_json::Value;
use warehouse::{runtime, scan_all, the_table, walk};

const BIN: &str = env!("CARGO_BIN_EXE_schema2iceberg");

/// The binary under test: this build's, or the one `SCHEMA2ICEBERG_TEST_DELIVER_BIN` names (to
/// see these tests fail on an earlier build).
fn bin() -> String {
    std::env::var("SCHEMA2ICEBERG_TEST_DELIVER_BIN").unwrap_or_else(|_| BIN.to_string())
}

const SCHEMA: &str = r#"{"type": "object", "properties": {"id": {"type": "integer", "maximum": 100000000000}, "event_time": {"type": "string", "format": "date-time"}}, "required": ["id", "event_time"]}"#;

/// A folder with the schema, and what a run printed.
struct Case {
    dir: tempfile::TempDir,
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Case {
    fn new() -> Case {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("schema.json"), SCHEMA).unwrap();
        Case { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs `deliver schema.json ARGS --partition event_time --namespace db --table events`
    /// in the case's folder, with `env`.
    fn deliver(&self, args: &[&str], env: &[(&str, &str)]) -> Ran {
        let output = Command::new(bin())
            .arg("deliver")
            .arg("schema.json")
            .args(args)
            .args([
                "--partition",
                "event_time",
                "--namespace",
                "db",
                "--table",
                "events",
            ])
            .envs(env.iter().copied())
            .env("NO_COLOR", "1")
            .current_dir(self.dir.path())
            .output()
            .unwrap();
        Ran {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).to_string(),
        }
    }
}

/// `count` records; every seventh has no `id` (a dead letter), and the hours interleave over
/// `hours` hours, so a cycle spans more hours than a cycle keeps writers open for.
fn records(count: u64, hours: u64) -> String {
    let mut text = String::new();
    for i in 1..=count {
        let hour = (i * 7) % hours;
        let at = format!(
            "2026-07-{:02}T{:02}:{:02}:00Z",
            1 + hour / 24,
            hour % 24,
            i % 60
        );
        if i % 7 == 0 {
            writeln!(text, r#"{{"event_time": "{at}", "n": {i}}}"#).unwrap();
        } else {
            writeln!(text, r#"{{"id": {i}, "event_time": "{at}"}}"#).unwrap();
        }
    }
    text
}

/// What the warehouse holds: the ids in the table (with how often each is there), the dead
/// letters by input and record (with how often), and the files that no commit lists.
#[derive(Debug, Default)]
struct Held {
    ids: BTreeMap<i64, usize>,
    dead_letters: BTreeMap<(String, u64), usize>,
    unlisted: Vec<String>,
    data_files_per_hour: BTreeMap<i32, usize>,
}

fn held(warehouse: &Path) -> Held {
    let mut held = Held::default();
    let dlq = warehouse.join("dlq");
    for file in walk(&dlq) {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        if !name.starts_with("cycle-") || !name.ends_with(".ndjson") {
            held.unlisted.push(file.display().to_string());
            continue;
        }
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let value: Value = serde_json::from_str(line).unwrap();
            let key = (
                value["input"].as_str().unwrap().to_string(),
                value["record"].as_u64().unwrap(),
            );
            *held.dead_letters.entry(key).or_default() += 1;
        }
    }
    if warehouse.join("deliver-spill").exists() {
        held.unlisted.push("deliver-spill/".to_string());
    }
    runtime().block_on(async {
        let Some(table) = the_table(warehouse).await else {
            return;
        };
        for batch in scan_all(&table).await {
            let ids = batch.column_by_name("id").unwrap();
            for id in ids.as_primitive::<Int64Type>().values() {
                *held.ids.entry(*id).or_default() += 1;
            }
        }
        let metadata = table.metadata();
        let progress: Value = serde_json::from_str(
            metadata
                .properties()
                .get(PROGRESS_PROPERTY)
                .map_or("{}", String::as_str),
        )
        .unwrap();
        let cycles = progress["cycles"].as_u64().unwrap_or(0);
        for file in walk(&dlq) {
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            let cycle: Option<u64> = name
                .strip_prefix("cycle-")
                .and_then(|n| n.strip_suffix(".ndjson"))
                .and_then(|n| n.parse().ok());
            if cycle.is_some_and(|c| c > cycles) {
                held.unlisted.push(file.display().to_string());
            }
        }
        // Every file a snapshot, a manifest or the metadata log lists.
        let mut listed: Vec<String> = metadata
            .metadata_log()
            .iter()
            .map(|m| m.metadata_file.clone())
            .chain(table.metadata_location().map(str::to_string))
            .collect();
        for snapshot in metadata.snapshots() {
            listed.push(snapshot.manifest_list().to_string());
            let list = table.manifest_list_reader(snapshot).load().await.unwrap();
            for manifest_file in list.entries() {
                listed.push(manifest_file.manifest_path.clone());
                let manifest = manifest_file.load_manifest(table.file_io()).await.unwrap();
                for entry in manifest.entries() {
                    listed.push(entry.file_path().to_string());
                    if Some(snapshot.snapshot_id()) == metadata.current_snapshot_id() {
                        let hour = match &entry.data_file().partition().fields()[0] {
                            Some(iceberg::spec::Literal::Primitive(
                                iceberg::spec::PrimitiveLiteral::Int(hour),
                            )) => *hour,
                            other => panic!("partition {other:?}"),
                        };
                        *held.data_files_per_hour.entry(hour).or_default() += 1;
                    }
                }
            }
        }
        let folder = metadata
            .location()
            .trim_start_matches("file://")
            .to_string();
        for file in walk(Path::new(&folder)) {
            if !listed.contains(&format!("file://{}", file.display())) {
                held.unlisted.push(file.display().to_string());
            }
        }
    });
    held
}

/// Stopped at every step of each of the first cycles, as a kill would stop it (the test
/// builds' fault hook), then run again with other cycles: the table and the dead-letter folder
/// hold exactly what one uninterrupted run gives, and no file is left that no commit lists.
/// Rows are held in memory only up to a few bytes here, so every cycle also spills.
#[test]
fn stopped_at_every_step_then_resumed_with_other_cycles() {
    let case = Case::new();
    std::fs::write(case.path("in.ndjson"), records(60, 20)).unwrap();
    let spill = ("SCHEMA2ICEBERG_TEST_SPILL_BYTES", "1");
    let once = case.deliver(
        &["in.ndjson", "--cycle-records", "25", "--warehouse", "once"],
        &[spill],
    );
    assert_eq!(once.code, Some(1), "{}", once.stderr);
    let expected = held(&case.path("once"));
    assert_eq!(expected.ids.len(), 52);
    assert_eq!(expected.dead_letters.len(), 8);
    assert!(expected.unlisted.is_empty(), "{:?}", expected.unlisted);
    for step in [
        "data-files",
        "dead-letters",
        "before-commit",
        "after-commit",
    ] {
        for cycle in 1..=2 {
            let warehouse = format!("w-{step}-{cycle}");
            let fault = format!("{step}@{cycle}");
            let stopped = case.deliver(
                &[
                    "in.ndjson",
                    "--cycle-records",
                    "25",
                    "--warehouse",
                    &warehouse,
                ],
                &[spill, ("SCHEMA2ICEBERG_TEST_FAULT", &fault)],
            );
            assert_eq!(
                stopped.code, None,
                "{fault}: not stopped: {}",
                stopped.stderr
            );
            assert!(stopped.stderr.contains(&format!("stopped at {fault}")));
            let resumed = case.deliver(
                &[
                    "in.ndjson",
                    "--cycle-records",
                    "17",
                    "--warehouse",
                    &warehouse,
                ],
                &[spill],
            );
            assert!(
                matches!(resumed.code, Some(0 | 1)),
                "{fault}: {}",
                resumed.stderr
            );
            if step != "after-commit" {
                assert!(
                    resumed.stdout.contains("no commit lists"),
                    "{fault}: the resumed run names nothing it removed:\n{}",
                    resumed.stdout
                );
            }
            let got = held(&case.path(&warehouse));
            assert_eq!(got.ids, expected.ids, "{fault}: rows");
            assert!(got.ids.values().all(|n| *n == 1), "{fault}: a row twice");
            assert_eq!(
                got.dead_letters, expected.dead_letters,
                "{fault}: dead letters"
            );
            assert!(got.unlisted.is_empty(), "{fault}: left {:?}", got.unlisted);
        }
    }
}

/// A commit that fails (as a catalog error would): the run stops with exit 2, the cycle's data
/// and dead-letter files are removed at once, and a rerun delivers everything exactly once.
#[test]
fn a_failed_commit_leaves_nothing_behind() {
    let case = Case::new();
    std::fs::write(case.path("in.ndjson"), records(60, 20)).unwrap();
    let failed = case.deliver(
        &["in.ndjson", "--cycle-records", "25"],
        &[("SCHEMA2ICEBERG_TEST_FAULT", "commit-error@2")],
    );
    assert_eq!(failed.code, Some(2), "{}", failed.stderr);
    assert!(
        failed.stderr.contains("the test hook failed it"),
        "{}",
        failed.stderr
    );
    assert!(failed.stderr.contains("were removed"), "{}", failed.stderr);
    let after_failure = held(&case.path("warehouse"));
    assert!(
        after_failure.unlisted.is_empty(),
        "{:?}",
        after_failure.unlisted
    );
    assert_eq!(after_failure.ids.len(), 25 - 3);
    let rerun = case.deliver(&["in.ndjson", "--cycle-records", "10"], &[]);
    assert_eq!(rerun.code, Some(1), "{}", rerun.stderr);
    let got = held(&case.path("warehouse"));
    assert_eq!(got.ids.len(), 52);
    assert!(got.ids.values().all(|n| *n == 1));
    assert_eq!(got.dead_letters.len(), 8);
    assert!(got.dead_letters.values().all(|n| *n == 1));
    assert!(got.unlisted.is_empty(), "{:?}", got.unlisted);
}

/// Records of many hours, interleaved in one cycle (each batch of 1,000 records holds every
/// hour): one data file per hour, also when the held rows spill.
#[test]
fn one_data_file_per_hour_whatever_the_order() {
    let case = Case::new();
    std::fs::write(case.path("in.ndjson"), records(3_000, 100)).unwrap();
    for (warehouse, env) in [
        ("memory", vec![]),
        ("spilled", vec![("SCHEMA2ICEBERG_TEST_SPILL_BYTES", "4096")]),
    ] {
        let ran = case.deliver(&["in.ndjson", "--warehouse", warehouse], &env);
        assert_eq!(ran.code, Some(1), "{}", ran.stderr);
        let got = held(&case.path(warehouse));
        assert_eq!(got.data_files_per_hour.len(), 100, "{warehouse}");
        assert!(
            got.data_files_per_hour.values().all(|n| *n == 1),
            "{warehouse}: {:?}",
            got.data_files_per_hour
        );
        assert_eq!(got.ids.len(), 3_000 - 3_000 / 7, "{warehouse}");
        assert!(got.unlisted.is_empty(), "{:?}", got.unlisted);
    }
}

/// A producer still writing the file: its last line has no newline yet. It is held back, not
/// dead-lettered, and delivered once complete; the grown file is delivered from where it
/// stopped.
#[test]
fn a_growing_file_holds_back_its_unfinished_line() {
    let case = Case::new();
    let file = case.path("g.ndjson");
    std::fs::write(
        &file,
        "{\"id\": 1, \"event_time\": \"2026-07-09T20:00:00Z\"}\n{\"id\": 2, \"event_ti",
    )
    .unwrap();
    let first = case.deliver(&["g.ndjson"], &[]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    assert!(
        first.stdout.contains("held back: `g.ndjson` line 2"),
        "{}",
        first.stdout
    );
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str(
        "me\": \"2026-07-09T20:05:00Z\"}\n{\"id\": 3, \"event_time\": \"2026-07-09T20:06:00Z\"}\n",
    );
    std::fs::write(&file, text).unwrap();
    let second = case.deliver(&["g.ndjson"], &[]);
    assert_eq!(second.code, Some(0), "{}\n{}", second.stdout, second.stderr);
    assert!(!second.stdout.contains("held back"), "{}", second.stdout);
    let got = held(&case.path("warehouse"));
    assert_eq!(got.ids.keys().copied().collect::<Vec<_>>(), [1, 2, 3]);
    assert!(got.dead_letters.is_empty());
    // Standard input ends where it ends: its last line is a record.
    let piped = Command::new(BIN)
        .args(["records", "schema.json", "-", "--partition", "event_time"])
        .current_dir(case.dir.path())
        .stdin(std::fs::File::open(case.path("schema.json")).unwrap())
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&piped.stdout).contains("held back"));
}

/// The same input under another spelling, a link, a copy, or twice in one run, is not
/// delivered again; `--allow-duplicate-content` says a copy is new data.
#[test]
fn the_same_content_under_another_name_is_refused() {
    let case = Case::new();
    std::fs::write(case.path("in.ndjson"), records(30, 3)).unwrap();
    std::fs::create_dir(case.path("sub")).unwrap();
    let first = case.deliver(&["in.ndjson"], &[]);
    assert_eq!(first.code, Some(1), "{}", first.stderr);
    let rows = || held(&case.path("warehouse")).ids.values().sum::<usize>();
    assert_eq!(rows(), 26);
    // Another spelling of the path, and a link: the same input, nothing new.
    #[cfg(unix)]
    std::os::unix::fs::symlink(case.path("in.ndjson"), case.path("link.ndjson")).unwrap();
    for name in ["sub/../in.ndjson", "./in.ndjson", "link.ndjson"] {
        if !case.path(name).exists() {
            continue;
        }
        let again = case.deliver(&[name], &[]);
        // The same exit code as the first run: the dead-letter folder holds 4 of its records.
        assert_eq!(again.code, Some(1), "{name}: {}", again.stderr);
        assert!(
            again.stdout.contains("nothing new"),
            "{name}: {}",
            again.stdout
        );
        assert_eq!(rows(), 26, "{name}");
    }
    // A copy under another name: refused, naming the path it was delivered under.
    std::fs::copy(case.path("in.ndjson"), case.path("copy.ndjson")).unwrap();
    let copy = case.deliver(&["copy.ndjson"], &[]);
    assert_eq!(copy.code, Some(2), "{}", copy.stderr);
    assert!(copy.stderr.contains("in.ndjson"), "{}", copy.stderr);
    assert!(copy.stderr.contains("--allow-duplicate-content"));
    assert_eq!(rows(), 26);
    // Both names in one run of a new warehouse: the second is refused before it commits.
    let both = case.deliver(
        &["in.ndjson", "sub/../in.ndjson", "--warehouse", "both"],
        &[],
    );
    assert_eq!(both.code, Some(2), "{}", both.stderr);
    assert!(both.stderr.contains("given twice"), "{}", both.stderr);
    // Said to be new data: delivered.
    let allowed = case.deliver(&["copy.ndjson", "--allow-duplicate-content"], &[]);
    assert_eq!(allowed.code, Some(1), "{}", allowed.stderr);
    assert_eq!(rows(), 52);
}

/// A copied warehouse's catalog names the original's files: refused, and the original is left
/// as it was.
#[test]
fn a_copied_warehouse_does_not_write_into_the_original() {
    let case = Case::new();
    std::fs::write(case.path("in.ndjson"), records(10, 2)).unwrap();
    let first = case.deliver(&["in.ndjson", "--warehouse", "wa"], &[]);
    assert_eq!(first.code, Some(1), "{}", first.stderr);
    let copied = Command::new("cp")
        .args(["-a", "wa", "wb"])
        .current_dir(case.dir.path())
        .status()
        .unwrap();
    assert!(copied.success());
    let before = walk(&case.path("wa"));
    std::fs::write(
        case.path("more.ndjson"),
        records(3, 1).replace("\"id\": ", "\"id\": 10"),
    )
    .unwrap();
    let ran = case.deliver(&["more.ndjson", "--warehouse", "wb"], &[]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("outside this warehouse"),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("/wa/"), "{}", ran.stderr);
    assert!(ran.stderr.contains("/wb"), "{}", ran.stderr);
    assert_eq!(walk(&case.path("wa")), before);
}

/// Links planted in the warehouse are not followed: the lock and a half-written dead-letter
/// file are opened without following them, so the files they point at are left as they were.
#[cfg(unix)]
#[test]
fn planted_links_are_not_followed() {
    let case = Case::new();
    std::fs::write(case.path("in.ndjson"), records(10, 2)).unwrap();
    std::fs::write(case.path("victim.txt"), "keep me").unwrap();
    std::fs::create_dir(case.path("w")).unwrap();
    std::os::unix::fs::symlink(case.path("victim.txt"), case.path("w/deliver.lock")).unwrap();
    let locked = case.deliver(&["in.ndjson", "--warehouse", "w"], &[]);
    assert_eq!(locked.code, Some(2), "{}", locked.stderr);
    assert!(locked.stderr.contains("not a link"), "{}", locked.stderr);
    std::fs::remove_file(case.path("w/deliver.lock")).unwrap();
    let dlq = case.path("w/dlq/kinesis-channel/errors/db.events/local");
    std::fs::create_dir_all(&dlq).unwrap();
    std::os::unix::fs::symlink(
        case.path("victim.txt"),
        dlq.join(".cycle-000001.ndjson.partial"),
    )
    .unwrap();
    let ran = case.deliver(&["in.ndjson", "--warehouse", "w"], &[]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert_eq!(
        std::fs::read_to_string(case.path("victim.txt")).unwrap(),
        "keep me"
    );
    assert_eq!(held(&case.path("w")).dead_letters.len(), 1);
}

/// A get-records `Data` over 64 MiB is refused as NDJSON lines and raw files are, before it is
/// held whole.
#[test]
fn a_get_records_record_over_the_cap_is_refused() {
    let case = Case::new();
    let data = "A".repeat(90 * 1024 * 1024);
    let document = format!(
        r#"{{"Records": [{{"SequenceNumber": "1", "ApproximateArrivalTimestamp": 1780000000, "Data": "{data}"}}]}}"#
    );
    std::fs::write(case.path("big.json"), document).unwrap();
    let ran = case.deliver(&["big.json", "--input", "get-records"], &[]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("longer than 67108864 bytes"),
        "{}",
        ran.stderr
    );
}

/// A progress at the last cycle number: refused, not wrapped round to cycle 0.
#[test]
fn a_progress_at_the_last_cycle_is_refused() {
    let case = Case::new();
    std::fs::write(case.path("in.ndjson"), records(3, 1)).unwrap();
    assert_eq!(case.deliver(&["in.ndjson"], &[]).code, Some(0));
    let warehouse = case.path("warehouse");
    runtime().block_on(async {
        let catalog = schema2iceberg::deliver::open_catalog(&warehouse)
            .await
            .unwrap();
        let table = the_table(&warehouse).await.unwrap();
        let progress = format!(r#"{{"cycles":{},"inputs":[]}}"#, u64::MAX);
        let transaction = iceberg::transaction::Transaction::new(&table);
        let update = transaction
            .update_table_properties()
            .set(PROGRESS_PROPERTY.to_string(), progress);
        use iceberg::transaction::ApplyTransactionAction as _;
        let transaction = update.apply(transaction).unwrap();
        transaction.commit(&catalog).await.unwrap();
        assert!(catalog.table_exists(table.identifier()).await.unwrap());
    });
    std::fs::write(
        case.path("more.ndjson"),
        records(3, 1).replace("\"id\": ", "\"id\": 9"),
    )
    .unwrap();
    let ran = case.deliver(&["more.ndjson"], &[]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("cannot take another"), "{}", ran.stderr);
}
