# shellcheck shell=bash
# The JVM flags of a Ringbase command, shared by the source tree's bin/ringbase and the release's
# bin/ringbase (which ships this file beside it). Source it, then call `ringbase_jvm_opts "$@"` with the
# command's arguments; it sets
#   RINGBASE_HEAP_OPT  max heap: RINGBASE_HEAP, else 128m (for `cluster`, 128m per node: 384m for the
#                      default 3); for `bench`, RINGBASE_BENCH_HEAP or 1g (RINGBASE_HEAP goes on to the
#                      nodes bench starts)
#   RINGBASE_NODE_OPTS for `serve`, `cluster` and `aot-train`, the node's JVM (docs/design.md, "Memory budget of a
#                      node" and "Garbage collector"): the collector by the CPUs this process may use
#                      (nproc follows the affinity mask): SerialGC on one CPU, where a concurrent collector
#                      only competes with the event loop, and C2 thresholds 4x the default there; G1 on more
#                      (measured against ZGC); caps on what is
#                      not heap: direct buffers of the JDK (RINGBASE_MAX_DIRECT, default 32m: WAL write
#                      buffers) and of Netty (RINGBASE_NETTY_DIRECT, default 64m: receive buffers,
#                      request bodies, responses), metaspace and code cache; glibc's free native memory
#                      returned once a second (-XX:TrimNativeHeapInterval); no Netty leak detection (its
#                      sampling threw an exception per sampled buffer, 1% of a PUT's CPU; tests keep it on);
#                      Netty's use of sun.misc.Unsafe allowed (--sun-misc-unsafe-memory-access=allow), and
#                      java.nio opened to it, so that its direct buffers count against its own cap.
#   Sizes (RINGBASE_HEAP, RINGBASE_MAX_DIRECT, RINGBASE_NETTY_DIRECT) are as the JVM's -Xmx takes them:
#   a number of bytes, or a number followed by k, m or g (either case).
ringbase_jvm_opts() {
  local heap="${RINGBASE_HEAP:-}"
  if [ -z "$heap" ]; then
    heap=128m
    if [ "${1:-}" = cluster ]; then
      local nodes=3 prev= arg
      for arg in "$@"; do
        case "$arg" in
          --nodes=*) nodes="${arg#--nodes=}" ;;
          *) if [ "$prev" = --nodes ]; then nodes="$arg"; fi ;;
        esac
        prev="$arg"
      done
      case "$nodes" in
        ''|*[!0-9]*) ;; # not a number: picocli will say so
        *) if [ "$nodes" -ge 1 ]; then heap="$((128 * nodes))m"; fi ;;
      esac
    fi
  fi
  if [ "${1:-}" = bench ]; then heap="${RINGBASE_BENCH_HEAP:-1g}"; fi
  RINGBASE_HEAP_OPT="-Xmx$heap"

  RINGBASE_NODE_OPTS=""
  case "${1:-}" in
    serve|cluster|aot-train) # aot-train: the same JVM as serve's, or the cache it trains would not match
      local gc=-XX:+UseG1GC jit=""
      # SerialGC: objects that survive two young collections are promoted (the JVM's default is 15).
      # What survives is long-lived (the data is off the heap); copying it between survivor spaces for
      # 15 collections, and scanning the compiled methods that still point at it, made young pauses
      # 1.5-4.5 ms, against 0.5-0.8 ms when promoted at the second survival
      if [ "$(nproc 2>/dev/null || echo 1)" -le 1 ]; then
        gc="-XX:+UseSerialGC -XX:MaxTenuringThreshold=2"
        # C2 (tier 4) only for methods called 4x as often as the JVM's default asks: on one CPU the JIT's
        # threads take it from the event loop, a third of it in a fresh node's first 10 s under load. With
        # these, C1 and C2 together spent 21% less CPU in the first 25 s, closed-loop PUT into a fresh node
        # gave 10% more (9 pairs, 7 better), and the warm node the same
        jit="-XX:Tier4InvocationThreshold=20000 -XX:Tier4CompileThreshold=40000 -XX:Tier4BackEdgeThreshold=160000"
      fi
      RINGBASE_NODE_OPTS="$gc${jit:+ $jit} -XX:MaxDirectMemorySize=${RINGBASE_MAX_DIRECT:-32m}"
      # Netty reads -Dio.netty.maxDirectMemory as bytes only; the variable takes its siblings' units
      ringbase_size_bytes RINGBASE_NETTY_DIRECT "${RINGBASE_NETTY_DIRECT:-64m}"
      RINGBASE_NODE_OPTS="$RINGBASE_NODE_OPTS -Dio.netty.maxDirectMemory=$RINGBASE_SIZE_BYTES"
      # metaspace: a node uses ~26 MB of it; the JVM's first threshold (~21 MB) made SerialGC run a 34-66 ms
      # Full GC ("Metadata GC Threshold") 2 s after start; 48m leaves room up to the 64m cap
      RINGBASE_NODE_OPTS="$RINGBASE_NODE_OPTS -XX:MetaspaceSize=48m -XX:MaxMetaspaceSize=64m"
      # code cache: reserved, not resident (a node compiles 12-15 MB). The JVM runs a full GC
      # ("CodeCache GC Threshold", 30-60 ms under SerialGC) each time compiled code grows by 15% of the
      # reservation: with 48m that was twice in a node's first minute; 128m puts it past what a node compiles
      RINGBASE_NODE_OPTS="$RINGBASE_NODE_OPTS -XX:ReservedCodeCacheSize=128m"
      # native heap: glibc keeps what is freed (memtable slabs, 16 MiB per flushed memtable; the JIT's
      # arenas) for reuse instead of returning it, 15-35 MB of anonymous RSS at 40k PUT/s; the JDK's
      # trimmer calls malloc_trim(3) once a second from its own thread (0.2-6 ms per call, measured):
      # peak RssAnon 166-175 MB against 186-200 MB without
      RINGBASE_NODE_OPTS="$RINGBASE_NODE_OPTS -XX:TrimNativeHeapInterval=1000"
      RINGBASE_NODE_OPTS="$RINGBASE_NODE_OPTS -Dio.netty.leakDetection.level=disabled"
      # Netty 4.2 does not use sun.misc.Unsafe on Java 24+ unless allowed (JEP 498 warnings); without it
      # every ByteBuf access goes through a bounds-checked ByteBuffer: closed-loop GET 1-3% slower, PUT
      # into an empty node 5-10%. Allowed, the JDK prints no warning.
      # With Unsafe, java.nio opened to it lets Netty allocate its direct buffers itself, counted against
      # -Dio.netty.maxDirectMemory above; without that they would be JDK direct buffers, counted against
      # the 32 MiB of -XX:MaxDirectMemorySize, and one 16 MiB request body could not be received.
      RINGBASE_NODE_OPTS="$RINGBASE_NODE_OPTS --sun-misc-unsafe-memory-access=allow"
      RINGBASE_NODE_OPTS="$RINGBASE_NODE_OPTS --add-opens=java.base/java.nio=ALL-UNNAMED -Dio.netty.tryReflectionSetAccessible=true"
      ;;
  esac
}

