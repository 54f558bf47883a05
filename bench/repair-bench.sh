#!/usr/bin/env bash
# Anti-entropy repair of a wiped node at scale: fills two nodes of a 3-node cluster
# offline with the same N keys (bench/repair/Load.java, through the engine's own write path), starts all
# three with node 3 empty, runs POST /v0/admin/repair on node 3 and reports the time, the keys received
# and the bytes that crossed loopback between the nodes' ports (iptables counters, so it needs root).
# Usage:
#   bench/repair-bench.sh [--keys N] [--value-bytes B]
#     --keys         keys in the cluster (default 10000000; env KEYS)
#     --value-bytes  value size (default 100; env VALUE_SIZE)
# The nodes are not pinned (repair uses both CPUs); only 127.0.0.1 is contacted; the repair is polled
# for at most 3 hours. Needs about (KEYS x (VALUE + 40) bytes) x 3 of disk under TMPDIR.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMDLINE="$0 $*"
KEYS=${KEYS:-10000000}
VALUE_SIZE=${VALUE_SIZE:-100}
while [ $# -gt 0 ]; do
  case "$1" in
    --keys) KEYS=$2; shift 2 ;;
    --value-bytes) VALUE_SIZE=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "repair-bench: needs root (iptables byte counters)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-repair-bench.XXXXXX")
SERVER_CPU=${SERVER_CPU:-0-$(($(nproc) - 1))} # start_node pins to it: here every CPU
. "$ROOT/bench/lib.sh"
CHAIN=RB_REPAIR_BENCH

remove_chain() {
  iptables -D OUTPUT -o lo -j "$CHAIN" 2>/dev/null || true
  iptables -F "$CHAIN" 2>/dev/null || true
  iptables -X "$CHAIN" 2>/dev/null || true
}
stop_all_on_exit remove_chain

ensure_tools curl:curl iptables:iptables
echo "== Ringbase repair bench: a wiped node of 3 repaired from the other two"
echo "command:  $CMDLINE"
echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine:  $(nproc) CPUs, $(free -h | awk '/^Mem:/ {print $2}') memory; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit:   $(git -C "$ROOT" rev-parse --short HEAD)$( [ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ] && echo ', working tree has uncommitted changes')"
ensure_ringbase
. "$ROOT/bin/find-jdk.sh"
ringbase_find_jdk || exit 1

mkdir -p "$WORK/node1" "$WORK/node2" "$WORK/node3"
log "loading $KEYS keys of $VALUE_SIZE bytes into node 1 (offline, through the engine)"
t0=$(date +%s.%N)
"$JAVA_HOME/bin/java" -Xmx256m --enable-native-access=ALL-UNNAMED -cp "$ROOT/ringbase-server/target/ringbase.jar:$ROOT/ringbase-server/target/lib/*" \
  "$ROOT/bench/repair/Load.java" "$WORK/node1/data" "$KEYS" "$VALUE_SIZE" 2>"$WORK/load.log" | tail -n 1
cp -a "$WORK/node1/data" "$WORK/node2/data"
echo "load:     $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s; node 1 data dir $(du -sh "$WORK/node1/data" | cut -f1) (copied to node 2; node 3 empty)"

P1=$(free_port); P2=$(free_port); P3=$(free_port)
LIST="http://127.0.0.1:$P1,http://127.0.0.1:$P2,http://127.0.0.1:$P3"
start_node node1 "$P1" --cluster "$LIST" --self "http://127.0.0.1:$P1"
start_node node2 "$P2" --cluster "$LIST" --self "http://127.0.0.1:$P2"
start_node node3 "$P3" --cluster "$LIST" --self "http://127.0.0.1:$P3"

iptables -N "$CHAIN"
iptables -A "$CHAIN" -p tcp -m multiport --ports "$P1,$P2,$P3"
iptables -I OUTPUT -o lo -j "$CHAIN"
bytes() { iptables -L "$CHAIN" -v -n -x | awk 'NR>2 {s+=$2} END {print s+0}'; }

b0=$(bytes); t0=$(date +%s.%N)
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$P3/v0/admin/repair")
[ "$code" = 202 ] || die "POST /v0/admin/repair on node 3 answered $code"
state=running
for i in $(seq 1 10800); do
  sleep 1
  status=$(curl -s "http://127.0.0.1:$P3/v0/admin/repair")
  case "$status" in *'"state":"idle"'*) state=idle; break ;; esac
  [ $((i % 30)) = 0 ] && log "repair running: $status"
done
t1=$(date +%s.%N); b1=$(bytes)
[ "$state" = idle ] || die "repair still running after 3 hours"
secs=$(echo "$t1 - $t0" | bc)
echo "repair:   $status"
echo "RESULT keys=$KEYS value_bytes=$VALUE_SIZE repair_s=$(printf '%.1f' "$secs") loopback_bytes=$((b1 - b0)) node3_dir=$(du -sb "$WORK/node3/data" | cut -f1) node1_dir=$(du -sb "$WORK/node1/data" | cut -f1)"
t0=$(date +%s.%N)
n3=$(curl -s -H 'Accept: application/x-ndjson' "http://127.0.0.1:$P3/v0/entities?start=key-&local=true" | wc -l)
echo "check:    node 3 now holds $n3 of $KEYS keys (its local range scan, ndjson lines; $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s)"
[ "$n3" = "$KEYS" ] || die "node 3 holds $n3 keys after repair, not $KEYS"
