#!/usr/bin/env bash
# Runs one Ringbase scenario (PUT into an empty node, or GET of random existing keys) under
# async-profiler, with the same pinning and wrk load as http-bench.sh, and writes
#   bench/profiles/<date>-<scenario>-{cpu,alloc}.html       flame graphs
#   bench/profiles/<date>-<scenario>-{cpu,alloc}.txt        top frames (flat) and top traces
#   bench/profiles/<date>-<scenario>-{cpu,alloc}.collapsed  collapsed stacks
# CPU and allocation are profiled one after the other on the same node (each for DURATION),
# attached with jcmd JVMTI.agent_load only for the measured window (not prefill, not warm-up).
# Usage: bench/profile.sh put|get [-d DURATION] [--keys N] [-- serve flags...]
#   async-profiler comes from Maven Central (tools.profiler:async-profiler, latest unless
#   ASYNC_PROFILER_VERSION is set) into bench/.cache/. CPU event: 'cpu' (perf events) if the
#   kernel allows, otherwise 'itimer' (said in the output).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMDLINE="$0 $*"
SCENARIO=${1:-}
case "$SCENARIO" in put|get) shift ;; *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;; esac
SERVE_ARGS=()
WARMUP=${WARMUP:-15s}
while [ $# -gt 0 ]; do
  case "$1" in
    -d|--duration) DURATION=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --) shift; SERVE_ARGS=("$@"); break ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
DURATION=${DURATION:-30s}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-profile.XXXXXX")
. "$ROOT/bench/lib.sh"
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_ringbase >&2 || true
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ensure_tools wrk:wrk curl:curl taskset:util-linux unzip:unzip

# ---------------------------------------------------------------- async-profiler
CACHE="$ROOT/bench/.cache"
mkdir -p "$CACHE"
MAVEN=https://repo.maven.apache.org/maven2/tools/profiler/async-profiler
AP_VERSION=${ASYNC_PROFILER_VERSION:-}
if [ -z "$AP_VERSION" ]; then
  AP_VERSION=$(curl -fsS "$MAVEN/maven-metadata.xml" | sed -n 's:.*<release>\(.*\)</release>.*:\1:p' || true)
  [ -n "$AP_VERSION" ] || AP_VERSION=$(ls "$CACHE" | sed -n 's/^async-profiler-\(.*\)$/\1/p' | sort -V | tail -n 1)
  [ -n "$AP_VERSION" ] || die "could not look up async-profiler's version on Maven Central (and none cached)"
fi
AP_DIR="$CACHE/async-profiler-$AP_VERSION"
AP_LIB="$AP_DIR/libasyncProfiler.so"
if [ ! -f "$AP_LIB" ]; then
  log "fetching tools.profiler:async-profiler:$AP_VERSION from Maven Central"
  mkdir -p "$AP_DIR"
  curl -fsS -o "$AP_DIR/async-profiler.jar" "$MAVEN/$AP_VERSION/async-profiler-$AP_VERSION.jar" \
    || die "download of async-profiler $AP_VERSION failed"
  unzip -o -q -j "$AP_DIR/async-profiler.jar" linux-x64/libasyncProfiler.so -d "$AP_DIR" \
    || die "no linux-x64/libasyncProfiler.so in the async-profiler jar"
fi

. "$ROOT/bin/find-jdk.sh"
ringbase_find_jdk || exit 1
JCMD="$JAVA_HOME/bin/jcmd"
ap() {  # ap PID "agent options": runs one async-profiler command inside the node
  # The options go in double quotes: jcmd's own parser would otherwise split them at '='.
  "$JCMD" "$1" JVMTI.agent_load "$AP_LIB" "\"$2\"" >"$WORK/jcmd.out" 2>&1 || { cat "$WORK/jcmd.out" >&2; return 1; }
  # jcmd prints the agent's return code; anything but 0 means async-profiler refused (the reason
  # goes to the node's stderr, i.e. its log).
  if ! grep -q 'return code: 0' "$WORK/jcmd.out"; then
    cat "$WORK/jcmd.out" >&2; tail -n 3 "$RB_LOG" >&2; return 1
  fi
  return 0
}

STAMP=$(date -u +%Y%m%d-%H%M%S)
OUT="$ROOT/bench/profiles"
mkdir -p "$OUT"
print_header "Ringbase profile: $SCENARIO" "$CMDLINE"
echo "profiler: async-profiler $AP_VERSION ($AP_LIB); kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?')"

ensure_ringbase
RB_PORT=$(free_port)
RB_URL="http://127.0.0.1:$RB_PORT"
start_ringbase "$RB_PORT" "$WORK/data" "${SERVE_ARGS[@]}"
JPID=$(pgrep -P "$RB_PID" java || echo "$RB_PID")   # taskset execs, the launcher execs java

if [ "$SCENARIO" = get ]; then
  echo "-- prefill: PUT keys 0..$((KEYS - 1)) once each"
  METHOD=PUT run_wrk prefill "$RB_URL" walk.lua 900s >"$WORK/prefill.txt"
  grep -E '^(WALK|STATUS|RESULT)' "$WORK/prefill.txt"
  [ "$(field prefill 201)" -ge "$KEYS" ] && [ "$(field prefill non2xx)" = 0 ] || die "prefill incomplete"
  LUA=get-random.lua
else
  LUA=put.lua
fi
if [ "$WARMUP" != 0 ]; then
  # Warm the JIT on the very path we profile (PUTs under their own keys "w<n>"), so the
  # profile shows the steady state rather than the C2 compiler.
  log "warm-up: $WARMUP of the $SCENARIO load (not profiled)"
  KEY_PREFIX=w taskset -c "$WRK_CPU" wrk -t1 -c"$CONNS" -d"$WARMUP" -s "$BENCH_LUA_DIR/$LUA" "$RB_URL" >/dev/null
fi

# CPU event: perf-based 'cpu' if it works here, else 'itimer'.
CPU_EVENT=cpu
if ! ap "$JPID" "start,event=cpu,interval=1ms"; then
  CPU_EVENT=itimer
  echo "!! event=cpu (perf_events) refused here; falling back to event=itimer"
  ap "$JPID" "start,event=itimer,interval=1ms" || die "async-profiler could not start"
else
  ap "$JPID" "stop,file=$WORK/discard.txt" || true
fi

for kind in cpu alloc; do
  if [ "$kind" = cpu ]; then ev="event=$CPU_EVENT,interval=1ms"; else ev="event=alloc"; fi
  base="$OUT/$STAMP-$SCENARIO-$kind"
  echo
  echo "-- $SCENARIO under async-profiler $ev for $DURATION"
  ap "$JPID" "start,$ev" || die "async-profiler start ($ev) failed"
  run_wrk "$SCENARIO-$kind" "$RB_URL" "$LUA" "$DURATION" | grep -E '^(\$|STATUS|RESULT|Requests/sec)'
  ap "$JPID" "dump,file=$base.txt,flat=25,traces=12" || die "dump failed"
  ap "$JPID" "dump,file=$base.collapsed,collapsed,threads" || die "dump failed"
  ap "$JPID" "stop,file=$base.html,title=Ringbase $SCENARIO $kind $STAMP" || die "stop failed"
  echo "flame graph: $base.html"
  echo "top frames (self), from $base.txt:"
  sed -n '/ns  *percent  *samples  *top/,$p; /bytes  *percent  *samples  *top/,$p' "$base.txt" | head -n 27
  echo "where the samples go (bench/profile-classes.awk):"
  awk -f "$ROOT/bench/profile-classes.awk" "$base.collapsed"
done
stop_ringbase
