package io.ringbase.functions;

import io.ringbase.clock.TimeSource;
import io.ringbase.kv.KeyValueService;
import io.ringbase.kv.QuorumException;
import io.ringbase.os.ThreadPriority;
import io.ringbase.storage.StoreBusyException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A node's server-side functions: their {@link FunctionStore}, the running {@link ProcessJob}s, and the
 * bounded pool every call runs on ({@value #QUEUE} tasks queued at most; a full queue refuses the task
 * with {@link StoreBusyException}, answered 503), never an I/O thread. Counters for metrics and the
 * status page. Thread-safe; {@link #close} stops the pool and the watchdog.
 */
public final class Jobs implements AutoCloseable {

    /** Tasks (batches) that may wait for a pool thread. */
    static final int QUEUE = 256;

    /**
     * The pool threads' CPU priority: {@link ThreadPriority#IDLE} ({@code SCHED_IDLE}), as compaction's. A
     * function that spins until its time limit on a core the event loop also runs on took that core from the
     * request path as an equal: GET p99 at 5,000/s on one CPU went from 1.4-1.6 to 3.0-3.9 ms while it spun
     * (p50 from 0.07 to 3-4.5 ms on a busy host); with the pool at idle priority, 1.5-1.7 ms against 0.9-1.1
     * alone (bench/spin-p99.sh). A function then runs on CPU time requests leave; on a node kept fully busy by
     * requests its calls may reach the time limit, which is wall-clock, and fail.
     */
    static final int PRIORITY = ThreadPriority.IDLE;

    private final KeyValueService kv;
    private final TimeSource time;
    private final FunctionLimits limits;
    private final CallWatchdog watchdog = new CallWatchdog();
    private final FunctionStore store;
    private final ThreadPoolExecutor pool;
    private final ConcurrentHashMap<String, ProcessJob> running = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong started = new AtomicLong();
    private final AtomicLong ended = new AtomicLong();
    private final AtomicLong failedCalls = new AtomicLong();
    private final AtomicLong keysProcessed = new AtomicLong();
    private volatile @Nullable JobCluster cluster;
    private final ShareScans shareScans;

    /**
     * @param kv      where functions are stored and jobs read and write
     * @param time    decides whether a value read back has expired
     * @param limits  per-call limits
     * @param engine  what runs the functions' code ({@code --functions-engine})
     * @param threads pool threads, &gt; 0 (the node gives one per core)
     */
    public Jobs(KeyValueService kv, TimeSource time, FunctionLimits limits, FunctionEngine engine, int threads) {
        this.kv = kv;
        this.time = time;
        this.limits = limits;
        this.shareScans = new ShareScans(time);
        this.store = new FunctionStore(kv, limits, watchdog, new Machines(engine, Machines.DEFAULT_CAPACITY));
        AtomicInteger n = new AtomicInteger();
        this.pool =
                new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE), r -> {
                    Thread t = new Thread(
                            () -> {
                                ThreadPriority.setCurrentThread(PRIORITY);
                                r.run();
                            },
                            "function-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
    }

    /**
     * Lets jobs run distributed over {@code cluster}'s replicas (docs/functions.md, "How a job is
     * distributed"); without it, or with the cluster down to this node, a job runs here alone.
     */
    public void distribute(JobCluster cluster) {
        this.cluster = cluster;
    }

    /**
     * {@code job} distributed over the replicas, or {@code null} if it runs on this node alone (no cluster,
     * or a cluster of one). For {@code map} and {@code reduce}: the caller keeps {@code update} here. Blocks while probing nodes believed down (a worker).
     *
     * @throws QuorumException if fewer nodes are up than a range scan needs
     */
    public @Nullable DistributedJob distributed(ProcessJob job) throws QuorumException, IOException {
        JobCluster c = cluster;
        if (c == null || c.nodes().size() <= 1) {
            return null;
        }
        java.util.Set<String> down = c.down();
        int up = c.nodes().size() - down.size();
        if (up < c.nodesNeeded()) {
            throw new QuorumException.Unavailable(c.nodesNeeded(), c.nodes().size(), up);
        }
        return new DistributedJob(
                job,
                c,
                this,
                request -> ShareRunner.start(this, kv, time, request, c.share(request.down(), request.path())),
                down);
    }

    /**
     * Runs one page of a share a coordinator asked for ({@code POST /internal/v0/process-share}); blocks
     * to load the function and open the scan (a worker).
     *
     * @param body a {@link SharePage.Request}
     * @return the {@link SharePage.Reply}, encoded
     * @throws IllegalArgumentException if the request is malformed, names no function, is an
     *                                  {@code update} (which runs at its coordinator), or this node has no
     *                                  cluster; {@link QuorumException} if too few nodes are up for the
     *                                  scan; other exceptions as the scan and loading the function
     */
    public CompletableFuture<byte[]> runSharePage(byte[] body) throws Exception {
        JobCluster c = cluster;
        if (c == null) {
            throw new IllegalArgumentException("this node runs no distributed jobs");
        }
        SharePage.Request request = SharePage.Request.decode(body);
        if (request.mode() == ProcessMode.UPDATE) {
            throw new IllegalArgumentException("update jobs run at their coordinator, not in shares");
        }
        if (request.epoch() != c.epoch()) {
            throw new IllegalArgumentException("the coordinator's placement epoch is " + request.epoch()
                    + ", this node's " + c.epoch() + ": the shares would differ");
        }
        return ShareRunner.start(this, kv, time, request, c.share(request.down(), request.path()))
                .thenApply(SharePage.Reply::encode);
    }

    /** The scans of shares kept open between their pages on this node. */
    ShareScans shareScans() {
        return shareScans;
    }

    /** The stored functions. */
    public FunctionStore store() {
        return store;
    }

    /**
     * Makes a job for {@code request}, after loading its function (blocks for a quorum read: a worker).
     *
     * @throws IllegalArgumentException if there is no such function, it cannot run in the mode asked, or the
     *                                  id is taken; the message says which
     */
    public ProcessJob start(ProcessRequest request) throws QuorumException, IOException, InvalidModuleException {
        WasmFunction function = store.load(request.function());
        if (function == null) {
            throw new IllegalArgumentException("no function '" + request.function() + "'");
        }
        if (!function.supports(request.mode())) {
            throw new IllegalArgumentException("function '" + function.name() + "' cannot run in mode "
                    + request.mode().label() + ": it needs the exports "
                    + request.mode().exports());
        }
        String id = request.id() != null ? request.id() : Long.toString(ids.incrementAndGet());
        ProcessJob job = new ProcessJob(id, function, request, this, kv, time);
        if (running.putIfAbsent(id, job) != null) {
            throw new IllegalArgumentException("a job with id '" + id + "' is running");
        }
        started.incrementAndGet();
        return job;
    }

    /** Cancels job {@code id}; whether it was running. */
    public boolean cancel(String id) {
        ProcessJob job = running.get(id);
        if (job == null) {
            return false;
        }
        job.cancel();
        return true;
    }

    /** The running job {@code id}, or {@code null}. */
    public @Nullable ProcessJob job(String id) {
        return running.get(id);
    }

    /** The jobs running now. */
    public List<ProcessJob> running() {
        return List.copyOf(running.values());
    }

    /** Jobs started since the node started. */
    public long started() {
        return started.get();
    }

    /** Jobs ended (any way) since the node started. */
    public long ended() {
        return ended.get();
    }

    /** Failed calls (traps, limits, error codes) since the node started. */
    public long failedCalls() {
        return failedCalls.get();
    }

    /** Keys that ended jobs called their function on. */
    public long keysProcessed() {
        return keysProcessed.get();
    }

    FunctionLimits limits() {
        return limits;
    }

    CallWatchdog watchdog() {
        return watchdog;
    }

    void countFailedCall() {
        failedCalls.incrementAndGet();
    }

    void ended(ProcessJob job) {
        if (running.remove(job.id(), job)) {
            ended.incrementAndGet();
            keysProcessed.addAndGet(job.keysSeen());
        }
    }

    /** Runs {@code task} on the pool; a full queue fails the future with {@link StoreBusyException}. */
    <T> CompletableFuture<T> onPool(Callable<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        try {
            pool.execute(() -> {
                try {
                    f.complete(task.call());
                } catch (Exception | StackOverflowError e) {
                    f.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            f.completeExceptionally(
                    new StoreBusyException("the function workers' queue of " + QUEUE + " tasks is full"));
        }
        return f;
    }

    @Override
    public void close() {
        for (ProcessJob job : running.values()) {
            job.cancel();
        }
        pool.shutdownNow();
        shareScans.close();
        watchdog.close();
    }
}
