#!/usr/bin/env bash
# Fixed-rate latency of one node, with the causes beside the effects: for each workload (PUT of new
# keys, GET of existing keys) and each rate, a constant-rate run of bench/rategen (wrk2's model:
# latency from each request's intended send time, so corrected for coordinated omission) and, over the
# same window, the node's GC pauses (its -Xlog:gc log), its safepoints (-Xlog:safepoint: the time to
# reach one, which GC pause figures leave out, and the whole stop), heap bytes allocated per request (JFR's
# per-thread allocation counters), the node's CPU time per request and peak anonymous/file RSS. The
# same rates against nginx's fixed `return 201` come first: the floor of this machine and generator.
#
#   bench/rate-bench.sh                               # put and get at 10k, 20k, 40k req/s, 20 s each
#   bench/rate-bench.sh --rates 20000 -d 60s --only put
#   bench/rate-bench.sh --keys 200000 -- --memtable-size 8m     # flags after -- go to `ringbase serve`
#   RINGBASE_JAVA_OPTS=-XX:+UseSerialGC bench/rate-bench.sh   # JVM flags of the node
#   bench/rate-bench.sh --rates 30000 -d 300s --warmup 0s --no-settle --no-floor --only put  # fresh node
#
# --no-floor leaves out nginx's runs. --no-settle measures right after the warm-up, without first
# waiting for the node's first compaction; --warmup 0s skips the warm-up too, so the measured run starts
# at the node's ready line. Each measured run also prints its five slowest seconds (by max latency, from
# rategen's SECOND lines).
#
# Layout: the node pinned to CPU 0 (SERVER_CPU), the generator pinned to CPU 1 (LOAD_CPU),
# 64 connections (CONNS), 100-byte values (VALUE_SIZE), the launcher's 128 MiB heap. Everything talks
# to 127.0.0.1 only; every run is bounded by the generator's -d. Output: stdout (a table at the end).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/ringbase-rate-bench.XXXXXX")"
. "$ROOT/bench/lib.sh"
LOAD_CPU=${LOAD_CPU:-1}
RATES=10000,20000,40000
DURATION=20s
WARMUP=15s
ONLY="put get"
SETTLE=1
FLOOR=1
SERVE_FLAGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rates) RATES=$2; shift 2 ;;
    -d) DURATION=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --no-settle) SETTLE=0; shift ;;
    --no-floor) FLOOR=0; shift ;;
    --keys) KEYS=$2; export KEYS; shift 2 ;;
    --) shift; SERVE_FLAGS=("$@"); break ;;
    *) die "unknown argument $1 (see the head of $0)" ;;
  esac
