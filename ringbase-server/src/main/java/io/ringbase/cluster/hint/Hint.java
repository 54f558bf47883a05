package io.ringbase.cluster.hint;

import io.ringbase.storage.Entry;
import java.util.Objects;

/**
 * One stored hint: an entry (value or tombstone, with its version and expiry) owed to a replica.
 *
 * @param target      the target node's identity, its URL as in {@code --cluster} ({@code http://host:port},
 *                    {@link io.ringbase.cluster.NodeId#toString()}), never its position in the list, so
 *                    reordering the list cannot send a hint to another node
 * @param entry       the entry to deliver, exactly as the coordinator wrote it
 * @param createdAtMs when the coordinator stored the hint, Unix epoch ms (its wall clock)
 */
public record Hint(String target, Entry entry, long createdAtMs) {

    public Hint {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(entry, "entry");
    }
}
