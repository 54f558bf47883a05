#!/usr/bin/env bash
# Paging a cluster-wide range (issue 39's target: 1M keys in pages of 1,000 through any node, every key
# exactly once): fills the data directories of a 3-node cluster (replication factor 3) offline with the
# same N keys (bench/repair/Load.java, through the engine's own write path), starts the nodes, then reads
# GET /v0/entities?start=key-&end=key.&limit=L page by page, each page through the next node in turn and
# from the previous page's Ringbase-Next-Start trailer (bench/paging/Pages.java), and reports the keys
# read, whether each came once and in order, the pages and the rate.
# Usage:
#   bench/paging-bench.sh [--keys N] [--limit L] [--value-bytes B]
#     --keys         keys in the cluster (default 1000000; env KEYS)
#     --limit        entries per page (default 1000)
#     --value-bytes  value size (default 100; env VALUE_SIZE)
# All three nodes share every CPU (SERVER_CPU); only 127.0.0.1 is contacted. Needs about
# 3 x KEYS x (VALUE + 40) bytes of disk under TMPDIR.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMDLINE="$0 $*"
KEYS=${KEYS:-1000000}
VALUE_SIZE=${VALUE_SIZE:-100}
LIMIT=1000
while [ $# -gt 0 ]; do
  case "$1" in
    --keys) KEYS=$2; shift 2 ;;
    --limit) LIMIT=$2; shift 2 ;;
    --value-bytes) VALUE_SIZE=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-paging-bench.XXXXXX")
. "$ROOT/bench/lib.sh"
SERVER_CPU=${SERVER_CPU:-0-$(($(nproc) - 1))}
stop_all_on_exit

ensure_tools curl:curl bc:bc
echo "== Ringbase paging bench: a cluster-wide range read in pages through every node in turn"
echo "command:  $CMDLINE"
echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine:  $(nproc) CPUs, $(free -h | awk '/^Mem:/ {print $2}') memory; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit:   $(git -C "$ROOT" rev-parse --short HEAD)$( [ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ] && echo ', working tree has uncommitted changes')"
ensure_ringbase
. "$ROOT/bin/find-jdk.sh"
ringbase_find_jdk || exit 1

mkdir -p "$WORK/node1" "$WORK/node2" "$WORK/node3"
log "loading $KEYS keys of $VALUE_SIZE bytes (offline, through the engine), copied to every node"
t0=$(date +%s.%N)
"$JAVA_HOME/bin/java" -Xmx256m --enable-native-access=ALL-UNNAMED -cp "$ROOT/ringbase-server/target/ringbase.jar:$ROOT/ringbase-server/target/lib/*" \
  "$ROOT/bench/repair/Load.java" "$WORK/node1/data" "$KEYS" "$VALUE_SIZE" 2>"$WORK/load.log" | tail -n 1
cp -a "$WORK/node1/data" "$WORK/node2/data"
cp -a "$WORK/node1/data" "$WORK/node3/data"
echo "load:     $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s; $(du -sh "$WORK/node1/data" | cut -f1) per node"

P1=$(free_port); P2=$(free_port); P3=$(free_port)
LIST="http://127.0.0.1:$P1,http://127.0.0.1:$P2,http://127.0.0.1:$P3"
start_node node1 "$P1" --cluster "$LIST" --self "http://127.0.0.1:$P1"
start_node node2 "$P2" --cluster "$LIST" --self "http://127.0.0.1:$P2"
start_node node3 "$P3" --cluster "$LIST" --self "http://127.0.0.1:$P3"

"$JAVA_HOME/bin/java" -Xmx128m "$ROOT/bench/paging/Pages.java" key- key. "$LIMIT" "$KEYS" "$P1,$P2,$P3"
