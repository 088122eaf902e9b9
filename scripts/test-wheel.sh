#!/usr/bin/env bash
# Tests what a release ships, on this machine, where no release can be published:
#
# 1. The wheel: `maturin build --release --locked` (what .github/workflows/release.yml runs for
#    each target) makes a wheel for this machine; it installs into a fresh virtualenv with no
#    package index, and the installed `schema2iceberg --version` names the version, this
#    checkout's commit and this machine's target; `check` passes an example and fails a schema
#    with a union type.
# 2. The archive and the shell installer: scripts/release/package.sh packs the wheel's binary as
#    the release archive for this platform, scripts/release/installers.sh writes the installer,
#    and the installer, pointed at the folder (file://), installs a working binary; with a wrong
#    checksum it refuses and installs nothing. [package.metadata.binstall] in crates/cli/Cargo.toml
#    names the same archive and the binary's path inside it.
# 3. The pre-commit hooks that build nothing, through the real pre-commit, with pip restricted to
#    a local folder holding the wheel (PIP_FIND_LINKS, PIP_NO_INDEX: nothing comes from PyPI, so
#    nothing can be compiled there either):
#    - pre-commit-wheel/ as a hook repository: `pre-commit try-repo` installs it and runs it, in
#      under 60 seconds, and it fails a bad schema as the building hook does;
#    - the `repo: local` hook with `additional_dependencies: ["schema2iceberg==VERSION"]`;
#    - `schema2iceberg-check-system` from this repository, with the wheel's binary on PATH.
#
# The wheel is built once, in release (thin LTO, as users and the release workflow get it), into
# TARGET/wheel-release, and every test above uses that one wheel. A second run reuses the build.
#
# Needs python3 (with venv), git, cargo, and PyPI for maturin, pre-commit and setuptools (the
# build backend of the hook package). Under CI=true a missing python3 is a failure; elsewhere the
# script says why it skips.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
MATURIN_VERSION=1.16.0
PRE_COMMIT_VERSION=4.7.0
SETUPTOOLS_VERSION=84.2.1

if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  if [ "${CI:-}" = true ]; then
    echo "error: python3 with venv is not installed, so the wheel cannot be tested" >&2
    exit 1
  fi
  echo "skipped: python3 with venv is not installed, so the wheel was not tested"
  exit 0
fi

fail() {
  echo "error: $*" >&2
  exit 1
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
mkdir -p "$target_dir"
target_dir="$(cd "$target_dir" && pwd)"

meta="$(cd "$repo" && cargo metadata --no-deps --format-version 1 --locked)"
version="$(python3 -c 'import json, sys
print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "schema2iceberg"))' <<< "$meta")"
host="$(rustc -vV | sed -n 's/^host: //p')"

echo "== maturin $MATURIN_VERSION and pre-commit $PRE_COMMIT_VERSION in $work/tools"
python3 -m venv "$work/tools"
"$work/tools/bin/pip" install --quiet "maturin==$MATURIN_VERSION" "pre-commit==$PRE_COMMIT_VERSION"
wheelhouse="$work/wheelhouse"
mkdir -p "$wheelhouse"
"$work/tools/bin/pip" download --quiet --only-binary :all: --dest "$wheelhouse" "setuptools==$SETUPTOOLS_VERSION"

echo "== 1. maturin build --release --locked (into $target_dir/wheel-release)"
start=$SECONDS
(cd "$repo" && CARGO_TARGET_DIR="$target_dir/wheel-release" \
  "$work/tools/bin/maturin" build --release --locked --out "$wheelhouse")
echo "(built in $((SECONDS - start)) s)"
wheels=("$wheelhouse"/schema2iceberg-"$version"-*.whl)
if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
  fail "expected one schema2iceberg $version wheel, found: ${wheels[*]}"
fi
wheel="${wheels[0]}"
echo "wheel: $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"
# The commit as build.rs saw it (read after the build, which reran if HEAD moved meanwhile).
commit=unknown
if [ "$(git -C "$repo/crates/cli" rev-parse --show-prefix 2>/dev/null)" = crates/cli/ ]; then
  commit="$(git -C "$repo" rev-parse --short=12 HEAD)"
fi
expected_version="schema2iceberg $version ($commit $host)"

echo "== the wheel in a fresh virtualenv, installed with no package index"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --no-index --find-links "$wheelhouse" "schema2iceberg==$version"
tool="$work/venv/bin/schema2iceberg"
[ -x "$tool" ] || fail "the wheel did not install $tool"
got="$("$tool" --version)"
echo "$got"
[ "$got" = "$expected_version" ] || fail "--version printed '$got', not '$expected_version'"

cd "$repo"
"$tool" check testdata/examples/event.json --partition event_time > "$work/check-good.log" 2>&1 ||
  { cat "$work/check-good.log"; fail "check failed on testdata/examples/event.json"; }
