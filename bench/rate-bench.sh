#!/usr/bin/env bash
# Fixed-rate latency of one node, with the causes beside the effects: for each workload (PUT of new
# keys, GET of existing keys) and each rate, a constant-rate oha run (latency corrected for
# coordinated omission) and, over the same window, the node's GC pauses (its -Xlog:gc log), heap bytes
# allocated per request (JFR's per-thread allocation counters) and peak anonymous/file RSS.
#
#   bench/rate-bench.sh                               # put and get at 10k, 20k, 40k req/s, 20 s each
#   bench/rate-bench.sh --rates 20000 -d 60s --only put
#   bench/rate-bench.sh --keys 200000 -- --memtable-size 8m     # flags after -- go to `ringbase serve`
#   RINGBASE_JAVA_OPTS=-XX:+UseSerialGC bench/rate-bench.sh   # JVM flags of the node
#
# Layout: the node pinned to CPU 0 (SERVER_CPU), oha with one worker thread pinned to CPU 1 (LOAD_CPU),
# 64 connections (CONNS), 100-byte values (VALUE_SIZE), the launcher's 128 MiB heap. Everything talks
# to 127.0.0.1 only; every run is bounded by oha's -z. Output: stdout (a table at the end).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d /tmp/ringbase-rate-bench.XXXXXX)"
. "$ROOT/bench/lib.sh"
LOAD_CPU=${LOAD_CPU:-1}
RATES=10000,20000,40000
DURATION=20s
WARMUP=15s
ONLY="put get"
SERVE_FLAGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rates) RATES=$2; shift 2 ;;
    -d) DURATION=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --keys) KEYS=$2; export KEYS; shift 2 ;;
    --) shift; SERVE_FLAGS=("$@"); break ;;
    *) die "unknown argument $1 (see the head of $0)" ;;
  esac
