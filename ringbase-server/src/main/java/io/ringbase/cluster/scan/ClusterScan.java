package io.ringbase.cluster.scan;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.cluster.ring.ShareFilter;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.BiPredicate;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A range scan of the whole cluster: a streaming k-way merge of the pages that several
 * {@link Replica replicas} return for {@code [start, end)}, with each key once, in
 * {@link Keys#ORDER}, the newest version ({@link Entry#compareNewness}) winning, and keys whose
 * newest version is a tombstone or expired hidden. It is the same merge as
 * {@link io.ringbase.storage.lsm.MergeIterator}, over asynchronous pages instead of local iterators.
 *
 * <p><b>Which replicas.</b> The caller decides: it passes every node it wants merged (the local node
 * is a {@link Replica} too). A replica that is down or fails mid-scan fails the scan (the batch
 * future completes exceptionally with the {@link ReplicaException}); there is no fail-over here. A key
 * is only as complete as the replicas asked: skipping a node can miss keys whose other replicas hold an
 * older version or none. With replication factor RF on N nodes the caller passes enough nodes that
 * every key keeps a read quorum of its replicas among them ({@code N - majority(RF) + 1}), and every
 * key is still emitted once. A node's entries for keys it does not replicate ({@code holds} says which)
 * are left out of the merge: a node holds none of those while membership is unchanged, and a copy left
 * behind on a node that is no longer a replica after the list changed (nothing removes it) must not
 * outvote the replicas, nor come back once they have purged the key's tombstone.
 *
 * <p><b>Paging and memory.</b> Per replica the scan holds the rest of one page (fetched with
 * {@link Replica#scan replica.scan(cursor, end, pageBytes)}) and at most one more page in flight,
 * requested once half of the current page has been merged; so memory is about two pages per replica
 * whatever the range size. A key can be emitted only once every replica's page either has a key at or
 * after it or the replica is exhausted; if a replica's page has run dry and its next page has not
 * arrived, {@link #nextBatch} returns what it has merged so far, or, if nothing, a future that
 * completes when the page arrives.
 *
 * <p><b>Threads.</b> No thread waits on a replica: continuations are chained on the page futures, so
 * after an asynchronous page arrives the merge (and any page request it makes) continues on the thread
 * that completed that page, usually a node-to-node client's event loop. {@link Replica#scan} must
 * therefore not block its caller. The merge of one key costs O(number of replicas), which is the
 * cluster size (small). One {@code nextBatch} at a time (see {@link EntryBatchSource}); {@link #close}
 * may also be called from another thread while a batch is outstanding, which then fails.
 */
public final class ClusterScan implements EntryBatchSource {

    /** Default page size asked of each replica (256 KiB). */
    public static final int DEFAULT_PAGE_BYTES = 256 * 1024;

    private final List<Cursor> cursors;
    private final byte[] end;
    private final LongSupplier wallClockMs;
    private final int pageBytes;
    private final BiPredicate<NodeId, byte[]> holds;
    private final @Nullable ShareFilter share;
    // Guarded by this: the merge runs under the lock (it never waits while holding it), so close()
    // from another thread cannot see a cursor mid-step.
    private boolean closed;
    private Throwable failure;

    /**
     * A scan with {@link #DEFAULT_PAGE_BYTES} pages.
     *
     * @param replicas    the replicas to merge; the caller chooses them (typically every node)
     * @param start       inclusive lower bound
     * @param end         exclusive upper bound, or {@code null} for none
     * @param wallClockMs current Unix epoch ms, for hiding expired entries
     * @param holds       whether a node replicates a key: only such entries are merged
     */
    public ClusterScan(
            List<? extends Replica> replicas,
            byte[] start,
            byte[] end,
            LongSupplier wallClockMs,
            BiPredicate<NodeId, byte[]> holds) {
        this(replicas, start, end, wallClockMs, DEFAULT_PAGE_BYTES, holds);
    }

    /** A scan that merges every entry of every replica, with {@link #DEFAULT_PAGE_BYTES} pages. */
    public ClusterScan(List<? extends Replica> replicas, byte[] start, byte[] end, LongSupplier wallClockMs) {
        this(replicas, start, end, wallClockMs, DEFAULT_PAGE_BYTES);
    }

    /** A scan that merges every entry of every replica. */
    public ClusterScan(
            List<? extends Replica> replicas, byte[] start, byte[] end, LongSupplier wallClockMs, int pageBytes) {
        this(replicas, start, end, wallClockMs, pageBytes, (node, key) -> true);
    }

    /**
     * @param pageBytes the {@code maxBytes} asked of each replica per page, positive
     */
    public ClusterScan(
            List<? extends Replica> replicas,
            byte[] start,
            byte[] end,
            LongSupplier wallClockMs,
            int pageBytes,
            BiPredicate<NodeId, byte[]> holds) {
        this(replicas, start, end, wallClockMs, pageBytes, holds, null);
    }

    /**
     * A scan of one share of a distributed job: each replica is asked for the keys {@code share} keeps
     * only ({@link Replica#scan(byte[], byte[], int, ShareFilter)}), so a replica sends that share's
     * entries, not the range's. The filter depends only on the key, so every replica keeps the same keys
     * and the merge sees every copy of each; a replica that sends more (an older peer) is not filtered
     * here: the caller keeps the share's keys.
     *
     * @param share the share, or {@code null} for every key
     */
    public ClusterScan(
            List<? extends Replica> replicas,
            byte[] start,
            byte[] end,
            LongSupplier wallClockMs,
            int pageBytes,
            BiPredicate<NodeId, byte[]> holds,
            @Nullable ShareFilter share) {
        Objects.requireNonNull(start, "start");
        this.share = share;
        this.holds = Objects.requireNonNull(holds, "holds");
        this.end = end;
        this.wallClockMs = Objects.requireNonNull(wallClockMs, "wallClockMs");
        if (pageBytes <= 0) {
            throw new IllegalArgumentException("pageBytes must be positive, got " + pageBytes);
        }
        this.pageBytes = pageBytes;
        boolean emptyRange = end != null && Keys.compare(start, end) >= 0;
        this.cursors = new ArrayList<>(replicas.size());
        for (Replica r : replicas) {
            cursors.add(new Cursor(Objects.requireNonNull(r, "replica"), emptyRange ? null : start));
        }
    }

    @Override
    public CompletableFuture<List<Entry>> nextBatch(int maxBytes) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
        }
        return merge(new ArrayList<>(), maxBytes);
    }

    /**
     * Merges into {@code out} until the budget is spent, the range ends, or a replica's next page has
     * not arrived yet.
     */
    private synchronized CompletableFuture<List<Entry>> merge(List<Entry> out, int maxBytes) {
        long bytes = 0;
        while (true) {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("scan is closed"));
            }
            if (failure != null) {
                return CompletableFuture.failedFuture(failure);
            }
            CompletableFuture<EntryPage> awaited = null;
            Cursor least = null;
            for (Cursor c : cursors) {
                try {
                    if (!c.fill()) {
                        awaited = c.pending;
                        break;
                    }
                } catch (ReplicaException e) {
                    failure = e; // the scan stays broken: a later batch must not skip the lost page
                    return CompletableFuture.failedFuture(e);
                }
                if (c.head() != null
                        && (least == null
                                || Keys.compare(c.head().key(), least.head().key()) < 0)) {
                    least = c;
                }
            }
            if (awaited != null) {
                if (!out.isEmpty()) {
                    return CompletableFuture.completedFuture(out); // stream what is merged; wait next time
                }
                // Resume once the page is in, on whichever thread completes it; failures are read by fill().
                return awaited.handle((page, t) -> null).thenCompose(ignored -> merge(out, maxBytes));
            }
            if (least == null) {
                return CompletableFuture.completedFuture(out); // every replica exhausted
            }
            byte[] key = least.head().key();
            Entry newest = null;
            for (Cursor c : cursors) {
                if (c.head() != null && Keys.compare(c.head().key(), key) == 0) {
                    newest = Entry.newer(newest, c.take());
                }
            }
            if (newest.isLive(wallClockMs.getAsLong())) {
                out.add(newest);
                bytes += EntryBatchSource.sizeOf(newest);
                if (bytes >= maxBytes) {
                    return CompletableFuture.completedFuture(out);
                }
            }
        }
    }

    /** Drops buffered pages and cancels pages in flight; an outstanding batch then fails. Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        for (Cursor c : cursors) {
            c.release();
        }
    }

    /** One replica's position: the unmerged rest of its current page and its next page. */
    private final class Cursor {
        final Replica replica;
        /** Start of the next page to request, or {@code null} once the replica has no more. */
        byte[] next;
        /** The next page, requested but not yet taken into {@link #page}. */
        CompletableFuture<EntryPage> pending;

        List<Entry> page = List.of();
        int pos;
        /** The last key taken from this replica, to check that its pages are in order. */
        byte[] lastKey;

        Cursor(Replica replica, byte[] start) {
            this.replica = replica;
            this.next = start;
        }

        Entry head() {
            return pos < page.size() ? page.get(pos) : null;
        }

        Entry take() {
            Entry e = page.get(pos++);
            lastKey = e.key();
            if (pos >= page.size()) {
                page = List.of(); // let the page go before the next arrives
                pos = 0;
            }
            prefetchIfLow();
            return e;
        }

        /**
         * Makes {@link #head} valid: true if the replica has a head entry or is exhausted, false if its
         * next page is still in flight ({@link #pending}).
         */
        boolean fill() throws ReplicaException {
            while (head() == null) {
                if (pending == null) {
                    if (next == null) {
                        return true; // exhausted
                    }
                    request();
                }
                if (!pending.isDone()) {
                    return false;
                }
                EntryPage p = takePending();
                byte[] requested = next;
                check(p, requested);
                page = held(p.entries());
                pos = 0;
                next = p.next();
                if (p.entries().isEmpty() && next != null && Keys.compare(next, requested) <= 0) {
                    throw new ReplicaException.Failed(replica.node(), "range scan page did not advance", null);
                }
                prefetchIfLow();
            }
            return true;
        }

        /** The entries of {@code entries} whose key this cursor's node replicates. */
        private List<Entry> held(List<Entry> entries) {
            NodeId node = replica.node();
            for (int i = 0; i < entries.size(); i++) {
                if (!holds.test(node, entries.get(i).key())) {
                    List<Entry> out = new ArrayList<>(entries.subList(0, i)); // rare: copy only then
                    for (int j = i + 1; j < entries.size(); j++) {
                        if (holds.test(node, entries.get(j).key())) {
                            out.add(entries.get(j));
                        }
                    }
                    return out;
                }
            }
            return entries;
        }

        private void prefetchIfLow() {
            if (pending == null && next != null && page.size() - pos <= page.size() / 2) {
                request();
            }
        }

        private void request() {
            CompletableFuture<EntryPage> f;
            try {
                f = share == null ? replica.scan(next, end, pageBytes) : replica.scan(next, end, pageBytes, share);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            pending = f;
        }

        private EntryPage takePending() throws ReplicaException {
            CompletableFuture<EntryPage> f = pending;
            pending = null;
            try {
                return f.get(); // done: does not wait
            } catch (ExecutionException | CompletionException e) {
                throw asReplicaException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ReplicaException.Failed(replica.node(), "interrupted", e);
            } catch (java.util.concurrent.CancellationException e) {
                throw new ReplicaException.Failed(replica.node(), "range scan page cancelled", e);
            }
        }

        private ReplicaException asReplicaException(Throwable t) {
            while (t instanceof CompletionException && t.getCause() != null) {
                t = t.getCause();
            }
            return t instanceof ReplicaException re
                    ? re
                    : new ReplicaException.Failed(replica.node(), "range scan failed: " + t, t);
        }

        /** A page must hold keys in {@code [requested, end)}, strictly increasing and after the last taken. */
        private void check(EntryPage p, byte[] requested) throws ReplicaException {
            byte[] prev = lastKey;
            for (Entry e : p.entries()) {
                byte[] k = e.key();
                if (Keys.compare(k, requested) < 0
                        || (end != null && Keys.compare(k, end) >= 0)
                        || (prev != null && Keys.compare(k, prev) <= 0)) {
                    throw new ReplicaException.Failed(
                            replica.node(), "range scan page out of order or bounds at key " + Keys.toDisplay(k), null);
                }
                prev = k;
            }
        }

        void release() {
            page = List.of();
            pos = 0;
            next = null;
            CompletableFuture<EntryPage> f = pending;
            pending = null;
            if (f != null) {
                f.cancel(false);
            }
        }
    }
}
