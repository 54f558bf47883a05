package io.ringbase.storage.lsm.manifest;

import java.util.List;

/**
 * The content of a manifest: which SSTables are live and where WAL replay starts.
 *
 * @param nextFileNumber the next unused file number of the directory (WAL segments and SSTables)
 * @param walReplayFrom  WAL segments numbered at or above this must be replayed on start; lower ones
 *                       are flushed and may be deleted
 * @param liveTables     file numbers of the live SSTables, in the order they were added
 */
public record ManifestState(long nextFileNumber, long walReplayFrom, List<Long> liveTables) {

    public ManifestState {
        liveTables = List.copyOf(liveTables);
        if (nextFileNumber < 0 || walReplayFrom < 0 || walReplayFrom > nextFileNumber) {
            throw new IllegalArgumentException(
                    "bad manifest numbers: next=" + nextFileNumber + " walReplayFrom=" + walReplayFrom);
        }
        for (long id : liveTables) {
            if (id < 0 || id >= nextFileNumber) {
                throw new IllegalArgumentException("table " + id + " outside [0, " + nextFileNumber + ")");
            }
        }
    }

    /** The state of a new, empty directory. */
    public static ManifestState empty() {
        return new ManifestState(1, 0, List.of());
    }
}
