#!/usr/bin/env bash
# Inserts into a memtable and point lookups in a full one (io.ringbase.bench.engines.MemtableBench), in
# one JVM: ns per insert, and ns per lookup of keys the memtable holds and of keys it does not, several
# rounds. Flags go to MemtableBench (--memtable-size, --value-size, --lookups, --rounds, --sequential;
# --key-digits, --evict-bytes, --batch; --help lists them). Examples:
#   bench/memtable-bench.sh --value-size 100
#   bench/memtable-bench.sh --sequential      # keys inserted in increasing order
#   bench/memtable-bench.sh --key-digits 12 --evict-bytes 16384   # rategen's keys, caches cold as in a node
#   bench/memtable-bench.sh --batch 4         # inserts linked four at a time (Memtable.linkAll)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/bin/find-jdk.sh"
ringbase_find_jdk || exit 1
"$ROOT/bin/ringbase" --version >/dev/null || { echo "memtable-bench: the build failed" >&2; exit 1; }
echo "\$ $0 $*"
exec "$JAVA_HOME/bin/java" -Xmx512m -XX:+UseG1GC --enable-native-access=ALL-UNNAMED \
  -cp "$ROOT/ringbase-bench/target/ringbase-bench.jar" io.ringbase.bench.engines.MemtableBench "$@"
