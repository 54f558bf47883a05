package io.ringbase.cluster.rpc;

import io.ringbase.cluster.NodeId;
import io.ringbase.storage.Entry;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A faster transport for a {@link RemoteReplica}'s hot calls (the binary protocol,
 * {@code io.ringbase.cluster.wire}). Each method returns {@code null} when the call cannot go this way
 * now (no ready connection to {@code node}, the peer speaks only HTTP, too many calls in flight, an
 * entry too large for a frame): the caller then sends it over HTTP. A returned future fails with a
 * {@link io.ringbase.cluster.replication.ReplicaException} of that call alone. Thread-safe.
 */
public interface ReplicaCalls {

    /** Sends nothing: every call goes over HTTP. */
    ReplicaCalls NONE = new ReplicaCalls() {
        @Override
        public @Nullable CompletableFuture<Entry> read(NodeId node, byte[] key) {
            return null;
        }

        @Override
        public @Nullable CompletableFuture<Long> version(NodeId node, byte[] key) {
            return null;
        }

        @Override
        public @Nullable CompletableFuture<Long> write(NodeId node, Entry entry) {
            return null;
        }

        @Override
        public @Nullable CompletableFuture<String> ping(NodeId node) {
            return null;
        }
    };

    /** As {@code Replica#read}: the entry (tombstones included) or {@code null} in the future. */
    @Nullable
    CompletableFuture<Entry> read(NodeId node, byte[] key);

    /** As {@code Replica#version}. */
    @Nullable
    CompletableFuture<Long> version(NodeId node, byte[] key);

    /** As {@code Replica#writeChecked}. */
    @Nullable
    CompletableFuture<Long> write(NodeId node, Entry entry);

    /** As {@code Replica#ping}: {@code null} in the future when writable, else the unwritable reason. */
    @Nullable
    CompletableFuture<String> ping(NodeId node);

    /** As {@code Replica#paxos}: the encoded reply. The default sends nothing this way. */
    default @Nullable CompletableFuture<byte[]> paxos(NodeId node, byte[] message) {
        return null;
    }
}
