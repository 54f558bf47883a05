package io.ringbase.cluster.hint;

import io.ringbase.storage.Entry;

/**
 * One stored hint: an entry (value or tombstone, with its version and expiry) owed to a replica.
 *
 * @param targetIndex the target node's {@link io.ringbase.cluster.NodeId#index()}
 * @param entry       the entry to deliver, exactly as the coordinator wrote it
 * @param createdAtMs when the coordinator stored the hint, Unix epoch ms (its wall clock)
 */
public record Hint(int targetIndex, Entry entry, long createdAtMs) {
}
