#!/usr/bin/env bash
# One join under load: the streaming rate of the join and the client p99 before and during it.
# Three founding nodes (--metadata-port-offset, replication factor 3) are prefilled with KEYS keys of
# VALUE_SIZE-byte values; a constant-rate load of RATE req/s (half PUT of LOAD_VALUE_SIZE-byte values,
# half GET, of KEYSPACE keys, two
# bench/rategen processes, latency corrected for coordinated omission) runs through node 1 for BEFORE
# seconds; then a fourth node joins (serve --join) while the load goes on, and the load ends at most
# MAX_JOIN seconds later. Reported: the joining node's "join streaming done" line (entries, MB, MB/s) and
# p99 / p99.9 of the answered requests intended in the second half of the time before the join (the first
# is warm-up) and during the join (from rategen's records), per second since the join: p99 / max, disk
# writes, each node's CPU share and the machine's CPU pressure (/proc/pressure/cpu), and the joining
# node's threads that took the most CPU time.
#
#   bench/join-bench.sh                                   # 300000 keys x 1000 B, 5000 req/s
#   bench/join-bench.sh --keys 100000 --rate 5000 -- --stream-rate 0     # flags after -- go to every node
#
# Layout: every node pinned to SERVER_CPU (0), the generators to LOAD_CPU (1); SERVER_CPU=0,1 LOAD_CPU=0,1
# lets everything share both CPUs; JOINER_NICE=N starts the joining node under nice N (as if it had CPUs
# of its own). 127.0.0.1 only; every wait is bounded. Output: stdout; the nodes' logs
# are kept in KEEP (default /tmp/join-bench-last). The nodes' data directories are under TMPDIR (default
# /tmp): TMPDIR=/mnt/tmpfs takes the disk out of the comparison.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/ringbase-join-bench.XXXXXX")"
. "$ROOT/bench/lib.sh"
LOAD_CPU=${LOAD_CPU:-1}
KEYS=300000
VALUE_SIZE=1000
LOAD_VALUE_SIZE=100
RATE=5000
KEYSPACE=1000000
BEFORE=60
MAX_JOIN=120
PREFILL_RATE=8000
OFFSET=100
SERVE_FLAGS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --keys) KEYS=$2; shift 2 ;;
    --value-size) VALUE_SIZE=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --before) BEFORE=$2; shift 2 ;;
    --max-join) MAX_JOIN=$2; shift 2 ;;
    --) shift; SERVE_FLAGS="$*"; break ;;
    *) die "unknown argument $1 (see the head of $0)" ;;
  esac
done
KEEP=${KEEP:-/tmp/join-bench-last}
keep_logs() { rm -rf "$KEEP"; mkdir -p "$KEEP"; for d in "$WORK"/node*; do [ -d "$d" ] && cp "$d/log" "$KEEP/$(basename "$d").log" 2>/dev/null; done; true; }
stop_all_on_exit keep_logs
GEN="$WORK/rategen"
cc -O2 -o "$GEN" "$ROOT/bench/rategen/rategen.c" || die "could not compile bench/rategen/rategen.c"
ensure_ringbase
head -c "$VALUE_SIZE" /dev/zero | tr '\0' 'v' >"$WORK/body"
head -c "$LOAD_VALUE_SIZE" /dev/zero | tr '\0' 'w' >"$WORK/load-body"

P1=$(free_port); P2=$(free_port); P3=$(free_port); P4=$(free_port)
CLUSTER="http://127.0.0.1:$P1,http://127.0.0.1:$P2,http://127.0.0.1:$P3"
echo "join-bench $(date -u +%FT%TZ) commit $(git -C "$ROOT" rev-parse --short HEAD)"
echo "keys $KEYS x $VALUE_SIZE B, load $RATE req/s (half PUT of $LOAD_VALUE_SIZE B, half GET, of $KEYSPACE keys) through node 1,"
echo "nodes on CPU $SERVER_CPU, load on CPU $LOAD_CPU, extra serve flags: ${SERVE_FLAGS:-none}"
SERVE_FLAGS="--replication-factor 3 --metadata-port-offset $OFFSET $SERVE_FLAGS"
for i in 1 2 3; do
  eval "port=\$P$i"
  start_node "node$i" "$port" --cluster "$CLUSTER" --self "http://127.0.0.1:$port"
