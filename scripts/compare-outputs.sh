#!/usr/bin/env bash
# Compares two folders written by scripts/capture-outputs.sh (OLD: the binary before a change,
# NEW: after), file by file and byte for byte, and prints a summary: how many files are
# identical, which differ (with the start of each diff), and which are only on one side.
# CAPTURE.json (counts and settings of a capture) is not compared.
#
# Usage: scripts/compare-outputs.sh OLD NEW
# Environment: DIFF_LINES  lines of diff shown per differing file (default 20; 0 for none)
# Exit status: 0 when every file is identical and none is missing on either side, 1 otherwise,
# 2 on a usage error.
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 OLD NEW" >&2
    exit 2
fi
old=$1
new=$2
for dir in "$old" "$new"; do
    if [[ ! -d $dir ]]; then
        echo "$dir is not a folder" >&2
        exit 2
    fi
done
lines=${DIFF_LINES:-20}

list() {
    (cd "$1" && find . -type f ! -path ./CAPTURE.json -printf '%P\n' | LC_ALL=C sort)
}

identical=0
differing=()
only_old=()
only_new=()
while IFS= read -r file; do
    if [[ ! -f $new/$file ]]; then
        only_old+=("$file")
    elif cmp -s "$old/$file" "$new/$file"; then
        identical=$((identical + 1))
    else
        differing+=("$file")
    fi
done < <(list "$old")
while IFS= read -r file; do
    if [[ ! -f $old/$file ]]; then
        only_new+=("$file")
    fi
done < <(list "$new")

for file in "${differing[@]}"; do
    echo "=== differs: $file"
    if [[ $lines -gt 0 ]]; then
        diff -a -u "$old/$file" "$new/$file" | head -n "$lines" || true
    fi
done
echo
echo "identical: $identical"
echo "differing: ${#differing[@]}"
for file in "${differing[@]}"; do
    echo "  $file"
done
echo "missing in NEW ($new): ${#only_old[@]}"
for file in "${only_old[@]}"; do
    echo "  $file"
done
echo "missing in OLD ($old): ${#only_new[@]}"
for file in "${only_new[@]}"; do
    echo "  $file"
done
if [[ ${#differing[@]} -gt 0 || ${#only_old[@]} -gt 0 || ${#only_new[@]} -gt 0 ]]; then
    exit 1
fi
echo "no difference"
