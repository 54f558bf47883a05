package io.ringbase.functions;

import io.ringbase.clock.TimeSource;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.storage.Entry;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The scans of shares this node ran a page of, kept open for the share's next page (docs/functions.md,
 * "How a job is distributed"). A page stops after 128 keys, but the cluster scan under it has fetched
 * pages of its replicas ahead; opening a new scan for every page would fetch them again. So a page that
 * ended full parks its scan here, with the entries it had read past its cursor, under the share and the
 * key its next page starts at, and the function instance it called; the next page of that share takes
 * them back, so a share's pages scan once and instantiate the function once, as a job at its coordinator
 * does. A scan that waits longer than
 * {@link #IDLE_MS} (the coordinator failed, the job was cancelled, the next page went to another
 * node) is closed, and so is the oldest once {@link #CAPACITY} wait. Thread-safe.
 */
final class ShareScans implements AutoCloseable {

    /** Scans kept at most: each holds about two replica pages per replica (a few MiB at most). */
    static final int CAPACITY = 16;
    /** How long a parked scan waits for its share's next page, ms. */
    static final long IDLE_MS = 30_000;

    /**
     * Which scan a page can continue: the same job (its id and its coordinator's token; the function
     * and module hash too, as an older coordinator sends no token), share and end,
     * with the page starting where the last one stopped.
     */
    record Key(
            String job,
            String token,
            String module,
            long epoch,
            List<String> down,
            List<String> path,
            String end,
            String from) {}

    /** A parked scan: the entries already read past the last page's cursor come first. */
    record Parked(
            EntryBatchSource scan,
            List<Entry> ahead,
            @Nullable FunctionInstance instance,
            long parkedAtMs) {}

    private final TimeSource time;
    private final Map<Key, Parked> parked = new LinkedHashMap<>(); // guarded by this; oldest first
    private long reused; // guarded by this
    private boolean sweepPending; // guarded by this: a sweep is scheduled

    ShareScans(TimeSource time) {
        this.time = Objects.requireNonNull(time, "time");
    }

    /** The scan parked under {@code key}, taken out, or {@code null} if none waits there. */
    @Nullable
    Parked take(Key key) {
        List<EntryBatchSource> expired = new ArrayList<>();
        Parked p;
        synchronized (this) {
            expire(expired);
            p = parked.remove(key);
            if (p != null) {
                reused++;
            }
        }
        expired.forEach(EntryBatchSource::close);
        return p;
    }

    /** Parks {@code scan} for the page that starts at {@code key}; a scan already there is closed. */
    void park(Key key, EntryBatchSource scan, List<Entry> ahead) {
        park(key, scan, ahead, null);
    }

    /** As {@link #park(Key, EntryBatchSource, List)}, with the function instance the page called. */
    void park(Key key, EntryBatchSource scan, List<Entry> ahead, @Nullable FunctionInstance instance) {
        List<EntryBatchSource> closing = new ArrayList<>();
        synchronized (this) {
            expire(closing);
            Parked old = parked.put(key, new Parked(scan, List.copyOf(ahead), instance, time.currentTimeMillis()));
            if (old != null) {
                closing.add(old.scan());
            }
            Iterator<Parked> oldest = parked.values().iterator();
            while (parked.size() > CAPACITY) {
                closing.add(oldest.next().scan());
                oldest.remove();
            }
            scheduleSweep();
        }
        closing.forEach(EntryBatchSource::close);
    }

    /**
     * Closes the scans idle past {@link #IDLE_MS} even when no page comes any more (the last job ended
     * with scans parked): a sweep runs a little after the idle limit while any scan waits. Under the lock.
     */
    private void scheduleSweep() {
        if (sweepPending || parked.isEmpty()) {
            return;
        }
        sweepPending = true;
        CompletableFuture.delayedExecutor(IDLE_MS + 1_000, TimeUnit.MILLISECONDS)
                .execute(this::sweep);
    }

    /** The scheduled sweep: closes the idle scans, and schedules the next while any scan waits. */
    void sweep() {
        List<EntryBatchSource> expired = new ArrayList<>();
        synchronized (this) {
            sweepPending = false;
            expire(expired);
            scheduleSweep();
        }
        expired.forEach(EntryBatchSource::close);
    }

    /** Moves the parked scans idle past {@link #IDLE_MS} to {@code out}. Under the lock. */
    private void expire(List<EntryBatchSource> out) {
        long now = time.currentTimeMillis();
        Iterator<Parked> it = parked.values().iterator();
        while (it.hasNext()) {
            Parked p = it.next();
            if (now - p.parkedAtMs() > IDLE_MS) {
                out.add(p.scan());
                it.remove();
            }
        }
    }

    /** Scans parked now. */
    synchronized int size() {
        return parked.size();
    }

    /** Pages that continued a parked scan. */
    synchronized long reused() {
        return reused;
    }

    /** Closes every parked scan. */
    @Override
    public void close() {
        List<Parked> all;
        synchronized (this) {
            all = new ArrayList<>(parked.values());
            parked.clear();
        }
        all.forEach(p -> p.scan().close());
    }
}