done
sleep 3   # the metadata log elects a leader and commits its INITIALIZE

secs=$(( (KEYS + PREFILL_RATE - 1) / PREFILL_RATE ))
log "prefill: $KEYS PUTs at $PREFILL_RATE/s (${secs} s)"
taskset -c "$LOAD_CPU" "$GEN" -u "http://127.0.0.1:$P1/v0/entity?id={key}" -P pre -m PUT -b "$WORK/body" \
  -R "$PREFILL_RATE" -d "$secs" -c 64 -t 30 | head -n 1

dur=$((BEFORE + MAX_JOIN))
log "load: $RATE req/s for up to $dur s"
half=$((RATE / 2))
taskset -c "$LOAD_CPU" "$GEN" -u "http://127.0.0.1:$P1/v0/entity?id={key}" -K "$KEYSPACE" -P k -m PUT \
  -b "$WORK/load-body" -R "$half" -d "$dur" -c 32 -t 10 -o "$WORK/put.rec" >"$WORK/put.out" &
PUT_PID=$!
taskset -c "$LOAD_CPU" "$GEN" -u "http://127.0.0.1:$P1/v0/entity?id={key}" -K "$KEYSPACE" -P k -m GET \
  -R "$half" -d "$dur" -c 32 -t 10 -o "$WORK/get.rec" >"$WORK/get.out" &
GET_PID=$!
T0=$(date +%s.%N)
# the disk's writes each second (MB written, ms spent writing), from /proc/diskstats of the data
# directory's device, to set beside the slow seconds
SRC=$(df --output=source "$WORK" | tail -n 1)
DEV=$(lsblk -no PKNAME "$SRC" 2>/dev/null | head -n 1 || true)
[ -n "$DEV" ] || DEV=$(basename "$SRC")
( for _ in $(seq 1 $((dur + 5))); do
    echo "$(date +%s.%N) $(awk -v d="$DEV" '$3 == d { print $10, $11 }' /proc/diskstats)"; sleep 1
  done ) >"$WORK/disk.log" 2>/dev/null &
DISK_PID=$!
# CPU time of each node (utime + stime, clock ticks) and the machine's CPU pressure (PSI "some", µs)
# every second, to see which process takes the CPUs in the slow seconds
( for _ in $(seq 1 $((dur + 5))); do
    line="$(date +%s.%N) psi $(sed -n 's/^some .*total=//p' /proc/pressure/cpu 2>/dev/null || echo 0)"
    for pid in $(pgrep -f "$WORK/node[0-9]/data" || true); do
      name=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -o "$WORK/node[0-9]" | head -n 1)
      [ -n "$name" ] && line="$line ${name##*/} $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null)"
    done
    echo "$line"; sleep 1
  done ) >"$WORK/cpu.log" 2>/dev/null &
CPU_PID=$!
sleep "$BEFORE"
JOIN_START=$(python3 -c "import time; print(time.time() - $T0)")
log "node4 joins"
NODE_NICE=${JOINER_NICE:-0} SERVE_FLAGS="--metadata-port-offset $OFFSET ${SERVE_FLAGS#*--metadata-port-offset $OFFSET}" \
  start_node node4 "$P4" --join "http://127.0.0.1:$P1" --self "http://127.0.0.1:$P4"
JOIN_END=""
for i in $(seq 1 $((MAX_JOIN * 10))); do
  if grep -q 'joined: node' "$WORK/node4/log" "$WORK/node4/out" 2>/dev/null; then
    JOIN_END=$(python3 -c "import time; print(time.time() - $T0)"); break
  fi
  sleep 0.1
