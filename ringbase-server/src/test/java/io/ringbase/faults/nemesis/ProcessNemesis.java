package io.ringbase.faults.nemesis;

import io.ringbase.faults.cluster.NsCluster;
import io.ringbase.faults.cluster.NsNode;
import io.ringbase.faults.net.NetworkLab;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * Faults of nodes' processes: SIGKILL and restart of one node ({@link Kind#KILL}) or of a majority at once
 * ({@link Kind#KILL_MAJORITY}: {@code n/2 + 1} nodes, 2 of 3, so no quorum is left until they are back;
 * restarted together), SIGSTOP and SIGCONT ({@link Kind#PAUSE}), or a restart with a skewed clock
 * ({@link Kind#CLOCK_SKEW}: SIGTERM, then {@code serve --test-clock-offset-ms} with an offset of 0.2 to 3 s
 * either way, beyond the 500 ms bound about 90% of the time; {@code -Dringbase.faults.maxSkewMs=450} keeps
 * it within 0.2 s to that bound, where a node behind has its quorum writes refused and re-stamped rather
 * than its answers refused by the clock bound; healed by a restart with no offset). One
 * node at a time except for {@link Kind#KILL_MAJORITY}.
 */
public final class ProcessNemesis implements Nemesis {

    /** The largest clock offset of {@link Kind#CLOCK_SKEW} (ms; at least 201). */
    static final int MAX_SKEW_MS = Math.max(201, Integer.getInteger("ringbase.faults.maxSkewMs", 3_000));

    /** The fault. */
    public enum Kind {
        KILL,
        KILL_MAJORITY,
        PAUSE,
        CLOCK_SKEW
    }

    private final Kind kind;
    private final List<NsNode> victims = new ArrayList<>();

    public ProcessNemesis(Kind kind) {
        this.kind = kind;
    }

    @Override
    public String name() {
        return switch (kind) {
            case KILL -> "kill (SIGKILL, restart)";
            case KILL_MAJORITY -> "kill majority (SIGKILL 2 of 3, restart)";
            case PAUSE -> "pause (SIGSTOP/SIGCONT)";
            case CLOCK_SKEW -> "clock skew (restart with offset)";
        };
    }

    @Override
    public String inject(NsCluster cluster, NetworkLab lab, Random random) throws Exception {
        victims.clear();
        if (kind == Kind.KILL_MAJORITY) {
            List<NsNode> all = new ArrayList<>(cluster.nodes());
            Collections.shuffle(all, random);
            victims.addAll(all.subList(0, cluster.size() / 2 + 1));
            for (NsNode v : victims) { // one after the other, a few ms apart: writes between go to the rest
                v.kill();
            }
            return "SIGKILL " + names(victims);
        }
        NsNode victim = cluster.node(random.nextInt(cluster.size()));
        victims.add(victim);
        switch (kind) {
            case KILL -> {
                victim.kill();
                return "SIGKILL n" + victim.index();
            }
            case PAUSE -> {
                victim.pause();
                return "SIGSTOP n" + victim.index();
            }
            case CLOCK_SKEW -> {
                long offset =
                        (200 + random.nextInt(Math.max(1, MAX_SKEW_MS - 200))) * (random.nextBoolean() ? 1L : -1L);
                victim.stop();
                victim.start(offset).join();
                return "restart n" + victim.index() + " with clock offset " + offset + " ms";
            }
            case KILL_MAJORITY -> throw new AssertionError(kind); // above
        }
        throw new AssertionError(kind);
    }

    @Override
    public String heal(NsCluster cluster, NetworkLab lab) throws Exception {
        if (victims.isEmpty()) {
            return null;
        }
        List<NsNode> healing = List.copyOf(victims);
        victims.clear();
        switch (kind) {
            case KILL, KILL_MAJORITY -> {
                // started together, each ready within NsNode's ready timeout (the futures time out)
                List<CompletableFuture<Void>> ready = new ArrayList<>();
                for (NsNode v : healing) {
                    ready.add(v.start(0));
                }
                CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new)).join();
                return "restart " + names(healing);
            }
            case PAUSE -> {
                healing.forEach(NsNode::resume);
                return "SIGCONT " + names(healing);
            }
            case CLOCK_SKEW -> {
                for (NsNode v : healing) {
                    v.stop();
                    v.start(0).join();
                }
                return "restart " + names(healing) + " with no clock offset";
            }
        }
        throw new AssertionError(kind);
    }

    private static String names(List<NsNode> nodes) {
        List<String> out = new ArrayList<>();
        for (NsNode n : nodes) {
            out.add("n" + n.index());
        }
        return String.join(", ", out);
    }
}
