package io.ringbase.storage.lsm.compaction;

import static io.ringbase.storage.Keys.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link TombstonePurge}: which entries a compaction drops, case by case. */
class TombstonePurgeTest {

    private static final long NOW_MS = 1_000_000_000L;
    private static final long GRACE_MS = 10_000;

    /** An entry, whether another source may hold its key, and whether the rule drops it. */
    private record Case(String what, Entry entry, boolean othersMayHold, boolean dropped) {}

    private static long versionAt(long ms) {
        return HybridLogicalClock.fromPhysicalMs(ms);
    }

    @Test
    void dropsOnlyEntriesDeadLongerThanTheGraceWhoseKeyNoOtherSourceMayHold() {
        byte[] key = utf8("k");
        byte[] value = utf8("v");
        List<Case> cases = List.of(
                new Case("a live value", Entry.value(key, versionAt(NOW_MS - 2 * GRACE_MS), value), false, false),
                new Case(
                        "a tombstone older than the grace",
                        Entry.tombstone(key, versionAt(NOW_MS - GRACE_MS - 1)),
                        false,
                        true),
                new Case(
                        "... whose key another source may hold",
                        Entry.tombstone(key, versionAt(NOW_MS - GRACE_MS - 1)),
                        true,
                        false),
                new Case(
                        "a tombstone within the grace",
                        Entry.tombstone(key, versionAt(NOW_MS - GRACE_MS + 1)),
                        false,
                        false),
                new Case(
                        "a value expired before the grace",
                        new Entry(key, 1, NOW_MS - GRACE_MS - 1, value),
                        false,
                        true),
                new Case("a value expired within the grace", new Entry(key, 1, NOW_MS - 1, value), false, false),
                new Case("a value that expires later", new Entry(key, 1, NOW_MS + 1, value), false, false));
        List<String> wrong = new ArrayList<>();
        for (Case c : cases) {
            List<byte[]> asked = new ArrayList<>();
            Compactor.Droppable rule = TombstonePurge.rule(NOW_MS, GRACE_MS, k -> {
                asked.add(k);
                return c.othersMayHold();
            });
            MemorySegment encoded = MemorySegment.ofArray(EntryFormat.toBytes(c.entry()));
            if (rule.test(encoded, 0) != c.dropped()) {
                wrong.add(c.what());
            }
            asked.forEach(k -> assertThat(k).as(c.what()).isEqualTo(key));
        }
        assertThat(wrong).as("cases the rule got wrong").isEmpty();
    }
}
