package io.ringbase.cluster.rpc;

import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.cluster.ring.ShareFilter;
import io.ringbase.kv.ScanShare;
import io.ringbase.storage.Entry;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Replica} on another node, reached through the internal API ({@link InternalProtocol}) with
 * the shared {@link ReplicaClient}. Non-blocking; thread-safe.
 */
public final class RemoteReplica implements Replica {

    private static final byte[] EMPTY = new byte[0];

    private final NodeId node;
    private final ReplicaClient client;
    private final ReplicaBatcher batcher;
    private final ReplicaCalls fast;

    /**
     * Reads and writes made on one of {@code client}'s event loops are batched per loop turn
     * ({@link ReplicaBatcher}); from other threads each is a request of its own.
     */
    public RemoteReplica(NodeId node, ReplicaClient client) {
        this(node, client, ReplicaCalls.NONE);
    }

    /**
     * As {@link #RemoteReplica(NodeId, ReplicaClient)}, with reads, version queries, writes and pings going
     * through {@code fast} (the binary protocol) whenever it takes them, and over HTTP otherwise.
     */
    public RemoteReplica(NodeId node, ReplicaClient client, ReplicaCalls fast) {
        this.node = node;
        this.client = client;
        this.fast = fast;
        this.batcher = new ReplicaBatcher(client, node, this::readAlone);
    }

    @Override
    public NodeId node() {
        return node;
    }

    @Override
    public CompletableFuture<Entry> read(byte[] key) {
        CompletableFuture<Entry> framed = fast.read(node, key);
        if (framed != null) {
            return framed;
        }
        CompletableFuture<Entry> batched = batcher.read(key);
        if (batched != null) {
            return batched;
        }
        return readAlone(key);
    }

    @Override
    public CompletableFuture<Long> version(byte[] key) {
        CompletableFuture<Long> framed = fast.version(node, key);
        if (framed != null) {
            return framed;
        }
        CompletableFuture<Long> batched = batcher.version(key);
        if (batched != null) {
            return batched;
        }
        // off an event loop (or a key too large to batch): a batch of this one query
        ReplicaBatch.QueryVersion query = new ReplicaBatch.QueryVersion(key);
        return client.send(node, HttpMethod.POST, InternalProtocol.BATCH, ReplicaBatch.encodeOps(List.of(query)))
                .thenApply(r -> {
                    if (r.status() != 200) {
                        throw failed("batch", r);
                    }
                    ReplicaBatch.Result answer;
                    try {
                        answer = ReplicaBatch.decodeResults(r.body(), 1).get(0);
                    } catch (IllegalArgumentException e) {
                        throw new CompletionException(new ReplicaException.Failed(node, "undecodable batch answer", e));
                    }
                    return switch (answer) {
                        case ReplicaBatch.Written v -> v.version();
                        case ReplicaBatch.Found f when f.entry() == null -> Replica.NO_VERSION;
                        case ReplicaBatch.Failed f ->
                            throw new CompletionException(
                                    new ReplicaException.Failed(node, "batch operation: " + f.reason(), null));
                        default ->
                            throw new CompletionException(new ReplicaException.Failed(
                                    node, "batch answer " + answer + " does not fit " + query, null));
                    };
                });
    }

    /** One read in a request of its own. */
    private CompletableFuture<Entry> readAlone(byte[] key) {
        return client.send(node, HttpMethod.GET, InternalProtocol.ENTRY + "?id=" + InternalProtocol.hex(key), EMPTY)
                .thenApply(r -> switch (r.status()) {
                    case 200 -> single(r.body());
                    case 404 -> null;
                    default -> throw failed("GET entry", r);
                });
    }

    @Override
    public CompletableFuture<Void> write(Entry entry) {
        return writeChecked(entry).thenApply(stored -> null);
    }

    @Override
    public CompletableFuture<Long> writeChecked(Entry entry) {
        CompletableFuture<Long> framed = fast.write(node, entry);
        if (framed != null) {
            return framed;
        }
        CompletableFuture<Long> batched = batcher.write(entry);
        if (batched != null) {
            return batched;
        }
        return client.send(node, HttpMethod.PUT, InternalProtocol.ENTRY, InternalProtocol.encode(List.of(entry)))
                .thenApply(r -> {
                    if (r.status() != 201) {
                        throw failed("PUT entry", r);
                    }
                    return InternalProtocol.storedVersion(r.body(), entry.version());
                });
    }

