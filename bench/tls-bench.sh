#!/usr/bin/env bash
# Closed-loop GET with TLS against the same without, side by side in one run: three nodes alone, each
# with the same keys, plain HTTP, TLS on the JDK's provider and TLS on OpenSSL (netty-tcnative-boringssl-static
# from ~/.m2, which the release does not ship), measured in turn with wrk -t1 -c CONNS, round after round.
# Usage:
#   bench/tls-bench.sh [-d DURATION] [--keys N] [--rounds N]
#     -d, --duration   time per measured run (default 20s)
#     --keys           keys written to each node before (default 100000), 100-byte values
#     --rounds N       rounds of plain, TLS-JDK, TLS-OpenSSL (default 2)
# Nodes run the built ringbase-server/target jars directly (java -cp, no ahead-of-time cache, 512 MiB heap),
# pinned to SERVER_CPU (0); wrk to WRK_CPU (1). Only 127.0.0.1 is contacted. Needs wrk, openssl, taskset.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CMDLINE="$0 $*"
DURATION=20s
KEYS=100000
ROUNDS=2
while [ $# -gt 0 ]; do
  case "$1" in
    -d|--duration) DURATION=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ringbase-tls-bench.XXXXXX")
. "$ROOT/bench/lib.sh"
stop_all_on_exit
ensure_tools wrk:wrk openssl:openssl taskset:util-linux
. "$ROOT/bin/find-jdk.sh"
ringbase_find_jdk || exit 1
JAVA="$JAVA_HOME/bin/java"
TARGET="$ROOT/ringbase-server/target"
[ -f "$TARGET/ringbase.jar" ] || die "build first: ./mvnw -pl ringbase-server -am package -DskipTests"
M2="$HOME/.m2/repository/io/netty"
TCN_VERSION=2.0.84.Final
TCN="$M2/netty-tcnative-boringssl-static/$TCN_VERSION/netty-tcnative-boringssl-static-$TCN_VERSION-linux-x86_64.jar"
TCN="$TCN:$M2/netty-tcnative-classes/$TCN_VERSION/netty-tcnative-classes-$TCN_VERSION.jar"
CP="$TARGET/ringbase.jar:$TARGET/lib/*:$TCN"
print_header "Ringbase TLS bench" "$CMDLINE"

# a CA and a certificate for 127.0.0.1, EC P-256 (the key as PKCS#8, as --tls-key wants)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/ca.key" -out "$WORK/ca.pem" \
  -days 2 -subj /CN=bench-ca 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/node.key" -out "$WORK/node.csr" \
  -subj /CN=localhost 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$WORK/ext"
openssl x509 -req -in "$WORK/node.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial \
  -out "$WORK/node.pem" -days 2 -extfile "$WORK/ext" 2>/dev/null
TLS=(--tls-cert "$WORK/node.pem" --tls-key "$WORK/node.key")

declare -A PID_OF
# cpu_ticks NAME: user + system clock ticks the node's process has used
cpu_ticks() { awk '{print $14 + $15}' "/proc/${PID_OF[$1]}/stat"; }
TICK=$(getconf CLK_TCK)

