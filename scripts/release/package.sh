#!/usr/bin/env bash
# Packs one release archive and its checksum:
#   schema2iceberg-TARGET.tar.gz (schema2iceberg-TARGET.zip for Windows), holding the folder
#   schema2iceberg-TARGET/ with the binary and README.md, and
#   schema2iceberg-TARGET.tar.gz.sha256 ("HASH  NAME", what `sha256sum -c` reads).
# The names are the ones [package.metadata.binstall] in crates/cli/Cargo.toml and the installers
# (scripts/release/installer.sh, installer.ps1) ask for.
#
# Usage: scripts/release/package.sh TARGET BINARY OUT_DIR
# .github/workflows/release.yml runs it for each target; scripts/test-wheel.sh runs it on the
# binary of the locally built wheel to test the shell installer.
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 TARGET BINARY OUT_DIR" >&2
  exit 2
fi
target="$1"
binary="$2"
mkdir -p "$3"
out="$(cd "$3" && pwd)"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
name="schema2iceberg-$target"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp "$binary" "$stage/$name/"
cp "$repo/README.md" "$stage/$name/"

case "$target" in
  *-windows-*)
    archive="$name.zip"
    (cd "$stage" && 7z a -tzip -bd "$out/$archive" "$name" >/dev/null)
    ;;
  *)
    archive="$name.tar.gz"
    chmod 755 "$stage/$name/$(basename "$binary")"
    tar -C "$stage" -czf "$out/$archive" "$name"
    ;;
esac

if command -v sha256sum >/dev/null 2>&1; then
  hash="$(sha256sum "$out/$archive" | cut -d' ' -f1)"
else
  hash="$(shasum -a 256 "$out/$archive" | cut -d' ' -f1)"
fi
printf '%s  %s\n' "$hash" "$archive" > "$out/$archive.sha256"
echo "$out/$archive"