    @Override
    public CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes) {
        return scan(start, end, maxBytes, (ScanShare) null);
    }

    /**
     * As {@link #scan(byte[], byte[], int)}, with the share's description in the request
     * ({@code &share=}, {@link ShareCodec}): the peer leaves out the other keys before it sends the page.
     * A peer of an older version ignores it and sends every key, which the caller filters.
     */
    @Override
    public CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes, ShareFilter share) {
        return scan(start, end, maxBytes, share.share());
    }

    private CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes, @Nullable ScanShare share) {
        StringBuilder uri =
                new StringBuilder(InternalProtocol.ENTRIES).append("?start=").append(InternalProtocol.hex(start));
        if (end != null) {
            uri.append("&end=").append(InternalProtocol.hex(end));
        }
        uri.append("&max=").append(maxBytes);
        if (share != null) {
            uri.append("&share=").append(InternalProtocol.hex(ShareCodec.encode(share)));
        }
        return client.send(node, HttpMethod.GET, uri.toString(), EMPTY).thenApply(r -> {
            if (r.status() != 200) {
                throw failed("GET entries", r);
            }
            return decodePage(r);
        });
    }

    @Override
    public CompletableFuture<Void> probe() {
        return ping().thenApply(reason -> null);
    }

    /**
     * A Paxos message over {@code POST /internal/v0/paxos} (or the binary protocol's PAXOS call when the
     * peer's connection speaks it): 200 with the encoded reply.
     */
    @Override
    public CompletableFuture<byte[]> paxos(byte[] message) {
        CompletableFuture<byte[]> framed = fast.paxos(node, message);
        if (framed != null) {
            return framed;
        }
        return client.send(node, HttpMethod.POST, InternalProtocol.PAXOS, message)
                .thenApply(r -> {
                    if (r.status() != 200) {
                        throw failed("paxos", r);
                    }
                    return r.body();
                });
    }

    /** The ping's answer: 200 with an empty body (writable) or {@code unwritable: <reason>} (http-api.md). */
    @Override
    public CompletableFuture<String> ping() {
        CompletableFuture<String> framed = fast.ping(node);
        if (framed != null) {
            return framed;
        }
        return client.send(node, HttpMethod.GET, InternalProtocol.PING, EMPTY).thenApply(r -> {
            if (r.status() != 200) {
                throw failed("ping", r);
            }
            return InternalProtocol.pingUnwritableReason(r.body());
        });
    }

    /** Sends any internal request and returns the answer; for services with their own paths (repair). */
    public CompletableFuture<ReplicaClient.Response> call(HttpMethod method, String uri, byte[] body) {
        return client.send(node, method, uri, body);
    }

    /** As {@link #call(HttpMethod, String, byte[])}, with its own deadline (ms) instead of the replica timeout. */
    public CompletableFuture<ReplicaClient.Response> call(HttpMethod method, String uri, byte[] body, long timeoutMs) {
        return client.send(node, method, uri, body, timeoutMs);
    }

    /**
     * The page in an {@link InternalProtocol#ENTRIES}-style answer.
     *
     * @throws CompletionException wrapping {@link ReplicaException.Failed} if the body does not decode
     */
    EntryPage decodePage(ReplicaClient.Response r) {
        try {
            return InternalProtocol.page(r.body(), r.next());
        } catch (IllegalArgumentException e) {
            throw new CompletionException(new ReplicaException.Failed(node, "undecodable page", e));
        }
    }

    private Entry single(byte[] body) {
        List<Entry> entries;
        try {
            entries = InternalProtocol.decode(body);
        } catch (IllegalArgumentException e) {
            throw new CompletionException(new ReplicaException.Failed(node, "undecodable entry", e));
        }
        if (entries.size() != 1) {
            throw new CompletionException(
                    new ReplicaException.Failed(node, "expected one entry, got " + entries.size(), null));
        }
        return entries.get(0);
    }

    /** An error answer as a {@link ReplicaException.Failed} (wrapped, as thrown inside a stage). */
    public CompletionException failed(String what, ReplicaClient.Response r) {
        return new CompletionException(failure(node, what, r));
    }

    /** An error answer of {@code node} as a {@link ReplicaException.Failed} naming its status and body start. */
    static ReplicaException.Failed failure(NodeId node, String what, ReplicaClient.Response r) {
        String reason = new String(r.body(), 0, Math.min(r.body().length, 200), java.nio.charset.StandardCharsets.UTF_8)
                .strip();
        return new ReplicaException.Failed(node, what + " answered " + r.status() + ": " + reason, null);
    }

    @Override
    public String toString() {
        return "RemoteReplica[" + node + "]";
    }
}
