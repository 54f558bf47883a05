#!/usr/bin/env bash
# The engines on tables larger than the page cache: each engine alone in a memory cgroup whose
# limit (page cache included) is smaller than its tables, the page cache dropped before each, running
# bench/engine-bench.sh. Needs root (a cgroup, /proc/sys/vm/drop_caches). Usage:
#   bench/cold-read-bench.sh [--limit 1536M] [--engines lsm,rocksdb] [EngineBench flags...]
#   bench/cold-read-bench.sh --keys 3000000 --value-sizes 1024 --reads 30000 --seeks 10000
# Each engine's table goes to stdout, as engine-bench prints it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LIMIT=1536M
ENGINES=lsm,rocksdb
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --limit) LIMIT="$2"; shift 2 ;;
    --engines) ENGINES="$2"; shift 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
if [ "$(id -u)" != 0 ]; then
  echo "cold-read-bench: needs root, for a memory cgroup and to drop the page cache" >&2
  exit 1
fi
# build outside the cgroup, so that the limit holds only the bench
"$ROOT/bin/ringbase" --version >/dev/null || { echo "cold-read-bench: the build failed" >&2; exit 1; }
WORK=""
. "$ROOT/bench/lib.sh"
memory_cgroup ringbase-cold-read-bench "$LIMIT"
trap 'rmdir "$CG" 2>/dev/null || true' EXIT
echo "# memory limit $LIMIT (page cache included), read_ahead_kb: $(read_ahead_summary), commit $(git -C "$ROOT" rev-parse --short HEAD)"
IFS=, read -r -a LIST <<< "$ENGINES"
for engine in "${LIST[@]}"; do
  sync
  echo 3 > /proc/sys/vm/drop_caches
  echo "## $engine"
  "${IN_CGROUP[@]}" "$ROOT/bench/engine-bench.sh" --engines "$engine" "${ARGS[@]}"
done
