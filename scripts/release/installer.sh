#!/bin/sh
# Installs schema2iceberg __VERSION__ from its release archives, checking the archive's sha256:
#   curl -LsSf __DOWNLOAD_URL__/schema2iceberg-installer.sh | sh
# Linux (x86_64, aarch64; static musl binaries, any distribution) and macOS (x86_64, arm64).
# Windows: schema2iceberg-installer.ps1.
#
# Settings (environment variables):
#   SCHEMA2ICEBERG_INSTALL_DIR   where the binary goes (default: $HOME/.local/bin)
#   SCHEMA2ICEBERG_DOWNLOAD_URL  where the archives are (default: this release on GitHub; a
#                                mirror, or file:///path for a folder of archives)
#
# This file is a template in the schema2iceberg repository (scripts/release/installer.sh); the
# release workflow fills in the version and the release's address.
set -eu

version="__VERSION__"
download_url="${SCHEMA2ICEBERG_DOWNLOAD_URL:-__DOWNLOAD_URL__}"
install_dir="${SCHEMA2ICEBERG_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}"

fail() {
  echo "schema2iceberg installer: error: $*" >&2
  exit 1
}

os="$(uname -s)"
arch="$(uname -m)"
case "$arch" in
  x86_64 | amd64) arch=x86_64 ;;
  aarch64 | arm64) arch=aarch64 ;;
  *) fail "no release archive for the processor $arch; build from source: cargo install --locked schema2iceberg" ;;
esac
case "$os" in
  Linux) target="$arch-unknown-linux-musl" ;;
  Darwin) target="$arch-apple-darwin" ;;
  *) fail "no release archive for $os; on Windows run schema2iceberg-installer.ps1" ;;
esac

archive="schema2iceberg-$target.tar.gz"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT INT TERM

download() {
  if command -v curl >/dev/null 2>&1; then
    curl --proto '=https,file' --tlsv1.2 -fsSL "$1" -o "$2"
  elif command -v wget >/dev/null 2>&1; then
    wget -q "$1" -O "$2"
  else
    fail "neither curl nor wget is installed"
  fi
}

echo "schema2iceberg installer: downloading schema2iceberg $version for $target"
download "$download_url/$archive" "$tmp/$archive" || fail "could not download $download_url/$archive"
download "$download_url/$archive.sha256" "$tmp/$archive.sha256" || fail "could not download $download_url/$archive.sha256"

expected="$(cut -d' ' -f1 < "$tmp/$archive.sha256")"
if command -v sha256sum >/dev/null 2>&1; then
  actual="$(sha256sum "$tmp/$archive" | cut -d' ' -f1)"
elif command -v shasum >/dev/null 2>&1; then
  actual="$(shasum -a 256 "$tmp/$archive" | cut -d' ' -f1)"
else
  fail "neither sha256sum nor shasum is installed, so the download cannot be checked"
fi
[ -n "$expected" ] && [ "$actual" = "$expected" ] ||
  fail "$archive has sha256 $actual, but the release says $expected; nothing was installed"

tar -xzf "$tmp/$archive" -C "$tmp"
mkdir -p "$install_dir"
# Copy, then rename: a running schema2iceberg is never overwritten in place.
cp "$tmp/schema2iceberg-$target/schema2iceberg" "$install_dir/.schema2iceberg.new"
chmod 755 "$install_dir/.schema2iceberg.new"
mv -f "$install_dir/.schema2iceberg.new" "$install_dir/schema2iceberg"

echo "schema2iceberg installer: installed $("$install_dir/schema2iceberg" --version) at $install_dir/schema2iceberg"
case ":${PATH:-}:" in
  *":$install_dir:"*) ;;
  *) echo "schema2iceberg installer: $install_dir is not on your PATH; add it, e.g. export PATH=\"$install_dir:\$PATH\"" ;;
esac
