package io.ringbase.faults.history;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The operations of one run, added by any number of client threads. Thread-safe.
 */
public final class History {

    private final long originNanos;
    private final ConcurrentLinkedQueue<Op> ops = new ConcurrentLinkedQueue<>();

    /** A history whose printed times count from {@code originNanos}. */
    public History(long originNanos) {
        this.originNanos = originNanos;
    }

    public void add(Op op) {
        ops.add(op);
    }

    /** Every operation so far, by invocation time. */
    public List<Op> ops() {
        List<Op> out = new ArrayList<>(ops);
        out.sort(Comparator.comparingLong(Op::invokeNanos));
        return out;
    }

    /** The operations on each key, by invocation time, keys in first-use order. */
    public Map<String, List<Op>> byKey() {
        Map<String, List<Op>> out = new LinkedHashMap<>();
        for (Op op : ops()) {
            out.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
        }
        return out;
    }

    public long originNanos() {
        return originNanos;
    }

    /** Writes {@code ops} one per line (times in ms since the run's start) with a header. */
    public static void write(Path file, String title, List<Op> ops, long originNanos) throws IOException {
        StringBuilder b = new StringBuilder("# ")
                .append(title)
                .append('\n')
                .append("# invoke_ms complete_ms process outcome f key value note\n");
        for (Op op : ops) {
            b.append(op.toLine(originNanos)).append('\n');
        }
        Files.createDirectories(file.getParent());
        Files.writeString(file, b, StandardCharsets.UTF_8);
    }
}
