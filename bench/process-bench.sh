#!/usr/bin/env bash
# A map job with the identity function beside the plain range scan, on the same data (issue 38's target:
# map at >= 50% of the scan's MB/s with 1 KiB values): fills one node's data directory offline
# (bench/repair/Load.java), starts the node, uploads the identity module
# (ringbase-server/src/test/resources/functions/identity.wasm), then alternates GET /v0/entities and
# POST /v0/process?fn=identity&mode=map (both chunked, key\nvalue per chunk; the job adds one summary
# chunk) with curl, reporting bytes, time and MB/s of each. Functions run in Chicory's interpreter.
# Usage:
#   bench/process-bench.sh [--keys N] [--value-bytes B] [--rounds R]
#     --keys         keys loaded (default 100000; env KEYS)
#     --value-bytes  value size (default 1024; env VALUE_SIZE)
#     --rounds       full scans, one after the other (default 3)
# The node is pinned to SERVER_CPU (default 0) and curl to WRK_CPU (default 1); only 127.0.0.1 is
# contacted. Needs about KEYS x (VALUE + 40) bytes of disk under TMPDIR.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMDLINE="$0 $*"
KEYS=${KEYS:-100000}
VALUE_SIZE=${VALUE_SIZE:-1024}
ROUNDS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --keys) KEYS=$2; shift 2 ;;
    --value-bytes) VALUE_SIZE=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-process-bench.XXXXXX")
. "$ROOT/bench/lib.sh"

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_ringbase || true
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ensure_tools curl:curl bc:bc
echo "== Ringbase process bench: a map job with the identity function beside the range scan"
echo "command:  $CMDLINE"
echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine:  $(nproc) CPUs, $(free -h | awk '/^Mem:/ {print $2}') memory; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit:   $(git -C "$ROOT" rev-parse --short HEAD)$( [ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ] && echo ', working tree has uncommitted changes')"
ensure_ringbase
. "$ROOT/bin/find-jdk.sh"
ringbase_find_jdk || exit 1

log "loading $KEYS keys of $VALUE_SIZE bytes (offline, through the engine)"
"$JAVA_HOME/bin/java" -Xmx256m --enable-native-access=ALL-UNNAMED \
  -cp "$ROOT/ringbase-server/target/ringbase.jar:$ROOT/ringbase-server/target/lib/*" \
  "$ROOT/bench/repair/Load.java" "$WORK/data" "$KEYS" "$VALUE_SIZE" 2>"$WORK/load.log" | tail -n 1
echo "data:     $(du -sh "$WORK/data" | cut -f1) in $(ls "$WORK/data" | grep -c '\.sst$') SSTables"

PORT=$(free_port)
t0=$(date +%s.%N)
start_ringbase "$PORT" "$WORK/data" # pinned to SERVER_CPU; polls for the ready line every 0.1 s
echo "start:    $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s from launch to the ready line (JVM start included)"

code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$ROOT/ringbase-server/src/test/resources/functions/identity.wasm" \
  "http://127.0.0.1:$PORT/v0/functions/identity")
[ "$code" = 201 ] || die "the upload answered $code"

for r in $(seq 1 "$ROUNDS"); do
  read -r size secs code < <(taskset -c "$WRK_CPU" curl -s -o /dev/null -w '%{size_download} %{time_total} %{http_code}\n' \
    "http://127.0.0.1:$PORT/v0/entities?start=key-")
  [ "$code" = 200 ] || die "the scan answered $code"
  echo "RESULT round=$r kind=scan keys=$KEYS value_bytes=$VALUE_SIZE body_bytes=$size seconds=$secs MB_per_s=$(echo "scale=1; $size / $secs / 1000000" | bc)"
  read -r size secs code < <(taskset -c "$WRK_CPU" curl -s -o /dev/null -X POST -w '%{size_download} %{time_total} %{http_code}\n' \
    "http://127.0.0.1:$PORT/v0/process?fn=identity&start=key-&mode=map")
  [ "$code" = 200 ] || die "the map job answered $code"
  echo "RESULT round=$r kind=map-identity keys=$KEYS value_bytes=$VALUE_SIZE body_bytes=$size seconds=$secs MB_per_s=$(echo "scale=1; $size / $secs / 1000000" | bc)"
done
