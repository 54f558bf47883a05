#!/usr/bin/env bash
# Point lookups in one full memtable (io.ringbase.bench.engines.MemtableBench), in one JVM: keys the
# memtable holds and keys it does not, ns per lookup, several rounds. Flags go to MemtableBench
# (--memtable-size, --value-size, --lookups, --rounds; --help lists them). Example:
#   bench/memtable-bench.sh --value-size 100
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/bin/find-jdk.sh"
ringbase_find_jdk || exit 1
"$ROOT/bin/ringbase" --version >/dev/null || { echo "memtable-bench: the build failed" >&2; exit 1; }
echo "\$ $0 $*"
exec "$JAVA_HOME/bin/java" -Xmx512m -XX:+UseG1GC --enable-native-access=ALL-UNNAMED \
  -cp "$ROOT/ringbase-bench/target/ringbase-bench.jar" io.ringbase.bench.engines.MemtableBench "$@"
