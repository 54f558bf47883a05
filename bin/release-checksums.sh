#!/usr/bin/env bash
# Writes a SHA-256 checksum file beside each release tarball in ringbase-server/target
# (ringbase-<version>.tar.xz and ringbase-<version>-rocksdb-engine.tar.gz): <tarball>.sha256 in
# sha256sum's format ("<hex>  <file name>"), so that `sha256sum -c ringbase-<version>.tar.xz.sha256`
# checks a download in the same directory. Run after `./mvnw package`; step 4 of RELEASING.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT/ringbase-server/target"
shopt -s nullglob
tarballs=(ringbase-*.tar.xz ringbase-*.tar.gz)
[ ${#tarballs[@]} -gt 0 ] || { echo "release-checksums: no ringbase-*.tar.xz or ringbase-*.tar.gz in $PWD; run ./mvnw package first" >&2; exit 1; }
for t in "${tarballs[@]}"; do
  sha256sum "$t" > "$t.sha256"
  echo "$PWD/$t.sha256: $(cut -c1-16 "$t.sha256")...  $(du -h "$t" | cut -f1)"
done
