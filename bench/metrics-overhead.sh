#!/usr/bin/env bash
# What Prometheus metrics cost on the request path (target: < 3% of closed-loop throughput):
# runs `bin/ringbase bench --ycsb A` (closed loop: YCSB's threads each wait for their answer) against a
# fresh node started with --metrics, then one with --no-metrics, interleaved A B B A A B ... over
# --rounds rounds so drift in the machine's load hits both alike, and prints each run's throughput,
# the medians and their ratio. Everything talks to 127.0.0.1 only; every run is bounded by its op count.
#   bench/metrics-overhead.sh [--rounds N] [--records N] [--ops N] [--threads N] [--workload A-F]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS=3 RECORDS=20000 OPS=100000 THREADS=16 WORKLOAD=A
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --records) RECORDS=$2; shift 2 ;;
    --ops) OPS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --workload) WORKLOAD=$2; shift 2 ;;
    *) echo "metrics-overhead.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
OUT="$(mktemp -d /tmp/ringbase-metrics-overhead.XXXXXX)"
trap 'rm -rf "$OUT"' EXIT

echo "# metrics overhead: bin/ringbase bench --ycsb $WORKLOAD --ycsb-records $RECORDS --ycsb-ops $OPS --ycsb-threads $THREADS"
echo "# date $(date -u +%FT%TZ), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo '+dirty')"
echo "# machine: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1), load average $(cut -d' ' -f1-3 /proc/loadavg)"
run() { # $1 = --metrics | --no-metrics; prints the run's throughput, ops/s
  local report
  report=$("$ROOT/bin/ringbase" bench --ycsb "$WORKLOAD" --ycsb-records "$RECORDS" --ycsb-ops "$OPS" \
    --ycsb-threads "$THREADS" --out "$OUT" --serve-arg="$1" 2>>"$OUT/bench.log")
  # the report holds YCSB's -load output, then its -t output: the run's throughput is the last one
  grep -h '\[OVERALL\], Throughput(ops/sec)' "$report" | tail -n 1 | awk -F', ' '{printf "%.0f", $3}'
}
on=() off=()
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then order=(--metrics --no-metrics); else order=(--no-metrics --metrics); fi
  for flag in "${order[@]}"; do
    t=$(run "$flag")
    printf 'round %d %-12s %8s ops/s   (load average %s)\n' "$r" "$flag" "$t" "$(cut -d' ' -f1 /proc/loadavg)"
    if [ "$flag" = --metrics ]; then on+=("$t"); else off+=("$t"); fi
  done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
m_on=$(median "${on[@]}") m_off=$(median "${off[@]}")
echo "median --metrics ${m_on} ops/s, --no-metrics ${m_off} ops/s: metrics cost $(awk -v a="$m_on" -v b="$m_off" 'BEGIN {printf "%.1f", (1 - a / b) * 100}')% of throughput"
