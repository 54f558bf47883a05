#!/usr/bin/env bash
# Throughput through one coordinator of a local 3-node cluster (default ack 2 of from 3) beside a
# single node, same run, same CPU budget. See bench/README.md. Usage:
#   bench/cluster-bench.sh [-d DURATION] [-c CONNS] [--keys N]
#     -d, --duration   time per scenario (default 30s; env DURATION)
#     -c, --conns      connections (default 64; env CONNS)
#     --keys           keys prefilled for the GET scenarios (default 200000; env KEYS)
#     --speculative-retry P[,P...]  one cluster run per policy, side by side (default: the node's, 99p)
#     --write-protocol W[,W...]     one cluster run per quorum write protocol (one-round, abd), side by
#                                   side (default: the node's, abd)
#     --internal-protocol P[,P...]  one cluster run per node-to-node protocol (v2, http), side by side
#                                   (default: the node's, v2)
#     --rounds N       run the cluster variants N times, alternating (default 1): on a noisy machine
# Every server process (the single node, then all three cluster nodes) is pinned to SERVER_CPU (default
# CPU 0) and wrk to WRK_CPU (CPU 1), so both setups get the same CPU budget; the cluster pays for its
# replication within it. SERVER_CPU=0,1 lets the servers use both CPUs (shared with wrk).
# SERVE_FLAGS adds flags to every `ringbase serve` (e.g. SERVE_FLAGS=--no-inline-requests).
# Only 127.0.0.1 is contacted. Every wrk run is bounded by -d.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMDLINE="$0 $*"
KEYS=${KEYS:-200000}
while [ $# -gt 0 ]; do
  case "$1" in
    -d|--duration) DURATION=$2; shift 2 ;;
    -c|--conns) CONNS=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    --speculative-retry) RETRIES=$2; shift 2 ;;
    --write-protocol) PROTOCOLS=$2; shift 2 ;;
    --internal-protocol) PEER_PROTOCOLS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-cluster-bench.XXXXXX")
. "$ROOT/bench/lib.sh"

stop_all_on_exit

declare -A RPS P50 P99 STAT
measure() {  # measure NAME URL LUA: one wrk run of DURATION
  echo
  echo "-- $1"
  busy_warning "$1"
  run_wrk "$1" "$2" "$3" "$DURATION"
  RPS[$1]=$(field "$1" rps); P50[$1]=$(field "$1" p50); P99[$1]=$(field "$1" p99)
  STAT[$1]=$(sed -n 's/^STATUS //p' "$WORK/$1.wrk" | head -n 1)
}

# setup NAME URL: prefill KEYS keys (all must answer 201), then WARMUP of GETs and of PUTs of other
# keys, so the JIT of every JVM has compiled both paths before anything is measured (not reported)
WARMUP=${WARMUP:-20s}
setup() {
  log "$1: prefill $KEYS keys, then warm-up $WARMUP of GETs and $WARMUP of PUTs (not reported)"
  # 16 connections: the cold JVMs of a cluster pinned to one CPU answer some of 64 with 504 (replica
  # timeout) while they compile; the prefill is not measured, it only has to store every key
  CONNS=16 METHOD=PUT run_wrk "$1-prefill" "$2" walk.lua 900s >/dev/null
  echo "$1 prefill: $(sed -n 's/^STATUS //p' "$WORK/$1-prefill.wrk")"
  local bad; bad=$(field "$1-prefill" non2xx)
  [ "${bad:-1}" = 0 ] || die "$1 prefill got ${bad:-?} non-2xx answers"
  taskset -c "$WRK_CPU" wrk -t1 -c"$CONNS" -d"$WARMUP" --timeout 5s -s "$BENCH_LUA_DIR/get-random.lua" "$2" >/dev/null 2>&1
  KEY_PREFIX=w taskset -c "$WRK_CPU" wrk -t1 -c"$CONNS" -d"$WARMUP" --timeout 5s -s "$BENCH_LUA_DIR/put.lua" "$2" \
    >/dev/null 2>&1
}

