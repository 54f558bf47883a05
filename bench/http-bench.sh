#!/usr/bin/env bash
# HTTP saturation bench of one Ringbase node against nginx on the same machine, same run.
# See bench/README.md. Usage:
#   bench/http-bench.sh [-d DURATION] [-c CONNS] [--keys N] [--only LIST] [--warmup DURATION]
#     -d, --duration   time per scenario (default 30s; env DURATION)
#     -c, --conns      connections (default 64; env CONNS)
#     --keys           keys in the GET node (default 1000000; env KEYS)
#     --only           comma list of scenarios: nginx,put,get,miss (default all)
#     --warmup         GET-missing warm-up of each fresh node before measuring (default 5s; 0 = none)
#     --rounds N       N rounds (default 1) of each of PUT (a fresh node each round) and GET, each round
#                      right after an nginx run of its own; the target lines give the median of the rounds'
#                      ratios (on a noisy machine nginx alone moves by a quarter from one minute to the next)
#     --               everything after is passed to `ringbase serve` (e.g. -- --wal-sync always)
# Only 127.0.0.1 is contacted. Every wrk run is bounded by -d.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMDLINE="$0 $*"

ONLY="nginx,put,get,miss"
ROUNDS=1
WARMUP=${WARMUP:-5s}
SERVE_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    -d|--duration) DURATION=$2; shift 2 ;;
    -c|--conns) CONNS=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; SERVE_ARGS=("$@"); break ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
want() { case ",$ONLY," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
case "$ROUNDS" in ''|*[!0-9]*|0) echo "--rounds wants a whole number >= 1, not '$ROUNDS'" >&2; exit 2 ;; esac

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-bench.XXXXXX")
NGINX_PID=""
. "$ROOT/bench/lib.sh"

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$NGINX_PID" ]; then kill -QUIT "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; fi
  stop_ringbase >&2 || true
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ensure_tools wrk:wrk nginx:nginx curl:curl taskset:util-linux
print_header "Ringbase HTTP bench" "$CMDLINE"
echo "scenarios: $ONLY; serve flags: ${SERVE_ARGS[*]:-(defaults)}"
echo

RINGBASE_OK=1
if want put || want get || want miss; then
  log "building/checking bin/ringbase (not pinned, not measured)"
  if ! (ensure_ringbase) >&2; then
    RINGBASE_OK=0
    echo "!! bin/ringbase serve is not available in this checkout: Ringbase scenarios SKIPPED"
  fi
fi

# ---------------------------------------------------------------- nginx
start_nginx() {
  local port=$1 d="$WORK/nginx"
  mkdir -p "$d"
  chmod 755 "$WORK" "$d"
  cat >"$d/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  default_type text/plain;
  client_body_temp_path $d/body;
  proxy_temp_path $d/proxy;
  fastcgi_temp_path $d/fastcgi;
  uwsgi_temp_path $d/uwsgi;
  scgi_temp_path $d/scgi;
  keepalive_requests 1000000000;
  keepalive_timeout 300s;
  server {
    listen 127.0.0.1:$port;
    location / { return 200 "ok"; }
  }
}
EOF
  taskset -c "$SERVER_CPU" nginx -p "$d" -c "$d/nginx.conf" 2>"$d/stderr.log" &
  NGINX_PID=$!
  if ! wait_port "$port" 10; then
    cat "$d/stderr.log" "$d/error.log" >&2 2>/dev/null || true
    die "nginx did not start"
  fi
  log "nginx (pid $NGINX_PID) listening on 127.0.0.1:$port: $(nginx -v 2>&1)"
}

declare -A RPS P50 P90 P99 MAXL STAT
record() {  # record NAME: pulls figures of a run into the tables
  RPS[$1]=$(field "$1" rps); P50[$1]=$(field "$1" p50); P90[$1]=$(field "$1" p90)
  P99[$1]=$(field "$1" p99); MAXL[$1]=$(field "$1" max)
  STAT[$1]=$(sed -n 's/^STATUS //p' "$WORK/$1.wrk" | head -n 1)
  [ -n "${RPS[$1]}" ] || die "wrk run $1 printed no RESULT line (see above)"
}
ORDER=()
scenario() {  # scenario NAME TITLE URL LUA
  echo
  echo "-- $2"
  busy_warning "$1"
  run_wrk "$1" "$3" "$4" "$DURATION"
  record "$1"
  ORDER+=("$1")
  TITLE[$1]=$2
}
declare -A TITLE

