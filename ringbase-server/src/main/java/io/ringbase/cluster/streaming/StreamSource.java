package io.ringbase.cluster.streaming;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.os.ThreadPriority;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The sending side of streaming: pages of this node's entries that a {@link StreamPlan} wants, in key
 * order, tombstones and expired entries included (a bootstrap must carry deletes, as repair does). The
 * internal HTTP handler answers {@code POST /internal/v0/stream} with it. Thread-safe.
 *
 * <p>A page's scan reads every key from its start until the page is full, most of which the plan does
 * not want: about four bytes read for each one sent when a fourth node joins three. It runs on a thread of
 * its own under Linux's {@code SCHED_IDLE} ({@link ThreadPriority#IDLE}), so it takes only CPU time that
 * client requests leave idle, as compaction does: a join under load slows down rather than the requests.
 * At most {@link #MAX_SCANS} run at once; a page asked for beyond that is refused ({@link Busy}) and asked
 * for again by the receiver after a backoff.
 */
public final class StreamSource {

    /** Page scans that may run at once on one node. */
    static final int MAX_SCANS = 2;
    /** Longest wait for one page's scan, ms: the receiver gives up on a page after a minute too. */
    static final long SCAN_TIMEOUT_MS = 60_000;

    /** A page refused because {@link #MAX_SCANS} scans run already. */
    public static final class Busy extends IOException {
        Busy(String message) {
            super(message);
        }
    }

    private final StorageEngine engine;
    private final NodeId self;
    /** Scans running or queued; a permit is given back when the scan ends, not when its caller stops waiting. */
    private final Semaphore admitted = new Semaphore(MAX_SCANS);

    private final ThreadPoolExecutor scans;

    /**
     * @param engine the local engine
     * @param self   this node; a plan must name it (its URL) as the source
     */
    public StreamSource(StorageEngine engine, NodeId self) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.self = Objects.requireNonNull(self, "self");
        // never more than MAX_SCANS tasks (the semaphore): the queue stays that short; idle threads exit
        this.scans = new ThreadPoolExecutor(
                MAX_SCANS,
                MAX_SCANS,
                30,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(MAX_SCANS),
                ThreadPriority.background("ringbase-stream-source", ThreadPriority.IDLE));
        scans.allowCoreThreadTimeOut(true);
    }

    /**
     * One page of the entries {@code plan} wants, with keys {@code >= startKey}: one pass over the engine
     * from {@code startKey}.
     *
     * @param startKey inclusive lower bound: empty for the first page, then the previous page's
     *                 {@link EntryPage#next()}
     * @param maxBytes the page ends after the entry that takes its encoded size ({@link EntryFormat}) to
     *                 this many bytes or more, so it holds at least one entry if any is left; its
     *                 {@code next} is then the last key's {@link EntryPage#successor}, and a following
     *                 page may turn out empty
     * @throws IllegalArgumentException if the plan's source is not this node (by URL) or {@code maxBytes < 1}
     * @throws Busy                     if {@link #MAX_SCANS} page scans run already
     * @throws IOException              if the engine cannot be read, or the scan took over
     *                                  {@link #SCAN_TIMEOUT_MS}
     */
    public EntryPage entries(StreamPlan plan, byte[] startKey, int maxBytes) throws IOException {
        if (!plan.source().toString().equals(self.toString())) {
            throw new IllegalArgumentException("stream plan names source " + plan.source() + ", this node is " + self);
        }
        if (!admitted.tryAcquire()) {
            throw new Busy("this node scans " + MAX_SCANS + " stream pages already; ask again later");
        }
        Future<EntryPage> scan;
        try {
            scan = scans.submit(() -> {
                try {
                    return EntryPage.scan(engine, startKey, maxBytes, plan::wants);
                } finally {
                    admitted.release();
                }
            });
        } catch (RejectedExecutionException e) {
            admitted.release();
            throw new Busy("this node cannot start a stream page's scan now; ask again later");
        }
        try {
            return scan.get(SCAN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            scan.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while scanning a stream page");
        } catch (TimeoutException e) {
            scan.cancel(true);
            throw new IOException("a stream page's scan took over " + SCAN_TIMEOUT_MS + " ms (the node is busy)");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            switch (cause) {
                case IOException io -> throw io;
                case RuntimeException r -> throw r;
                case Error err -> throw err;
                default -> throw new IOException(cause);
            }
        }
    }
}
