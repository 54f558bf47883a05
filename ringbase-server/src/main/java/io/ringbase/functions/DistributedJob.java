package io.ringbase.functions;

import io.ringbase.kv.EntryBatchSource;
import io.ringbase.storage.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A job run by the replicas, each on its share of the keys, with this node as coordinator
 * (docs/functions.md, "How a job is distributed"): every node that is up runs its share
 * ({@link JobCluster#share}) page by page ({@link SharePage}), all shares at once; the coordinator adds up
 * the pages' counts into its {@link ProcessJob}, combines reduce partials as they come, and streams map
 * records out as the client reads them.
 *
 * <p><b>Exactly once.</b> A page's answer carries its results with the last key it processed (its cursor),
 * all or nothing: only answered pages count, and the next page starts after the cursor. A node that does
 * not answer (down, or past {@link #PAGE_TIMEOUT_MS}) loses its share from the cursor on: it is handed on
 * to the shares {@code path + [n]} for every other node n ({@link JobCluster#share}), i.e. each key to its
 * next replica, none to two nodes. A node that answers with an error is up (its own scan lost a replica, or
 * its pool was full): the same page is asked again, up to {@value ProcessJob#MAX_RESUMES} times.
 *
 * <p><b>Backpressure.</b> A share has at most one page in flight; for map, a share's next page is asked
 * while the records of the last one wait for the client, unless {@value #PAGES_QUEUED} of its pages wait:
 * then once the client took one (pages without records go on at once). So the coordinator holds at most
 * {@value #PAGES_QUEUED} pages of records per share, and a node computes its next page while the client
 * reads the last.
 *
 * <p>Threads: page answers arrive on the internal client's event loop; counting and combining run on the
 * pool of {@link Jobs}. Thread-safe.
 */
public final class DistributedJob {

    /** Keys per page: small enough that a lost page costs little, large enough that calls are few. */
    static final int PAGE_KEYS = 128;
    /** Map: pages of one share whose records may wait for the client at once (the next is then held back). */
    static final int PAGES_QUEUED = 2;
    /** How long a page may take before its node counts as failed, ms. */
    static final long PAGE_TIMEOUT_MS = 120_000;

    private static final org.slf4j.Logger logger = org.slf4j.LoggerFactory.getLogger(DistributedJob.class);

    /** Runs one page of a share on this node. */
    @FunctionalInterface
    interface LocalPages {
        /** Starts the page; blocks to open it (a worker). */
        CompletableFuture<SharePage.Reply> run(SharePage.Request request) throws Exception;
    }

    private final ProcessJob job;
    private final JobCluster cluster;
    private final Jobs jobs;
    private final LocalPages local;
    private final Set<String> down;
    private final long epoch; // the placement's when the job started
    private final String token = Long.toHexString(new java.security.SecureRandom().nextLong()); // SharePage
    private final AtomicInteger running = new AtomicInteger(); // shares not done
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final ConcurrentLinkedQueue<Ready> ready = new ConcurrentLinkedQueue<>();
    private final Object signalLock = new Object();
    private CompletableFuture<Void> signal = new CompletableFuture<>(); // guarded by signalLock

    /** A map page's records waiting for the client, and what to do once they are handed out. */
    private record Ready(List<Entry> records, Runnable then) {}

    /** One share: the nodes that had it in turn, and where its next page starts. */
    private static final class Share {
        final List<String> path;
        byte[] from;
        int retries;
        int queued; // map: pages of records waiting for the client; guarded by this
        boolean deferred; // map: the next page waits for the client to take one; guarded by this

        Share(List<String> path, byte[] from) {
            this.path = List.copyOf(path);
            this.from = from;
        }

        String node() {
            return path.getLast();
        }
    }

    /**
     * @param down the nodes believed down at the start; every node up must be at least
     *             {@link JobCluster#nodesNeeded()} (the caller checked)
     */
    DistributedJob(ProcessJob job, JobCluster cluster, Jobs jobs, LocalPages local, Set<String> down) {
        this.job = job;
        this.cluster = cluster;
        this.jobs = jobs;
        this.local = local;
        this.down = Set.copyOf(down);
        this.epoch = cluster.epoch();
    }

    /** Starts every node's share. */
    private void startShares() {
        List<Share> shares = new ArrayList<>();
        for (String n : cluster.nodes()) {
            if (!down.contains(n)) {
                shares.add(new Share(List.of(n), job.request().start()));
            }
        }
        running.addAndGet(shares.size());
        if (shares.isEmpty()) {
            done.complete(null);
        }
        shares.forEach(this::next);
    }

    /** Reduce or update: runs to the end; the summary as JSON. */
    public CompletableFuture<byte[]> run() {
        startShares();
        return done.handle((x, failure) -> {
            if (failure != null) {
                job.finish(ProcessJob.State.FAILED);
                throw failure instanceof CompletionException c ? c : new CompletionException(failure);
            }
            job.finish(ProcessJob.State.DONE);
            return job.summary();
        });
    }

    /** Map: the records as they come, then the summary record; closing it early cancels the job. */
    public EntryBatchSource mapOutput() {
        startShares();
        return new EntryBatchSource() {
            private volatile boolean ended;

            @Override
            public CompletableFuture<List<Entry>> nextBatch(int maxBytes) {
                if (ended) {
                    return CompletableFuture.completedFuture(List.of());
                }
                CompletableFuture<Void> changed = signal();
                Ready r = ready.poll();
                if (r != null) {
                    r.then().run();
                    return CompletableFuture.completedFuture(r.records());
                }
                if (done.isCompletedExceptionally()) {
                    job.finish(ProcessJob.State.FAILED);
                    return done.thenApply(x -> List.of());
                }
                if (done.isDone()) {
                    Ready late = ready.poll(); // queued before the last share finished, after the poll above
                    if (late != null) {
                        late.then().run();
                        return CompletableFuture.completedFuture(late.records());
                    }
                    job.finish(ProcessJob.State.DONE);
                    ended = true;
                    return CompletableFuture.completedFuture(List.of(Entry.value(new byte[0], 0, job.summary())));
                }
                return changed.thenCompose(x -> nextBatch(maxBytes));
            }

            @Override
            public void close() {
                if (job.state() == ProcessJob.State.RUNNING) {
                    job.cancel();
                    job.finish(ProcessJob.State.CANCELLED); // the client went away before the end
                }
            }
        };
    }

    private CompletableFuture<Void> signal() {
        synchronized (signalLock) {
            return signal;
        }
    }

    private void changed() {
        CompletableFuture<Void> s;
        synchronized (signalLock) {
            s = signal;
            signal = new CompletableFuture<>();
        }
        s.complete(null);
    }

    /** Asks the share's next page, unless the job has ended. */
    private void next(Share share) {
        if (done.isDone()) {
            return;
        }
        if (job.cancelled() || job.state() != ProcessJob.State.RUNNING) {
            if (job.cancelled()) {
                job.finish(ProcessJob.State.CANCELLED);
            }
            finished();
            return;
        }
        SharePage.Request request = new SharePage.Request(
                job.id(),
                job.request().function(),
                job.request().mode(),
                job.request().onError(),
                share.from,
                job.request().end(),
                down,
                share.path,
                PAGE_KEYS,
                job.function().hash(),
                epoch,
                token);
        CompletableFuture<SharePage.Reply> page;
        if (share.node().equals(cluster.self())) {
            page = jobs.onPool(() -> request)
                    .thenCompose(
                            r -> { // opening the page blocks: on the pool
                                try {
                                    return local.run(r);
                                } catch (Exception e) {
                                    return CompletableFuture.failedFuture(e);
                                }
                            });
        } else {
            page = cluster.call(share.node(), request.encode(), PAGE_TIMEOUT_MS).thenApply(SharePage.Reply::decode);
        }
        var unused = page.thenCompose(reply -> jobs.onPool(() -> {
                    job.absorb(reply);
                    return reply;
                }))
                .whenComplete((reply, failure) -> {
                    if (failure != null) {
                        failed(share, unwrap(failure));
                    } else {
                        answered(share, reply);
                    }
                });
    }

    private void answered(Share share, SharePage.Reply reply) {
        share.retries = 0;
        if (reply.state().equals("stopped")) {
            job.finish(ProcessJob.State.STOPPED); // a call failed with onError=stop: every share stops
        }
        boolean more = reply.more() && reply.cursor() != null;
        if (more) {
            share.from = ProcessJob.successor(reply.cursor());
        }
        if (reply.records().isEmpty()) {
            if (more) {
                next(share);
            } else {
                finished();
            }
            return;
        }
        // map: the next page is asked while this one's records wait for the client, unless
        // PAGES_QUEUED of the share's pages already wait: then once the client takes one
        boolean askNow;
        synchronized (share) {
            share.queued++;
            askNow = more && share.queued < PAGES_QUEUED;
            share.deferred = more && !askNow;
        }
        ready.add(new Ready(reply.records(), () -> handedOut(share)));
        changed();
        if (askNow) {
            next(share);
        } else if (!more) {
            finished(); // the summary still follows every queued record: the client's reads take them first
        }
    }

    /** Map: one of the share's pages went to the client; asks the next one if it was held back. */
    private void handedOut(Share share) {
        boolean ask;
        synchronized (share) {
            share.queued--;
            ask = share.deferred;
            share.deferred = false;
        }
        if (ask) {
            next(share);
        }
    }

    private void failed(Share share, Throwable failure) {
        if (done.isDone()) {
            return;
        }
        if (failure instanceof ShareFailedException f && !f.answered()) {
            if (!cluster.canHandOn(down, share.path)) {
                fail(new java.io.IOException(
                        "job " + job.id() + ": nodes " + share.path + " failed in turn and some keys of their"
                                + " share may have no replica left",
                        failure));
                return;
            }
            logger.warn(
                    "job {}: node {} failed ({}); handing its share on from the last key it answered",
                    job.id(),
                    share.node(),
                    failure.getMessage());
            job.handedOn();
            List<Share> heirs = new ArrayList<>();
            for (String n : cluster.nodes()) {
                if (!down.contains(n) && !share.path.contains(n)) {
                    List<String> path = new ArrayList<>(share.path);
                    path.add(n);
                    heirs.add(new Share(path, share.from));
                }
            }
            running.addAndGet(heirs.size());
            heirs.forEach(this::next);
            finished(); // the failed share itself
            return;
        }
        boolean refused = failure instanceof IllegalArgumentException
                || (failure instanceof ShareFailedException f && f.status() >= 400 && f.status() < 500);
        if (refused || share.retries >= ProcessJob.MAX_RESUMES) {
            fail(failure);
            return;
        }
        long delay = ProcessJob.RESUME_DELAY_MS << share.retries++;
        logger.warn(
                "job {}: a page of node {} failed ({}); asking it again, attempt {} of {}",
                job.id(),
                share.node(),
                failure.toString(),
                share.retries,
                ProcessJob.MAX_RESUMES);
        CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS).execute(() -> next(share));
    }

    private void finished() {
        if (running.decrementAndGet() == 0) {
            done.complete(null);
        }
        changed();
    }

    private void fail(Throwable failure) {
        job.cancel(); // no further page is asked
        done.completeExceptionally(failure);
        changed();
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
