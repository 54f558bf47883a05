package io.ringbase.storage.lsm;

import io.ringbase.storage.ReadCursor;
import io.ringbase.storage.lsm.sstable.EntryLocation;

/**
 * The block buffers of a point read's SSTable lookups, kept with the {@link ReadCursor} (its
 * {@linkplain ReadCursor#attachment() attachment}) so that reads reuse them: the one holding the newest
 * entry found so far, and the one the next lookup goes to. Made on a cursor's first SSTable lookup, so a
 * read answered from memtables alone allocates nothing. Not thread-safe, as the cursor.
 */
final class ProbeBuffers {

    private EntryLocation kept = new EntryLocation();
    private EntryLocation probe = new EntryLocation();

    private ProbeBuffers() {}

    /** Where the next SSTable lookup of a read through {@code cursor} goes. */
    static EntryLocation probe(ReadCursor cursor) {
        if (cursor.attachment() instanceof ProbeBuffers b) {
            return b.probe;
        }
        ProbeBuffers b = new ProbeBuffers();
        cursor.attach(b);
        return b.probe;
    }

    /**
     * The last {@link #probe} of {@code cursor} found the newest entry so far: the next one uses the other
     * buffer, so that it does not overwrite the block this entry may lie in.
     */
    static void keepProbe(ReadCursor cursor) {
        ProbeBuffers b = (ProbeBuffers) cursor.attachment();
        EntryLocation t = b.kept;
        b.kept = b.probe;
        b.probe = t;
    }
}
