#!/usr/bin/env bash
# Random GETs through HTTP on tables larger than the page cache: each engine's node alone in a
# memory cgroup whose limit (page cache included) is smaller than its data, the page cache dropped
# before each run, then wrk -t1 -c64 GETs of random keys that all exist.
# Usage:
#   bench/cold-http-bench.sh [--keys N] [--value-bytes B] [--limit 1536M] [--engines lsm,rocksdb]
#                            [--rounds R] [--duration 30s] [--warmup 0s] [--dir DIR]
#     --keys         keys written (default 3000000); values LZ4 cannot compress, so the tables
#                    hold about KEYS x (VALUE + 30) bytes
#     --value-bytes  value size (default 1024)
#     --limit        the cgroup's memory limit (default 1536M)
#     --engines      engines measured, in this order, every round (default lsm,rocksdb)
#     --rounds       rounds over the engines (default 2)
#     --duration     wrk's measured run per engine and round (default 30s)
#     --warmup       an unmeasured wrk run of the same GETs before it, on the same node (default none):
#                    the JIT compiles and the tables' read paths settle; the page cache fills only
#                    up to the limit, about half of the data with the defaults
#     --dir          where each engine's data directory is kept (default $TMPDIR/ringbase-cold-http);
#                    a directory filled by an earlier run with the same --keys and --value-bytes is
#                    reused, so a second run skips the fill
#     --serve-flags  more flags for the measured nodes' serve command, e.g. "--no-inline-requests"
# Needs root (a cgroup, /proc/sys/vm/drop_caches). The node runs on SERVER_CPU (default 0) and wrk on
# WRK_CPU (default 1); only 127.0.0.1 is contacted. The fill runs outside the cgroup.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMDLINE="$0 $*"
KEYS=3000000
VALUE_SIZE=1024
LIMIT=1536M
ENGINES=lsm,rocksdb
ROUNDS=2
RUN=30s
WARMUP=""
DIR="${TMPDIR:-/tmp}/ringbase-cold-http"
SERVE_FLAGS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --keys) KEYS=$2; shift 2 ;;
    --value-bytes) VALUE_SIZE=$2; shift 2 ;;
    --limit) LIMIT=$2; shift 2 ;;
    --engines) ENGINES=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --duration) RUN=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --serve-flags) SERVE_FLAGS=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" != 0 ]; then
  echo "cold-http-bench: needs root, for a memory cgroup and to drop the page cache" >&2
  exit 1
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-cold-http-bench.XXXXXX")
. "$ROOT/bench/lib.sh"
export KEYS VALUE_SIZE

memory_cgroup ringbase-cold-http-bench "$LIMIT"
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_ringbase || true
  rmdir "$CG" 2>/dev/null || true
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ensure_tools wrk:wrk curl:curl bc:bc
echo "== Ringbase cold-read HTTP bench: random GETs over data larger than the page cache"
echo "command:  $CMDLINE"
echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine:  $(nproc) CPUs, $(free -h | awk '/^Mem:/ {print $2}') memory; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit:   $(git -C "$ROOT" rev-parse --short HEAD)$( [ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ] && echo ', working tree has uncommitted changes')"
echo "setup:    node on CPU $SERVER_CPU${SERVE_FLAGS:+ (serve $SERVE_FLAGS)} in a cgroup of $LIMIT (page cache included), wrk -t1 -c$CONNS on CPU $WRK_CPU, $RUN per run${WARMUP:+ after a warm-up of $WARMUP}; read_ahead_kb: $(read_ahead_summary)"
# build outside the cgroup, so that the limit holds only the node
ensure_ringbase

engine_flags() { [ "$1" = rocksdb ] && echo "--engine rocksdb" || true; }

IFS=, read -r -a LIST <<< "$ENGINES"
for engine in "${LIST[@]}"; do
  data="$DIR/$engine-$KEYS-$VALUE_SIZE"
  if [ -f "$data.filled" ]; then
    log "$engine: reusing $data ($(du -sh "$data" | cut -f1))"
    continue
  fi
  rm -rf "$data" "$data.filled"; mkdir -p "$data"
  PORT=$(free_port)
  # shellcheck disable=SC2046
  start_ringbase "$PORT" "$data" $(engine_flags "$engine")
  log "$engine: writing $KEYS keys of $VALUE_SIZE incompressible bytes"
  taskset -c "$WRK_CPU" wrk -t1 -c"$CONNS" -d1h --timeout 10s -s "$BENCH_LUA_DIR/fill-incompressible.lua" \
    "http://127.0.0.1:$PORT" >"$WORK/fill-$engine.wrk" 2>&1 || true
  created=$(sed -n 's/.* 201=\([0-9]*\) .*/\1/p' "$WORK/fill-$engine.wrk")
  [ "${created:-0}" = "$KEYS" ] || { cat "$WORK/fill-$engine.wrk" >&2; die "$engine: the fill got ${created:-no} 201s for $KEYS keys"; }
  stop_ringbase >/dev/null
  touch "$data.filled"
  log "$engine: filled, $(du -sh "$data" | cut -f1)"
done

RB_LAUNCH_PREFIX=("${IN_CGROUP[@]}") # the measured nodes run in the cgroup (the fills above do not)
printf '\n| round | engine | data | req/s | p50 ms | p99 ms | non-200 | tables read with pread |\n|---|---|---|---:|---:|---:|---:|---:|\n' > "$WORK/table"
for round in $(seq 1 "$ROUNDS"); do
  for engine in "${LIST[@]}"; do
    data="$DIR/$engine-$KEYS-$VALUE_SIZE"
    sync
    echo 3 > /proc/sys/vm/drop_caches
    PORT=$(free_port)
    # shellcheck disable=SC2046
    start_ringbase "$PORT" "$data" $(engine_flags "$engine") $SERVE_FLAGS
    if [ -n "$WARMUP" ]; then
      log "round $round, $engine: $WARMUP of random GETs to warm up"
      taskset -c "$WRK_CPU" wrk -t1 -c"$CONNS" -d"$WARMUP" --timeout 10s -s "$BENCH_LUA_DIR/get-random.lua" \
        "http://127.0.0.1:$PORT" >/dev/null 2>&1 || true
    fi
    log "round $round, $engine: $RUN of random GETs"
    taskset -c "$WRK_CPU" wrk -t1 -c"$CONNS" -d"$RUN" --timeout 10s --latency -s "$BENCH_LUA_DIR/get-random.lua" \
      "http://127.0.0.1:$PORT" >"$WORK/get.wrk" 2>&1 || true
    pread=$(curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^ringbase_sstables_read_with_pread/ {print $2}')
    stop_ringbase >/dev/null
    res=$(grep '^RESULT' "$WORK/get.wrk" || true)
    [ -n "$res" ] || { cat "$WORK/get.wrk" >&2; die "wrk printed no result"; }
    v() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<< "$res"; }
    non200=$(( $(sed -n 's/^STATUS total=\([0-9]*\) .* 200=\([0-9]*\) .*/\1-\2/p' "$WORK/get.wrk") ))
    printf '| %s | %s | %s | %.0f | %.2f | %.2f | %s | %s |\n' "$round" "$engine" "$(du -sh "$data" | cut -f1)" \
      "$(v rps)" "$(echo "$(v p50)/1000" | bc -l)" "$(echo "$(v p99)/1000" | bc -l)" "$non200" "${pread:--}" | tee -a "$WORK/table" >&2
  done
done
cat "$WORK/table"
