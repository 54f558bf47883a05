package io.ringbase.cluster.hint;

import io.ringbase.cluster.replication.Replica;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One delivery of a target's pending hints, run on its own (virtual) thread after the target answered a
 * probe: reads the hints page by page, writes each to the replica with at most {@code maxInFlight}
 * writes awaiting an answer and at most {@code maxPerSecond} sent per second, and removes each hint once
 * its write succeeded. Stops at the first failed write (the target went away again) or when told to.
 *
 * <p>Write answers arrive on the replica's event loop; they are handed to the round's thread, which does
 * the store's removals, so no event loop ever waits for the disk.
 */
final class DeliveryRound {

    /** Hints read from the store per page. */
    static final int PAGE_HINTS = 256;
    /** Stored bytes read from the store per page (at least one hint): bounds a round's memory. */
    static final long PAGE_BYTES = 1L << 20;

    private static final long POLL_MS = 100;

    /**
     * How a round ended.
     *
     * @param delivered hints acknowledged and removed
     * @param failure   the first failure (a write's {@link io.ringbase.cluster.replication.ReplicaException},
     *                  or an {@link IOException} of the store), or null if every pending hint was delivered
     *                  or the round was stopped
     */
    record Result(long delivered, Throwable failure) {}

    private record Completion(Hint hint, Throwable error) {}

    private final HintStore store;
    private final Replica replica;
    private final String target; // the target node's URL
    private final int maxInFlight;
    private final long intervalNanos;
    private final BooleanSupplier stopping;
    private final LinkedBlockingQueue<Completion> done = new LinkedBlockingQueue<>();

    private int outstanding;
    private long delivered;
    private Throwable failure;
    private long nextSendNanos = System.nanoTime();

    DeliveryRound(HintStore store, Replica replica, HintOptions options, BooleanSupplier stopping) {
        this.store = store;
        this.replica = replica;
        this.target = replica.node().toString();
        this.maxInFlight = options.maxInFlight();
        this.intervalNanos = TimeUnit.SECONDS.toNanos(1) / options.maxPerSecond();
        this.stopping = stopping;
    }

    Result run() throws InterruptedException {
        byte[] start = new byte[0];
        pages:
        while (failure == null && !stopping.getAsBoolean()) {
            HintPage page;
            try {
                page = store.page(target, start, PAGE_HINTS, PAGE_BYTES);
            } catch (IOException e) {
                failure = e;
                break;
            }
            for (Hint hint : page.hints()) {
                Completion c;
                while ((c = done.poll()) != null) {
                    handle(c);
                }
                while (failure == null && outstanding >= maxInFlight) {
                    if (!awaitOne()) {
                        break pages;
                    }
                }
                if (failure != null || stopping.getAsBoolean()) {
                    break pages;
                }
                pace();
                send(hint);
            }
            if (!page.hasMore()) {
                break;
            }
            start = page.next();
        }
        while (outstanding > 0 && awaitOne()) {
            // drain: removals of writes that succeeded after a failure still count
        }
        return new Result(delivered, failure);
    }

    private void send(Hint hint) {
        CompletableFuture<Void> f;
        try {
            f = replica.write(hint.entry());
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        outstanding++;
        var _ = f.whenComplete((v, err) -> done.add(new Completion(hint, unwrap(err))));
    }

    /** Waits for one answer; false if told to stop first (the outstanding writes are then abandoned). */
    private boolean awaitOne() throws InterruptedException {
        while (!stopping.getAsBoolean()) {
            Completion c = done.poll(POLL_MS, TimeUnit.MILLISECONDS);
            if (c != null) {
                handle(c);
                return true;
            }
        }
        return false;
    }

    private void handle(Completion c) {
        outstanding--;
        if (c.error() != null) {
            if (failure == null) {
                failure = c.error();
            }
            return;
        }
        try {
            store.delivered(c.hint());
            delivered++;
        } catch (IOException e) {
            if (failure == null) {
                failure = e; // the hint stays and is delivered again: writes are idempotent by version
            }
        }
    }

    /** Sleeps until the next send is due at {@code maxPerSecond}. */
    private void pace() throws InterruptedException {
        long now = System.nanoTime();
        long wait = nextSendNanos - now;
        if (wait > 0) {
            Thread.sleep(Duration.ofNanos(wait));
        }
        nextSendNanos = Math.max(nextSendNanos, now) + intervalNanos;
    }

    private static Throwable unwrap(Throwable err) {
        return err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
    }
}