# The JVM's ahead-of-time cache (JEP 483/514/515; docs/design.md, "The ahead-of-time cache"): the classes
# and method profiles of a training run (`ringbase aot-train`), with which a node reaches full speed sooner.
# A cache is only valid for the Java runtime and the jars it was trained with, so the launcher stores a key
# beside it (CACHE.key) and uses the cache only while the key matches.
#   ringbase_run CACHE BUILT CP MAIN ARGS...
#                                    what both launchers end with: runs MAIN with ARGS on the JVM (the array
#                                    RINGBASE_JVM: java and the launcher's options; then RINGBASE_JAVA_OPTS),
#                                    with -XX:AOTCache=CACHE for `serve` and `cluster` while the key matches,
#                                    or, for `aot-train`, trains CACHE and exits with the training's status.
#                                    BUILT is a file whose size and time change with each build
#   ringbase_aot_key JAVA CP BUILT   prints the key: the runtime (its binary and its modules file), the
#                                    class path, and the build
#   ringbase_aot_opts CACHE KEY      sets RINGBASE_AOT_OPT to -XX:AOTCache=CACHE if CACHE exists and its
#                                    key matches (else empty), saying which on stderr
#   ringbase_aot_train CACHE KEY CP MAIN ARGS...
#                                    `aot-train`: runs MAIN and ARGS on the JVM in its record mode, then
#                                    assembles CACHE from the record and stores KEY beside it, keeping the
#                                    old cache until then; returns the training's exit status
ringbase_run() {
  local cache="$1" built="$2" cp="$3" main="$4" key
  shift 4
  RINGBASE_AOT_OPT=""
  case "${1:-}" in
    serve|cluster|aot-train)
      key="$(ringbase_aot_key "${RINGBASE_JVM[0]}" "$cp" "$built")"
      if [ "$1" = aot-train ]; then
        ringbase_aot_train "$cache" "$key" "$cp" "$main" "$@"
        exit $?
      fi
      ringbase_aot_opts "$cache" "$key"
      ;;
  esac
  # shellcheck disable=SC2086
  exec "${RINGBASE_JVM[@]}" $RINGBASE_AOT_OPT ${RINGBASE_JAVA_OPTS:-} -cp "$cp" "$main" "$@"
}
ringbase_aot_key() {
  local java modules
  java="$(readlink -f "$1")"
  modules="$(dirname "$java")/../lib/modules"
  printf 'java=%s modules=%s cp=%s build=%s\n' "$java" "$(stat -Lc %s.%Y "$modules" 2>/dev/null || echo none)" \
    "$2" "$(stat -Lc %s.%Y "$3" 2>/dev/null || echo none)"
}
ringbase_aot_opts() {
  local cache="$1" key="$2"
  RINGBASE_AOT_OPT=""
  [ -f "$cache" ] || return 0
  if [ -f "$cache.key" ] && [ "$(cat "$cache.key")" = "$key" ]; then
    RINGBASE_AOT_OPT="-XX:AOTCache=$cache"
    echo "ringbase: using the ahead-of-time cache $cache" >&2
  else
    echo "ringbase: not using the ahead-of-time cache $cache: it was not trained with this build, Java" \
      "runtime and install path (bin/ringbase aot-train makes a new one)" >&2
  fi
}
ringbase_aot_train() {
  local cache="$1" key="$2" cp="$3" main="$4" arg status=0
  shift 4
  for arg in "$@"; do
    case "$arg" in # help and version: nothing to train
      # shellcheck disable=SC2086
      -h|--help|-V|--version) "${RINGBASE_JVM[@]}" ${RINGBASE_JAVA_OPTS:-} -cp "$cp" "$main" "$@"; return $? ;;
    esac
  done
  # the cache in use stays until the new one is complete
  rm -f "$cache.config" "$cache.new" "$cache.log"
  # -Xlog:aot=error: the JVM warns of each class it leaves out of the record (picocli's, loaded but unlinked)
  # shellcheck disable=SC2086
  "${RINGBASE_JVM[@]}" -XX:AOTMode=record -XX:AOTConfiguration="$cache.config" -Xlog:aot=error \
    ${RINGBASE_JAVA_OPTS:-} -cp "$cp" "$main" "$@" || status=$?
  if [ "$status" -ne 0 ]; then
    rm -f "$cache.config"
    return "$status"
  fi
  # shellcheck disable=SC2086
  if ! "${RINGBASE_JVM[@]}" -XX:AOTMode=create -XX:AOTConfiguration="$cache.config" -XX:AOTCache="$cache.new" \
      ${RINGBASE_JAVA_OPTS:-} -cp "$cp" >"$cache.log" 2>&1 || [ ! -s "$cache.new" ]; then
    cat "$cache.log" >&2
    echo "ringbase: the JVM could not write the ahead-of-time cache $cache (its messages are above)" >&2
    rm -f "$cache.new" "$cache.config"
    return 1
  fi
  rm -f "$cache.config" "$cache.log"
  mv -f "$cache.new" "$cache"
  printf '%s\n' "$key" > "$cache.key"
  echo "ringbase: wrote the ahead-of-time cache $cache ($(du -m "$cache" | cut -f1) MB); serve and cluster use" \
    "it until the next build" >&2
}

# ringbase_size_bytes NAME VALUE: sets RINGBASE_SIZE_BYTES to VALUE in bytes; VALUE is a number of bytes or
# a number followed by k, m or g (either case: KiB, MiB, GiB), as -Xmx takes it. Exits 2, naming NAME, on
# anything else.
ringbase_size_bytes() {
  local name="$1" value="$2" n unit
  case "$value" in
    *[kK]) n="${value%?}"; unit=1024 ;;
    *[mM]) n="${value%?}"; unit=1048576 ;;
    *[gG]) n="${value%?}"; unit=1073741824 ;;
    *) n="$value"; unit=1 ;;
  esac
  case "$n" in
    ''|*[!0-9]*|?????????????*) # empty, not a number, or 13+ digits (beyond any memory)
      echo "ringbase: $name must be a size such as 64m, 65536k, 1g or a number of bytes, got '$value'" >&2
      exit 2 ;;
  esac
  RINGBASE_SIZE_BYTES=$((10#$n * unit))
}
