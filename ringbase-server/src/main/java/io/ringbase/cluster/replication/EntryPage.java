package io.ringbase.cluster.replication;

import io.ringbase.cluster.ring.Ring;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * One page of a replica's range scan.
 *
 * @param entries entries in key order (tombstones and expired entries included)
 * @param next    the {@code start} of the next page (the last key plus a 0x00 byte, its immediate
 *                successor), or {@code null} if the range is exhausted
 */
public record EntryPage(List<Entry> entries, byte[] next) {

    public EntryPage {
        entries = List.copyOf(entries);
    }

    /** Whether more pages follow. */
    public boolean hasMore() {
        return next != null;
    }

    /**
     * One page of {@code engine}'s entries (tombstones and expired ones included) with keys {@code >= startKey},
     * in key order, of the keys whose {@link Ring#keyHash} {@code wants} accepts: one pass over the engine from
     * {@code startKey}. What repair and streaming serve a peer.
     *
     * @param maxBytes the page ends after the entry that takes its encoded size ({@link EntryFormat}) to this
     *                 many bytes or more, so it holds at least one entry if any is left; its {@code next} is then
     *                 the last key's {@link #successor}, and a following page may turn out empty
     * @throws IllegalArgumentException if {@code maxBytes < 1}
     * @throws IOException              if the engine cannot be read
     */
    public static EntryPage scan(StorageEngine engine, byte[] startKey, int maxBytes, LongPredicate wants)
            throws IOException {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
        }
        List<Entry> page = new ArrayList<>();
        long bytes = 0;
        // the engine skips unwanted keys before it decodes their values: most keys are unwanted
        try (CloseableIterator<Entry> it = engine.scan(startKey, null, false, key -> wants.test(Ring.keyHash(key)))) {
            while (it.hasNext()) {
                Entry e = it.next();
                page.add(e);
                bytes += EntryFormat.encodedSize(e);
                if (bytes >= maxBytes) {
                    return new EntryPage(page, successor(e.key()));
                }
            }
        }
        return new EntryPage(page, null);
    }

    /** The start key of the page after the one ending with {@code lastKey}: {@code lastKey + 0x00}. */
    public static byte[] successor(byte[] lastKey) {
        return java.util.Arrays.copyOf(lastKey, lastKey.length + 1);
    }
}
