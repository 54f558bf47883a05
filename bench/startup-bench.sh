#!/usr/bin/env bash
# Launch to ready: starts two nodes at once, each with an empty data directory, as a two-node cluster
# (`serve --cluster A,B --self A|B`; ALONE=1 for two independent nodes), and measures from the launch of
# `bin/ringbase serve` to the node's "Ringbase node ready" line on stdout. Repeats N times and prints each
# node's time, then the median and the max over all nodes, per source tree.
#
#   bench/startup-bench.sh [-n N] [TREE...]
#
# TREE: source trees to measure (default: this one), e.g. an export of an older commit
# (`git archive <commit> | tar -x -C /tmp/base`); with several, each repeat runs them one after the other,
# so that what else the machine is doing falls on all of them alike. Each tree builds on first use
# (bin/ringbase), before any measurement. TREE:noaot runs that tree with -XX:AOTMode=off, without the
# JVM's ahead-of-time cache that `bin/ringbase aot-train` makes (a tree without one runs without anyway),
# so `DIR DIR:noaot` measures what the cache buys.
# SERVE_ARGS: more flags for every node's `serve`, e.g. SERVE_ARGS="--warm-up 500ms".
# NODE_CPUS (default 0,1): the CPUs both nodes are pinned to (taskset -c), as a test harness that starts its
# nodes side by side on the machine's CPUs; "0" puts both on one CPU.
# The timestamps come from a reader of each node's stdout (date +%s%N per line), not from polling.
# Kills everything it started on exit (Ctrl-C too).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d /tmp/startup-bench.XXXXXX)"
STARTED=()
cleanup() {
  local p
  for p in ${STARTED[@]+"${STARTED[@]}"}; do kill -KILL "$p" 2>/dev/null || true; done
  for p in ${STARTED[@]+"${STARTED[@]}"}; do wait "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap 'rc=$?; trap - EXIT INT TERM; cleanup; exit "$rc"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
. "$ROOT/bench/lib.sh"

N=5
while [ $# -gt 0 ]; do
  case "$1" in
    -n) N="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown flag $1 (see $0 --help)" ;;
    *) break ;;
  esac
