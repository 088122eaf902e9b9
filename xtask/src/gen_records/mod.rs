//! `cargo xtask gen-records`: NDJSON records that a streaming-tables channel delivers for a
//! schema, generated deterministically from a seed, for the records benchmark and for tests.
//!
//! The schema is read with the parser and compiled with the mapper (with column sources); the
//! records are generated from the compiled Iceberg table and each column's validation keywords
//! ([`shape`]), so they exercise every column type the way a producer writes it ([`values`]).

mod decimal;
mod rng;
mod shape;
pub(crate) mod values;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use schema2iceberg_mapper::{compile, CompileOptions};
use schema2iceberg_parser::{LoadOptions, Severity, Workspace};

use shape::{Shape, StructShape};

pub const USAGE: &str = "\
usage: cargo xtask gen-records SCHEMA --size SIZE [--seed N] [--partition FIELD [--stream]]
                               [--out FILE]

  Writes NDJSON records (one a line) that the channel delivers for SCHEMA, until at least SIZE
  bytes are written: every column's type within its schema's bounds, optional fields sometimes
  absent or null, now and then a field the table drops. The same seed gives the same bytes.

  --size SIZE        bytes, with an optional suffix: KB, MB, GB (powers of 1000) or KiB, MiB,
                     GiB (powers of 1024); e.g. --size 200MB
  --seed N           the generator's seed (default 1)
  --partition FIELD  the partition source (dotted path), which every record then carries
  --stream           the partition source (a top-level timestamptz) follows a stream's clock:
                     2026-01-01T00:00:00Z plus 100 ms a record, within ±5 minutes, so that
                     100,000 records span about 3 hours (without it, times are anywhere in
                     1900-2199, one hour partition a record)
  --out FILE         where to write (default: standard output)";

/// What `gen-records` was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub schema: PathBuf,
    pub size: u64,
    pub seed: u64,
    pub partition: Option<String>,
    pub stream: bool,
    pub out: Option<PathBuf>,
}

/// Reads `gen-records`'s arguments (after the task name).
pub fn parse_args(args: &[String]) -> Result<Request, String> {
    let mut schema = None;
    let mut size = None;
    let mut seed = 1;
    let mut partition = None;
    let mut stream = false;
    let mut out = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |what: &str| {
            inline
                .clone()
                .or_else(|| args.next().cloned())
                .ok_or_else(|| format!("{name} needs {what}"))
        };
        match name {
            "--size" => size = Some(parse_size(&value("a SIZE")?)?),
            "--seed" => {
                let text = value("a number")?;
                seed = text
                    .parse()
                    .map_err(|_| format!("--seed {text}: not a whole number"))?;
            }
            "--partition" => partition = Some(value("a FIELD")?),
            "--stream" => stream = true,
            "--out" => out = Some(PathBuf::from(value("a FILE")?)),
            other if other.starts_with('-') => return Err(format!("unknown option `{other}`")),
            _ if schema.is_none() => schema = Some(PathBuf::from(arg)),
            _ => return Err(format!("unexpected argument `{arg}`")),
        }
    }
    Ok(Request {
        schema: schema.ok_or("a SCHEMA file is needed")?,
        size: size.ok_or("--size is needed")?,
        seed,
        partition,
        stream,
        out,
    })
}

/// `200MB`, `1.5GB`, `64KiB`, `1000`: bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let multiplier: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" | "k" => 1_000,
        "mb" | "m" => 1_000_000,
        "gb" | "g" => 1_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        _ => {
            return Err(format!(
                "size `{text}`: the unit must be KB, MB, GB, KiB, MiB or GiB"
            ))
        }
    };
    let value: f64 = number.parse().map_err(|_| {
        format!("size `{text}`: expected a number with an optional unit, like 200MB")
    })?;
    let bytes = value * multiplier as f64;
    if !(1.0..1e15).contains(&bytes) {
        return Err(format!(
            "size `{text}`: must be at least 1 byte and below 1 PB"
        ));
    }
    Ok(bytes as u64)
}

