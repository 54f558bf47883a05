package io.ringbase.cluster.replication;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The hints one write has handed to its {@link HintSink} so far, so that its answer can wait until they
 * are stored: a write acknowledged while a replica it missed is known is acknowledged only once that
 * replica's hint is durable, so a crash right after the answer loses none of them. Hints handed over
 * after the answer (a replica that times out after {@code ack} others answered) are not waited for.
 * Thread-safe; allocates its list only for a write that hints.
 */
final class HintWaits {

    private List<CompletableFuture<Void>> pending; // guarded by this; null until the first hint

    /** Records a hint's completion. */
    synchronized void add(CompletableFuture<Void> stored) {
        if (stored.isDone()) {
            return;
        }
        if (pending == null) {
            pending = new ArrayList<>(2);
        }
        pending.add(stored);
    }

    /** Completes once every hint recorded so far is stored or dropped (at once if there is none). */
    synchronized CompletableFuture<Void> allStored() {
        if (pending == null) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new));
    }
}
