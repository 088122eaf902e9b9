#!/usr/bin/env bash
# Makes the Python that the tests use to check our output with other tools: pyiceberg reads a
# `deliver` table (crates/cli/tests/deliver.rs) and sqlglot parses `compile --format ddl`
# (crates/cli/tests/ddl_sqlglot.rs). It is a virtual environment in DIR with the pinned
# scripts/test-python-requirements.txt (pyiceberg[sql-sqlite,pyarrow]==0.12.0, sqlglot==30.31.0
# and every package they pull in, at fixed versions, so CI runs are reproducible). .ci/run calls
# it and exports the printed path as SCHEMA2ICEBERG_TEST_PYTHON before `cargo test`.
#
# Usage: scripts/test-python-venv.sh DIR
#
# The last line on standard output is the venv's python (an absolute path); everything else goes
# to standard error. A venv made before from the same requirements file (same sha256, same
# python3) is reused without touching PyPI: the hash is kept in DIR/.requirements-stamp, written
# only after a successful install, so an interrupted install is redone on the next run.
#
# Needs python3 with its venv module (Debian: python3-venv) and PyPI. Under CI=true a missing
# python3 is a failure; elsewhere the script says why it skips on standard error, prints nothing
# on standard output, and exits 0. A failed install is a failure everywhere.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi

repo="$(cd "$(dirname "$0")/.." && pwd)"
requirements="$repo/scripts/test-python-requirements.txt"

missing=""
if ! command -v python3 >/dev/null 2>&1; then
  missing="python3 is not installed"
elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  missing="python3 has no venv module with pip (Debian: apt-get install python3-venv)"
fi
if [ -n "$missing" ]; then
  if [ "${CI:-}" = true ]; then
    echo "error: $missing, so pyiceberg and sqlglot cannot be installed for the tests" >&2
    exit 1
  fi
  echo "skipped: $missing, so the deliver test will not read its table with pyiceberg, nor the ddl test parse the DDL with sqlglot" >&2
  exit 0
fi

mkdir -p "$1"
dir="$(cd "$1" && pwd)"
python="$dir/bin/python"
stamp_file="$dir/.requirements-stamp"
stamp="$(sha256sum "$requirements" | cut -d' ' -f1) $(python3 -c 'import sys; print(sys.version.split()[0])')"

if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ] && "$python" -c '' 2>/dev/null; then
  echo "test Python venv in $dir is up to date (requirements unchanged)" >&2
  echo "$python"
  exit 0
fi

# Never empty a folder that is not a venv (or empty): DIR might have been mistyped.
if [ -n "$(ls -A "$dir")" ] && [ ! -f "$dir/pyvenv.cfg" ]; then
  echo "error: $dir is neither empty nor a virtual environment; not replacing it" >&2
  exit 1
fi

echo "== making the test Python venv in $dir (pinned: $requirements)" >&2
start=$SECONDS
rm -f "$stamp_file"
python3 -m venv --clear "$dir" >&2
"$python" -m pip install --quiet --no-input --disable-pip-version-check -r "$requirements" >&2
"$python" -m pip check >&2
"$python" -c 'import pyiceberg.catalog.sql, pyarrow, sqlglot' >&2
echo "$stamp" > "$stamp_file"
echo "(venv made in $((SECONDS - start)) s)" >&2
echo "$python"