if want nginx || [ "$RINGBASE_OK" = 1 ]; then
  NGINX_PORT=$(free_port)
  start_nginx "$NGINX_PORT"
  scenario nginx-get "1. nginx GET / (the HTTP ceiling)" "http://127.0.0.1:$NGINX_PORT/" get-root.lua
  if want put; then
    scenario nginx-put "1b. nginx PUT of 100-byte bodies, same Lua as scenario 2 (ceiling for PUT)" \
      "http://127.0.0.1:$NGINX_PORT" put.lua
  fi
  if [ "$ROUNDS" = 1 ] || ! { want get || want put; }; then  # later rounds run nginx again; it idles till then
    kill -QUIT "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
    NGINX_PID=""
  fi
  if [ -s "$WORK/nginx/error.log" ]; then echo "nginx error.log:"; sed 's/^/  | /' "$WORK/nginx/error.log" | head -n 20; fi
fi

warmup() {  # warm the JIT on the HTTP path without writing: GETs of missing keys
  [ "$WARMUP" = 0 ] && return 0
  log "warm-up: $WARMUP of GETs of missing keys (not reported)"
  taskset -c "$WRK_CPU" wrk -t1 -c"$CONNS" -d"$WARMUP" --timeout 5s -s "$BENCH_LUA_DIR/get-missing.lua" "$1" \
    >"$WORK/warmup.out" 2>&1 || die "warm-up failed: $(cat "$WORK/warmup.out")"
  echo "(warm-up $WARMUP: $(grep '^STATUS' "$WORK/warmup.out"))"
}

if [ "$RINGBASE_OK" = 1 ]; then
  RB_PORT=$(free_port)
  RB_URL="http://127.0.0.1:$RB_PORT"
  # ------------------------------------------------------------ PUT into an empty node
  if want put; then
    for r in $(seq 1 "$ROUNDS"); do
      sfx=""; rt=""
      if [ "$r" -gt 1 ]; then
        sfx=".$r"; rt=", round $r"
        scenario "nginx-put$sfx" "1b$rt. nginx PUT again" "http://127.0.0.1:$NGINX_PORT" put.lua
      fi
      echo
      start_ringbase "$RB_PORT" "$WORK/data-put" "${SERVE_ARGS[@]}"
      warmup "$RB_URL"
      scenario "rb-put$sfx" "2$rt. Ringbase PUT of $VALUE_SIZE-byte values, new sequential keys, empty node" "$RB_URL" put.lua
      # The same node right after: its JIT has now compiled the PUT path (the GET warm-up above
      # does not reach it), so this is the steady state; new keys again (prefix "q").
      KEY_PREFIX=q scenario "rb-put-warm$sfx" "2b$rt. the same, continued on the same node once warm (new keys)" \
        "$RB_URL" put.lua
      stop_ringbase
      echo "data dir after PUT run: $(du -sh "$WORK/data-put" | cut -f1)"
      rm -rf "$WORK/data-put"
    done
  fi
  # ------------------------------------------------------------ GET from a node with KEYS keys
  if want get || want miss; then
    echo
    start_ringbase "$RB_PORT" "$WORK/data-get" "${SERVE_ARGS[@]}"
    echo
    echo "-- prefill: PUT keys 0..$((KEYS - 1)) once each ($VALUE_SIZE-byte values)"
    METHOD=PUT run_wrk prefill "$RB_URL" walk.lua 900s
    PUT201=$(field prefill 201); PUTBAD=$(field prefill non2xx)
    [ "${PUTBAD:-1}" = 0 ] || die "prefill got $PUTBAD non-2xx answers; the GET bench would be meaningless"
    [ "${PUT201:-0}" -ge "$KEYS" ] || die "prefill got only ${PUT201:-0} 201s for $KEYS keys"
    echo
    echo "-- verify: GET keys 0..$((KEYS - 1)) once each; every one must be 200"
    METHOD=GET run_wrk verify "$RB_URL" walk.lua 900s
    V200=$(field verify 200); VBAD=$(field verify non2xx)
    [ "${VBAD:-1}" = 0 ] || die "verify: $VBAD of the prefilled keys did not answer 200"
    [ "${V200:-0}" -ge "$KEYS" ] || die "verify got only ${V200:-0} 200s for $KEYS keys"
    for k in 0 1 $((KEYS / 2)) $((KEYS - 2)) $((KEYS - 1)); do
      code=$(curl -s -o "$WORK/value" -w '%{http_code}' "$RB_URL/v0/entity?id=$k")
      size=$(wc -c <"$WORK/value")
      echo "spot check: GET id=$k -> $code, $size bytes"
      [ "$code" = 200 ] && [ "$size" = "$VALUE_SIZE" ] || die "spot check of key $k failed"
    done
    code=$(curl -s -o /dev/null -w '%{http_code}' "$RB_URL/v0/entity?id=$KEYS")
    echo "spot check: GET id=$KEYS (never written) -> $code"
    echo "data dir after prefill: $(du -sh "$WORK/data-get" | cut -f1)"
    if want get; then
      scenario rb-get "3. Ringbase GET of random existing keys (0..$((KEYS - 1)))" "$RB_URL" get-random.lua
      for r in $(seq 2 "$ROUNDS"); do
        scenario "nginx-get.$r" "1, round $r. nginx GET / again" "http://127.0.0.1:$NGINX_PORT/" get-root.lua
        scenario "rb-get.$r" "3, round $r. Ringbase GET again, right after nginx" "$RB_URL" get-random.lua
      done
    fi
    if want miss; then
      scenario rb-miss "4. Ringbase GET of missing keys (expect 404)" "$RB_URL" get-missing.lua
    fi
    stop_ringbase
  fi
