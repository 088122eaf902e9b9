//! The records benchmark's floor (`cargo xtask bench --records`): `serde_json::from_slice::<Value>`
//! on each line of an NDJSON file, on one thread, as a whole process, so that it is timed the
//! same way as `schema2iceberg records` (start-up, reading the file, dropping the values).
//!
//! An example rather than a `[[bin]]` of xtask: it is built, in release, only when the
//! benchmark asks for it, and not on every `cargo xtask`.
//!
//! With `--document`, the floor of `cargo xtask bench --whole-process` instead: the whole file
//! read and parsed into one `serde_json::Value` (with `preserve_order`, as the workspace builds
//! serde_json), the least a process that compiles a schema must do.
//!
//! usage: parse_floor FILE  (prints the records and bytes read; exit 1 if a line is not JSON)
//!        parse_floor --document FILE  (prints the bytes read; exit 1 if it is not JSON)

use std::io::BufRead as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, path] if flag == "--document" => document(path),
        [path] => lines(path),
        _ => {
            eprintln!("usage: parse_floor FILE | parse_floor --document FILE");
            ExitCode::from(2)
        }
    }
}

fn document(path: &str) -> ExitCode {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(value) => drop(std::hint::black_box(value)),
        Err(e) => {
            eprintln!("{path} is not JSON: {e}");
            return ExitCode::FAILURE;
        }
    }
    println!("{} bytes", bytes.len());
    ExitCode::SUCCESS
}

fn lines(path: &str) -> ExitCode {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut line = Vec::new();
    let (mut records, mut bytes) = (0u64, 0u64);
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(n) => bytes += n as u64,
            Err(e) => {
                eprintln!("cannot read {path}: {e}");
                return ExitCode::from(2);
            }
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        if text.is_empty() {
            continue;
        }
        records += 1;
        match serde_json::from_slice::<serde_json::Value>(text) {
            Ok(value) => drop(std::hint::black_box(value)),
            Err(e) => {
                eprintln!("{path}: record {records} is not JSON: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!("{records} records, {bytes} bytes");
    ExitCode::SUCCESS
}