done
case "$N" in ''|*[!0-9]*|0) die "-n must be a positive number, got '$N'" ;; esac
TREES=("$@")
[ ${#TREES[@]} -gt 0 ] || TREES=("$ROOT")
NODE_CPUS=${NODE_CPUS:-0,1}


# Prints "<ns since epoch> <line>" for each line read: when the node wrote it, within a reader's wake-up.
stamp_lines() {
  local line
  while IFS= read -r line; do printf '%s %s\n' "$(date +%s%N)" "$line"; done
}

echo "== startup-bench: launch to ready, 2 nodes at once, empty data directories"
echo "command:  $0 -n $N ${*:-}"
echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine:  $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(free -h | awk '/^Mem:/ {print $2}') memory, $(uname -sr)"
. "$ROOT/bin/find-jdk.sh"
ringbase_find_jdk || die "no JDK 25 or newer found"
echo "jdk:      $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1) ($JAVA_HOME)"
echo "idle:     $(machine_idle)% of the CPUs idle over 1 s before the run; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
echo "nodes:    $( [ "${ALONE:-0}" = 1 ] && echo 'two nodes alone' || echo 'a two-node cluster (--cluster A,B --self)'), both pinned to CPUs $NODE_CPUS"
echo "serve:    ${SERVE_ARGS:-(no extra flags)}"
ti=0
for spec in "${TREES[@]}"; do
  ti=$((ti + 1))
  t="${spec%:noaot}"
  [ -x "$t/bin/ringbase" ] || die "$t has no bin/ringbase"
  # build before measuring (bin/ringbase builds on first use and when a source changed)
  "$t/bin/ringbase" serve --help >/dev/null 2>"$WORK/build.err" || { cat "$WORK/build.err" >&2; die "$t: bin/ringbase serve --help failed"; }
  aot="no ahead-of-time cache"
  if [ "$spec" != "$t" ]; then aot="ahead-of-time cache off (-XX:AOTMode=off)"
  elif [ -f "$t/target/ringbase.aot" ]; then aot="with target/ringbase.aot if its key matches (see each run)"; fi
  echo "tree $ti:   $t at $(git -C "$t" rev-parse --short HEAD 2>/dev/null || echo 'an export (no git)')$( [ -n "$(git -C "$t" status --porcelain 2>/dev/null)" ] && echo ', with uncommitted changes'); $aot"
done
echo

# start_pair TREE RUN: starts two nodes, waits for both ready lines (60 s at most); prints "ms1 ms2 aot".
start_pair() {
  local spec=$1 run=$2 tree p1 p2 i t0 pids=() ms=() aot extra=()
  tree="${spec%:noaot}"
  [ "$spec" = "$tree" ] || extra=(-XX:AOTMode=off)
  p1=$(free_port); p2=$(free_port)
  local urls="http://127.0.0.1:$p1,http://127.0.0.1:$p2"
  for i in 1 2; do
    local dir="$WORK/$run/node$i" port self
    mkdir -p "$dir"
    if [ "$i" = 1 ]; then port=$p1; else port=$p2; fi
    self="http://127.0.0.1:$port"
    local flags=(--host 127.0.0.1 --port "$port" --data-dir "$dir/data")
    [ "${ALONE:-0}" = 1 ] || flags+=(--cluster "$urls" --self "$self")
    # shellcheck disable=SC2206
    flags+=(${SERVE_ARGS:-})
    date +%s%N >"$dir/launched"
    RINGBASE_JAVA_OPTS="${RINGBASE_JAVA_OPTS:-} ${extra[*]:-}" taskset -c "$NODE_CPUS" "$tree/bin/ringbase" serve \
      "${flags[@]}" > >(stamp_lines >"$dir/out") 2>"$dir/log" &
    pids+=($!)
    STARTED+=($!)
  done
  for i in 1 2; do
    local dir="$WORK/$run/node$i" k
    for k in $(seq 1 600); do
      grep -q 'Ringbase node ready' "$dir/out" 2>/dev/null && break
      kill -0 "${pids[$((i - 1))]}" 2>/dev/null || { tail -n 20 "$dir/log" >&2; die "node $i of run $run exited before it was ready"; }
      sleep 0.1
    done
    grep -q 'Ringbase node ready' "$dir/out" || die "node $i of run $run not ready after 60 s"
    t0=$(cat "$dir/launched")
    ms+=($(( ($(awk '/Ringbase node ready/ {print $1; exit}' "$dir/out") - t0) / 1000000 )))
  done
  aot=$(grep -c '^ringbase: using the ahead-of-time cache' "$WORK/$run/node1/log" || true)
  [ ${#extra[@]} -eq 0 ] || aot=0
  for i in 1 2; do
    # the node's own account of its start-up, if it logs one
    sed -n 's/.*\(started in [0-9]* ms.*\)/\1/p' "$WORK/$run/node$i/log" | head -n 1 >"$WORK/$run/node$i/phases"
  done
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  STARTED=()
  echo "${ms[0]} ${ms[1]} $aot"
}

declare -A ALL
for r in $(seq 1 "$N"); do
  ti=0
  for t in "${TREES[@]}"; do
    ti=$((ti + 1))
    start_pair "$t" "$r-$ti" >"$WORK/result" # not in a subshell: STARTED stays this shell's, for the trap
    read -r a b aot <"$WORK/result"
    ALL[$ti]="${ALL[$ti]:-} $a $b"
    printf 'run %d tree %d: node1 %5d ms, node2 %5d ms%s\n' "$r" "$ti" "$a" "$b" \
      "$( [ "$aot" != 0 ] && echo ' (ahead-of-time cache)' || echo '')"
    for i in 1 2; do
      ph=$(cat "$WORK/$r-$ti/node$i/phases")
      [ -z "$ph" ] || echo "    node$i: $ph"
    done
  done
done

echo
ti=0
for t in "${TREES[@]}"; do
  ti=$((ti + 1))
  # shellcheck disable=SC2086
  sorted=$(printf '%s\n' ${ALL[$ti]} | sort -n)
  n=$(printf '%s\n' "$sorted" | wc -l)
  median=$(printf '%s\n' "$sorted" | awk -v n="$n" '{a[NR]=$1} END {print (n % 2) ? a[(n+1)/2] : int((a[n/2] + a[n/2+1]) / 2)}')
  max=$(printf '%s\n' "$sorted" | tail -n 1)
  printf 'tree %d (%s): launch to ready over %d nodes: median %d ms, max %d ms\n' "$ti" "$t" "$n" "$median" "$max"
done
