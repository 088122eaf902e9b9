#!/usr/bin/env bash
# Writes the release's installers, filled in from the templates beside this script:
#   OUT_DIR/schema2iceberg-installer.sh and OUT_DIR/schema2iceberg-installer.ps1,
# each with a .sha256 file. DOWNLOAD_URL is the folder the archives are in
# (https://github.com/OWNER/REPO/releases/download/vVERSION for a release).
#
# Usage: scripts/release/installers.sh VERSION DOWNLOAD_URL OUT_DIR
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 VERSION DOWNLOAD_URL OUT_DIR" >&2
  exit 2
fi
version="$1"
url="$2"
out="$3"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$out"
case "$version$url" in
  *'|'* | *'&'* | *\\*)
    echo "error: the version and the URL must not contain |, & or \\" >&2
    exit 2
    ;;
esac

for ext in sh ps1; do
  file="schema2iceberg-installer.$ext"
  sed -e "s|__VERSION__|$version|g" -e "s|__DOWNLOAD_URL__|$url|g" "$here/installer.$ext" > "$out/$file"
  if grep -q '__VERSION__\|__DOWNLOAD_URL__' "$out/$file"; then
    echo "error: $file still has a placeholder" >&2
    exit 1
  fi
  (cd "$out" && if command -v sha256sum >/dev/null 2>&1; then sha256sum "$file"; else shasum -a 256 "$file"; fi) > "$out/$file.sha256"
done
chmod 755 "$out/schema2iceberg-installer.sh"
