package io.ringbase.cluster.repair;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** One in-process node of a repair test: an {@link LsmEngine} in a temp dir and its {@link RepairSource}. */
final class TestNode implements AutoCloseable {

    final NodeId id;
    private final Path dir;
    private final Ring ring;
    private final int rf;
    LsmEngine engine;
    RepairSource source;

    TestNode(NodeId id, Path dir, Ring ring, int rf) throws IOException {
        this.id = id;
        this.dir = dir;
        this.ring = ring;
        this.rf = rf;
        open();
    }

    private void open() throws IOException {
        engine = LsmEngine.open(LsmOptions.defaults(dir));
        source = new RepairSource(engine, ring, id, rf);
    }

    /** Closes the engine, deletes its data directory and starts empty, as an operator wiping a disk. */
    void wipe() throws IOException {
        engine.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        open();
    }

    RepairPeer asPeer() {
        return new LocalRepairPeer(source, engine);
    }

    /** Every entry the engine holds, tombstones included, in key order. */
    List<Entry> all() {
        List<Entry> out = new ArrayList<>();
        try (CloseableIterator<Entry> it = engine.scan(new byte[0], null, false)) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    void put(Entry e) throws IOException {
        engine.apply(e);
    }

    @Override
    public void close() throws IOException {
        engine.close();
    }
}
