#!/usr/bin/env bash
# The storage engines head to head, in one JVM (io.ringbase.bench.engines.EngineBench): our LSM engine
# and RocksDB on fillrandom, readrandom, readmissing, seekrandom and a full scan, alternating phase by
# phase. Flags go to EngineBench (--keys, --value-sizes, --reads, --seeks, --scan-length, --dir, --out,
# --engines, --cold; --help lists them). Examples:
#   bench/engine-bench.sh                                # 1M keys, 100 B and 1 KiB values
#   bench/engine-bench.sh --keys 100000 --reads 50000    # a quick look
#   bench/engine-bench.sh --cold                         # reads from the disk: page cache dropped (root)
#   ENGINE_BENCH_HEAP=512m bench/engine-bench.sh --keys 10000000 --dir /big/disk/eb
# With "overwrite" first, it runs io.ringbase.bench.engines.OverwriteBench instead: the compaction
# strategies of our engine side by side on 1M keys overwritten 10 times (--keys, --value-size,
# --overwrites, --strategies, --dir, --out; --help lists them); space, write and read amplification:
#   bench/engine-bench.sh overwrite
# The heap is a node's (128 MiB) unless ENGINE_BENCH_HEAP is set; the table goes to stdout.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/bin/find-jdk.sh"
ringbase_find_jdk || exit 1
# bin/ringbase builds the modules when a source is newer than the last build; --version runs no node
"$ROOT/bin/ringbase" --version >/dev/null || { echo "engine-bench: the build failed" >&2; exit 1; }
JAR="$ROOT/ringbase-bench/target/ringbase-bench.jar"
MAIN=io.ringbase.bench.engines.EngineBench
if [[ "${1:-}" == overwrite ]]; then
  MAIN=io.ringbase.bench.engines.OverwriteBench
  shift
fi
cd "$ROOT"
exec "$JAVA_HOME/bin/java" -Xmx"${ENGINE_BENCH_HEAP:-128m}" -XX:+UseG1GC --enable-native-access=ALL-UNNAMED \
  -cp "$JAR" "$MAIN" "$@"
