#!/usr/bin/env bash
# Captures what a schema2iceberg binary prints, for the proof of no change of a restructuring
# (issue 39): run it on the old binary and on the new one, then scripts/compare-outputs.sh.
#
# Usage: scripts/capture-outputs.sh BIN OUTDIR
#   BIN     the binary to run (a debug build: the deliver fixtures' run-N.env files use the
#           fault hook SCHEMA2ICEBERG_TEST_FAULT, which only debug builds read)
#   OUTDIR  a new (or empty) folder; one file per invocation is written under it
# Environment:
#   CORPUS         the corpus (default: ../shared/corpus beside the repository, else
#                  /work/shared/corpus)
#   PYTHON         a Python with pyiceberg[sql-sqlite,pyarrow]==0.12.0 (default:
#                  target/test-python-venv/bin/python of this repository, else of /work/main)
#   JOBS           invocations run at once (default 2)
#   CORPUS_FORMATS all (every compile format on every corpus file; default) or text
#   ONLY           comma-separated folders to capture (help,check,...), for a quick try
#
# The binary runs on this repository's testdata (the repository that holds this script), with
# a fixed environment: NO_COLOR=1, LANG=LC_ALL=C.UTF-8, TZ=UTC, PATH and HOME kept, nothing else;
# standard input is empty unless a fixture gives one. Each file holds the command line (with the
# folder it ran in), the exit code, then stdout and stderr with their byte counts.
#
# What is captured (the folder of OUTDIR, then how the crates/cli tests run it):
#   help/            the binary with no arguments, --help, -h, help, --version; for every command
#                    `CMD --help`, `CMD -h`, `help CMD`; `completions SHELL` for each shell; `man`;
#                    `man --dir DIR` with every page written
#   check/           the corpus (in the corpus root, --config testdata/corpus/schema2iceberg.toml,
#                    as crates/cli/src/corpus.rs) and every testdata/check/<repo> (in the repo, as
#                    crates/cli/tests/check.rs, with its variants: paths, globs, flags, usage
#                    errors), each in all four formats; the temporary git repository with a
#                    warehouse and ignored files of check.rs; every testdata/channel fixture
#                    (`check FILES --channel-config FILES`); every testdata/policies case
#                    (`check channel*.json --channel-config … --role-policy … --trust-policy …
#                    --table-key-policy … --table-bucket-policy … --dlq-kms-key …` in its folder)
#   policies/        the crates/cli/tests/policies.rs command lines; every channel fixture in text
#                    and json (with --dlq-kms-key) and with --out DIR (every file written); every
#                    testdata/policies case in text and json
#   compile/         every fixture of testdata/compile (with refs/), lint, hostile, json-file,
#                    examples and the schemas of compile-formats, in every --format (text, json,
#                    table-metadata, avro, arrow, arrow-json, ddl for athena, spark and trino),
#                    with the flags of the fixture's `"$comment": "args: …"` and the reference
#                    root the tests give (testdata/compile, testdata/hostile); every
#                    testdata/compile-formats/*.args line; standard input; -o FILE (its file);
#                    the 100 MB and the 200,000-required-properties schemas that
#                    crates/cli/tests/hostile.rs makes (made in a temporary folder, text and json)
#   compile-corpus/  every .json of the corpus, in its root by relative path (Snowplow with
#                    --draft 04, as the corpus config), in every format (CORPUS_FORMATS=all)
#   diff/            every testdata/diff/<case> (old.json new.json, in its folder; a case whose
#                    args file names partitions also once with each as --partition, the CLI
#                    having one for both sides), the crates/cli/tests/diff.rs requests in
#                    testdata/diff-cli (record formats, every --fail-on, --ref-root, a table
#                    metadata side, --git in temporary repositories, --git outside one), each in
#                    text, json and github
#   diff-snowplow/   every consecutive version pair of Snowplow's jsonschema folders, as diff.rs
#   bundle/          every testdata/bundle/<case>/schema.json (--ref-root its folder) and every
#                    testdata/compile fixture (--ref-root testdata/compile), as bundle.rs
#   records/         every testdata/records/<case> as records.rs: in the case folder,
#                    `records schema.json --format ndjson --show all ARGS` (unless ARGS choose),
#                    its stdin file piped in
#   deliver/         every testdata/deliver/<case> as deliver.rs: run-1, run-2, … in order (with
#                    run-N.env and run-N.stdin) into one fresh temporary warehouse, then the rows
#                    of every table as pyiceberg scans them (sorted JSON lines) and the
#                    dead-letter lines (sorted); `same-as` on a second fresh warehouse likewise
#   CAPTURE.json     counts per folder and of inputs (not compared)
# Not captured: symlinked fixtures (testdata/hostile/outside-link.json and
# testdata/compile/refs/hostname-link.json point at /etc/hostname, which differs by machine; the
# tests skip them too); the deliver tests that race two runs or kill at random points
# (deliver.rs's lock test, deliver_exactly_once.rs), whose outputs depend on timing; the
# library-level snapshots that no command line reaches (the mapper's fixture renderings).
# An invocation that runs over 600 s is recorded as `exit: timeout after 600 s`.
#
# Normalisations (nothing else is changed):
#   - temporary folders the capture makes are shown as <tmp>/…, a deliver warehouse as
#     <warehouse>, `policies --out`/`compile -o` folders as <out>;
#   - the absolute path of this repository as <repo>, of a deliver case folder as <case>, of the
#     corpus as <corpus> (where they appear: the corpus check's --config, deliver's messages);
#   - `--version`: the commit hash in `schema2iceberg X (HASH target)` as <commit>;
#   - deliver output and dead-letter lines only: Iceberg snapshot ids (`snapshot N`,
#     `"snapshot-id": N`) as <id>, and the UUIDs in data, manifest and metadata file names
#     (`data-UUID-00000.parquet`, `UUID-m0.avro`, `NNNNN-UUID.metadata.json`) as <uuid>;
#   - deliver: data and metadata files themselves are not compared, only the rows read back and
#     the dead-letter lines, and the dead-letter file names are not compared.
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 BIN OUTDIR" >&2
    exit 2
fi
bin=$1
outdir=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd -P)
if [[ ! -x $bin ]]; then
    echo "$bin is not an executable" >&2
    exit 2
fi
corpus=${CORPUS:-}
if [[ -z $corpus ]]; then
    if [[ -d $repo/../shared/corpus ]]; then
        corpus=$repo/../shared/corpus
    else
        corpus=/work/shared/corpus
    fi
fi
python=${PYTHON:-}
if [[ -z $python ]]; then
    for candidate in "$repo/target/test-python-venv/bin/python" /work/main/target/test-python-venv/bin/python; do
        if [[ -x $candidate ]]; then
            python=$candidate
            break
        fi
    done
fi
if [[ -z $python ]] || ! "$python" -c 'import pyiceberg' 2>/dev/null; then
    echo "no Python with pyiceberg: set PYTHON (scripts/test-python-venv.sh makes one)" >&2
    exit 2
fi
if [[ ! -d $corpus ]]; then
    echo "the corpus $corpus is missing: set CORPUS" >&2
    exit 2
fi

cd "$repo"
exec python3 "$here/capture_outputs.py" "$bin" "$outdir" \
    --repo "$repo" --corpus "$corpus" --python "$python" \
    --jobs "${JOBS:-2}" --corpus-formats "${CORPUS_FORMATS:-all}" --only "${ONLY:-}"
