package io.ringbase.cluster.streaming;

import io.ringbase.clock.ClockOffsetException;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.Ingest;
import io.ringbase.storage.StorageEngine;
import io.ringbase.throttle.ByteRateLimiter;
import io.ringbase.throttle.Sleeper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving side of one {@link StreamPlan}: pulls the source's pages in key order until the last,
 * loads each entry into the local engine as an {@link Ingest} (the LSM engine writes them straight into an
 * SSTable, without WAL or memtable; versions decide, so an entry older than the one stored, or received
 * twice, changes nothing) and stores a {@link StreamCursor} after every {@link StreamOptions#checkpointBytes()}
 * (or {@link #INGEST_MAX_ENTRIES} entries) once the ingest before it is finished, durable and visible.
 * A crash of either side, or a failure past the retries, loses at most what came after the last cursor: a
 * new session for the same plan resumes there; a session for another plan (another epoch, other rings)
 * starts over.
 *
 * <p>One page is requested ahead while the current one is applied, so the network and the engine work at
 * once; nothing more is buffered. The received bytes pass a {@link ByteRateLimiter}.
 *
 * <p>{@link #run} blocks on the caller's thread (interrupt it to stop: the in-flight request is cancelled
 * and {@link InterruptedException} thrown); {@link #progress} may be read from any thread.
 */
public final class StreamSession {

    private static final Logger log = LoggerFactory.getLogger(StreamSession.class);
    private static final HexFormat HEX = HexFormat.of();
    /** Longest key shown in an error or log line, bytes; longer ones are cut. */
    private static final int SHOWN_KEY_BYTES = 64;

    private final StreamPlan plan;
    private final StreamPeer peer;
    private final StorageEngine engine;
    private final HybridLogicalClock clock;
    private final Path cursorFile;
    private final StreamOptions options;
    private final LongSupplier nanoTime;
    private final Sleeper sleeper;
    private final ByteRateLimiter limiter;

    // written by the run thread only; volatile so progress() reads them from any thread
    private volatile long entries;
    private volatile long bytes;
    private volatile long resumedEntries;
    private volatile long pages;
    private volatile long startNanos;
    private volatile long endNanos;
    private volatile boolean started;
    private volatile boolean done;

    /** Where this run's time went, ns (run thread only): waiting for pages, applying them, checkpoints. */
    private long waitingNs;

    private long applyingNs;

    /**
     * Most entries one ingest (one SSTable) takes before a checkpoint finishes it: bounds its Bloom
     * filter, built off-heap while it is written, to about 0.7 MiB.
     */
    static final long INGEST_MAX_ENTRIES = 512 * 1024;

    /** The ingest the entries since the durable cursor go to, or null before the first (run thread only). */
    private @Nullable Ingest ingest;

    private long checkpointNs;

    /** Bytes earlier runs made durable (run thread only). */
    private long resumedBytes;

    /** The durable cursor the stream resumes from after a failure: the last one stored or loaded. */
    private StreamCursor durable;

    /**
     * A session on the system's monotonic clock, waiting with {@link Thread#sleep}.
     *
     * @param plan    what to stream
     * @param peer    the plan's source
     * @param engine  this node's engine, the plan's target
     * @param clock   observes every received version first, so this node never issues a lower one
     * @param dataDir this node's data directory; the cursor lives under {@value StreamCursor#DIRECTORY}
     * @param options page size, rate limit, checkpoint interval, retries
     * @throws IllegalArgumentException if {@code peer} is not the plan's source
     */
    public StreamSession(
            StreamPlan plan,
            StreamPeer peer,
            StorageEngine engine,
            HybridLogicalClock clock,
            Path dataDir,
            StreamOptions options) {
        this(plan, peer, engine, clock, dataDir, options, System::nanoTime, Sleeper.SYSTEM);
    }

    /** As the public constructor, with the monotonic clock (ns) and the waits of a test. */
    StreamSession(
            StreamPlan plan,
            StreamPeer peer,
            StorageEngine engine,
            HybridLogicalClock clock,
            Path dataDir,
            StreamOptions options,
            LongSupplier nanoTime,
            Sleeper sleeper) {
        this.plan = Objects.requireNonNull(plan, "plan");
        this.peer = Objects.requireNonNull(peer, "peer");
        this.engine = Objects.requireNonNull(engine, "engine");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.options = Objects.requireNonNull(options, "options");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        if (!peer.node().toString().equals(plan.source().toString())) {
            throw new IllegalArgumentException("peer " + peer.node() + " is not the plan's source " + plan.source());
        }
        this.cursorFile = StreamCursor.file(dataDir, plan.source());
        this.limiter = new ByteRateLimiter(options.bytesPerSecond(), nanoTime, sleeper);
        this.durable = StreamCursor.start(plan);
    }

    /** The plan this session streams. */
    public StreamPlan plan() {
        return plan;
    }

    /** Where this session stores its cursor. */
    public Path cursorFile() {
        return cursorFile;
    }

    /** A snapshot of the counters; fields are read one by one, so one may be a page ahead of another. */
    public StreamProgress progress() {
        long end = endNanos;
        long elapsedNs = !started ? 0 : (end != 0 ? end : nanoTime.getAsLong()) - startNanos;
        return new StreamProgress(
                entries, bytes, resumedEntries, pages, TimeUnit.NANOSECONDS.toMillis(elapsedNs), done);
    }

    /**
     * Streams the plan to its end, or returns at once if a cursor says it is already done.
     *
     * @return the final progress ({@code done})
     * @throws StreamFailedException if a page failed more than {@link StreamOptions#maxRetries()} further
     *                               times, the source refused the plan ({@link StreamRefusedException}, not
     *                               retried), or an entry's version is too far ahead of this node's clock;
     *                               a new session resumes from the last durable cursor
     * @throws IOException           if the engine or the cursor file fail
     * @throws InterruptedException  if the thread is interrupted
     * @throws IllegalStateException if this session has run before
     */
    public StreamProgress run() throws StreamFailedException, IOException, InterruptedException {
        synchronized (this) {
            if (started) {
                throw new IllegalStateException("a stream session runs once");
            }
            startNanos = nanoTime.getAsLong();
            started = true;
        }
        try {
            return stream();
        } finally {
            if (endNanos == 0) { // a failure; a finished stream stopped its clock already
                endNanos = nanoTime.getAsLong();
            }
        }
    }

    @SuppressWarnings("NonAtomicVolatileUpdate") // one writer, the run thread: volatile only publishes
    private StreamProgress stream() throws StreamFailedException, IOException, InterruptedException {
        durable = load();
        entries = durable.entries();
        bytes = durable.bytes();
        resumedEntries = durable.entries();
        resumedBytes = durable.bytes();
        if (durable.done()) {
            endNanos = nanoTime.getAsLong();
            done = true;
            log.info("stream {} already complete: {} entries", plan.describe(), entries);
            return progress();
        }
        long sinceCheckpoint = 0;
        byte[] requested = durable.next();
        CompletableFuture<EntryPage> inFlight = request(requested);
        try {
            while (true) {
                long t0 = nanoTime.getAsLong();
                EntryPage page = await(inFlight, requested);
                long t1 = nanoTime.getAsLong();
                waitingNs += t1 - t0;
                byte[] next = page.next();
                if (next != null) { // the next page is fetched while this one is applied
                    requested = next;
                    inFlight = request(next);
                }
                long pageBytes = 0;
                for (Entry e : page.entries()) {
                    pageBytes += EntryFormat.encodedSize(e);
                }
                limiter.acquire(pageBytes);
                long t2 = nanoTime.getAsLong();
                applyAll(page.entries());
                applyingNs += nanoTime.getAsLong() - t2;
                entries += page.entries().size();
                bytes += pageBytes;
                pages++;
                sinceCheckpoint += pageBytes;
                if (next == null) {
                    checkpoint(new byte[0], true);
                    endNanos = nanoTime.getAsLong();
                    done = true;
                    logFinished();
                    return progress();
                }
                if (sinceCheckpoint >= options.checkpointBytes()
                        || (ingest != null && ingest.entries() >= INGEST_MAX_ENTRIES)) {
                    checkpoint(next, false);
                    sinceCheckpoint = 0;
                }
            }
        } finally {
            if (!done) {
                inFlight.cancel(false);
                abandonIngest();
            }
        }
    }

    /** Drops an unfinished ingest: a new session resumes from the durable cursor, before its entries. */
    private void abandonIngest() {
        Ingest open = ingest;
        ingest = null;
        if (open != null) {
            try {
                open.close();
            } catch (IOException e) {
                log.warn("stream {}: dropping an unfinished ingest failed: {}", plan.describe(), e.toString());
            }
        }
    }

    /** The stored cursor if it is this plan's, else the start; a damaged one is logged and ignored. */
    private StreamCursor load() throws IOException {
        StreamCursor stored;
        try {
            stored = StreamCursor.read(cursorFile);
        } catch (IllegalArgumentException e) {
            log.warn(
                    "stream cursor {} is damaged ({}); streaming {} from the start",
                    cursorFile,
                    e.getMessage(),
                    plan.describe());
            return StreamCursor.start(plan);
        }
        if (stored == null) {
            return StreamCursor.start(plan);
        }
        if (!stored.isFor(plan)) {
            log.info(
                    "stream cursor {} is for epoch {}, another plan; streaming {} from the start",
                    cursorFile,
                    stored.epoch(),
                    plan.describe());
            return StreamCursor.start(plan);
        }
        if (!stored.done()) {
            log.info(
                    "stream {} resumes at key {} after {} entries",
                    plan.describe(),
                    show(stored.next()),
                    stored.entries());
        }
        return stored;
    }

    /** Makes every applied entry durable, then stores the cursor {@code next} (the durability point). */
    private void checkpoint(byte[] next, boolean finished) throws IOException {
        long t0 = nanoTime.getAsLong();
        Ingest open = ingest;
        if (open != null) {
            ingest = null;
            try (open) {
                open.finish();
            }
        }
        StreamCursor c = new StreamCursor(plan.epoch(), durable.planDigest(), next, entries, bytes, finished);
        c.write(cursorFile);
        durable = c;
        checkpointNs += nanoTime.getAsLong() - t0;
    }

    /**
     * Applies a page: every version observed by the clock first, then the entries added to the ingest in
     * key order (one is started for the first entry after a checkpoint).
     */
    private void applyAll(List<Entry> page) throws IOException, StreamFailedException {
        for (Entry e : page) {
            try {
                clock.observe(e.version());
            } catch (ClockOffsetException refused) {
                throw new StreamFailedException(
                        "stream " + plan.describe() + " received key " + show(e.key())
                                + " with a version this node's clock refuses; resume from durable cursor "
                                + show(durable.next()) + ": " + refused.getMessage(),
                        refused);
            }
        }
        if (page.isEmpty()) {
            return;
        }
        if (ingest == null) {
            ingest = engine.ingest(INGEST_MAX_ENTRIES);
        }
        for (Entry e : page) {
            try {
                ingest.add(e);
            } catch (IllegalArgumentException outOfOrder) {
                throw new StreamFailedException(
                        "stream " + plan.describe() + ": source " + plan.source() + " sent key " + show(e.key())
                                + " out of key order; resume from durable cursor " + show(durable.next()) + ": "
                                + outOfOrder.getMessage(),
                        outOfOrder);
            }
        }
    }

    private CompletableFuture<EntryPage> request(byte[] start) {
        try {
            return peer.entries(plan, start, options.pageBytes());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The page {@code answer} brings, asking again for the page at {@code start} after each failure with
     * a doubling backoff, at most {@link StreamOptions#maxRetries()} times.
     */
    private EntryPage await(CompletableFuture<EntryPage> answer, byte[] start)
            throws StreamFailedException, InterruptedException {
        CompletableFuture<EntryPage> attempt = answer;
        for (int failures = 0; ; ) {
            Throwable failure;
            try {
                return attempt.get(options.callTimeoutMs(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                attempt.cancel(false);
                failure = new TimeoutException("no page within " + options.callTimeoutMs() + " ms");
            } catch (ExecutionException e) {
                failure = e.getCause() == null ? e : e.getCause();
            } catch (CancellationException e) {
                failure = e;
            } catch (InterruptedException e) {
                attempt.cancel(false);
                throw e;
            }
            failures++;
            if (failure instanceof StreamRefusedException) {
                throw new StreamFailedException(
                        "stream " + plan.describe() + ": source " + plan.source() + " refused the plan; resume from"
                                + " durable cursor " + show(durable.next()) + " once the plan is fixed: "
                                + failure.getMessage(),
                        failure);
            }
            if (failures > options.maxRetries()) {
                throw new StreamFailedException(
                        "stream " + plan.describe() + " gave up on source " + plan.source() + " after " + failures
                                + " failed attempts at the page from key " + show(start)
                                + "; resume from durable cursor " + show(durable.next()) + " (" + durable.entries()
                                + " entries): " + failure,
                        failure);
            }
            long backoffMs = Math.min(options.maxBackoffMs(), options.initialBackoffMs() << Math.min(failures - 1, 30));
            log.warn(
                    "stream {}: page from key {} failed (attempt {} of {}), retrying in {} ms: {}",
                    plan.describe(),
                    show(start),
                    failures,
                    options.maxRetries() + 1,
                    backoffMs,
                    failure.toString());
            sleeper.sleepNanos(TimeUnit.MILLISECONDS.toNanos(backoffMs));
            attempt = request(start);
        }
    }

    private void logFinished() {
        long elapsedNs = Math.max(1, nanoTime.getAsLong() - startNanos);
        double seconds = elapsedNs / 1e9;
        double mb = (bytes - resumedBytes) / 1e6; // this run's bytes, as the time is this run's
        log.info(
                "stream {} done: {} entries, {} MB in {} s ({} MB/s; {} s waiting for pages, {} s applying,"
                        + " {} s in checkpoints){}",
                plan.describe(),
                entries - resumedEntries,
                String.format("%.1f", mb),
                String.format("%.2f", seconds),
                String.format("%.1f", mb / seconds),
                String.format("%.2f", waitingNs / 1e9),
                String.format("%.2f", applyingNs / 1e9),
                String.format("%.2f", checkpointNs / 1e9),
                resumedEntries > 0 ? ", resumed after " + resumedEntries + " entries" : "");
    }

    private static String show(byte @Nullable [] key) {
        if (key == null) {
            return "(end)";
        }
        if (key.length == 0) {
            return "(start)";
        }
        return key.length <= SHOWN_KEY_BYTES ? HEX.formatHex(key) : HEX.formatHex(key, 0, SHOWN_KEY_BYTES) + "...";
    }
}