/// Writes records for one compiled table.
#[derive(Debug)]
pub struct Generator {
    table: StructShape,
    rng: rng::Rng,
    /// With `--stream`: the partition source's index among the top-level fields, and the
    /// records written so far.
    stream: Option<(usize, i64)>,
}

/// `--stream`'s clock: its start (2026-01-01T00:00:00Z), its step a record, and the spread
/// around it, in microseconds.
const STREAM_START: i64 = 1_767_225_600_000_000;
const STREAM_STEP: i64 = 100_000;
const STREAM_SPREAD: i64 = 300_000_000;

impl Generator {
    /// Reads and compiles `schema`; an error says why no records can be generated.
    pub fn new(schema: &Path, partition: Option<&str>, seed: u64) -> Result<Generator, String> {
        let ws = Workspace::open(schema, LoadOptions::default())
            .map_err(|e| format!("cannot read {}: {e}", schema.display()))?;
        let options = CompileOptions {
            partition: partition.map(str::to_string).into_iter().collect(),
            column_sources: true,
            ..CompileOptions::default()
        };
        let compiled = compile(&ws, &options);
        let Some(table) = &compiled.schema else {
            let errors: Vec<String> = compiled
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| {
                    format!(
                        "  {}:{}:{}: {}",
                        d.location.file, d.location.line, d.location.column, d.message
                    )
                })
                .collect();
            return Err(format!(
                "{} does not compile to a table (`schema2iceberg compile` shows why):\n{}",
                schema.display(),
                errors.join("\n")
            ));
        };
        let table = shape::table_shape(
            &ws,
            table.as_struct().fields(),
            &compiled.columns,
            partition,
        )?;
        Ok(Generator {
            table,
            rng: rng::Rng::new(seed),
            stream: None,
        })
    }

    /// Makes the partition source, a top-level timestamptz, follow a stream's clock
    /// (`--stream`).
    pub fn with_stream(mut self, partition: Option<&str>) -> Result<Generator, String> {
        let index = self
            .table
            .fields
            .iter()
            .position(|f| Some(f.path.as_str()) == partition && f.shape == Shape::Timestamptz)
            .ok_or("--stream needs a --partition FIELD that is a top-level timestamptz column")?;
        self.stream = Some((index, 0));
        Ok(self)
    }

    /// The table's shape, for tests that count what the records cover.
    #[cfg(test)]
    pub fn shape(&self) -> &StructShape {
        &self.table
    }

    /// Appends the next record to `out`, without a newline.
    pub fn next_record(&mut self, out: &mut String) {
        if let Some((index, written)) = &mut self.stream {
            let jitter = self
                .rng
                .between(i128::from(-STREAM_SPREAD), i128::from(STREAM_SPREAD))
                as i64;
            if let Some(field) = self.table.fields.get_mut(*index) {
                field.shape = Shape::Instant(STREAM_START + *written * STREAM_STEP + jitter);
            }
            *written += 1;
        }
        values::write_record(&mut self.rng, &self.table, out);
    }
}

/// `cargo xtask gen-records …`: writes the file, or says why not.
pub fn run(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return Ok(());
    }
    let request = parse_args(args).map_err(|e| format!("{e}\n\n{USAGE}"))?;
    let mut generator =
        Generator::new(&request.schema, request.partition.as_deref(), request.seed)?;
    if request.stream {
        generator = generator.with_stream(request.partition.as_deref())?;
    }
    let sink: Box<dyn std::io::Write> = match &request.out {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    write_records(&mut generator, request.size, sink)
}

/// Writes records, one a line, until at least `size` bytes are written.
pub fn write_records(
    generator: &mut Generator,
    size: u64,
    sink: impl std::io::Write,
) -> Result<(), String> {
    let mut sink = std::io::BufWriter::with_capacity(1 << 20, sink);
    let mut written: u64 = 0;
    let mut line = String::new();
    while written < size {
        line.clear();
        generator.next_record(&mut line);
        line.push('\n');
        sink.write_all(line.as_bytes())
            .map_err(|e| format!("cannot write the records: {e}"))?;
        written += line.len() as u64;
    }
    sink.flush()
        .map_err(|e| format!("cannot write the records: {e}"))
}

#[cfg(test)]
mod tests;
