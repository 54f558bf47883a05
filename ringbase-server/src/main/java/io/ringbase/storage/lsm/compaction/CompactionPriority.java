package io.ringbase.storage.lsm.compaction;

import io.ringbase.os.ThreadPriority;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compaction thread's CPU priority, following its backlog. Compaction runs at
 * {@link ThreadPriority#IDLE} ({@code SCHED_IDLE}, below nice 19), on CPU
 * time the event loops leave, while few SSTables are live. Under a write
 * load that keeps the event loops busy, that leaves it almost nothing: on one CPU a merge of 10 small
 * tables took 11 s of wall time for 0.9 s of CPU, tables piled up to the slowdown trigger, and closed-loop
 * PUT throughput fell by a fifth while writes were delayed. So once {@code behindTables} tables wait for
 * compaction, counted as the write triggers count them ({@link CompactionPicker#backlog}; half the
 * slowdown trigger by default), the thread runs at {@link #behindNice} (5, the flush thread's)
 * until the count drops again. This is the idea of RocksDB's compaction speed-up when level 0 nears its
 * slowdown trigger ({@code level0_slowdown_writes_trigger}), done with the thread's priority rather than
 * more threads.
 *
 * <p>Raising the priority back needs {@code CAP_SYS_NICE} or {@code RLIMIT_NICE >= 15}
 * ({@link ThreadPriority#setCurrentThread}). Without them compaction stays idle and one INFO line
 * says so; writes then meet the slowdown trigger sooner under saturation.
 *
 * <p>Confined to the compaction thread: {@link #adjust} sets the calling thread's priority. Levels are
 * those of {@link ThreadPriority#setCurrentThread}: a nice value, or {@link ThreadPriority#IDLE}.
 */
public final class CompactionPriority {

    private static final Logger log = LoggerFactory.getLogger(CompactionPriority.class);

    /** Priority while compaction keeps up: {@link ThreadPriority#IDLE}. */
    public static final int IDLE_NICE = ThreadPriority.IDLE;
    /** Nice value while it is behind: the flush thread's. */
    public static final int BEHIND_NICE = 5;

    private final int idleNice;
    private final int behindNice;
    private final int behindTables;
    private final IntPredicate setNice;
    private int current;
    private boolean boostRefused;

    /**
     * @param behindTables from this many SSTables waiting for compaction ({@link CompactionPicker#backlog})
     *                     on, compaction counts as behind
     * @param setNice      sets the calling thread's level (a nice value or {@link ThreadPriority#IDLE}), answering
     *                     whether it took effect
     *                     ({@link ThreadPriority#setCurrentThread} in production)
     */
    CompactionPriority(int idleNice, int behindNice, int behindTables, IntPredicate setNice) {
        if (behindTables < 1 || behindNice > idleNice) {
            throw new IllegalArgumentException("need behindTables >= 1 and behindNice <= idleNice");
        }
        this.idleNice = idleNice;
        this.behindNice = behindNice;
        this.behindTables = behindTables;
        this.setNice = setNice;
        this.current = idleNice;
    }

    /**
     * For a compaction thread started at nice {@link #IDLE_NICE}: behind from half of
     * {@code options.slowdownTables()} tables waiting for compaction (at least 1).
     */
    public static CompactionPriority forOptions(CompactionOptions options) {
        return forOptions(options, ThreadPriority::setCurrentThread);
    }

    /** {@link #forOptions(CompactionOptions)} with {@code setNice} in place of the system call. */
    static CompactionPriority forOptions(CompactionOptions options, IntPredicate setNice) {
        return new CompactionPriority(IDLE_NICE, BEHIND_NICE, Math.max(1, options.slowdownTables() / 2), setNice);
    }

    /**
     * Sets the calling (compaction) thread's priority for {@code waiting} SSTables waiting for
     * compaction ({@link CompactionPicker#backlog}). Cheap
     * when nothing changes: call it before each merge and every few thousand entries within one.
     */
    public void adjust(int waiting) {
        int want = behind(waiting) ? behindNice : idleNice;
        if (want == current || (want < current && boostRefused)) {
            return;
        }
        if (setNice.test(want)) {
            if (want < current) {
                log.debug("compaction is behind ({} SSTables waiting): running at nice {}", waiting, want);
            }
            current = want;
        } else if (want < current) {
            boostRefused = true;
            log.info(
                    "compaction is behind ({} SSTables waiting) but cannot raise its CPU priority to nice {} (needs "
                            + "CAP_SYS_NICE or RLIMIT_NICE >= {}, e.g. systemd LimitNICE=); it stays at {}, and "
                            + "writes are slowed sooner under a saturating load",
                    waiting,
                    want,
                    20 - want,
                    current == ThreadPriority.IDLE ? "idle (SCHED_IDLE)" : "nice " + current);
        }
    }

    /** Whether compaction counts as behind with {@code waiting} SSTables waiting for it. */
    public boolean behind(int waiting) {
        return waiting >= behindTables;
    }

    /** The level the thread was last set to: a nice value, or {@link ThreadPriority#IDLE}. */
    public int currentNice() {
        return current;
    }
}
