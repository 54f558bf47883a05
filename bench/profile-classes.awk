# Reads async-profiler collapsed stacks ("frame;frame;... count") and prints the share of
# samples (or bytes) whose stack matches each class below, largest first.
{
  n = $NF; total += n; s = $0
  for (i = 1; i <= nc; i++) if (s ~ re[i]) sum[i] += n
}
BEGIN {
  c("thread: Netty event loop (HTTP I/O, codec)", "SingleThreadIoEventLoop")
  c("thread: request workers (ThreadPoolExecutor running io/ringbase/http)", "runWorker;io/ringbase/http")
  c("thread: WAL writer", "WalWriter\\.runWriter")
  c("thread: memtable flush / compaction", "flushPending|compactWhileNeeded|scheduleCompaction")
  c("thread: JIT compiler", "CompileBroker")
  c("thread: GC / VM thread", "VMThread|GCTaskThread|G1|SerialHeap|GenCollect|ConcurrentGCThread")
  c("  socket read (epollInReady)", "epollInReady")
  c("  socket write (writev/sendmsg)", "writev|sendmsg|tcp_sendmsg")
  c("  WAL file write (FileChannelImpl.write under WalWriter)", "WalWriter.*FileChannelImpl\\.write")
  c("  epoll_wait", "epoll_wait|do_epoll_wait")
  c("  HTTP decode (HttpObjectDecoder)", "HttpObjectDecoder")
  c("  HTTP encode (HttpObjectEncoder)", "HttpObjectEncoder")
  c("  EntityApi (request handling)", "io/ringbase/http/EntityApi")
  c("  LsmEngine.get", "LsmEngine\\.get")
  c("  SSTable reads (SstableReader)", "SstableReader")
  c("  Bloom filter", "BloomFilter")
  c("  memtable (ConcurrentSkipListMap)", "ConcurrentSkipListMap")
  c("  WAL append/commit (WalWriter)", "WalWriter")
  c("  fsync/force", "force0|fsync|fdatasync|FileDispatcherImpl\\.force")
  c("  futex/park/cond_wait (waiting, hand-offs)", "futex|Unsafe\\.park|pthread_cond|LockSupport\\.park")
  c("  context switch (finish_task_switch)", "finish_task_switch")
  c("  page faults", "asm_exc_page_fault|handle_mm_fault")
}
function c(name, r) { nc++; label[nc] = name; re[nc] = r }
END {
  for (i = 1; i <= nc; i++) printf "%6.2f%%  %s\n", (total ? 100 * sum[i] / total : 0), label[i]
}
