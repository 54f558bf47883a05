#!/usr/bin/env bash
# A node's GET latency at a fixed rate, alone and while a function spins (issue 38's isolation target:
# "the node keeps serving other requests at its normal p99 meanwhile"). Fills a data directory offline
# (bench/repair/Load.java), starts one node per functions engine (`serve --functions-engine`), uploads
# ringbase-server/src/test/resources/functions/forever.wasm (map loops forever on every record), and
# each round runs, on each node in turn, a constant-rate GET load of existing keys with bench/rategen
# (wrk2's model: latency from each request's intended send time; `ringbase bench` runs it too) twice:
#   alone  the load only;
#   spin   the load while POST /v0/process?fn=forever&onError=skip runs over the keys, every call
#          stopped by the time limit (1 s) and skipped, so a function pool thread spins the whole run;
#          the job is cancelled (DELETE /v0/process/<id>) after the load.
# Prints both p99s (and p50, p99.9, max) side by side per round, then the medians.
# The function pool runs at SCHED_IDLE (io.ringbase.functions.Jobs.PRIORITY); --priorities idle,normal
# also runs a node whose background threads stay at normal priority (-Dringbase.background.lowest=0,
# which also keeps flush and compaction at nice 0; this load writes nothing), for the difference.
# Usage:
#   bench/spin-p99.sh [--rate R] [-d SECONDS] [--rounds N] [--engines E,...] [--priorities P,...] [--keys N]
#     --rate     GET requests per second (default 5000)
#     -d         seconds per load run (default 20)
#     --rounds   alone/spin pairs per engine (default 3)
#     --engines  functions engines (default compiler,interpreter)
#     --priorities  idle (the node as it ships) and/or normal (default idle)
#     --keys     keys loaded, 100-byte values (default 100000)
# The node is pinned to SERVER_CPU (default 0: the function pool then has one thread, on the node's only
# CPU, so a spinning call competes with the request path for it) and rategen to WRK_CPU (default 1), 64
# connections (CONNS); only 127.0.0.1 is contacted.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMDLINE="$0 $*"
RATE=5000
SECONDS_PER_RUN=20
ROUNDS=3
ENGINES=compiler,interpreter
NKEYS=100000
PRIORITIES=idle
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) RATE=$2; shift 2 ;;
    -d) SECONDS_PER_RUN=${2%s}; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --engines) ENGINES=$2; shift 2 ;;
    --keys) NKEYS=$2; shift 2 ;;
 --priorities) PRIORITIES=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-spin-p99.XXXXXX")
. "$ROOT/bench/lib.sh"
stop_all_on_exit
IFS=, read -r -a ENGINE_LIST <<<"$ENGINES"
for e in "${ENGINE_LIST[@]}"; do
  case "$e" in interpreter|compiler) ;; *) die "--engines takes interpreter and compiler, got '$e'" ;; esac
done
IFS=, read -r -a PRIORITY_LIST <<<"$PRIORITIES"
CONFIGS=()
for p in "${PRIORITY_LIST[@]}"; do
  case "$p" in idle|normal) ;; *) die "--priorities takes idle and normal, got '$p'" ;; esac
  for e in "${ENGINE_LIST[@]}"; do CONFIGS+=("$e-$p"); done
done

ensure_tools curl:curl cc:gcc taskset:util-linux
GEN="$WORK/rategen"
cc -O2 -o "$GEN" "$ROOT/bench/rategen/rategen.c" || die "could not compile bench/rategen/rategen.c"
echo "== Ringbase spin p99: GET at a fixed rate, alone and while a function spins into its time limit"
echo "command:  $CMDLINE"
echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine:  $(nproc) CPUs, $(free -h | awk '/^Mem:/ {print $2}') memory; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit:   $(git -C "$ROOT" rev-parse --short HEAD)$( [ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ] && echo ', working tree has uncommitted changes')"
echo "load:     $RATE GET/s for $SECONDS_PER_RUN s per run, $CONNS connections, node on CPU $SERVER_CPU, rategen on CPU $WRK_CPU"
ensure_ringbase
. "$ROOT/bin/find-jdk.sh"
ringbase_find_jdk || exit 1

log "loading $NKEYS keys of 100 bytes (offline, through the engine)"
"$JAVA_HOME/bin/java" -Xmx256m --enable-native-access=ALL-UNNAMED \
  -cp "$ROOT/ringbase-server/target/ringbase.jar:$ROOT/ringbase-server/target/lib/*" \
  "$ROOT/bench/repair/Load.java" "$WORK/data" "$NKEYS" 100 2>"$WORK/load.log" | tail -n 1

