package io.ringbase.api;

import io.netty.util.concurrent.EventExecutor;
import io.ringbase.api.wire.RawResponses;
import io.ringbase.api.wire.Request;
import io.ringbase.storage.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inline point PUTs and DELETEs one event loop serves in one pass over its connections, gathered
 * and written together: one WAL {@code write(2)} for all of them instead of one per request (about 12%
 * of a PUT's CPU time went to those writes when each request wrote its own, by async-profiler). It is
 * group commit as LevelDB's writer queue does it, with the event loop as the queue: a write is staged
 * here as its request is read; a task that the loop runs after its pass over the ready connections
 * applies the batch ({@link io.ringbase.kv.KeyValueService#tryApplyStaged}) and only then are the
 * responses written. So every acknowledged write is in the WAL, as before, and a write is visible to
 * reads only once it is in the WAL too: no read sees a write that a crash could still lose.
 *
 * <p>A staged connection is busy until its write is answered, so its pipelined requests wait behind it
 * and keep their order. Writes the engine declines to take without waiting (a flush or compaction
 * behind) go to the worker pool, as a declined single write does; if the batch fails (the WAL write
 * failed), each of its requests gets the error. Bounded: at most {@value #CAPACITY} writes and
 * {@link WriteBatch#MAX_BYTES} bytes of records; a full batch is applied at once.
 *
 * <p>One per event loop (a {@code FastThreadLocal} of the server); used on that loop only.
 */
final class InlineWrites {

    private static final Logger log = LoggerFactory.getLogger(InlineWrites.class);

    /** Most writes in one batch. */
    static final int CAPACITY = 256;

    private final EntityApi entities;
    private final EventExecutor loop;
    private final WriteBatch batch = new WriteBatch(CAPACITY);
    private final ConnectionHandler[] handlers = new ConnectionHandler[CAPACITY];
    private final Request[] requests = new Request[CAPACITY];
    private final RawResponses.Status[] statuses = new RawResponses.Status[CAPACITY];
    // the batch being answered: copied out so that answering may stage new writes (pipelined requests)
    private final ConnectionHandler[] answeringHandlers = new ConnectionHandler[CAPACITY];
    private final Request[] answeringRequests = new Request[CAPACITY];
    private final RawResponses.Status[] answeringStatuses = new RawResponses.Status[CAPACITY];
    private final long[] answeringVersions = new long[CAPACITY];
    private final Runnable applyTask = this::apply;
    private boolean scheduled;
    /** Inside apply()'s answering loop: a full batch is then not applied from stage() (no nesting). */
    private boolean answering;

    InlineWrites(EntityApi entities, EventExecutor loop) {
        this.entities = entities;
        this.loop = loop;
    }

    /**
     * Stages {@code request}, a point PUT or DELETE served inline ({@code query} its decoded query), for
     * {@code handler}, which answers it when the batch is applied ({@link ConnectionHandler#answerStaged}, {@code failStaged} or
     * {@code declineStaged}).
     *
     * @return whether it was staged; if not (not a write, or no room left in the batch for its value)
     *         nothing happened and the caller serves it as before
     * @throws BadRequestException, MethodNotAllowedException, PayloadTooLargeException for a bad request
     *         (nothing staged)
     */
    boolean stage(ConnectionHandler handler, Request request, QueryString query)
            throws BadRequestException, MethodNotAllowedException, PayloadTooLargeException {
        if (batch.size() == CAPACITY && !answering) {
            apply(); // full: write what is there first
        }
        RawResponses.Status status = entities.stage(request, query, batch);
        if (status == null) {
            return false;
        }
        int i = batch.size() - 1;
        handlers[i] = handler;
        requests[i] = request;
        statuses[i] = status;
        if (!scheduled) {
            scheduled = true;
            try {
                loop.execute(applyTask); // runs after this pass over the ready connections
            } catch (java.util.concurrent.RejectedExecutionException e) {
                apply(); // the loop is shutting down: no later pass, so write and answer now
            }
        }
        return true;
    }

    /** Applies the staged writes and answers their requests. */
    void apply() {
        scheduled = false;
        int n = batch.size();
        if (n == 0) {
            return;
        }
        Throwable failure = null;
        try {
            entities.tryApplyStaged(batch);
        } catch (Throwable t) {
            failure = t;
        }
        int applied = batch.applied();
        System.arraycopy(handlers, 0, answeringHandlers, 0, n);
        System.arraycopy(requests, 0, answeringRequests, 0, n);
        System.arraycopy(statuses, 0, answeringStatuses, 0, n);
        for (int i = 0; i < n; i++) {
            answeringVersions[i] = batch.version(i); // the batch is cleared before answering
        }
        java.util.Arrays.fill(handlers, 0, n, null);
        java.util.Arrays.fill(requests, 0, n, null);
        batch.clear();
        answering = true;
        try {
            for (int i = 0; i < n; i++) {
                ConnectionHandler h = answeringHandlers[i];
                Request r = answeringRequests[i];
                answeringHandlers[i] = null;
                answeringRequests[i] = null;
                try {
                    if (i < applied) {
                        h.answerStaged(r, answeringStatuses[i], answeringVersions[i]);
                    } else if (failure != null) {
                        h.failStaged(r, failure);
                    } else {
                        h.declineStaged(r); // the engine would have waited: a worker writes it
                    }
                } catch (RuntimeException e) { // one connection's trouble must not leave the others unanswered
                    log.warn("answering a batched write failed; closing its connection", e);
                    h.close();
                }
            }
        } finally {
            answering = false;
        }
    }
}
