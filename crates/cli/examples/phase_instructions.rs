//! One phase of the compile benchmark, repeated, for counting instructions under callgrind
//! (`cargo xtask bench --instructions`).
//!
//! Usage: `phase_instructions <parse|read|compile|iceberg> <file> <repetitions>`, where `<file>`
//! is a name from the benchmark's list (`seed_event`, …). The set-up (reading the file, and for
//! `compile` and `iceberg` reading the schema once) runs even with zero repetitions, so the
//! difference between a run with N repetitions and one with none, divided by N, is the phase
//! alone. Instruction counts do not vary from run to run as times do on a shared machine.

use std::hint::black_box;
use std::process::ExitCode;

use schema2iceberg_mapper::{compile, CompileOptions};
use support::{files, read_bytes};

#[path = "../benches/support/mod.rs"]
mod support;

const USAGE: &str = "usage: phase_instructions <parse|read|compile|iceberg> <file> <repetitions>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [phase, name, repetitions] = args.as_slice() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let Ok(repetitions) = repetitions.parse::<usize>() else {
        eprintln!("repetitions must be a number\n{USAGE}");
        return ExitCode::from(2);
    };
    let Some((_, path)) = files().into_iter().find(|(n, _)| n == name) else {
        let names: Vec<&str> = files().iter().map(|(n, _)| *n).collect();
        eprintln!("unknown file `{name}`: one of {}", names.join(", "));
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("cannot read {}: {e}", path.display());
            return ExitCode::from(3);
        }
    };
    match phase.as_str() {
        "parse" => {
            for _ in 0..repetitions {
                let parsed = serde_json::from_slice::<serde_json::Value>(black_box(&bytes));
                black_box(parsed.map(|v| v.is_object()).ok());
            }
        }
        "read" => {
            for _ in 0..repetitions {
                black_box(read_bytes(&path, black_box(&bytes)));
            }
        }
        "compile" => {
            let ws = read_bytes(&path, &bytes);
            for _ in 0..repetitions {
                black_box(compile(black_box(&ws), &CompileOptions::default()));
            }
        }
        "iceberg" => {
            let ws = read_bytes(&path, &bytes);
            let Some(schema) = compile(&ws, &CompileOptions::default()).schema else {
                eprintln!("{name} compiles to no table, so there is no Iceberg build to count");
                return ExitCode::from(4);
            };
            let fields = schema.as_struct().fields().to_vec();
            for _ in 0..repetitions {
                let built = iceberg::spec::Schema::builder()
                    .with_schema_id(0)
                    .with_fields(black_box(fields.clone()))
                    .build();
                black_box(built.map(|s| s.highest_field_id()).ok());
            }
        }
        other => {
            eprintln!("unknown phase `{other}`\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
