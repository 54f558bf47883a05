#!/usr/bin/env bash
# Measures how fast the load generators drive one core's worth of nginx from the other core: the
# ceiling of each tool on this machine, which must be above the Ringbase node's saturation rate.
#   nginx (1 worker, `return 200`) pinned to CPU 0; the load generator pinned to CPU 1; 64 connections.
#   wrk -t1 (closed loop, as fast as it goes), then at each constant rate bench/rategen (as `ringbase
#   bench` runs it by default) and oha with --latency-correction and CSV output (as `ringbase bench
#   --load-generator oha` runs it); achieved req/s = answers / duration.
# Usage: bench/loadgen-ceiling.sh [-d SECONDS] [RATE...]   (default 10 s; rates 40000 60000 80000 100000)
# oha is measured when there is one in bench/.cache/oha/bin (`bin/ringbase bench --load-generator oha`
# installs it) or at $OHA; rategen is compiled from bench/rategen/rategen.c with cc.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECS=10
[ "${1:-}" = -d ] && { SECS=$2; shift 2; }
RATES=("$@"); [ ${#RATES[@]} -gt 0 ] || RATES=(40000 60000 80000 100000)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-ceiling.XXXXXX")
DURATION=${SECS}s
. "$ROOT/bench/lib.sh"
NGINX_PID=""
cleanup() { [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
ensure_tools wrk:wrk nginx:nginx taskset:util-linux cc:gcc
OHA=${OHA:-$ROOT/bench/.cache/oha/bin/oha}
[ -x "$OHA" ] || { echo "(no oha at $OHA: oha not measured; bin/ringbase bench --load-generator oha installs it)"; OHA=""; }
GEN="$WORK/rategen"
cc -O2 -o "$GEN" "$ROOT/bench/rategen/rategen.c" || die "could not compile bench/rategen/rategen.c"

PORT=$(free_port)
mkdir -p "$WORK/nginx"; chmod 755 "$WORK" "$WORK/nginx"
cat >"$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/body;
  keepalive_requests 1000000000;
  keepalive_timeout 300s;
  server { listen 127.0.0.1:$PORT; location / { return 200 "ok"; } }
}
CONF
taskset -c "$SERVER_CPU" nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" 2>"$WORK/nginx/stderr.log" &
NGINX_PID=$!
wait_port "$PORT" 10 || die "nginx did not start"
URL="http://127.0.0.1:$PORT/"
echo "== load generator ceiling: nginx on CPU $SERVER_CPU, generator on CPU $WRK_CPU, 64 connections, ${SECS} s each"
echo "date: $(date -u '+%F %T UTC'); $(nproc) CPUs; idle before: $(machine_idle)%; $("$GEN" -V); ${OHA:+$("$OHA" --version); }$(wrk -v 2>&1 | head -n 1 | cut -c1-40)"
echo "-- wrk -t1 -c64 (closed loop)"
taskset -c "$WRK_CPU" wrk -t1 -c64 -d"${SECS}s" --latency "$URL" | grep -E 'Requests/sec|99%'
for rate in "${RATES[@]}"; do
  taskset -c "$WRK_CPU" "$GEN" -u "$URL" -R "$rate" -d "$SECS" -c 64 >"$WORK/rategen.out" || { cat "$WORK/rategen.out"; die "rategen failed"; }
  r=$(grep '^RESULT' "$WORK/rategen.out")
  f() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$r"; }
  awk -v R="$rate" -v a="$(f rate)" -v p99="$(f p99)" -v p999="$(f p999)" -v mx="$(f max)" 'BEGIN {
    printf "-- rategen -R %s: achieved %.0f req/s (%.0f%% of target), p99 %.2f ms, p99.9 %.2f ms, max %.2f ms\n",
      R, a, 100 * a / R, p99 / 1000, p999 / 1000, mx / 1000 }'
  [ -n "$OHA" ] || continue
  taskset -c "$WRK_CPU" "$OHA" --no-tui -z "${SECS}s" -q "$rate" --latency-correction -c 64 ${OHA_ARGS:-} \
    --output-format csv -o "$WORK/oha.csv" "$URL" >/dev/null 2>"$WORK/oha.err" || { cat "$WORK/oha.err"; die "oha failed"; }
  n=$(( $(wc -l <"$WORK/oha.csv") - 1 ))
  read -r p99 p999 mx < <(tail -n +2 "$WORK/oha.csv" | cut -d, -f5 | sort -g \
    | awk '{a[NR]=$1} END {printf "%.2f %.2f %.2f\n", a[int(NR*0.99)]*1000, a[int(NR*0.999)]*1000, a[NR]*1000}')
  echo "-- oha -q $rate --latency-correction: achieved $(( n / SECS )) req/s ($(( 100 * n / SECS / rate ))% of target), p99 ${p99} ms, p99.9 ${p999} ms, max ${mx} ms"
done
