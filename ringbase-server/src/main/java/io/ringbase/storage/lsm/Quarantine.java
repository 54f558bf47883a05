package io.ringbase.storage.lsm;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.lsm.View.LiveTable;
import io.ringbase.storage.lsm.io.FileIo;
import io.ringbase.storage.lsm.manifest.FileNames;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves damaged SSTables out of the live set, so that compaction does not retry a damaged input forever
 * and reads stop meeting a table the disk cannot read ({@code ReadPath}):
 * a new manifest without the table, its file moved to {@code quarantine/}, an ERROR line naming the
 * file, the offset and what was wrong, and {@link EngineCounters#quarantined} counted. The table's
 * entries are no longer served: a cluster's repair brings them back from other replicas. Runs on the
 * compaction thread.
 */
final class Quarantine {

    private static final Logger log = LoggerFactory.getLogger(LsmEngine.class);

    private final LsmOptions options;
    private final Path dir;
    private final StatePublisher state;
    private final EngineCounters counters;

    Quarantine(LsmOptions options, Path dir, StatePublisher state, EngineCounters counters) {
        this.options = options;
        this.dir = dir;
        this.state = state;
        this.counters = counters;
    }

    /**
     * Compaction thread: if {@code damage} lies in one of {@code tables}, drops that table from
     * the live set and moves its file aside (see the class comment).
     *
     * @return whether a table was quarantined
     */
    boolean quarantine(List<LiveTable> tables, CorruptionException damage) throws IOException {
        LiveTable bad = null;
        for (LiveTable t : tables) {
            if (t.reader().path().equals(damage.file())) {
                bad = t;
            }
        }
        if (bad == null) {
            return false;
        }
        long number = bad.number();
        state.whilePublishLocked(() -> state.publish(now -> {
            List<LiveTable> kept = new ArrayList<>(now.tables());
            kept.removeIf(t -> t.number() == number);
            return now.withTables(kept);
        }));
        Path target = FileNames.quarantined(dir, number);
        FileIo io = options.fileIo();
        FileIo.createDirectories(io, target.getParent()); // quarantine/, durably
        io.rename(FileNames.sstable(dir, number), target);
        // the new name first: a crash between the two fsyncs leaves the file under one name or both, never none
        io.syncDirectory(target.getParent());
        io.syncDirectory(dir);
        counters.quarantined.increment();
        log.error(
                "SSTable {} is damaged at {} ({}): moved to {} and dropped from the live set; its entries are "
                        + "no longer served (run repair in a cluster)",
                damage.file().getFileName(),
                damage.offset() < 0 ? "an unknown byte" : "byte " + damage.offset(),
                damage.getMessage(),
                dir.relativize(target));
        return true;
    }
}
