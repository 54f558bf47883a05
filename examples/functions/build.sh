#!/usr/bin/env bash
# Builds the example functions to build/<name>.wasm with AssemblyScript from the npm registry
# (package.json pins it). No runtime (stub: nothing is freed, the ABI needs no GC) and no abort import,
# so each module imports only ringbase.emit (and ringbase.log).
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x node_modules/.bin/asc ]; then
  npm install --no-audit --no-fund
fi
mkdir -p build
for name in filter wordcount upper; do
  node_modules/.bin/asc "assembly/$name.ts" -o "build/$name.wasm" --runtime stub --use abort= -O3 --noAssert
  echo "built build/$name.wasm ($(wc -c < "build/$name.wasm") bytes)"
done
