# Shared by the bench scripts (bash, sourced after `set -euo pipefail`).
# Expects ROOT (the repository) and WORK (a temp dir that the caller's trap removes).

BENCH_DIR="$ROOT/bench"
export BENCH_LUA_DIR="$BENCH_DIR/lua"
SERVER_CPU=${SERVER_CPU:-0}
WRK_CPU=${WRK_CPU:-1}
CONNS=${CONNS:-64}
DURATION=${DURATION:-30s}
KEYS=${KEYS:-1000000}
VALUE_SIZE=${VALUE_SIZE:-100}
export CONNS KEYS VALUE_SIZE

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# Installs the Debian packages named (command:package pairs) whose command is missing.
ensure_tools() {
  local missing=() pair
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]} with apt-get"
  if ! apt-get update -qq >&2; then
    die "apt-get update failed; install ${missing[*]} by hand (apt-get install ${missing[*]}) and rerun"
  fi
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2; then
    die "apt-get install ${missing[*]} failed; install them by hand and rerun"
  fi
}

# Prints a TCP port on 127.0.0.1 that nothing listens on (and that we did not hand out before).
GIVEN_PORTS=" "
free_port() {
  local p i
  for i in $(seq 1 200); do
    p=$(( 20000 + RANDOM % 40000 ))
    case "$GIVEN_PORTS" in *" $p "*) continue ;; esac
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      GIVEN_PORTS="$GIVEN_PORTS$p "
      echo "$p"
      return 0
    fi
  done
  die "no free loopback port found"
}