done
# an unfinished join is measured until the load's end
[ -n "$JOIN_END" ] || { log "node4 did not finish joining within $MAX_JOIN s"; JOIN_END=$dur; }
# the joining node's threads that took the most CPU time (ms) up to the end of its join
N4=$(pgrep -f "$WORK/node4/data" | head -n 1 || true)
if [ -n "$N4" ]; then
  for t in /proc/"$N4"/task/*; do
    echo "$(awk '{ print ($14 + $15) * 10 }' "$t/stat" 2>/dev/null) $(cat "$t/comm" 2>/dev/null)"
  done | sort -rn | head -n 12 | awk '{ printf "%s%s %s ms", (NR > 1 ? ", " : "node4 threads by CPU time: "), $2 " " $3 " " $4, $1 } END { print "" }'
fi
kill "$PUT_PID" "$GET_PID" "$DISK_PID" "$CPU_PID" 2>/dev/null || true
wait "$PUT_PID" "$GET_PID" 2>/dev/null || true
grep -h 'join streaming done\|joined: node' "$WORK/node4/log" "$WORK/node4/out" 2>/dev/null | sed 's/^/node4: /' || true
python3 - "$WORK" "$BEFORE" "$JOIN_START" "$JOIN_END" "$T0" <<'PY'
import struct, sys
work, before, js, je, t0 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
lat = {"before": [], "during": []}
errors = {"before": 0, "during": 0}
kinds = {}
records = []  # (op, seconds since the load began, latency ms, status)
for name in ("put", "get"):
    try:
        data = open(f"{work}/{name}.rec", "rb").read()
    except FileNotFoundError:
        continue
    for off in range(0, len(data) - 11, 12):
        t_us, l_us, status, _ = struct.unpack_from("<IIHH", data, off)
        records.append((name, t_us / 1e6, l_us / 1000, status))
for name, t, ms, status in records:
    # the first half of the time before the join is warm-up (the prefill's flushes and compactions)
    w = "before" if before / 2 <= t < before else ("during" if js <= t < je else None)
    if w is None:
        continue
    lat[w].append(ms)
    kinds.setdefault((name, w), []).append(ms)
    if status >= 500:
        errors[w] += 1
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else float("nan")
for w in ("before", "during"):
    v = lat[w]
    print(f"{w:7s} requests {len(v):7d}  p50 {pct(v, .5):7.2f} ms  p99 {pct(v, .99):7.2f} ms"
          f"  p99.9 {pct(v, .999):7.2f} ms  max {max(v) if v else float('nan'):7.2f} ms  5xx {errors[w]}")
for (name, w), v in sorted(kinds.items()):
    print(f"  {name} {w:7s} p99 {pct(v, .99):7.2f} ms")
print(f"join took {je - js:.1f} s; p99 during / before = {pct(lat['during'], .99) / pct(lat['before'], .99):.2f}")
# where the tail comes from: p99 and max per second, from 5 s before the join to its end
per = {}
for _, t, ms, _ in records:
    if js - 5 <= t < je:
        per.setdefault(int(t - js + 5), []).append(ms)
print("second since join (p99 / max ms): " + "  ".join(
    f"{s - 5:+d}:{pct(v, .99):.0f}/{max(v):.0f}" for s, v in sorted(per.items())))
# disk: MB written and ms spent writing per second, same seconds
samples = []
try:
    for line in open(f"{work}/disk.log"):
        f = line.split()
        if len(f) == 3:
            samples.append((float(f[0]) - t0, int(f[1]), int(f[2])))
except FileNotFoundError:
    pass
cells = []
for (ta, sa, wa), (tb, sb, wb) in zip(samples, samples[1:]):
    if js - 5 <= tb < je:
        cells.append(f"{int(tb - js):+d}:{(sb - sa) * 512 / 1e6:.0f}MB/{wb - wa}ms")
if cells:
    print("disk writes per second since join (MB / ms writing): " + "  ".join(cells))
# CPU: each node's share of one CPU (%) and the machine's CPU pressure (% of the second in which some
# runnable task waited for a CPU), per second
rows = []
try:
    for line in open(f"{work}/cpu.log"):
        f = line.split()
        if len(f) >= 3 and f[1] == "psi":
            rows.append((float(f[0]) - t0, int(f[2]), dict(zip(f[3::2], map(int, f[4::2])))))
except (FileNotFoundError, ValueError):
    pass
cells = []
for (ta, pa, ca), (tb, pb, cb) in zip(rows, rows[1:]):
    if js - 5 <= tb < je:
        dt = tb - ta
        nodes = "/".join(f"{(cb[n] - ca.get(n, cb[n])) / dt:.0f}" for n in sorted(cb))
        cells.append(f"{int(tb - js):+d}:{nodes} psi {(pb - pa) / 1e4 / dt:.0f}")
if cells:
    print("CPU % per node (node1/node2/...) and CPU pressure % per second since join: " + "  ".join(cells))
PY