fi

# ---------------------------------------------------------------- summary
ms() { awk -v u="$1" 'BEGIN { printf "%.2f", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
ref_of() {  # the nginx GET run a row is compared with: rb-get.N's own round's, else the first
  case "$1" in rb-get.[0-9]*) echo "nginx-get.${1##*.}" ;; *) echo nginx-get ;; esac
}
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
echo "== summary (latencies in ms; ratios are Ringbase / nginx GET / of this run, of the same round for rb-get.N:"
echo "   for req/s higher is better, for latencies lower is better)"
printf '%-12s %10s %8s %8s %8s %8s | %6s %6s %6s %6s %6s | %s\n' \
  scenario req/s p50 p90 p99 max x_rps x_p50 x_p90 x_p99 x_max statuses
for n in "${ORDER[@]}"; do
  g=$(ref_of "$n")
  case "$n" in nginx-get*) r=(- - - - -) ;; *)
    r=("$(ratio "${RPS[$n]}" "${RPS[$g]}")" "$(ratio "${P50[$n]}" "${P50[$g]}")" \
       "$(ratio "${P90[$n]}" "${P90[$g]}")" "$(ratio "${P99[$n]}" "${P99[$g]}")" \
       "$(ratio "${MAXL[$n]}" "${MAXL[$g]}")") ;;
  esac
  printf '%-12s %10.0f %8s %8s %8s %8s | %6s %6s %6s %6s %6s | %s\n' "$n" "${RPS[$n]}" \
    "$(ms "${P50[$n]}")" "$(ms "${P90[$n]}")" "$(ms "${P99[$n]}")" "$(ms "${MAXL[$n]}")" \
    "${r[@]}" "${STAT[$n]}"
done
if [ -n "${RPS[rb-put]:-}" ] && [ -n "${RPS[nginx-put]:-}" ]; then
  echo "rb-put req/s vs nginx-put (same Lua script): $(ratio "${RPS[rb-put]}" "${RPS[nginx-put]}")"
fi
# The target: each of PUT and GET >= 80% of nginx's fixed answer to the same requests (nginx-put
# runs the PUT Lua script, whose request() also costs wrk; without it, nginx GET is the reference).
for n in rb-put rb-put-warm rb-get; do
  [ -n "${RPS[$n]:-}" ] || continue
  ref=nginx-get
  case "$n" in rb-put*) [ -n "${RPS[nginx-put]:-}" ] && ref=nginx-put ;; esac
  xs=""
  for r in $(seq 1 "$ROUNDS"); do  # each round against its own nginx run
    if [ "$r" = 1 ]; then m=$n; g=$ref; else m=$n.$r; g=$ref.$r; fi
    [ -n "${RPS[$m]:-}" ] && [ -n "${RPS[$g]:-}" ] || continue
    xs="$xs $(ratio "${RPS[$m]}" "${RPS[$g]}")"
  done
  # shellcheck disable=SC2086 # xs is a list of numbers
  x=$(median $xs)
  how=""
  [ "$ROUNDS" = 1 ] || how=" median of rounds:$xs"
  if awk -v x="$x" 'BEGIN { exit !(x >= 0.8) }'; then v="met"; else v="MISSED"; fi
  echo "target $n >= 80% of $ref req/s: $v ($x$how; round 1 against nginx-get: $(ratio "${RPS[$n]}" "${RPS[nginx-get]}"))"
done
[ "$RINGBASE_OK" = 1 ] || { echo "Ringbase scenarios were skipped (no server in this checkout)"; exit 3; }