done
GEN="$WORK/rategen"
cleanup() { stop_ringbase >/dev/null 2>&1 || true; [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

ensure_tools wrk:wrk taskset:util-linux curl:curl nginx:nginx-light cc:gcc
cc -O2 -o "$GEN" "$ROOT/bench/rategen/rategen.c" || die "could not compile bench/rategen/rategen.c"
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
echo "load:     bench/rategen (one epoll thread, wrk2's constant-rate model) pinned to CPU $LOAD_CPU"
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

# safepoints LOG FROM TO: how many safepoints ended in [FROM, TO] (JVM uptime, s), the longest time any
# took to reach (all threads stopped: GC pause figures leave that out) and the longest total stop, in ms,
# from the node's -Xlog:safepoint lines ("Reaching safepoint: N ns", "Total: N ns").
safepoints() {
  awk -v from="$2" -v to="$3" '
    /Safepoint "/ {
      up = $1; gsub(/[\[\]s]/, "", up); up += 0
      if (up < from || up > to) next
      for (i = 1; i <= NF; i++) { if ($i == "Reaching") r = $(i + 2) + 0; if ($i == "Total:") t = $(i + 1) + 0 }
      n++; if (r > mr) mr = r; if (t > mt) mt = t
    }
    END { printf "%d %.1f %.1f\n", n, mr / 1e6, mt / 1e6 }' "$1"
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

# warm_up LABEL RATEGEN-ARGS...: the warm-up before a workload's measured runs, as two generator runs
# (half of WARMUP each). When the first one's connections close, the JIT deoptimizes the event loop's
# hottest methods (their compiled code never saw a read return end-of-stream) and compiles them again
# under the second run's load; with one run that happened in the first second of the measured run
# instead: 23-81 ms at 20k PUT/s, 28-237 ms at 40k/s. The measured runs
# are then steady state, as a node is after its first clients have come and gone.
warm_up() {
  local label=$1; shift
  if [ "${WARMUP%s}" -eq 0 ]; then log "warm-up: none"; return 0; fi
  local half=$(( ${WARMUP%s} / 2 )); [ "$half" -ge 1 ] || half=1
  log "warm-up: $label, two runs of ${half} s"
  local i
  for i in 1 2; do
    taskset -c "$LOAD_CPU" "$GEN" -d "$half" -c "$CONNS" "$@" >/dev/null
  done
}

# metric NAME: the node's value of metric NAME (an integer; empty if /metrics does not answer).
metric() { curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics" | awk -v n="$1" '$1 == n { printf "%d", $2 }'; }

# settle_writes RATEGEN-ARGS...: after the PUT warm-up, more of the same load in 5 s runs (at most 24)
# until the node has finished its first compaction. Its first flush and first compaction run storage
# code the JIT had compiled for the memtable's segments only; meeting mapped and heap segments there, it
# deoptimizes (class_check, bimorphic type checks in EntryFormat, SstableWriter and the segment
# VarHandles: 129 deoptimizations in 40 s at 44k PUT/s) and C2 recompiles on the node's one CPU for
# seconds, up to 180 of every 200 ms. A node that has run a while has done
# both; the measured runs then see flushes and compactions as in steady state.
settle_writes() {
  local i c
  for i in $(seq 0 24); do
    c=$(metric ringbase_compactions_total)
    if [ "${c:-1}" -ge 1 ]; then
      log "warm-up: first compaction done after $i more runs of 5 s"
      return 0
    fi
    [ "$i" -lt 24 ] || break
    taskset -c "$LOAD_CPU" "$GEN" -d 5 -c "$CONNS" "$@" >/dev/null
  done
  log "warm-up: still no compaction after 120 s more; measuring anyway"
}

ROWS=()
# run_rate NAME RATE RATEGEN-ARGS...: one measured run at RATE against the node; appends a row.
run_rate() {
  local name=$1 rate=$2; shift 2
  local jfr="$WORK/$name-$rate.jfr" out="$WORK/$name-$rate.out"
  "$JCMD" "$RB_PID" JFR.start name=rb settings="$WORK/alloc.jfc" filename="$jfr" >/dev/null
  local t0; t0=$(uptime_s "$RB_PID")
  local c0; c0=$(awk '{print $14 + $15}' /proc/"$RB_PID"/stat)
  rss_sampler "$RB_PID" "$WORK/rss" & local sampler=$!
  taskset -c "$LOAD_CPU" "$GEN" -R "$rate" -d "${DURATION%s}" -c "$CONNS" "$@" >"$out" \
    || { cat "$out" >&2; die "rategen failed"; }
  local c1; c1=$(awk '{print $14 + $15}' /proc/"$RB_PID"/stat)
  local t1; t1=$(uptime_s "$RB_PID")
  kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true
  "$JCMD" "$RB_PID" JFR.stop name=rb >/dev/null
  local alloc; alloc=$(alloc_bytes "$jfr")
  read -r gcn gct gcm < <(gc_pauses "$GC_LOG" "$t0" "$t1")
  read -r spn spr spt < <(safepoints "$SP_LOG" "$t0" "$t1")
  read -r anon file < "$WORK/rss"
  log "slowest seconds of $name at $rate/s (second, p99 us, max us, answered): $(awk '$1 == "SECOND" { p = $3; m = $4; n = $5; sub(/.*[=<]/, "", p); sub(/.*=/, "", m); sub(/.*=/, "", n); print $2, p, m, n }' "$out" | sort -k3,3nr | head -n 5 | paste -sd';' -)"
  row "$name" "$rate" "$out" "$alloc" "$gcn / $gct / $gcm" "$(( (c1 - c0) * 10000 ))" "$(( anon / 1024 )) / $(( file / 1024 ))" \
    "$spn / $spr / $spt"
}

# row NAME RATE RATEGEN-OUTPUT ALLOC GC CPU_US RSS SAFEPOINTS: one table row from rategen's RESULT line
# (CPU_US: the node's user+system CPU time over the run, in microseconds; clock ticks of 10 ms).
row() {
  local name=$1 rate=$2 out=$3 alloc=$4 gc=$5 cpu_us=$6 rss=$7 sp=$8
  local r; r=$(grep '^RESULT' "$out")
  f() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$r"; }
  awk -v n="$name" -v R="$rate" -v a="$(f rate)" -v p50="$(f p50)" -v p99="$(f p99)" -v p999="$(f p999)" \
      -v mx="$(f max)" -v bad="$(f status_other)" -v err="$(f errors)" -v gc="$gc" -v al="$alloc" -v ok="$(f ok)" \
      -v cpu="$cpu_us" -v rss="$rss" -v sp="$sp" 'BEGIN {
    printf "| %s | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %d | %d | %s | %s | %s | %s | %s |\n", n, R, a, p50/1000, p99/1000,
      p999/1000, mx/1000, bad, err, gc, sp, (al == "-" ? "-" : sprintf("%.0f", al / (ok > 0 ? ok : 1))),
      (cpu == "-" ? "-" : sprintf("%.1f", cpu / (ok > 0 ? ok : 1))), rss }' >>"$WORK/rows"
  tail -n 1 "$WORK/rows"
}

# The floor: nginx's fixed answer at each rate, with the same pinning and generator.
nginx_floor() {
  local port; port=$(free_port)
  printf 'worker_processes 1;\npid %s/nginx.pid;\nerror_log %s/nginx-error.log;\nevents { worker_connections 1024; }\nhttp { access_log off; keepalive_requests 100000000;\n  server { listen 127.0.0.1:%s; location / { return 201 ""; } } }\n' \
    "$WORK" "$WORK" "$port" >"$WORK/nginx.conf"
  taskset -c "$SERVER_CPU" nginx -c "$WORK/nginx.conf" || die "nginx did not start"
  sleep 0.5
  local r
  for r in "${RATE_LIST[@]}"; do
    log "nginx floor: PUT at $r/s for $DURATION"
    taskset -c "$LOAD_CPU" "$GEN" -u "http://127.0.0.1:$port/v0/entity?id={key}" -R "$r" -d "${DURATION%s}" -c "$CONNS" \
      -m PUT -b "$WORK/body" >"$WORK/nginx-$r.out"
    row "nginx (floor)" "$r" "$WORK/nginx-$r.out" "-" "-" "-" "-" "-"
  done
  kill "$(cat "$WORK/nginx.pid")"; rm -f "$WORK/nginx.pid"
}

start_node() {
  GC_LOG="$WORK/gc-$1.log"
  SP_LOG="$WORK/safepoint-$1.log"
  RINGBASE_JAVA_OPTS="${RINGBASE_JAVA_OPTS:-} -Xlog:gc:file=$GC_LOG:uptime -Xlog:safepoint:file=$SP_LOG:uptime" \
    start_ringbase "$(free_port)" "$WORK/data-$1" "${SERVE_FLAGS[@]}"
  PORT=$(sed -n 's#.*http://[^:]*:\([0-9]*\).*#\1#p' "$RB_OUT" | head -n 1)
  [ -n "$PORT" ] || die "no port in the ready line: $(head -n 1 "$RB_OUT")"
}

echo "| workload | target/s | achieved/s | p50 ms | p99 ms | p99.9 ms | max ms | non-2xx | errors | GC pauses n / total ms / max ms | safepoints n / max to reach ms / max total ms | alloc B/req | node CPU us/req | RSS anon / file MB |" >"$WORK/rows"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---|" >>"$WORK/rows"
IFS=, read -r -a RATE_LIST <<<"$RATES"
[ "$FLOOR" -eq 0 ] || nginx_floor
for w in $ONLY; do
  case "$w" in
    put)
      start_node put
      warm_up "PUT at ${RATE_LIST[0]}/s" -u "http://127.0.0.1:$PORT/v0/entity?id=w{key}" -R "${RATE_LIST[0]}" \
        -m PUT -b "$WORK/body"
      [ "$SETTLE" -eq 0 ] || settle_writes -u "http://127.0.0.1:$PORT/v0/entity?id=w{key}" -R "${RATE_LIST[0]}" -m PUT -b "$WORK/body"
      for r in "${RATE_LIST[@]}"; do
        log "PUT at $r/s for $DURATION"
        run_rate put "$r" -u "http://127.0.0.1:$PORT/v0/entity?id=u{key}" -m PUT -b "$WORK/body"
      done
      stop_ringbase ;;
    get)
      start_node get
      log "prefill: $KEYS keys of $VALUE_SIZE bytes"
      METHOD=PUT taskset -c "$LOAD_CPU" wrk -t1 -c"$CONNS" -d600s --timeout 10s -s "$BENCH_LUA_DIR/walk.lua" \
        "http://127.0.0.1:$PORT" >"$WORK/prefill.wrk" 2>&1
      grep -q "201=$KEYS " "$WORK/prefill.wrk" || { cat "$WORK/prefill.wrk"; die "prefill: not every PUT answered 201"; }
      warm_up "GET at ${RATE_LIST[0]}/s" -u "http://127.0.0.1:$PORT/v0/entity?id={key}" -K "$KEYS" -R "${RATE_LIST[0]}"
      for r in "${RATE_LIST[@]}"; do
        log "GET at $r/s for $DURATION"
        run_rate get "$r" -u "http://127.0.0.1:$PORT/v0/entity?id={key}" -K "$KEYS"
      done
      stop_ringbase ;;
    *) die "unknown workload $w (put, get)" ;;
  esac
done
echo
cat "$WORK/rows"