done
OHA="$ROOT/bench/.cache/oha/bin/oha"
cleanup() { stop_ringbase >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT

ensure_tools wrk:wrk taskset:util-linux curl:curl
[ -x "$OHA" ] || die "oha is missing: run 'cargo install oha --version 1.16.0 --locked --root bench/.cache/oha' (or 'bin/ringbase bench' once, which does it)"
ensure_ringbase
. "$ROOT/bin/find-jdk.sh"; ringbase_find_jdk
JCMD="$JAVA_HOME/bin/jcmd"; JFR="$JAVA_HOME/bin/jfr"
cat >"$WORK/alloc.jfc" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="ringbase-alloc">
  <event name="jdk.ThreadAllocationStatistics"><setting name="enabled">true</setting><setting name="period">1 s</setting></event>
</configuration>
EOF
head -c "$VALUE_SIZE" /dev/zero | tr '\0' 'v' >"$WORK/body"

print_header "rate-bench" "$0 --rates $RATES -d $DURATION --only '$ONLY' ${SERVE_FLAGS[*]:+-- ${SERVE_FLAGS[*]}}"
echo "oha:      $("$OHA" --version 2>&1 | head -n 1) pinned to CPU $LOAD_CPU, 1 worker thread, --latency-correction"
echo "node jvm: -Xmx${RINGBASE_HEAP:-128m} ${RINGBASE_JAVA_OPTS:-}"
echo

# Sums the heap bytes allocated by the node between the first and last JFR sample (per thread).
alloc_bytes() {
  "$JFR" print --json --events jdk.ThreadAllocationStatistics "$1" 2>/dev/null | python3 -c '
import json, sys
first, last = {}, {}
for e in json.load(sys.stdin)["recording"]["events"]:
    v = e["values"]; t = v["thread"]["javaThreadId"] if v.get("thread") else None
    first.setdefault(t, v["allocated"]); last[t] = v["allocated"]
print(sum(last[t] - first[t] for t in last))'
}

# GC pauses (count, total ms, max ms) in the node's GC log between uptimes $2 and $3 (seconds).
gc_pauses() {
  awk -v from="$2" -v to="$3" '
    /Pause/ && /ms$/ {
      up = $1; gsub(/[\[\]s]/, "", up); up += 0
      if (up < from || up > to) next
      ms = $NF; sub(/ms$/, "", ms); ms += 0; n++; tot += ms; if (ms > mx) mx = ms
    }
    END { printf "%d %.1f %.1f\n", n, tot, mx }' "$1"
}

uptime_s() { "$JCMD" "$1" VM.uptime 2>/dev/null | awk 'NR==2 { print $1 + 0 }'; }

rss_sampler() { # pid out: peak RssAnon and RssFile (kB) every 0.5 s until killed
  local pid=$1 out=$2 a f pa=0 pf=0
  while kill -0 "$pid" 2>/dev/null; do
    a=$(awk '/^RssAnon/ {print $2}' /proc/"$pid"/status 2>/dev/null || echo 0)
    f=$(awk '/^RssFile/ {print $2}' /proc/"$pid"/status 2>/dev/null || echo 0)
    [ "${a:-0}" -gt "$pa" ] && pa=$a; [ "${f:-0}" -gt "$pf" ] && pf=$f
    echo "$pa $pf" >"$out"; sleep 0.5
  done
}

ROWS=()
# run_rate NAME RATE URLSPEC...: one measured oha run at RATE; appends a row to ROWS.
run_rate() {
  local name=$1 rate=$2; shift 2
  local jfr="$WORK/$name-$rate.jfr" json="$WORK/$name-$rate.json"
  "$JCMD" "$RB_PID" JFR.start name=rb settings="$WORK/alloc.jfc" filename="$jfr" >/dev/null
  local t0; t0=$(uptime_s "$RB_PID")
  rss_sampler "$RB_PID" "$WORK/rss" & local sampler=$!
  taskset -c "$LOAD_CPU" "$OHA" --no-tui --worker-threads 1 -z "$DURATION" -q "$rate" --latency-correction \
    -c "$CONNS" -t 10s --output-format json "$@" >"$json" 2>"$WORK/oha.err" || { cat "$WORK/oha.err" >&2; die "oha failed"; }
  local t1; t1=$(uptime_s "$RB_PID")
  kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true
  "$JCMD" "$RB_PID" JFR.stop name=rb >/dev/null
  local alloc; alloc=$(alloc_bytes "$jfr")
  read -r gcn gct gcm < <(gc_pauses "$GC_LOG" "$t0" "$t1")
  read -r anon file < "$WORK/rss"
  python3 - "$json" "$name" "$rate" "$alloc" "$gcn" "$gct" "$gcm" "$anon" "$file" >>"$WORK/rows" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
name, rate, alloc, gcn, gct, gcm, anon, file = sys.argv[2:]
s, p = j["summary"], j["latencyPercentiles"]
codes = j.get("statusCodeDistribution", {})
n = sum(codes.values())
ok = sum(v for k, v in codes.items() if k.startswith("2"))
errs = sum(j.get("errorDistribution", {}).values())
ms = lambda v: "%.2f" % (v * 1000) if v is not None else "-"
print("| %s | %s | %.0f | %s | %s | %s | %s | %d | %d | %s / %s / %s | %.0f | %d / %d |" % (
    name, rate, s["requestsPerSec"], ms(p["p50"]), ms(p["p99"]), ms(p.get("p99.9")), ms(s["slowest"]),
    n - ok, errs, gcn, gct, gcm, int(alloc) / max(n, 1), int(anon) // 1024, int(file) // 1024))
EOF
  tail -n 1 "$WORK/rows"
}

start_node() {
  GC_LOG="$WORK/gc-$1.log"
  RINGBASE_JAVA_OPTS="${RINGBASE_JAVA_OPTS:-} -Xlog:gc:file=$GC_LOG:uptime" \
    start_ringbase "$(free_port)" "$WORK/data-$1" "${SERVE_FLAGS[@]}"
  PORT=$(sed -n 's#.*http://[^:]*:\([0-9]*\).*#\1#p' "$RB_OUT" | head -n 1)
  [ -n "$PORT" ] || die "no port in the ready line: $(head -n 1 "$RB_OUT")"
}

echo "| workload | target/s | achieved/s | p50 ms | p99 ms | p99.9 ms | max ms | non-2xx | errors | GC pauses n / total ms / max ms | alloc B/req | RSS anon / file MB |" >"$WORK/rows"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|" >>"$WORK/rows"
IFS=, read -r -a RATE_LIST <<<"$RATES"
for w in $ONLY; do
  case "$w" in
    put)
      start_node put
      url="http://127.0.0.1:$PORT/v0/entity\\?id=u[0-9]{12}"   # a regex: the ? escaped
      log "warm-up: PUT at ${RATE_LIST[0]}/s for $WARMUP"
      taskset -c "$LOAD_CPU" "$OHA" --no-tui --worker-threads 1 -z "$WARMUP" -q "${RATE_LIST[0]}" -c "$CONNS" \
        -m PUT -D "$WORK/body" --rand-regex-url "$url" >/dev/null 2>&1
      for r in "${RATE_LIST[@]}"; do
        log "PUT at $r/s for $DURATION"
        run_rate put "$r" -m PUT -D "$WORK/body" -T application/octet-stream --rand-regex-url "$url"
      done
      stop_ringbase ;;
    get)
      start_node get
      log "prefill: $KEYS keys of $VALUE_SIZE bytes"
      METHOD=PUT taskset -c "$LOAD_CPU" wrk -t1 -c"$CONNS" -d600s --timeout 10s -s "$BENCH_LUA_DIR/walk.lua" \
        "http://127.0.0.1:$PORT" >"$WORK/prefill.wrk" 2>&1
      grep -q "201=$KEYS " "$WORK/prefill.wrk" || { cat "$WORK/prefill.wrk"; die "prefill: not every PUT answered 201"; }
      awk -v n="$KEYS" -v p="$PORT" 'BEGIN { srand(42); for (i = 0; i < 1000000; i++) printf "http://127.0.0.1:%s/v0/entity?id=%d\n", p, int(rand() * n) }' >"$WORK/urls"
      log "warm-up: GET at ${RATE_LIST[0]}/s for $WARMUP"
      taskset -c "$LOAD_CPU" "$OHA" --no-tui --worker-threads 1 -z "$WARMUP" -q "${RATE_LIST[0]}" -c "$CONNS" \
        --urls-from-file "$WORK/urls" >/dev/null 2>&1
      for r in "${RATE_LIST[@]}"; do
        log "GET at $r/s for $DURATION"
        run_rate get "$r" --urls-from-file "$WORK/urls"
      done
      stop_ringbase ;;
    *) die "unknown workload $w (put, get)" ;;
  esac
done
echo
cat "$WORK/rows"
