package io.ringbase.faults.nemesis;

import io.ringbase.faults.cluster.NsCluster;
import io.ringbase.faults.cluster.NsNode;
import io.ringbase.faults.net.NetworkLab;
import java.util.Random;

/**
 * Faults of a node's process: SIGKILL and restart ({@link Kind#KILL}), SIGSTOP and SIGCONT
 * ({@link Kind#PAUSE}), or a restart with a skewed clock ({@link Kind#CLOCK_SKEW}: SIGTERM, then
 * {@code serve --test-clock-offset-ms} with an offset of 0.2 to 3 s either way, beyond the 500 ms bound
 * about 90% of the time; healed by a restart with no offset). One node at a time.
 */
public final class ProcessNemesis implements Nemesis {

    /** The fault. */
    public enum Kind {
        KILL,
        PAUSE,
        CLOCK_SKEW
    }

    private final Kind kind;
    private NsNode victim;

    public ProcessNemesis(Kind kind) {
        this.kind = kind;
    }

    @Override
    public String name() {
        return switch (kind) {
            case KILL -> "kill (SIGKILL, restart)";
            case PAUSE -> "pause (SIGSTOP/SIGCONT)";
            case CLOCK_SKEW -> "clock skew (restart with offset)";
        };
    }

    @Override
    public String inject(NsCluster cluster, NetworkLab lab, Random random) throws Exception {
        victim = cluster.node(random.nextInt(cluster.size()));
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
                long offset = (200 + random.nextInt(2_800)) * (random.nextBoolean() ? 1L : -1L);
                victim.stop();
                victim.start(offset).join();
                return "restart n" + victim.index() + " with clock offset " + offset + " ms";
            }
        }
        throw new AssertionError(kind);
    }

    @Override
    public String heal(NsCluster cluster, NetworkLab lab) throws Exception {
        if (victim == null) {
            return null;
        }
        NsNode v = victim;
        victim = null;
        switch (kind) {
            case KILL -> {
                v.start(0).join();
                return "restart n" + v.index();
            }
            case PAUSE -> {
                v.resume();
                return "SIGCONT n" + v.index();
            }
            case CLOCK_SKEW -> {
                v.stop();
                v.start(0).join();
                return "restart n" + v.index() + " with no clock offset";
            }
        }
        throw new AssertionError(kind);
    }
}
