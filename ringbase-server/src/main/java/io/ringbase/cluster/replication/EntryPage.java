package io.ringbase.cluster.replication;

import io.ringbase.storage.Entry;
import java.util.List;

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

    /** The start key of the page after the one ending with {@code lastKey}: {@code lastKey + 0x00}. */
    public static byte[] successor(byte[] lastKey) {
        return java.util.Arrays.copyOf(lastKey, lastKey.length + 1);
    }
}
