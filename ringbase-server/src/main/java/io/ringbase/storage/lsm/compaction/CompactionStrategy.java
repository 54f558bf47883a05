package io.ringbase.storage.lsm.compaction;

import java.util.Arrays;
import java.util.Locale;

/**
 * Which picker decides merges ({@code serve --compaction}). Not persisted: the tables and the manifest are
 * the same under both, so the strategy may change between restarts; the first rounds after a change may
 * merge more than usual while the new picker reshapes the tables.
 */
public enum CompactionStrategy {
    /** {@link SizeTieredPicker}: Cassandra's size-tiered compaction. */
    SIZE_TIERED("size-tiered"),
    /** {@link UniversalPicker}: RocksDB's universal compaction, space amplification bounded. */
    UNIVERSAL("universal");

    private final String flagName;

    CompactionStrategy(String flagName) {
        this.flagName = flagName;
    }

    /** The name {@code --compaction} takes. */
    public String flagName() {
        return flagName;
    }

    /**
     * The strategy named {@code name} ({@link #flagName()}, case-insensitive).
     *
     * @throws IllegalArgumentException naming the choices, for any other name
     */
    public static CompactionStrategy parse(String name) {
        for (CompactionStrategy s : values()) {
            if (s.flagName.equals(name.toLowerCase(Locale.ROOT))) {
                return s;
            }
        }
        throw new IllegalArgumentException("compaction strategy must be one of "
                + Arrays.stream(values()).map(CompactionStrategy::flagName).toList() + ", got '" + name + "'");
    }

    /** The picker of this strategy with {@code options}. */
    public CompactionPicker picker(CompactionOptions options) {
        return switch (this) {
            case SIZE_TIERED -> new SizeTieredPicker(options);
            case UNIVERSAL -> new UniversalPicker(options);
        };
    }
}
