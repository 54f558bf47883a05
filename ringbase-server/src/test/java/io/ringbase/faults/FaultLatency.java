package io.ringbase.faults;

import io.ringbase.faults.history.Op;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/** The report's latency column: how long the clients waited while a fault was injected. */
final class FaultLatency {

    private FaultLatency() {}

    /**
     * The latency of the clients' operations invoked inside a fault window (whatever their outcome: what a
     * client waited), by the node they went through (a client's process is {@code c<k>@n<i>}): p50 and p99
     * in ms and the count, e.g. {@code "n0 p50 1.2 / p99 8.5 ms (310), n1 ..."}; empty if none. Under a
     * majority/minority partition, the majority side's figures are those to hold against the replica
     * timeout; nothing here is asserted.
     *
     * @param windows {inject, heal} {@link System#nanoTime()} of each fault window
     */
    static String byCoordinator(List<Op> all, List<long[]> windows) {
        TreeMap<String, List<Long>> byNode = new TreeMap<>();
        for (Op op : all) {
            int at = op.process().indexOf('@');
            if (op.process().startsWith("final") || at < 0) {
                continue;
            }
            for (long[] w : windows) {
                if (op.invokeNanos() >= w[0] && op.invokeNanos() < w[1]) {
                    byNode.computeIfAbsent(op.process().substring(at + 1), n -> new ArrayList<>())
                            .add(op.completeNanos() - op.invokeNanos());
                    break;
                }
            }
        }
        List<String> parts = new ArrayList<>();
        byNode.forEach((node, nanos) -> {
            Collections.sort(nanos);
            parts.add(String.format(
                    Locale.ROOT,
                    "%s p50 %.1f / p99 %.1f ms (%d)",
                    node,
                    percentile(nanos, 50) / 1e6,
                    percentile(nanos, 99) / 1e6,
                    nanos.size()));
        });
        return String.join(", ", parts);
    }

    /** The nearest-rank percentile of sorted {@code values}. */
    static long percentile(List<Long> sorted, double p) {
        int rank = (int) Math.ceil(p / 100 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }
}