ensure_tools wrk:wrk curl:curl taskset:util-linux
print_header "Ringbase cluster bench (3 nodes, one coordinator) vs a single node" "$CMDLINE"
log "building/checking bin/ringbase"
ensure_ringbase

# ------------------------------------------------------------------ single node
P=$(free_port)
start_node single "$P"
setup single "http://127.0.0.1:$P"
measure single-get "http://127.0.0.1:$P" get-random.lua
measure single-put "http://127.0.0.1:$P" put.lua
stop_all

# ------------------------------------------------------------------ 3-node cluster (once per variant)
IFS=, read -r -a POLICIES <<<"${RETRIES:-99p}"
IFS=, read -r -a PROTOS <<<"${PROTOCOLS:-abd}"
IFS=, read -r -a PEERS <<<"${PEER_PROTOCOLS:-v2}"
VARIANTS=()
for round in $(seq 1 "${ROUNDS:-1}"); do
  for peer in "${PEERS[@]}"; do
    for proto in "${PROTOS[@]}"; do
      for policy in "${POLICIES[@]}"; do
        VARIANTS+=("$policy/$proto/$peer/$round")
      done
    done
  done
done
for variant in "${VARIANTS[@]}"; do
  IFS=/ read -r policy proto peer round <<<"$variant"
  C="cluster-$policy-$proto-$peer-$round"
  P1=$(free_port); P2=$(free_port); P3=$(free_port)
  LIST="http://127.0.0.1:$P1,http://127.0.0.1:$P2,http://127.0.0.1:$P3"
  rm -rf "$WORK/node1" "$WORK/node2" "$WORK/node3"
  for i in 1 2 3; do
    port=P$i
    start_node "node$i" "${!port}" --cluster "$LIST" --self "http://127.0.0.1:${!port}" --speculative-retry "$policy" \
      --write-protocol "$proto" --internal-protocol "$peer"
  done
  setup "$C" "http://127.0.0.1:$P1"
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P3/v0/entity?id=$((KEYS - 1))")
  echo "spot check: key $((KEYS - 1)) written through node 1, read through node 3 -> $code"
  [ "$code" = 200 ] || die "spot check failed"
  measure "$C-get" "http://127.0.0.1:$P1" get-random.lua
  measure "$C-put" "http://127.0.0.1:$P1" put.lua
  metrics=$(curl -s "http://127.0.0.1:$P1/metrics")
  echo "node1 speculative reads: $(sed -n 's/^ringbase_speculative_reads_total //p' <<<"$metrics")," \
    "write re-stamps: $(sed -n 's/^ringbase_write_restamps_total //p' <<<"$metrics")," \
    "write splits: $(sed -n 's/^ringbase_write_splits_total //p' <<<"$metrics")"
  for n in node1 node2 node3; do
    c=$(grep -cE 'WARN|ERROR' "$WORK/$n/log" || true)
    echo "$n log: $c WARN/ERROR lines"; grep -E 'WARN|ERROR' "$WORK/$n/log" | head -n 5 | sed 's/^/  | /' || true
  done
  stop_all
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
ms() { awk -v u="$1" 'BEGIN { printf "%.2f", u / 1000 }'; }
echo
echo "== summary: cluster (3 nodes, default ack=2 from=3, all through node 1) / single node, this run"
printf '%-6s %-22s %12s %12s %7s | %9s %9s | %9s %9s | %s\n' op variant single_rps cluster_rps ratio single_p50 \
  single_p99 clus_p50 clus_p99 cluster_statuses
for op in get put; do
  for variant in "${VARIANTS[@]}"; do
    IFS=/ read -r policy proto peer round <<<"$variant"
    C="cluster-$policy-$proto-$peer-$round-$op"
    printf '%-6s %-22s %12s %12s %7s | %9s %9s | %9s %9s | %s\n' "$op" "$variant" "${RPS[single-$op]}" "${RPS[$C]}" \
      "$(ratio "${RPS[$C]}" "${RPS[single-$op]}")" "$(ms "${P50[single-$op]}")" "$(ms "${P99[single-$op]}")" \
      "$(ms "${P50[$C]}")" "$(ms "${P99[$C]}")" "${STAT[$C]}"
  done
done
