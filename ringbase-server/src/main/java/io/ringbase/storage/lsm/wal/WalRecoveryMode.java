package io.ringbase.storage.lsm.wal;

import io.ringbase.storage.WalSyncPolicy;

/**
 * What recovery does with a WAL segment damaged before its end (a bad record followed by more data),
 * as after a power loss under {@link WalSyncPolicy#PERIODIC}, when writeback left a hole of zeros or
 * stale bytes before records that did reach the disk. RocksDB's {@code WALRecoveryMode} names the same
 * choice ({@code kAbsoluteConsistency} vs {@code kPointInTimeRecovery}).
 */
public enum WalRecoveryMode {
    /**
     * Refuse to start, naming the file, the offset and the {@code --wal-recovery} flag (default):
     * nothing is dropped without an operator's say-so.
     */
    REFUSE("refuse"),
    /**
     * Replay each segment up to its last good record before the damage, drop the rest of that segment
     * and log (ERROR) the file, the offset and how many bytes were dropped. A later segment then replays
     * only if the records it follows were not in the dropped part (docs/format.md, section 3.3, "Across
     * segments"), so what is replayed stays a prefix of the log. Acknowledged writes in the dropped part
     * are lost; under {@code periodic} they were at most one sync interval old.
     */
    TRUNCATE_AFTER_CORRUPTION("truncate-after-corruption");

    private final String flag;

    WalRecoveryMode(String flag) {
        this.flag = flag;
    }

    /** The value of {@code --wal-recovery} that selects this mode. */
    public String flag() {
        return flag;
    }

    /**
     * The mode a {@code --wal-recovery} value names.
     *
     * @throws IllegalArgumentException if it names none
     */
    public static WalRecoveryMode ofFlag(String value) {
        for (WalRecoveryMode m : values()) {
            if (m.flag.equals(value)) {
                return m;
            }
        }
        throw new IllegalArgumentException(
                "--wal-recovery must be 'refuse' or 'truncate-after-corruption', got '" + value + "'");
    }
}