# node NAME PORT JVM-PROPERTY [serve flags...]
node() {
  local name=$1 port=$2 prop=$3; shift 3
  mkdir -p "$WORK/$name"
  taskset -c "$SERVER_CPU" "$JAVA" -Xmx512m -XX:+UseParallelGC --enable-native-access=ALL-UNNAMED \
    --sun-misc-unsafe-memory-access=allow "$prop" -cp "$CP" io.ringbase.cli.Main serve \
    --host 127.0.0.1 --port "$port" --data-dir "$WORK/$name/data" "$@" >"$WORK/$name/out" 2>"$WORK/$name/log" &
  PIDS+=($!)
  PID_OF[$name]=$!
  local i
  for i in $(seq 1 1200); do
    grep -q 'Ringbase node ready at' "$WORK/$name/out" 2>/dev/null && {
      log "$name ready on :$port ($(grep -o 'provider [A-Z]*' "$WORK/$name/log" || echo plain))"; return 0; }
    kill -0 "${PIDS[-1]}" 2>/dev/null || { tail -n 30 "$WORK/$name/log" >&2; die "$name exited before it was ready"; }
    sleep 0.1
  done
  die "$name not ready after 120 s"
}
P_PLAIN=$(free_port); node plain "$P_PLAIN" -Dio.netty.handler.ssl.noOpenSsl=true
P_JDK=$(free_port); node tls-jdk "$P_JDK" -Dio.netty.handler.ssl.noOpenSsl=true "${TLS[@]}"
P_OSSL=$(free_port); node tls-openssl "$P_OSSL" -Dio.netty.handler.ssl.noOpenSsl=false "${TLS[@]}"
grep -q 'provider OPENSSL' "$WORK/tls-openssl/log" || die "the OpenSSL node runs another provider: $(grep -o 'provider [A-Z]*' "$WORK/tls-openssl/log")"
declare -A URL=([plain]="http://127.0.0.1:$P_PLAIN" [tls-jdk]="https://127.0.0.1:$P_JDK" [tls-openssl]="https://127.0.0.1:$P_OSSL")

for n in plain tls-jdk tls-openssl; do
  echo "-- prefill $n: PUT keys 0..$((KEYS - 1)) once each"
  METHOD=PUT run_wrk "prefill-$n" "${URL[$n]}" walk.lua 900s >/dev/null
  [ "$(field "prefill-$n" non2xx)" = 0 ] || die "prefill of $n got non-2xx answers"
  echo "-- warm $n: 5 s of GET"
  run_wrk "warm-$n" "${URL[$n]}" get-random.lua 5s >/dev/null
done

echo
printf '%-6s %-12s %12s %10s %10s %14s\n' round node 'req/s' 'p50' 'p99' 'node CPU µs/req'
declare -A SUM
for r in $(seq 1 "$ROUNDS"); do
  for n in plain tls-jdk tls-openssl; do
    t0=$(cpu_ticks "$n")
    run_wrk "get-$n-$r" "${URL[$n]}" get-random.lua "$DURATION" >"$WORK/get-$n-$r.txt"
    t1=$(cpu_ticks "$n")
    reqs=$(sed -n 's/^ *\([0-9]*\) requests in .*/\1/p' "$WORK/get-$n-$r.wrk")
    cpu=$(echo "($t1 - $t0) * 1000000 / $TICK / $reqs" | bc -l)
    [ "$(field "get-$n-$r" non2xx)" = 0 ] || die "GET on $n got non-2xx answers"
    rps=$(sed -n 's/^Requests\/sec: *\([0-9.]*\)/\1/p' "$WORK/get-$n-$r.wrk")
    p50=$(awk '$1=="50%"{print $2}' "$WORK/get-$n-$r.wrk"); p99=$(awk '$1=="99%"{print $2}' "$WORK/get-$n-$r.wrk")
    printf '%-6s %-12s %12s %10s %10s %14.1f\n' "$r" "$n" "$rps" "$p50" "$p99" "$cpu"
    eval "RPS_${n//-/_}_$r=$rps"
  done
  plain=$(eval echo "\$RPS_plain_$r")
  printf '       ratio to plain: TLS-JDK %.2f, TLS-OpenSSL %.2f\n' \
    "$(echo "$(eval echo "\$RPS_tls_jdk_$r") / $plain" | bc -l)" "$(echo "$(eval echo "\$RPS_tls_openssl_$r") / $plain" | bc -l)"
done
for n in plain tls-jdk tls-openssl; do server_log="$WORK/$n/log"; echo "$n log: $(grep -cE 'WARN|ERROR' "$server_log" || true) WARN/ERROR lines"; done
