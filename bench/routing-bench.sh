#!/usr/bin/env bash
# Replica-aware routing against random routing (the Java client's routing(REPLICA|RANDOM)): starts 5
# nodes with replication factor 3 (with 3 nodes and RF 3 every node holds every key, so where a request
# lands cannot matter), then per round and per mode PUTs N fresh keys and GETs them through
# RingbaseClient with T threads (bench/routing/Hops.java), and reports the replica operations the
# coordinators sent over the network per request (ringbase_coordinator_replica_ops_total{replica="remote"}
# summed over the nodes' /metrics) and the throughput of each phase.
# Usage:
#   bench/routing-bench.sh [--requests N] [--threads T] [--rounds R]
#     --requests  PUTs, then as many GETs, per mode and round (default 20000)
#     --threads   client threads, each with one request in flight (default 16)
#     --rounds    rounds of both modes, in alternating order; round 1 warms the JIT and is left out
#                 of the means (default 4)
# The nodes and the client share every CPU (SERVER_CPU); only 127.0.0.1 is contacted.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMDLINE="$0 $*"
REQUESTS=20000
THREADS=16
ROUNDS=4
while [ $# -gt 0 ]; do
  case "$1" in
    --requests) REQUESTS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-routing-bench.XXXXXX")
. "$ROOT/bench/lib.sh"
SERVER_CPU=${SERVER_CPU:-0-$(($(nproc) - 1))}
stop_all_on_exit

echo "== Ringbase routing bench: replica calls per request, routing by replica vs to any node"
echo "command:  $CMDLINE"
echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine:  $(nproc) CPUs, $(free -h | awk '/^Mem:/ {print $2}') memory; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit:   $(git -C "$ROOT" rev-parse --short HEAD)$( [ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ] && echo ', working tree has uncommitted changes')"
ensure_ringbase
. "$ROOT/bin/find-jdk.sh"
ringbase_find_jdk || exit 1
if [ ! -f "$ROOT/ringbase-client/target/classes/io/ringbase/client/RingbaseClient.class" ] \
    || [ -n "$(find "$ROOT/ringbase-client/src/main" -newer "$ROOT/ringbase-client/target/classes/io/ringbase/client/RingbaseClient.class" -name '*.java' | head -n 1)" ]; then
  log "compiling ringbase-client"
  (cd "$ROOT" && JAVA_HOME="$JAVA_HOME" ./mvnw -q -o -pl ringbase-client -am compile) >&2
fi

PORTS=()
for i in 1 2 3 4 5; do PORTS+=("$(free_port)"); done
LIST=$(printf 'http://127.0.0.1:%s,' "${PORTS[@]}"); LIST=${LIST%,}
for i in 1 2 3 4 5; do
  start_node "node$i" "${PORTS[$((i - 1))]}" --cluster "$LIST" --self "http://127.0.0.1:${PORTS[$((i - 1))]}" \
    --replication-factor 3
done
echo "cluster:  5 nodes, RF 3, default quorum (ack 2 of from 3), --write-protocol abd (the default)"
echo "load:     $REQUESTS PUTs then $REQUESTS GETs of 100-byte values per mode and round, $THREADS threads, $ROUNDS round(s)"

"$JAVA_HOME/bin/java" -Xmx256m -cp "$ROOT/ringbase-client/target/classes" "$ROOT/bench/routing/Hops.java" \
  "$LIST" "$REQUESTS" "$THREADS" "$ROUNDS"