# run_load NAME PORT: the GET load; leaves rategen's output in $WORK/NAME.out
run_load() {
  local name=$1 port=$2
  awk -v n="$NKEYS" -v p="$port" 'BEGIN { srand(7); for (i = 0; i < 20000; i++) printf "http://127.0.0.1:%d/v0/entity?id=key-%010d\n", p, int(rand() * n) }' \
    >"$WORK/urls-$port"
  taskset -c "$WRK_CPU" "$GEN" -f "$WORK/urls-$port" -R "$RATE" -d "$SECONDS_PER_RUN" -c "$CONNS" >"$WORK/$name.out"
}

# ms FIELD NAME: a latency of rategen's RESULT line, in ms
ms() { sed -n "s/^RESULT .*\b$1=\([0-9]*\).*/\1/p" "$WORK/$2.out" | head -n 1 | awk '{ printf "%.2f", $1 / 1000 }'; }
rfield() { sed -n "s/^RESULT .*\b$1=\([0-9]*\).*/\1/p" "$WORK/$2.out" | head -n 1; }

printf '%-18s %-5s %-6s %9s %9s %9s %9s %9s %8s %s\n' node round run p50_ms p99_ms p99.9_ms max_ms ok errors job >"$WORK/table"
declare -A PORT_OF
for e in "${CONFIGS[@]}"; do
  mkdir -p "$WORK/$e"
  cp -a "$WORK/data" "$WORK/$e/data"
  port=$(free_port)
  PORT_OF[$e]=$port
  if [ "${e##*-}" = normal ]; then
    RINGBASE_JAVA_OPTS="${RINGBASE_JAVA_OPTS:-} -Dringbase.background.lowest=0" start_node "$e" "$port" --functions-engine "${e%-*}"
  else
    start_node "$e" "$port" --functions-engine "${e%-*}"
  fi
  code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT \
    --data-binary @"$ROOT/ringbase-server/src/test/resources/functions/forever.wasm" \
    "http://127.0.0.1:$port/v0/functions/forever")
  [ "$code" = 201 ] || die "the upload to the $e node answered $code"
  log "$e: warming the node up ($SECONDS_PER_RUN s of the load, not counted)"
  run_load "$e-warm" "$port"
done

# every round runs each node in turn (alone, then spin), so that the machine's other load falls on all alike
for r in $(seq 1 "$ROUNDS"); do
  for e in "${CONFIGS[@]}"; do
    port=${PORT_OF[$e]}
    for run in alone spin; do
      job="-"
      if [ "$run" = spin ]; then
        id="spin-$e-$r"
        taskset -c "$WRK_CPU" curl -s -o "$WORK/$id.body" -X POST \
          "http://127.0.0.1:$port/v0/process?fn=forever&start=key-&onError=skip&id=$id" &
        JOB_CURL=$!
        for i in $(seq 1 100); do # until the job is listed (it then spins at once), at most 10 s
          [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v0/process/$id")" = 200 ] && break
          sleep 0.1
        done
      fi
      log "$e round $r: $run"
      run_load "$e-$r-$run" "$port"
      if [ "$run" = spin ]; then
        status=$(curl -s "http://127.0.0.1:$port/v0/process/$id")
        job="keysSeen=$(echo "$status" | sed -n 's/.*"keysSeen":\([0-9]*\).*/\1/p'),errors=$(echo "$status" | sed -n 's/.*"errors":\([0-9]*\).*/\1/p')"
        [ "$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "http://127.0.0.1:$port/v0/process/$id")" = 202 ] \
          || die "cancelling job $id failed: it was not running ($status)"
        wait "$JOB_CURL" || true
      fi
      line=$(printf '%-18s %-5s %-6s %9s %9s %9s %9s %9s %8s %s' "$e" "$r" "$run" "$(ms p50 "$e-$r-$run")" \
        "$(ms p99 "$e-$r-$run")" "$(ms p999 "$e-$r-$run")" "$(ms max "$e-$r-$run")" "$(rfield ok "$e-$r-$run")" \
        "$(rfield errors "$e-$r-$run")" "$job")
      echo "$line" >>"$WORK/table"
      echo "RESULT $line"
    done
  done
done

echo
echo "== GET latency at $RATE req/s, alone and while a function spins (ms; from each request's intended send time)"
cat "$WORK/table"
echo
echo "== medians over the rounds"
for e in "${CONFIGS[@]}"; do
  for run in alone spin; do
    awk -v e="$e" -v run="$run" '
      function median(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
        return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
      }
      $1 == e && $3 == run { n++; p50[n] = $4; p99[n] = $5; p999[n] = $6 }
      END { printf "SUMMARY engine=%s run=%s rounds=%d p50_ms=%.2f p99_ms=%.2f p99.9_ms=%.2f\n", e, run, n, median(p50, n), median(p99, n), median(p999, n) }
    ' "$WORK/table"
  done
done
