package io.ringbase.functions;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.clock.TimeSource;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.kv.KeyValueService;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.Entry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One job: a function run over the entries of a range scan, each live key once, in one of the
 * {@link ProcessMode}s. Every call runs on the pool of {@link Jobs}, one batch at a time, with one
 * {@link FunctionInstance} for the whole job.
 *
 * <ul>
 *   <li>{@code map}: {@link #mapOutput} is a stream of the emitted records, then one summary record (an
 *       empty key, the summary's JSON as value), which the HTTP layer frames as a range response;</li>
 *   <li>{@code reduce}: the partials {@code map} emits are folded with {@code combine} as they come;</li>
 *   <li>{@code update}: each new value or tombstone is written back with the version just above the one
 *       the function saw, never re-versioned, then read back with a quorum read: a key a client wrote
 *       meanwhile keeps the client's value (its version is newer) and the function is run again on it, up
 *       to {@value #UPDATE_ATTEMPTS} times (docs/functions.md, "update and concurrent writers").</li>
 * </ul>
 *
 * <p>{@link #cancel} stops the job before its next key. Counters are readable from any thread.
 */
public final class ProcessJob {

    /** Failures listed in the summary (all are counted). */
    static final int ERRORS_LISTED = 10;
    /** Times an update is tried on one key that clients keep writing. */
    static final int UPDATE_ATTEMPTS = 3;
    /** The input batch budget, bytes. */
    static final int BATCH_BYTES = 64 * 1024;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final org.slf4j.Logger logger = org.slf4j.LoggerFactory.getLogger(ProcessJob.class);

    /** Times a job reopens its scan after it broke (a replica lost mid-range) before it fails. */
    static final int MAX_RESUMES = 5;
    /** Wait before the first reopen, ms; doubled each time (the failure detector learns of the loss meanwhile). */
    static final long RESUME_DELAY_MS = 200;

    /** Opens a scan of the job's range from {@code start} (inclusive) to its end. Blocks (a worker). */
    @FunctionalInterface
    public interface ScanOpener {
        /**
         * The scan from {@code start}.
         *
         * @throws Exception as {@link KeyValueService#scan} (too few replicas up, the engine)
         */
        EntryBatchSource open(byte[] start) throws Exception;
    }

    /** How a job ended, or that it runs. */
    public enum State {
        RUNNING,
        DONE,
        STOPPED,
        CANCELLED,
        FAILED
    }

    private final String id;
    private final WasmFunction function;
    private final ProcessRequest request;
    private final Jobs jobs;
    private final KeyValueService kv;
    private final TimeSource time;
    private final LogGate log;
    private final AtomicLong keysSeen = new AtomicLong();
    private final AtomicLong recordsOut = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong retried = new AtomicLong();
    private final AtomicLong resumes = new AtomicLong();
    private final List<String> firstErrors = new CopyOnWriteArrayList<>();
    private volatile State state = State.RUNNING;
    private volatile boolean cancelled;
    private @Nullable FunctionInstance instance; // made on the pool, used by one batch at a time
    private byte @Nullable [] partial; // reduce: the fold so far
    private byte @Nullable [] lastKey; // the last key whose call has completed and whose output is counted
    private final long keyBudget; // a share's page: the most keys it processes
    private volatile boolean full; // the budget was spent with keys left

    ProcessJob(
            String id, WasmFunction function, ProcessRequest request, Jobs jobs, KeyValueService kv, TimeSource time) {
        this(id, function, request, jobs, kv, time, Long.MAX_VALUE);
    }

    /**
     * @param keyBudget the most keys the job processes; it ends {@code done} before the next one, with
     *                  {@link #full()} true (a page of a share, docs/functions.md)
     */
    ProcessJob(
            String id,
            WasmFunction function,
            ProcessRequest request,
            Jobs jobs,
            KeyValueService kv,
            TimeSource time,
            long keyBudget) {
        this.keyBudget = keyBudget;
        this.id = id;
        this.function = function;
        this.request = request;
        this.jobs = jobs;
        this.kv = kv;
        this.time = time;
        this.log = new LogGate("job " + id + " (function '" + function.name() + "')");
    }

    /** The job's id. */
    public String id() {
        return id;
    }

    /** The function it runs. */
    WasmFunction function() {
        return function;
    }

    /** What was asked. */
    public ProcessRequest request() {
        return request;
    }

    /** Running, or how it ended. */
    public State state() {
        return state;
    }

    /** Keys the function was called on so far. */
    public long keysSeen() {
        return keysSeen.get();
    }

    /** Records emitted (map), partials (reduce) or values written back (update) so far. */
    public long recordsOut() {
        return recordsOut.get();
    }

    /** Failed calls so far. */
    public long errors() {
        return errors.get();
    }

    /** Stops the job before its next key (the summary says {@code cancelled}). */
    public void cancel() {
        cancelled = true;
    }

    /** Whether the job was cancelled (it may still be finishing its current key). */
    boolean cancelled() {
        return cancelled;
    }

    /** Whether the job stopped at its key budget with keys left (a share's page that was full). */
    boolean full() {
        return full;
    }

    /** The last key whose call completed, or {@code null} if none. */
    byte @Nullable [] lastKey() {
        return lastKey;
    }

    /** Reduce: the fold so far, or {@code null} if nothing was emitted. */
    synchronized byte @Nullable [] partial() {
        return partial;
    }

    /** Update: values written back so far. */
    long written() {
        return written.get();
    }

    /** Update: keys retried because a client wrote them meanwhile. */
    long retried() {
        return retried.get();
    }

    /** Times the input was resumed after it broke, or shares handed on. */
    long resumed() {
        return resumes.get();
    }

    /** The first failures. */
    List<String> firstErrors() {
        return List.copyOf(firstErrors);
    }

    /**
     * Adds what a page of a share did (a distributed job's coordinator): its counts, its failures, and for
     * reduce its partial, combined into the fold with this job's instance (a failed {@code combine} counts
     * as a failed call). On the pool; one at a time.
     */
    synchronized void absorb(SharePage.Reply page) {
        byte[] p = page.partial();
        if (p != null) {
            try {
                partial = partial == null ? p : instance().combine(partial, p);
            } catch (FunctionFailedException failure) {
                failed(failure); // as a failed call on a node alone: counted, and the job stops unless onError=skip
            }
        }
        keysSeen.addAndGet(page.keysSeen());
        recordsOut.addAndGet(page.recordsOut());
        written.addAndGet(page.written());
        retried.addAndGet(page.retried());
        resumes.addAndGet(page.resumed());
        if (page.errors() > 0) {
            errors.addAndGet(page.errors());
            for (int i = 0; i < page.errors(); i++) {
                jobs.countFailedCall();
            }
        }
        for (String e : page.firstErrors()) {
            if (firstErrors.size() < ERRORS_LISTED) {
                firstErrors.add(e);
            }
        }
        if (page.cursor() != null) {
            lastKey = page.cursor();
        }
    }

    /** Counts a share handed on to other nodes after its node failed. */
    void handedOn() {
        resumes.incrementAndGet();
    }

    /** Ends the job {@code how}, if it runs. */
    void finish(State how) {
        end(how);
    }

    /** Ends a job that never ran (its scan could not start). */
    public void abandon() {
        cancelled = true;
        end(State.CANCELLED);
    }

    /**
     * The output of a {@code map} job over {@code scan} (which it closes): the emitted records, then the
     * summary record. Closing it before the end cancels the job (the client went away).
     */
    public EntryBatchSource mapOutput(EntryBatchSource scan, ScanOpener reopen) {
        return new MapOutput(new Input(scan, reopen));
    }

    /**
     * Runs a {@code reduce} or {@code update} job over {@code scan} (which it closes) to its end.
     *
     * @return the summary as JSON; fails only if the scan broke (a replica lost) or the pool refused a task
     */
    public CompletableFuture<byte[]> run(EntryBatchSource scan, ScanOpener reopen) {
        Input input = new Input(scan, reopen);
        return step(input).whenComplete((r, failure) -> {
            input.close();
            if (failure != null) {
                end(State.FAILED);
            }
        });
    }

    private CompletableFuture<byte[]> step(Input input) {
        return input.next()
                .thenCompose(batch -> jobs.onPool(() -> consume(batch)))
                .thenCompose(more -> more ? step(input) : CompletableFuture.completedFuture(summary()));
    }

    /** Runs one input batch; whether the job goes on. On the pool. */
    private boolean consume(List<Entry> batch) throws FunctionFailedException, QuorumException, IOException {
        if (batch.isEmpty()) {
            end(State.DONE);
            return false;
        }
        FunctionInstance f = instance();
        for (Entry e : batch) {
            if (cancelled) {
                end(State.CANCELLED);
                return false;
            }
            if (keysSeen.get() >= keyBudget) {
                full = true;
                end(State.DONE);
                return false;
            }
            keysSeen.incrementAndGet();
            try {
                if (request.mode() == ProcessMode.REDUCE) {
                    for (FunctionInstance.Emitted p : f.map(e)) {
                        recordsOut.incrementAndGet();
                        partial = partial == null ? p.value() : f.combine(partial, p.value());
                    }
                } else {
                    update(f, e);
                }
            } catch (FunctionFailedException failure) {
                if (!failed(failure)) {
                    return false;
                }
            }
            lastKey = e.key();
        }
        return true;
    }

    /** The entry that replaces {@code current}'s value with {@code value}, keeping its expiry and content type. */
    private static Entry replacement(Entry current, long version, byte[] value) {
        String type = current.contentType();
        return type == null
                ? new Entry(current.key(), version, current.expiresAtMs(), value)
                : Entry.typed(current.key(), version, current.expiresAtMs(), type, MemorySegment.ofArray(value));
    }

    /** Updates one key, retrying on a concurrent write; see the class comment. */
    private void update(FunctionInstance f, Entry read) throws FunctionFailedException, QuorumException, IOException {
        Entry current = read;
        for (int attempt = 1; attempt <= UPDATE_ATTEMPTS; attempt++) {
            FunctionInstance.Update u = f.update(current);
            long version = current.version() + 1; // loses to every write stamped after the one the function saw
            Entry next = switch (u) {
                case FunctionInstance.Update.Unchanged x -> null;
                case FunctionInstance.Update.Replace r -> replacement(current, version, r.value());
                case FunctionInstance.Update.Delete x -> Entry.tombstone(current.key(), version);
            };
            if (next == null) {
                return;
            }
            FunctionStore.await(kv.writeVersioned(next, kv.defaultQuorum()));
            Entry now = FunctionStore.await(kv.readEntry(current.key(), kv.defaultQuorum()));
            if (now != null && now.version() == next.version() && Arrays.equals(now.value(), next.value())) {
                written.incrementAndGet();
                recordsOut.incrementAndGet();
                return;
            }
            if (now == null || !now.isLive(time.currentTimeMillis())) {
                return; // a client deleted the key meanwhile: nothing left to update
            }
            retried.incrementAndGet();
            current = now; // a client wrote a newer value meanwhile: run the function on it
        }
        throw new FunctionFailedException(
                function.name(),
                read.key(),
                "clients changed the key during each of " + UPDATE_ATTEMPTS + " attempts; not updated");
    }

    /** Counts a failed call; whether the job goes on ({@link OnError#SKIP}). */
    private boolean failed(FunctionFailedException failure) {
        errors.incrementAndGet();
        jobs.countFailedCall();
        if (firstErrors.size() < ERRORS_LISTED) {
            firstErrors.add(failure.getMessage());
        }
        if (request.onError() == OnError.STOP) {
            end(State.STOPPED);
            return false;
        }
        return true;
    }

    /**
     * Runs this job's calls on {@code f}, an instance of its function that an earlier page of the same
     * share made (a share's pages are one job cut up, and a job calls one instance throughout). Before the
     * first call.
     */
    void adopt(FunctionInstance f) {
        instance = f;
    }

    /** The instance the calls ran on, or {@code null} if none was made; for the share's next page. */
    @Nullable
    FunctionInstance instanceIfMade() {
        return instance;
    }

    private FunctionInstance instance() throws FunctionFailedException {
        FunctionInstance f = instance;
        if (f == null) {
            f = function.instantiate(jobs.limits(), jobs.watchdog(), log);
            instance = f;
        }
        return f;
    }

    private void end(State how) {
        if (state == State.RUNNING) {
            state = how;
            jobs.ended(this);
        }
    }

    /** The summary as JSON: counts, state, the first failures, and the reduce result in base64. */
    synchronized byte[] summary() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("job", id);
        s.put("function", function.name());
        s.put("mode", request.mode().label());
        s.put("state", state.name().toLowerCase(java.util.Locale.ROOT));
        s.put("keysSeen", keysSeen.get());
        s.put("recordsOut", recordsOut.get());
        s.put("errors", errors.get());
        if (request.mode() == ProcessMode.UPDATE) {
            s.put("written", written.get());
            s.put("retried", retried.get());
        }
        s.put("resumed", resumes.get());
        if (request.mode() == ProcessMode.REDUCE && partial != null) {
            s.put("result", Base64.getEncoder().encodeToString(partial));
        }
        s.put("firstErrors", List.copyOf(firstErrors));
        try {
            return JSON.writeValueAsBytes(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The map job's output stream; see {@link #mapOutput}. */
    private final class MapOutput implements EntryBatchSource {
        private final Input scan;
        private volatile boolean ended; // the summary was handed out

        MapOutput(Input scan) {
            this.scan = scan;
        }

        @Override
        public CompletableFuture<List<Entry>> nextBatch(int maxBytes) {
            if (ended) {
                return CompletableFuture.completedFuture(List.of());
            }
            if (state != State.RUNNING) {
                return last();
            }
            return scan.next()
                    .thenCompose(batch -> jobs.onPool(() -> run(batch)))
                    .thenCompose(out -> out.isEmpty() ? nextBatch(maxBytes) : CompletableFuture.completedFuture(out));
        }

        private CompletableFuture<List<Entry>> last() {
            ended = true;
            return CompletableFuture.completedFuture(List.of(Entry.value(new byte[0], 0, summary())));
        }

        /** The records of one input batch; the summary record once the job has ended. On the pool. */
        private List<Entry> run(List<Entry> batch) throws FunctionFailedException {
            if (batch.isEmpty()) {
                end(State.DONE);
            }
            List<Entry> out = new ArrayList<>();
            FunctionInstance f = batch.isEmpty() ? null : instance();
            for (Entry e : batch) {
                if (cancelled) {
                    end(State.CANCELLED);
                    break;
                }
                if (keysSeen.get() >= keyBudget) {
                    full = true;
                    end(State.DONE);
                    break;
                }
                keysSeen.incrementAndGet();
                try {
                    for (FunctionInstance.Emitted r : f.map(e)) {
                        if (r.key().length > Entry.MAX_KEY_BYTES) {
                            throw new FunctionFailedException(
                                    function.name(),
                                    e.key(),
                                    "emitted a key of " + r.key().length + " bytes; the limit is "
                                            + Entry.MAX_KEY_BYTES);
                        }
                        out.add(Entry.value(r.key(), 0, r.value()));
                        recordsOut.incrementAndGet();
                    }
                } catch (FunctionFailedException failure) {
                    if (!failed(failure)) {
                        break;
                    }
                }
                lastKey = e.key();
            }
            if (state != State.RUNNING) {
                ended = true;
                out.add(Entry.value(new byte[0], 0, summary()));
            }
            return out;
        }

        @Override
        public void close() {
            if (state == State.RUNNING) {
                cancelled = true;
                end(State.CANCELLED); // the client went away before the end
            }
            scan.close();
        }
    }

    /**
     * The job's input: the scan, reopened after the last completed key when it breaks (a replica lost
     * mid-range), up to {@value #MAX_RESUMES} times. Keys come in order and a batch is processed whole
     * before the next is asked for, so resuming after {@link #lastKey} neither skips nor repeats a key.
     * One {@link #next} at a time.
     */
    private final class Input implements AutoCloseable {
        private final ScanOpener reopen;
        private volatile EntryBatchSource scan;
        private volatile boolean closed;

        Input(EntryBatchSource scan, ScanOpener reopen) {
            this.scan = scan;
            this.reopen = reopen;
        }

        CompletableFuture<List<Entry>> next() {
            return scan.nextBatch(BATCH_BYTES).exceptionallyCompose(failure -> {
                long n = resumes.get();
                if (closed || cancelled || n >= MAX_RESUMES) {
                    return CompletableFuture.failedFuture(failure);
                }
                resumes.incrementAndGet();
                scan.close();
                byte[] from = lastKey == null ? request.start() : successor(lastKey);
                logger.warn(
                        "job {} (function '{}'): its scan broke ({}); resuming after the last key processed,"
                                + " attempt {} of {}",
                        id,
                        function.name(),
                        failure.toString(),
                        n + 1,
                        MAX_RESUMES);
                CompletableFuture<Void> later = new CompletableFuture<>();
                CompletableFuture.delayedExecutor(RESUME_DELAY_MS << n, java.util.concurrent.TimeUnit.MILLISECONDS)
                        .execute(() -> later.complete(null));
                return later.thenCompose(x -> jobs.onPool(() -> {
                            scan = reopen.open(from);
                            return null;
                        }))
                        .thenCompose(x -> next());
            });
        }

        @Override
        public void close() {
            closed = true;
            scan.close();
        }
    }

    /** The least key after {@code key}. */
    static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }
}
