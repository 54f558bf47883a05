package io.ringbase.cluster.rpc;

import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.storage.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * Coalesces the replica reads and writes that requests coordinated on one event loop send to one node
 * into a single {@link InternalProtocol#BATCH} request per loop turn: the first call of a turn opens a
 * batch and schedules its send as a task of the loop, which Netty runs after the I/O of the turn
 * (every request read in that turn), and further calls join it. One message each way per batch instead
 * of per request: on loopback the kernel's per-message cost is the largest part of a replicated request.
 *
 * <p>Bounds ({@link ReplicaBatch}): a batch holds at most {@link ReplicaBatch#MAX_OPS} operations and
 * {@link ReplicaBatch#MAX_REQUEST_BYTES} bytes (an operation that would pass either sends the open batch
 * first); an operation over {@link ReplicaBatch#MAX_OP_BYTES} is not batched but travels alone (else a PUT
 * near the body limit would make its batch pass the replica's body limit, and every write in it would
 * fail). A read answered "too large" is asked for alone.
 *
 * <p>A batch is one client call: one timeout, and a failure of the call (unreachable, timeout, error
 * status) fails every operation in it with the same {@link ReplicaException}; an operation that failed
 * on the replica fails alone. Calls from a thread that is not one of the client's event loops, and
 * large operations, are not batched ({@link #write} and {@link #read} return {@code null}).
 *
 * <p>Threading: the open batch of a loop is touched by that loop only.
 */
final class ReplicaBatcher {

    /** Most operations in one batch. */
    static final int MAX_OPS = ReplicaBatch.MAX_OPS;
    /** A batch's encoded operations stay within this many bytes. */
    static final int MAX_BYTES = ReplicaBatch.MAX_REQUEST_BYTES;

    private final ReplicaClient client;
    private final NodeId node;
    private final Open[] open;

    private final java.util.function.Function<byte[], CompletableFuture<Entry>> readAlone;

    /** @param readAlone reads one key without batching (for reads answered "too large") */
    ReplicaBatcher(
            ReplicaClient client,
            NodeId node,
            java.util.function.Function<byte[], CompletableFuture<Entry>> readAlone) {
        this.client = client;
        this.node = node;
        this.readAlone = readAlone;
        this.open = new Open[client.loops().size()];
    }

    /** Queues a write on the calling event loop's batch; {@code null} if the caller is not on one. */
    @Nullable
    CompletableFuture<Long> write(Entry entry) {
        int loop = client.currentLoop();
        if (loop < 0 || ReplicaBatch.encodedSize(new ReplicaBatch.Write(entry)) > ReplicaBatch.MAX_OP_BYTES) {
            return null;
        }
        CompletableFuture<Long> f = new CompletableFuture<>();
        add(loop, new ReplicaBatch.Write(entry), f);
        return f;
    }

    /** Queues a read on the calling event loop's batch; {@code null} if the caller is not on one. */
    @Nullable
    CompletableFuture<Entry> read(byte[] key) {
        int loop = client.currentLoop();
        if (loop < 0 || key.length + 1 + EntryCodec.HEADER_SIZE > ReplicaBatch.MAX_OP_BYTES) {
            return null;
        }
        CompletableFuture<Entry> f = new CompletableFuture<>();
        add(loop, new ReplicaBatch.Read(key), f);
        return f;
    }

    /**
     * Queues a version query ({@link ReplicaBatch.QueryVersion}) on the calling event loop's batch;
     * {@code null} if the caller is not on one or the key is too large to batch.
     */
    @Nullable
    CompletableFuture<Long> version(byte[] key) {
        int loop = client.currentLoop();
        if (loop < 0 || key.length + 1 + EntryCodec.HEADER_SIZE > ReplicaBatch.MAX_OP_BYTES) {
            return null;
        }
        CompletableFuture<Long> f = new CompletableFuture<>();
        add(loop, new ReplicaBatch.QueryVersion(key), f);
        return f;
    }

    /** On event loop {@code loop}: adds {@code op} to its open batch, opening one if needed. */
    private void add(int loop, ReplicaBatch.Op op, CompletableFuture<?> result) {
        long size = ReplicaBatch.encodedSize(op);
        Open batch = open[loop];
        if (batch != null && (batch.ops.size() == MAX_OPS || batch.bytes + size > MAX_BYTES)) {
            send(loop, batch); // it would pass a bound with this one: off it goes, this one starts the next
            batch = null;
        }
        if (batch == null) {
            batch = new Open();
            open[loop] = batch;
            Open scheduled = batch;
            client.loops().get(loop).execute(() -> send(loop, scheduled));
        }
        batch.ops.add(op);
        batch.results.add(result);
        batch.bytes += size;
        if (batch.ops.size() >= MAX_OPS || batch.bytes >= MAX_BYTES) {
            send(loop, batch);
        }
    }

    /** On loop {@code loop}: sends {@code batch} unless it was sent already. */
    private void send(int loop, Open batch) {
        if (open[loop] != batch) {
            return; // sent when it filled up
        }
        open[loop] = null;
        List<ReplicaBatch.Op> ops = batch.ops;
        List<CompletableFuture<?>> results = batch.results;
        var _ = client.send(node, HttpMethod.POST, InternalProtocol.BATCH, ReplicaBatch.encodeOps(ops))
                .whenComplete((response, failure) -> {
                    if (failure != null) {
                        failAll(results, failure);
                        return;
                    }
                    if (response.status() != 200) {
                        failAll(results, RemoteReplica.failure(node, "batch", response));
                        return;
                    }
                    List<ReplicaBatch.Result> answers;
                    try {
                        answers = ReplicaBatch.decodeResults(response.body(), ops.size());
                    } catch (IllegalArgumentException e) {
                        failAll(results, new ReplicaException.Failed(node, "undecodable batch answer", e));
                        return;
                    }
                    for (int i = 0; i < answers.size(); i++) {
                        complete(ops.get(i), answers.get(i), results.get(i));
                    }
                });
    }

    @SuppressWarnings("unchecked")
    private void complete(ReplicaBatch.Op op, ReplicaBatch.Result answer, CompletableFuture<?> result) {
        switch (op) {
            case ReplicaBatch.Write w
            when answer instanceof ReplicaBatch.Written v -> ((CompletableFuture<Long>) result).complete(v.version());
            case ReplicaBatch.Read r
            when answer instanceof ReplicaBatch.Found found ->
                ((CompletableFuture<Entry>) result).complete(found.entry());
            case ReplicaBatch.Read r
            when answer instanceof ReplicaBatch.TooLarge -> { // its entry alone
                var _ = readAlone.apply(r.key()).whenComplete((e, failure) -> {
                    if (failure != null) {
                        result.completeExceptionally(failure);
                    } else {
                        ((CompletableFuture<Entry>) result).complete(e);
                    }
                });
            }
            case ReplicaBatch.QueryVersion q
            when answer instanceof ReplicaBatch.Written v -> ((CompletableFuture<Long>) result).complete(v.version());
            case ReplicaBatch.QueryVersion q
            when answer instanceof ReplicaBatch.Found f && f.entry() == null ->
                ((CompletableFuture<Long>) result).complete(io.ringbase.cluster.replication.Replica.NO_VERSION);
            case ReplicaBatch.Op any
            when answer instanceof ReplicaBatch.Failed f ->
                result.completeExceptionally(new ReplicaException.Failed(node, "batch operation: " + f.reason(), null));
            default ->
                result.completeExceptionally(
                        new ReplicaException.Failed(node, "batch answer " + answer + " does not fit " + op, null));
        }
    }

    private static void failAll(List<CompletableFuture<?>> results, Throwable failure) {
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        for (CompletableFuture<?> f : results) {
            f.completeExceptionally(cause);
        }
    }

    /** The batch a loop is filling. */
    private static final class Open {
        final List<ReplicaBatch.Op> ops = new ArrayList<>();
        final List<CompletableFuture<?>> results = new ArrayList<>();
        long bytes;
    }
}
