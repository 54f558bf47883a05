package io.ringbase.cluster.streaming;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Data and plans shared by the streaming tests: a join of node 1 to node 0, rf 1. */
final class StreamFixture {

    private StreamFixture() {}

    /** A plan moving to {@code target} the keys it gains when it joins {@code source}, rf 1. */
    static StreamPlan join(long epoch, NodeId source, NodeId target) {
        return new StreamPlan(
                epoch, 1, new Ring(List.of(source)), new Ring(List.of(source, target)), source, target, false);
    }

    /**
     * Writes {@code count} keys {@code prefix-00000..} to {@code engine}: every 10th a tombstone, every
     * 17th expired a minute ago, the rest live values of {@code valueBytes} bytes.
     */
    static void fill(StorageEngine engine, String prefix, int count, int valueBytes) throws IOException {
        HybridLogicalClock clock = new HybridLogicalClock();
        byte[] value = new byte[valueBytes];
        for (int i = 0; i < count; i++) {
            byte[] key = key(prefix, i);
            Arrays.fill(value, (byte) i);
            Entry e;
            if (i % 10 == 0) {
                e = Entry.tombstone(key, clock.now());
            } else if (i % 17 == 0) {
                long version = clock.now();
                // expired a minute ago: within any tombstone grace, so no flush may drop it yet
                e = new Entry(key, version, HybridLogicalClock.physicalMs(version) - 60_000, value.clone());
            } else {
                e = Entry.value(key, clock.now(), value.clone());
            }
            engine.apply(e);
        }
    }

    static byte[] key(String prefix, int i) {
        return String.format("%s-%05d", prefix, i).getBytes(StandardCharsets.UTF_8);
    }

    /** Every entry of {@code engine} (tombstones and expired included) whose key {@code plan} wants. */
    static List<Entry> wanted(StorageEngine engine, StreamPlan plan) throws IOException {
        List<Entry> out = new ArrayList<>();
        for (Entry e : all(engine)) {
            if (plan.wants(Ring.keyHash(e.key()))) {
                out.add(e);
            }
        }
        return out;
    }

    static List<Entry> all(StorageEngine engine) throws IOException {
        List<Entry> out = new ArrayList<>();
        try (CloseableIterator<Entry> it = engine.scan(new byte[0], null, false)) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    /** Entries as comparable strings: key, version, expiry, tombstone, value length. */
    static List<String> described(List<Entry> entries) {
        return entries.stream()
                .map(e -> new String(e.key(), StandardCharsets.UTF_8) + "@" + e.version() + " exp " + e.expiresAtMs()
                        + (e.isTombstone() ? " tombstone" : " len " + e.value().length))
                .toList();
    }
}
