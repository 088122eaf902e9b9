#!/usr/bin/env bash
# Proves that the `schema2iceberg-check` pre-commit hook installs and runs as a data team's
# repository would use it: a pinned pre-commit in its own virtualenv runs the real
# `pre-commit try-repo <this repository> schema2iceberg-check` in a throwaway git repository with
# a schema2iceberg.toml, schemas/ and channels/. A good schema passes; a bad one fails, and so
# does a commit that changes only the channel configuration, each with its diagnostic shown.
#
# Needs python3 (with venv), git, cargo, and PyPI for pre-commit and maturin. Under CI=true a
# missing python3 is a failure; elsewhere the script says why it skips.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
PRE_COMMIT_VERSION=4.7.0

if ! command -v python3 >/dev/null 2>&1; then
  if [ "${CI:-}" = true ]; then
    echo "error: python3 is not installed, so the pre-commit hook cannot be tested" >&2
    exit 1
  fi
  echo "skipped: python3 is not installed, so the pre-commit hook was not tested"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== pre-commit $PRE_COMMIT_VERSION in $work/venv"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "pre-commit==$PRE_COMMIT_VERSION"
pre_commit="$work/venv/bin/pre-commit"

# pre-commit keeps the hook's virtualenv here, so every run of this script installs afresh.
export PRE_COMMIT_HOME="$work/pre-commit-home"
# Speed only: the hook's `pip install .` runs cargo through maturin. Building in the dev profile
# into this repository's target directory reuses the dependencies the test build already
# compiled (iceberg, arrow, parquet), instead of a cold release build of about half an hour on
# two cores. A user's install builds in release into a temporary directory; nothing else differs.
export MATURIN_PEP517_ARGS="--profile dev"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"

data="$work/data-repo"
mkdir -p "$data/schemas" "$data/channels"
cd "$data"
git init --quiet
git config user.email hook-test@example.com
git config user.name "hook test"

cat > schema2iceberg.toml <<'TOML'
[[schemas]]
files = "schemas/*.json"
channel-config = "channels/orders-kinesis.json"
TOML

cat > channels/orders-kinesis.json <<'JSON'
{
  "DataFreshnessInSeconds": 300,
  "DeadLetterQueueS3Configuration": {
    "BucketARN": "arn:aws:s3:::orders-dlq-123456789012",
    "ExpectedBucketOwner": "123456789012"
  },
  "S3TablesConfigurationList": [
    {
      "TableBucketARN": "arn:aws:s3tables:us-east-1:123456789012:bucket/orders",
      "Namespace": "sales",
      "TableName": "orders",
      "CompressionType": "ZSTD",
      "PartitionSpec": {"PartitionFields": [{"Transform": "TIME_HOUR", "SourceName": "created_at"}]}
    }
  ]
}
JSON

cat > schemas/orders.json <<'JSON'
{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "properties": {
    "order_id": {"type": "string"},
    "created_at": {"type": "string", "format": "date-time"},
    "amount": {"type": "number", "multipleOf": 0.01, "maximum": 1000000}
  },
  "required": ["order_id", "created_at"]
}
JSON

git add .
echo "== a good schema: the hook must pass (the first run installs the hook, building the tool)"
start=$SECONDS
if ! "$pre_commit" try-repo "$repo" schema2iceberg-check --verbose > "$work/good.log" 2>&1; then
  cat "$work/good.log"
  echo "error: the hook failed on a good schema" >&2
  exit 1
fi
cat "$work/good.log"
echo "(install and run: $((SECONDS - start)) s)"
git commit --quiet -m "orders schema"

cat > schemas/orders.json <<'JSON'
{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "properties": {
    "order_id": {"type": ["string", "integer"]},
    "created_at": {"type": "string", "format": "date-time"},
    "amount": {"type": "number", "multipleOf": 0.01, "maximum": 1000000}
  },
  "required": ["order_id", "created_at"]
}
JSON
git add schemas/orders.json
echo "== a bad schema: the hook must fail and show the diagnostic"
status=0
"$pre_commit" try-repo "$repo" schema2iceberg-check > "$work/bad.log" 2>&1 || status=$?
cat "$work/bad.log"
if [ "$status" -eq 0 ]; then
  echo "error: the hook passed a schema with a union type" >&2
  exit 1
fi
if ! grep -q 'error\[union-type\]' "$work/bad.log"; then
  echo "error: the hook failed, but its output does not show error[union-type]" >&2
  exit 1
fi
git checkout --quiet HEAD -- schemas/orders.json

# A commit that changes only the channel configuration: pre-commit passes just that file, and
# `check` validates it with the schema that uses it.
sed -i 's/"DataFreshnessInSeconds": 300/"DataFreshnessInSeconds": 60/' channels/orders-kinesis.json
git add channels/orders-kinesis.json
echo "== a changed channel configuration alone: the hook must fail and show the diagnostic"
status=0
"$pre_commit" try-repo "$repo" schema2iceberg-check > "$work/channel.log" 2>&1 || status=$?
cat "$work/channel.log"
if [ "$status" -eq 0 ] || ! grep -q 'error\[channel-data-freshness\]' "$work/channel.log"; then
  echo "error: the hook did not fail a channel configuration with DataFreshnessInSeconds 60" >&2
  exit 1
fi
echo "== ok: the hook installs, passes a good schema, and fails a bad schema and a bad channel configuration with their diagnostics"