tail -n 1 "$work/check-good.log"
cat > "$work/union.json" <<'JSON'
{"type": "object", "properties": {"id": {"type": ["string", "integer"]}}}
JSON
status=0
"$tool" check "$work/union.json" > "$work/check-bad.log" 2>&1 || status=$?
if [ "$status" -ne 1 ] || ! grep -q 'error\[union-type\]' "$work/check-bad.log"; then
  cat "$work/check-bad.log"
  fail "check did not fail a union type with exit 1 and error[union-type] (exit $status)"
fi
echo "check: the example passes; a union type fails with error[union-type]"

echo "== 2. the release archive and the shell installer (file:// in place of the release)"
case "$(uname -m)" in
  x86_64 | amd64) arch=x86_64 ;;
  aarch64 | arm64) arch=aarch64 ;;
  *) arch="$(uname -m)" ;;
esac
case "$(uname -s)" in
  Linux) platform="$arch-unknown-linux-musl" ;;
  Darwin) platform="$arch-apple-darwin" ;;
  *) fail "the shell installer does not support $(uname -s)" ;;
esac
# On Linux the release archive holds a static musl binary; here it holds this machine's build,
# under the name the installer asks for. What is tested is the installer, the names and the
# checksum, not the musl build (the release workflow runs that one).
archives="$work/archives"
archive="$(bash scripts/release/package.sh "$platform" "$tool" "$archives")"
bash scripts/release/installers.sh "$version" "file://$archives" "$archives"
(cd "$archives" && sha256sum -c --quiet "$(basename "$archive").sha256" schema2iceberg-installer.sh.sha256)
SCHEMA2ICEBERG_INSTALL_DIR="$work/installed" sh "$archives/schema2iceberg-installer.sh"
got="$("$work/installed/schema2iceberg" --version)"
[ "$got" = "$expected_version" ] || fail "the installed binary printed '$got', not '$expected_version'"

cp "$archive.sha256" "$work/good.sha256"
printf '%064d  %s\n' 0 "$(basename "$archive")" > "$archive.sha256"
status=0
SCHEMA2ICEBERG_INSTALL_DIR="$work/installed-bad" sh "$archives/schema2iceberg-installer.sh" > "$work/tampered.log" 2>&1 || status=$?
cat "$work/tampered.log"
if [ "$status" -eq 0 ] || ! grep -q 'sha256' "$work/tampered.log" || [ -e "$work/installed-bad/schema2iceberg" ]; then
  fail "the installer did not refuse an archive whose checksum does not match"
fi
cp "$work/good.sha256" "$archive.sha256"
echo "installer: installs the archive; refuses a wrong checksum and installs nothing"

# docs/ci.md's GitHub Actions recipe installs the same archive with a pinned checksum: its
# install step, run as written, against a folder laid out like the release downloads.
mkdir -p "$work/releases/v$version" "$work/runner"
cp "$archive" "$work/releases/v$version/"
python3 - docs/ci.md > "$work/gha-install.sh" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
block = next(b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "name: Install schema2iceberg" in b)
lines = block.split("\n")
start = next(i for i, line in enumerate(lines) if "name: Install schema2iceberg" in line) + 1
assert lines[start].strip() == "run: |", lines[start]
indent = len(lines[start]) - len(lines[start].lstrip()) + 2
for line in lines[start + 1:]:
    if line.strip() and len(line) - len(line.lstrip()) < indent:
        break
    print(line[indent:])
PY
: > "$work/runner/path"
(cd "$work/runner" &&
  SCHEMA2ICEBERG_VERSION="$version" SCHEMA2ICEBERG_RELEASES="file://$work/releases" \
  SCHEMA2ICEBERG_SHA256="$(cut -d' ' -f1 < "$archive.sha256")" \
  RUNNER_TEMP="$work/runner" GITHUB_PATH="$work/runner/path" bash -e "$work/gha-install.sh")
got="$("$(cat "$work/runner/path")/schema2iceberg" --version)"
[ "$got" = "$expected_version" ] || fail "docs/ci.md's install step gave a binary that printed '$got'"
status=0
(cd "$work/runner" &&
  SCHEMA2ICEBERG_VERSION="$version" SCHEMA2ICEBERG_RELEASES="file://$work/releases" \
  SCHEMA2ICEBERG_SHA256="$(printf '%064d' 0)" \
  RUNNER_TEMP="$work/runner" GITHUB_PATH="$work/runner/path" bash -e "$work/gha-install.sh") > /dev/null 2>&1 || status=$?
[ "$status" -ne 0 ] || fail "docs/ci.md's install step accepted an archive with another checksum"
echo "docs/ci.md's GitHub Actions install step: installs the pinned archive; fails on another checksum"

echo "$meta" > "$work/metadata.json"
python3 - "$work/metadata.json" "$version" "$platform" "$(basename "$archive")" "$(tar -tzf "$archive" | tr '\n' ' ')" <<'PY'
import json, sys
metadata, version, platform, archive, members = sys.argv[1:4] + [sys.argv[4], sys.argv[5].split()]
with open(metadata) as f:
    pkg = next(p for p in json.load(f)["packages"] if p["name"] == "schema2iceberg")
binstall = pkg["metadata"]["binstall"]

