#!/usr/bin/env bash
# Rebuilds the .wasm test modules from their .wat sources (npm's wabt; the tests read the checked-in .wasm).
set -euo pipefail
cd "$(dirname "$0")"
for f in *.wat; do
  npx -y -p wabt@1.0.39 wat2wasm "$f" -o "${f%.wat}.wasm"
done
