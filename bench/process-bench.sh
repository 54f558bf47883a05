#!/usr/bin/env bash
# A map job with the identity function beside the plain range scan, on the same data (issue 38's target:
# map at >= 50% of the scan's MB/s with 1 KiB values), once per functions engine in one run: fills one
# node's data directory offline (bench/repair/Load.java), copies it for each engine, starts one node per
# engine (`serve --functions-engine interpreter|compiler`, all on SERVER_CPU; only one is busy at a time),
# uploads the identity module (ringbase-server/src/test/resources/functions/identity.wasm) to each, then
# each round runs on every node in turn (the order flips every round, so neither engine always goes
# first) GET /v0/entities and POST /v0/process?fn=identity&mode=map (both chunked, key\nvalue per chunk;
# the job adds one summary chunk) with curl, reporting bytes, time and MB/s of each and map / scan.
# Usage:
#   bench/process-bench.sh [--keys N] [--value-bytes B] [--rounds R] [--engines E,...]
#     --keys         keys loaded (default 100000; env KEYS)
#     --value-bytes  value size (default 1024; env VALUE_SIZE)
#     --rounds       full scans per engine, one after the other (default 3)
#     --engines      functions engines to compare (default interpreter,compiler)
# The nodes are pinned to SERVER_CPU (default 0) and curl to WRK_CPU (default 1); only 127.0.0.1 is
# contacted. Needs about KEYS x (VALUE + 40) bytes of disk under TMPDIR per engine.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMDLINE="$0 $*"
KEYS=${KEYS:-100000}
VALUE_SIZE=${VALUE_SIZE:-1024}
ROUNDS=3
ENGINES=interpreter,compiler
while [ $# -gt 0 ]; do
  case "$1" in
    --keys) KEYS=$2; shift 2 ;;
    --value-bytes) VALUE_SIZE=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --engines) ENGINES=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-process-bench.XXXXXX")
. "$ROOT/bench/lib.sh"
stop_all_on_exit
IFS=, read -r -a ENGINE_LIST <<<"$ENGINES"
for e in "${ENGINE_LIST[@]}"; do
  case "$e" in interpreter|compiler) ;; *) die "--engines takes interpreter and compiler, got '$e'" ;; esac
done

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
echo "data:     $(du -sh "$WORK/data" | cut -f1) in $(ls "$WORK/data" | grep -c '\.sst$') SSTables, one copy per engine"

declare -A PORT_OF
for e in "${ENGINE_LIST[@]}"; do
  mkdir -p "$WORK/$e"
  cp -a "$WORK/data" "$WORK/$e/data"
  PORT_OF[$e]=$(free_port)
  t0=$(date +%s.%N)
  start_node "$e" "${PORT_OF[$e]}" --functions-engine "$e" # polls for the ready line every 0.1 s
  echo "start:    $e node $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s from launch to the ready line (JVM start included)"
  t0=$(date +%s.%N)
  code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT \
    --data-binary @"$ROOT/ringbase-server/src/test/resources/functions/identity.wasm" \
    "http://127.0.0.1:${PORT_OF[$e]}/v0/functions/identity")
  [ "$code" = 201 ] || die "the upload to the $e node answered $code"
  echo "upload:   $e node $(printf '%.3f' "$(echo "$(date +%s.%N) - $t0" | bc)") s (checks the module; the compiler compiles it)"
done
rm -rf "$WORK/data"

# one_round ENGINE ROUND: a scan, then a map job, on ENGINE's node
one_round() {
  local e=$1 r=$2 port=${PORT_OF[$1]} size secs code scan_mbs map_mbs
  read -r size secs code < <(taskset -c "$WRK_CPU" curl -s -o /dev/null -w '%{size_download} %{time_total} %{http_code}\n' \
    "http://127.0.0.1:$port/v0/entities?start=key-")
  [ "$code" = 200 ] || die "the scan on the $e node answered $code"
  scan_mbs=$(echo "scale=1; $size / $secs / 1000000" | bc)
  echo "RESULT round=$r engine=$e kind=scan keys=$KEYS value_bytes=$VALUE_SIZE body_bytes=$size seconds=$secs MB_per_s=$scan_mbs"
  read -r size secs code < <(taskset -c "$WRK_CPU" curl -s -o /dev/null -X POST -w '%{size_download} %{time_total} %{http_code}\n' \
    "http://127.0.0.1:$port/v0/process?fn=identity&start=key-&mode=map")
  [ "$code" = 200 ] || die "the map job on the $e node answered $code"
  map_mbs=$(echo "scale=1; $size / $secs / 1000000" | bc)
  echo "RESULT round=$r engine=$e kind=map-identity keys=$KEYS value_bytes=$VALUE_SIZE body_bytes=$size seconds=$secs MB_per_s=$map_mbs map_over_scan=$(echo "scale=2; $map_mbs / $scan_mbs" | bc)"
}

for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then order=("${ENGINE_LIST[@]}"); else order=(); for ((i=${#ENGINE_LIST[@]}-1; i>=0; i--)); do order+=("${ENGINE_LIST[$i]}"); done; fi
  for e in "${order[@]}"; do one_round "$e" "$r" | tee -a "$WORK/results"; done
done

# medians over the rounds after the first (the JIT warms in round 1)
echo "== medians of rounds 2-$ROUNDS (round 1 warms the JIT)"
for e in "${ENGINE_LIST[@]}"; do
  awk -v e="$e" '
    function median(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
      return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
    }
    $0 ~ "engine=" e " " {
      split($2, rr, "="); if (rr[2] + 0 < 2) next
      for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
      if (f["kind"] == "scan") scan[++ns] = f["MB_per_s"]
      else { map[++nm] = f["MB_per_s"]; ratio[nm] = f["map_over_scan"] }
    }
    END {
      if (nm == 0) { print "SUMMARY engine=" e " (one round only: no medians)"; exit }
      printf "SUMMARY engine=%s rounds=%d scan_MB_per_s=%.1f map_MB_per_s=%.1f map_over_scan=%.2f\n", e, nm, median(scan, ns), median(map, nm), median(ratio, nm)
    }' "$WORK/results"
done