def expand(template, target):
    values = {"repo": "REPO", "version": version, "name": "schema2iceberg", "target": target,
              "bin": "schema2iceberg", "binary-ext": ".exe" if "-windows-" in target else ""}
    for key, value in values.items():
        template = template.replace("{ %s }" % key, value)
    return template

def check(what, got, expected):
    if got != expected:
        sys.exit(f"error: [package.metadata.binstall] {what} gives {got!r}, not {expected!r}")

prefix = f"REPO/releases/download/v{version}/"
check("pkg-url", expand(binstall["pkg-url"], platform), prefix + archive)
if expand(binstall["bin-dir"], platform) not in members:
    sys.exit(f"error: bin-dir {expand(binstall['bin-dir'], platform)!r} is not in {archive}: {members}")
windows = "x86_64-pc-windows-msvc"
override = binstall["overrides"][windows]
check("pkg-url for Windows", expand(override["pkg-url"], windows), f"{prefix}schema2iceberg-{windows}.zip")
check("pkg-fmt for Windows", override["pkg-fmt"], "zip")
print(f"binstall: {expand(binstall['pkg-url'], platform)} holds {expand(binstall['bin-dir'], platform)}")
PY

echo "== 3. the pre-commit hooks that build nothing (pip sees only $wheelhouse)"
pin="$(sed -n 's/^dependencies = \["schema2iceberg==\(.*\)"\]$/\1/p' pre-commit-wheel/pyproject.toml)"
[ "$pin" = "$version" ] || fail "pre-commit-wheel/pyproject.toml pins schema2iceberg==$pin, not $version"
pre_commit="$work/tools/bin/pre-commit"
export PRE_COMMIT_HOME="$work/pre-commit-home"
export PIP_FIND_LINKS="$wheelhouse"
export PIP_NO_INDEX=1

hook_repo="$work/hook-repo"
cp -R pre-commit-wheel "$hook_repo"
git -C "$hook_repo" init --quiet
git -C "$hook_repo" add .
git -C "$hook_repo" -c user.email=hook-test@example.com -c user.name="hook test" commit --quiet -m "hook repository"

data="$work/data-repo"
mkdir -p "$data/schemas"
cd "$data"
git init --quiet
git config user.email hook-test@example.com
git config user.name "hook test"
cat > schema2iceberg.toml <<'TOML'
[[schemas]]
files = "schemas/*.json"
partition = "created_at"
TOML
good='{"type": "object", "properties": {"order_id": {"type": "string"}, "created_at": {"type": "string", "format": "date-time"}}, "required": ["order_id", "created_at"]}'
bad='{"type": "object", "properties": {"order_id": {"type": ["string", "integer"]}, "created_at": {"type": "string", "format": "date-time"}}, "required": ["order_id", "created_at"]}'
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: local
    hooks:
      - id: schema2iceberg-check
        name: schema2iceberg check
        entry: schema2iceberg check
        language: python
        additional_dependencies: ["schema2iceberg==$version"]
        files: \.json$
        require_serial: true
YAML
echo "$good" > schemas/orders.json
git add .
git commit --quiet -m "orders schema"

# Runs one form of the hook on the good schema (must pass) and the bad one (must fail with
# error[union-type]), each staged as a change to schemas/orders.json.
run_form() {
  local name="$1"
  shift
  echo "${good//\"order_id\"/\"id\"}" > schemas/orders.json
  git add schemas/orders.json
  local start=$SECONDS
  if ! "$@" > "$work/form-good.log" 2>&1; then
    cat "$work/form-good.log"
    fail "$name: the hook failed on a good schema"
  fi
  local seconds=$((SECONDS - start))
  grep -q 'Passed' "$work/form-good.log" || { cat "$work/form-good.log"; fail "$name: the hook did not run"; }
  echo "$bad" > schemas/orders.json
  git add schemas/orders.json
  local status=0
  "$@" > "$work/form-bad.log" 2>&1 || status=$?
  if [ "$status" -eq 0 ] || ! grep -q 'error\[union-type\]' "$work/form-bad.log"; then
    cat "$work/form-bad.log"
    fail "$name: the hook did not fail a union type with error[union-type]"
  fi
  git checkout --quiet HEAD -- schemas/orders.json
  echo "$name: installed and passed a good schema in $seconds s; failed a union type with error[union-type]"
  if [ "$seconds" -ge 60 ]; then
    fail "$name: installing and running took $seconds s, not under 60"
  fi
}

run_form "hook repository pre-commit-wheel/ (pre-commit try-repo)" \
  "$pre_commit" try-repo "$hook_repo" schema2iceberg-check --verbose
run_form "repo: local with additional_dependencies (pre-commit run)" \
  "$pre_commit" run schema2iceberg-check --verbose
# Only now is the wheel's binary on PATH: the forms above had to install it themselves.
export PATH="$work/venv/bin:$PATH"
run_form "schema2iceberg-check-system, the installed binary (pre-commit try-repo)" \
  "$pre_commit" try-repo "$repo" schema2iceberg-check-system --verbose
echo "== ok: the wheel, the installer, the binstall names and the three fast pre-commit forms work"
