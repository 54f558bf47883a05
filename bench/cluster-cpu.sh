#!/usr/bin/env bash
# CPU time per replicated PUT: a 3-node cluster (RF 3, default ack 2 of from 3, all PUTs through node 1)
# against a single node, at the same constant rate of bench/rategen, in one run. For each setup: warm-up
# (WARMUP of PUTs at RATE, not measured), then DURATION of PUTs at RATE during which the user+system CPU
# time of every node's JVM is read from /proc/<pid>/stat before and after; the figure is that time divided
# by the PUTs answered 201. The cluster's figure over the single node's is how many single-node PUTs one
# replicated PUT costs (3 is the floor for three replicas). Usage:
#   bench/cluster-cpu.sh [-R RATE] [-d SECONDS] [--warmup SECONDS] [-- FLAGS for every node]
# Defaults: 3000 PUT/s, 20 s measured after 20 s of warm-up, 64 connections, 100-byte values. Every
# node on SERVER_CPU (default 0,1), rategen on LOAD_CPU (default 1). Only 127.0.0.1 is contacted; every
# run is bounded by rategen's -d.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMDLINE="$0 $*"
RATE=3000
SECS=20
WARM=20
NODE_FLAGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    -R) RATE=$2; shift 2 ;;
    -d) SECS=${2%s}; shift 2 ;;
    --warmup) WARM=${2%s}; shift 2 ;;
    --) shift; NODE_FLAGS=("$@"); break ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
SERVER_CPU=${SERVER_CPU:-0,1}
LOAD_CPU=${LOAD_CPU:-1}
CONNS=${CONNS:-64}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-cluster-cpu.XXXXXX")
. "$ROOT/bench/lib.sh"
stop_all_on_exit

ensure_tools taskset:util-linux curl:curl cc:gcc
GEN="$WORK/rategen"
cc -O2 -o "$GEN" "$ROOT/bench/rategen/rategen.c" || die "could not compile bench/rategen/rategen.c"
head -c "${VALUE_SIZE:-100}" /dev/zero | tr '\0' 'v' >"$WORK/body"
print_header "cluster-cpu: CPU per replicated PUT against a single node" "$CMDLINE"
ensure_ringbase

# CPU ticks (user + system) of the JVM under each launcher pid: bin/ringbase execs java, so the pid is the JVM's
ticks() {
  local total=0 p t
  for p in "$@"; do
    t=$(awk '{ print $14 + $15 }' "/proc/$p/stat")
    total=$((total + t))
  done
  echo "$total"
}

# run NAME PORT PIDS...: warm-up, then the measured run; prints and records µs of CPU per PUT
declare -A US OK
run() {
  local name=$1 port=$2; shift 2
  local url="http://127.0.0.1:$port/v0/entity?id={key}"
  log "$name: warm-up, $WARM s of PUT at $RATE/s"
  taskset -c "$LOAD_CPU" "$GEN" -u "$url" -R "$RATE" -d "$WARM" -c "$CONNS" -m PUT -b "$WORK/body" >/dev/null
  local hz; hz=$(getconf CLK_TCK)
  local before; before=$(ticks "$@")
  taskset -c "$LOAD_CPU" "$GEN" -u "$url" -R "$RATE" -d "$SECS" -c "$CONNS" -m PUT -b "$WORK/body" >"$WORK/$name.out"
  local after; after=$(ticks "$@")
  local ok; ok=$(sed -n 's/^STATUS .*\b201=\([0-9]*\).*/\1/p' "$WORK/$name.out" | head -n 1)
  OK[$name]=${ok:-0}
  US[$name]=$(awk -v t=$((after - before)) -v hz="$hz" -v n="${ok:-0}" 'BEGIN { if (n > 0) printf "%.1f", t / hz * 1e6 / n; else print "-" }')
  echo "$name: $(grep '^RESULT' "$WORK/$name.out" | cut -c1-160)"
  echo "$name: $(grep '^STATUS' "$WORK/$name.out"); CPU $(awk -v t=$((after - before)) -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }') s over ${OK[$name]} PUTs answered 201: ${US[$name]} us per PUT"
}

P=$(free_port)
start_node single "$P" ${NODE_FLAGS[@]+"${NODE_FLAGS[@]}"}
run single "$P" "${PIDS[@]}"
stop_all

P1=$(free_port); P2=$(free_port); P3=$(free_port)
LIST="http://127.0.0.1:$P1,http://127.0.0.1:$P2,http://127.0.0.1:$P3"
for i in 1 2 3; do
  eval "port=\$P$i"
  start_node "node$i" "$port" --cluster "$LIST" --self "http://127.0.0.1:$port" ${NODE_FLAGS[@]+"${NODE_FLAGS[@]}"}
done
run cluster "$P1" "${PIDS[@]}"
for n in node1 node2 node3; do
  c=$(grep -cE 'WARN|ERROR' "$WORK/$n/log" || true)
  echo "$n log: $c WARN/ERROR lines"; grep -E 'WARN|ERROR' "$WORK/$n/log" | head -n 3 | sed 's/^/  | /' || true
done
stop_all

echo
echo "== summary: CPU per PUT at $RATE/s, all JVMs' user+system time ${NODE_FLAGS[*]:+(node flags: ${NODE_FLAGS[*]})}"
printf '%-8s %12s %10s\n' setup us_per_put puts_201
printf '%-8s %12s %10s\n' single "${US[single]}" "${OK[single]}"
printf '%-8s %12s %10s\n' cluster "${US[cluster]}" "${OK[cluster]}"
awk -v c="${US[cluster]}" -v s="${US[single]}" 'BEGIN { if (s > 0) printf "cluster / single: %.2fx (3 replicas: 3x is the floor)\n", c / s }'
