# Reads async-profiler collapsed stacks ("frame;frame;... count") and prints where the samples (or
# bytes) go, in two tables:
#   1. by thread kind: each stack is counted under the first kind it matches, so the shares add up to 100%;
#   2. on the event loops only, by what the loop was doing: again each stack once, first match in the
#      table's order (a GET's send happens inside the request's own stack, so "sending answers" is
#      tried before "storage engine", and the engine before the HTTP framing that called it).
# Patterns name the packages and classes of this code base (io/ringbase/...) and Netty 4.2's epoll
# transport; if a class is renamed, update its row here (bench/profile.sh prints these tables).
BEGIN {
  t("JIT compiler", "CompileBroker|C2Compiler|Compilation::")
  t("GC / VM thread", "VMThread|GCTaskThread|G1|SerialHeap|GenCollect|ConcurrentGCThread|VM_Operation")
  t("WAL writer thread", "WalWriter\\.runWriter")
  t("memtable flush / compaction", "Flusher|flushPending|Compactor|compactWhileNeeded|scheduleCompaction")
  t("request workers", "ThreadPoolExecutor\\.runWorker")
  t("metrics scrape", "metrics-scrape|io/prometheus")
  LOOP = "event loops (Netty)"
  t(LOOP, "SingleThreadIoEventLoop|EpollIoHandler")
  t("other threads", ".")

  e("waiting for events (epoll_wait)", "epoll_wait|EpollIoHandler\\.epollWait|Native\\.epollWait")
  e("sending answers (flush, kernel send/write)", "flush0|doWriteBytes|doWriteMultiple|doWriteSingle|writev|sendmsg|__send")
  e("WAL write on the loop (batched writes)", "io/ringbase/storage/lsm/wal/")
  e("storage engine (memtable, SSTables, WAL append)", "io/ringbase/storage/")
  e("reading requests (kernel read)", "doReadBytes|ksys_read|__read|recvfrom|tcp_recvmsg")
  e("HTTP framing (io/ringbase/api/wire)", "io/ringbase/api/wire/")
  e("routing, EntityApi, rest of io/ringbase", "io/ringbase/")
  e("rest of Netty (pipeline, buffers, tasks)", "io/netty/")
  e("other (JVM, kernel entry, clock)", ".")
}
function t(name, r) { nt++; tlabel[nt] = name; tre[nt] = r }
function e(name, r) { ne++; elabel[ne] = name; ere[ne] = r }
{
  n = $NF; total += n; s = $0
  for (i = 1; i < nt; i++) if (s ~ tre[i]) break
  tsum[i] += n
  if (tlabel[i] == LOOP) for (j = 1; j <= ne; j++) if (s ~ ere[j]) { esum[j] += n; break }
}
END {
  printf "by thread kind (share of all %d samples; each stack once):\n", total
  for (i = 1; i <= nt; i++) printf "%6.2f%%  %s\n", (total ? 100 * tsum[i] / total : 0), tlabel[i]
  printf "on the event loops (share of all samples; each stack once, first match):\n"
  for (j = 1; j <= ne; j++) printf "%6.2f%%  %s\n", (total ? 100 * esum[j] / total : 0), elabel[j]
}
