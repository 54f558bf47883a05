#!/usr/bin/env bash
# A slow replica under constant-rate reads (docs/design.md, "speculative retry and slow replicas"):
# a local 3-node cluster, GETs of existing keys (default ack=2 of from=3) at a fixed rate through
# node 1, first healthy, then with node 3 frozen by SIGSTOP (a slow node: connected, never answering). One cluster per speculative
# retry policy, side by side in one run. For each phase: rategen's latency (corrected for coordinated
# omission), node 1's CPU time per request, and node 1's replica calls to node 3, timeouts among
# them, and speculative reads over the phase. Usage:
#   bench/slow-replica-bench.sh [-d SECONDS] [--rate R] [--keys N] [--speculative-retry P[,P...]]
#     -d                  seconds per phase (default 20)
#     --rate              GETs per second (default 5000)
#     --keys              keys prefilled, 100-byte values (default 50000)
#     --speculative-retry policies compared (default always,99p)
# Nodes on SERVER_CPU (default 0), rategen on LOAD_CPU (default 1), 64 connections; 127.0.0.1 only;
# every run bounded by -d.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMDLINE="$0 $*"
SECONDS_PER_PHASE=20 RATE=5000 KEYS=50000 RETRIES=always,99p
while [ $# -gt 0 ]; do
  case "$1" in
    -d) SECONDS_PER_PHASE=${2%s}; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    --speculative-retry) RETRIES=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
export KEYS CONNS=${CONNS:-64}
DURATION="${SECONDS_PER_PHASE}s" # for the header's "per scenario"
LOAD_CPU=${LOAD_CPU:-1}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-slow-replica-bench.XXXXXX")
. "$ROOT/bench/lib.sh"
stop_all_on_exit

ensure_tools wrk:wrk curl:curl taskset:util-linux cc:gcc bc:bc
print_header "Ringbase slow-replica bench (3 nodes, node 3 frozen by SIGSTOP, GETs through node 1)" "$CMDLINE"
GEN="$WORK/rategen"
cc -O2 -o "$GEN" "$ROOT/bench/rategen/rategen.c" || die "could not compile bench/rategen/rategen.c"
ensure_ringbase

# metric PORT NAME: one sample's value from the node's /metrics (0 if absent)
metric() {
  curl -s "http://127.0.0.1:$1/metrics" | awk -v n="$2" 'index($0, n " ") == 1 { v = $NF } END { print v + 0 }'
}
cpu_ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat; }

ROWS=()
# phase NAME: one rategen run of GETs through node 1; appends a row
phase() {
  local name=$1 peer="http://127.0.0.1:$P3"
  local calls0 tmo0 spec0 cpu0 calls1 tmo1 spec1 cpu1
  calls0=$(metric "$P1" "ringbase_replica_calls_total{peer=\"$peer\"}")
  tmo0=$(metric "$P1" "ringbase_replica_call_failures_total{peer=\"$peer\",reason=\"timeout\"}")
  spec0=$(metric "$P1" ringbase_speculative_reads_total)
  cpu0=$(cpu_ticks "${PIDS[0]}")
  log "$name: GET at $RATE/s for ${SECONDS_PER_PHASE}s"
  taskset -c "$LOAD_CPU" "$GEN" -u "http://127.0.0.1:$P1/v0/entity?id={key}" -K "$KEYS" -R "$RATE" \
    -d "$SECONDS_PER_PHASE" -c "$CONNS" >"$WORK/$name.out" || { cat "$WORK/$name.out" >&2; die "rategen failed"; }
  cpu1=$(cpu_ticks "${PIDS[0]}")
  sleep 1.2 # calls still waiting for node 3 time out (1 s) and are counted
  calls1=$(metric "$P1" "ringbase_replica_calls_total{peer=\"$peer\"}")
  tmo1=$(metric "$P1" "ringbase_replica_call_failures_total{peer=\"$peer\",reason=\"timeout\"}")
  spec1=$(metric "$P1" ringbase_speculative_reads_total)
  echo "$name, per second (t p99_us max_us count):"; sed -n 's/^SECOND /  /p' "$WORK/$name.out" | tr '\n' ';'; echo
  local r; r=$(grep '^RESULT' "$WORK/$name.out")
  get() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" <<<"$r"; }
  local sent; sent=$(get sent)
  ROWS+=("$(printf '| %s | %s | %.2f | %.2f | %.2f | %.2f | %s | %s | %d | %d | %d | %d |' "$name" "$(get sent)" \
    "$(echo "$(get p50) / 1000" | bc -l)" "$(echo "$(get p99) / 1000" | bc -l)" "$(echo "$(get p999) / 1000" | bc -l)" \
    "$(echo "$(get max) / 1000" | bc -l)" "$(get status_other)" "$(get errors)" \
    "$(( (cpu1 - cpu0) * 10000 * 1000 / (sent > 0 ? sent : 1) / 1000 ))" \
    "$(printf '%.0f' "$(echo "$calls1 - $calls0" | bc -l)")" "$(printf '%.0f' "$(echo "$tmo1 - $tmo0" | bc -l)")" \
    "$(printf '%.0f' "$(echo "$spec1 - $spec0" | bc -l)")")")
}

IFS=, read -r -a POLICIES <<<"$RETRIES"
for policy in "${POLICIES[@]}"; do
  P1=$(free_port); P2=$(free_port); P3=$(free_port)
  LIST="http://127.0.0.1:$P1,http://127.0.0.1:$P2,http://127.0.0.1:$P3"
  rm -rf "$WORK/node1" "$WORK/node2" "$WORK/node3"
  for i in 1 2 3; do
    port_var="P$i"
    start_node "node$i" "${!port_var}" --cluster "$LIST" --self "http://127.0.0.1:${!port_var}" \
      --speculative-retry "$policy"
  done
  log "$policy: prefill $KEYS keys through node 1, then a 10 s GET warm-up"
  METHOD=PUT run_wrk "prefill-$policy" "http://127.0.0.1:$P1" walk.lua 600s >/dev/null
  [ "$(field "prefill-$policy" non2xx)" = 0 ] || die "prefill got non-2xx answers"
  taskset -c "$LOAD_CPU" "$GEN" -u "http://127.0.0.1:$P1/v0/entity?id={key}" -K "$KEYS" -R "$RATE" -d 10 \
    -c "$CONNS" >/dev/null
  phase "$policy, healthy"
  kill -STOP "${PIDS[2]}"
  log "node 3 (pid ${PIDS[2]}) frozen"
  phase "$policy, node 3 frozen"
  kill -CONT "${PIDS[2]}"
  stop_all
done

echo
echo "== GETs through node 1 at $RATE/s, ack=2 from=3 (latency ms from each request's intended send time)"
echo "| policy, phase | sent | p50 | p99 | p99.9 | max | non-2xx | errors | node 1 CPU us/req | calls to node 3 | of them timed out | speculative reads |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${ROWS[@]}"