# Waits until something accepts connections on 127.0.0.1:$1 (timeout $2 s).
wait_port() {
  local i
  for i in $(seq 1 $(( $2 * 10 ))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# Builds the modules through bin/ringbase (unpinned, before any measurement) and checks the serve command exists.
ensure_ringbase() {
  if ! "$ROOT/bin/ringbase" serve --help >/dev/null 2>"$WORK/serve-help.err"; then
    cat "$WORK/serve-help.err" >&2
    die "'bin/ringbase serve --help' failed: this checkout has no working HTTP server yet"
  fi
}

# start_ringbase PORT DATA_DIR [extra serve flags...]: starts a node pinned to SERVER_CPU, waits
# for its ready line. Sets RB_PID; its stderr goes to $WORK/ringbase-<n>.log. RB_LAUNCH_PREFIX (an
# array, empty by default) is a command the node is started through, which must exec it so that
# RB_PID stays the node's, e.g. "${IN_CGROUP[@]}" of memory_cgroup.
RB_PID=""
RB_RUNS=0
RB_LAUNCH_PREFIX=()
start_ringbase() {
  local port=$1 dir=$2; shift 2
  RB_RUNS=$((RB_RUNS + 1))
  RB_LOG="$WORK/ringbase-$RB_RUNS.log"
  RB_OUT="$WORK/ringbase-$RB_RUNS.out"
  mkdir -p "$dir"
  ${RB_LAUNCH_PREFIX[@]+"${RB_LAUNCH_PREFIX[@]}"} taskset -c "$SERVER_CPU" "$ROOT/bin/ringbase" serve \
    --host 127.0.0.1 --port "$port" --data-dir "$dir" "$@" >"$RB_OUT" 2>"$RB_LOG" &
  RB_PID=$!
  local i
  for i in $(seq 1 1200); do
    if grep -q 'Ringbase node ready at' "$RB_OUT" 2>/dev/null; then
      # and whether the launcher gave it the JVM's ahead-of-time cache (bin/ringbase aot-train)
      local aot
      aot=$(sed -n 's/^ringbase: \(\(not \)\{0,1\}using the ahead-of-time cache\).*/\1/p' "$RB_LOG" | head -n 1)
      log "ringbase (pid $RB_PID) ready on 127.0.0.1:$port: $(head -n 1 "$RB_OUT") [${aot:-no ahead-of-time cache}]"
      return 0
    fi
    if ! kill -0 "$RB_PID" 2>/dev/null; then
      tail -n 30 "$RB_LOG" >&2
      die "ringbase exited before it was ready"
    fi
    sleep 0.1
  done
  die "ringbase not ready after 120 s"
}

# Stops the node with SIGTERM and waits up to 60 s; reports exit code and log lines of note.
stop_ringbase() {
  [ -n "$RB_PID" ] || return 0
  local rc=0 i
  kill -TERM "$RB_PID" 2>/dev/null || true
  for i in $(seq 1 600); do kill -0 "$RB_PID" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$RB_PID" 2>/dev/null; then
    log "ringbase (pid $RB_PID) still running 60 s after SIGTERM; sending SIGKILL"
    kill -KILL "$RB_PID" 2>/dev/null || true
  fi
  wait "$RB_PID" 2>/dev/null || rc=$?
  log "ringbase (pid $RB_PID) exited with code $rc"
  RB_PID=""
  server_log_summary
}

# Prints the node's WARN/ERROR lines (at most 20) and their count.
server_log_summary() {
  [ -f "${RB_LOG:-}" ] || return 0
  local n
  n=$(grep -cE 'WARN|ERROR|Exception' "$RB_LOG" || true)
  echo "server log ($RB_LOG): $(wc -l <"$RB_LOG") lines, $n WARN/ERROR/Exception lines"
  if [ "$n" -gt 0 ]; then grep -E 'WARN|ERROR|Exception' "$RB_LOG" | head -n 20 | sed 's/^/  | /'; fi
}

# Nodes of a local cluster, by NAME (data in $WORK/NAME/data, stdout/stderr in $WORK/NAME/out and
# $WORK/NAME/log). start_node NAME PORT [serve flags...] starts one pinned to SERVER_CPU, with
# SERVE_FLAGS, under nice NODE_NICE (default 0), and waits up to 300 s for its ready line; PIDS holds every node started; stop_all stops
# them all (a stopped one is continued first).
PIDS=()
start_node() {
  local name=$1 port=$2; shift 2
  mkdir -p "$WORK/$name"
  taskset -c "$SERVER_CPU" nice -n "${NODE_NICE:-0}" "$ROOT/bin/ringbase" serve --host 127.0.0.1 --port "$port" --data-dir "$WORK/$name/data" \
    ${SERVE_FLAGS:-} "$@" >"$WORK/$name/out" 2>"$WORK/$name/log" &
  PIDS+=($!)
  local i
  for i in $(seq 1 3000); do
    grep -q 'Ringbase node ready at' "$WORK/$name/out" 2>/dev/null && { log "$name ready on :$port"; return 0; }
    kill -0 "${PIDS[-1]}" 2>/dev/null || { tail -n 30 "$WORK/$name/log" >&2; die "$name exited before it was ready"; }
    sleep 0.1
  done
  die "$name not ready after 300 s"
}
stop_all() {
  local p
  for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  PIDS=()
}

# stop_all_on_exit [COMMAND]: on exit, INT or TERM, stops every node of start_node, runs COMMAND (a
# script's own undo, e.g. removing its iptables rules), removes $WORK, and exits with the script's code.
stop_all_on_exit() {
  ON_EXIT=${1:-true}
  trap 'rc=$?; trap - EXIT INT TERM; stop_all; $ON_EXIT; rm -rf "$WORK"; exit "$rc"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# run_wrk NAME URL LUA DURATION: runs wrk pinned to WRK_CPU with -t1 -c CONNS --latency, prints its
# output, and leaves the RESULT/STATUS lines of the Lua done() in $WORK/<NAME>.wrk.
run_wrk() {
  local name=$1 url=$2 lua=$3 dur=$4
  local cmd=(taskset -c "$WRK_CPU" wrk -t1 -c"$CONNS" -d"$dur" --timeout 5s --latency -s "$BENCH_LUA_DIR/$lua" "$url")
  echo "\$ ${cmd[*]}"
  "${cmd[@]}" 2>&1 | tee "$WORK/$name.wrk"
}

# field NAME KEY: a value from the RESULT or STATUS line of a run.
field() {
  sed -n "s/^\(RESULT\|STATUS\) .*\b$2=\([0-9.]*\).*/\2/p" "$WORK/$1.wrk" | head -n 1
}

# Percent of CPU time idle over one second (other work on the machine skews every figure).
machine_idle() {
  local a b
  a=($(sed -n 's/^cpu  //p' /proc/stat)); sleep 1; b=($(sed -n 's/^cpu  //p' /proc/stat))
  local tot=0 i
  for i in 0 1 2 3 4 5 6 7; do tot=$(( tot + b[i] - a[i] )); done
  echo $(( 100 * (b[3] - a[3] + b[4] - a[4]) / (tot > 0 ? tot : 1) ))
}

# Warns when other processes keep the CPUs busy.
busy_warning() {
  local idle; idle=$(machine_idle)
  if [ "$idle" -lt 90 ]; then
    echo "!! WARNING: only $idle% CPU idle before $1; other processes on this machine will skew it:"
    ps -eo pcpu,pid,comm --sort=-pcpu | sed -n '2,4p' | sed 's/^/!!   /'
  fi
}

print_header() {
  local jv
  echo "== $1"
  echo "command:  $2"
  echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "machine:  $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(free -h | awk '/^Mem:/ {print $2}') memory, $(uname -sr)"
  . "$ROOT/bin/find-jdk.sh"
  if ringbase_find_jdk 2>/dev/null; then
    jv=$("$JAVA_HOME/bin/java" -version 2>&1 | tr '\n' ' ')
  else
    jv="none found"
  fi
  echo "jdk:      $jv($JAVA_HOME)"
  echo "commit:   $(git -C "$ROOT" rev-parse --short HEAD) ($(git -C "$ROOT" rev-parse --abbrev-ref HEAD))$( [ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ] && echo ', working tree has uncommitted changes')"
  echo "tools:    $(wrk -v 2>&1 | head -n 1 | cut -c1-60); $(nginx -v 2>&1)"
  echo "idle:     $(machine_idle)% of both CPUs idle over 1 s before the run; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "pinning:  server on CPU $SERVER_CPU, wrk -t1 on CPU $WRK_CPU; $CONNS connections; $DURATION per scenario"
}

# memory_cgroup NAME LIMIT: makes a memory cgroup (v1 or v2) whose limit, page cache included, is LIMIT
# (e.g. 1536M); sets CG (its directory, for the caller to rmdir) and IN_CGROUP, a command prefix that
# runs a command inside it with the same pid ("${IN_CGROUP[@]}" cmd args &; $! is cmd's). Needs root.
memory_cgroup() {
  local join
  if [ -d /sys/fs/cgroup/memory ]; then # cgroup v1
    CG=/sys/fs/cgroup/memory/$1
    mkdir -p "$CG"
    echo "$2" > "$CG/memory.limit_in_bytes"
    join="$CG/tasks"
  else # cgroup v2
    CG=/sys/fs/cgroup/$1
    mkdir -p "$CG"
    echo "$2" > "$CG/memory.max"
    join="$CG/cgroup.procs"
  fi
  IN_CGROUP=(bash -c 'echo $$ > "$1"; shift; exec "$@"' join "$join")
}

# Prints the read_ahead_kb of every block device but loop and RAM ones, "vda=8192KiB ...", or "unknown".
read_ahead_summary() {
  local q dev out=""
  for q in /sys/block/*/queue/read_ahead_kb; do
    dev="${q#/sys/block/}"; dev="${dev%%/*}"
    case "$dev" in loop*|ram*) continue ;; esac
    out="$out $dev=$(cat "$q")KiB"
  done
  if [ -n "$out" ]; then echo "${out# }"; else echo unknown; fi
}
