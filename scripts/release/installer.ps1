# Installs schema2iceberg __VERSION__ for Windows (x86_64) from its release archive, checking the
# archive's sha256:
#   powershell -ExecutionPolicy Bypass -c "irm __DOWNLOAD_URL__/schema2iceberg-installer.ps1 | iex"
#
# Settings (environment variables):
#   SCHEMA2ICEBERG_INSTALL_DIR   where schema2iceberg.exe goes
#                                (default: %LOCALAPPDATA%\Programs\schema2iceberg\bin)
#   SCHEMA2ICEBERG_DOWNLOAD_URL  where the archives are (default: this release on GitHub)
#
# This file is a template in the schema2iceberg repository (scripts/release/installer.ps1); the
# release workflow fills in the version and the release's address.
$ErrorActionPreference = 'Stop'

$version = '__VERSION__'
$downloadUrl = if ($env:SCHEMA2ICEBERG_DOWNLOAD_URL) { $env:SCHEMA2ICEBERG_DOWNLOAD_URL } else { '__DOWNLOAD_URL__' }
$installDir = if ($env:SCHEMA2ICEBERG_INSTALL_DIR) { $env:SCHEMA2ICEBERG_INSTALL_DIR } else { Join-Path $env:LOCALAPPDATA 'Programs\schema2iceberg\bin' }

$arch = [System.Runtime.InteropServices.RuntimeInformation]::OSArchitecture
if ($arch -ne [System.Runtime.InteropServices.Architecture]::X64) {
    throw "schema2iceberg installer: no release archive for $arch; build from source: cargo install --locked schema2iceberg"
}
$target = 'x86_64-pc-windows-msvc'
$archive = "schema2iceberg-$target.zip"

$tmp = Join-Path ([System.IO.Path]::GetTempPath()) ([System.Guid]::NewGuid().ToString())
New-Item -ItemType Directory -Path $tmp | Out-Null
try {
    Write-Host "schema2iceberg installer: downloading schema2iceberg $version for $target"
    Invoke-WebRequest -UseBasicParsing -Uri "$downloadUrl/$archive" -OutFile (Join-Path $tmp $archive)
    Invoke-WebRequest -UseBasicParsing -Uri "$downloadUrl/$archive.sha256" -OutFile (Join-Path $tmp "$archive.sha256")

    $expected = ((Get-Content (Join-Path $tmp "$archive.sha256") -Raw).Trim() -split '\s+')[0].ToLowerInvariant()
    $actual = (Get-FileHash -Algorithm SHA256 (Join-Path $tmp $archive)).Hash.ToLowerInvariant()
    if ($actual -ne $expected) {
        throw "schema2iceberg installer: $archive has sha256 $actual, but the release says $expected; nothing was installed"
    }

    Expand-Archive -Path (Join-Path $tmp $archive) -DestinationPath $tmp
    New-Item -ItemType Directory -Force -Path $installDir | Out-Null
    $exe = Join-Path $installDir 'schema2iceberg.exe'
    Copy-Item -Force (Join-Path $tmp "schema2iceberg-$target\schema2iceberg.exe") $exe
    Write-Host "schema2iceberg installer: installed $(& $exe --version) at $exe"

    $userPath = [Environment]::GetEnvironmentVariable('Path', 'User')
    if (-not (($userPath -split ';') -contains $installDir)) {
        [Environment]::SetEnvironmentVariable('Path', "$installDir;$userPath", 'User')
        Write-Host "schema2iceberg installer: added $installDir to your PATH (new terminals see it)"
    }
} finally {
    Remove-Item -Recurse -Force $tmp
}
