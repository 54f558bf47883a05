package io.ringbase.faults.nemesis;

import io.ringbase.faults.cluster.NsCluster;
import io.ringbase.faults.cluster.NsNode;
import io.ringbase.faults.net.NetworkLab;
import io.ringbase.faults.net.Shell;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * A full disk on one node: its data directory is a small tmpfs ({@value #SIZE}), mounted before it
 * starts; the fault fills what is left with a ballast file ({@code fallocate}), the heal deletes it.
 */
public final class FullDiskNemesis implements Nemesis {

    static final String SIZE = "96m";
    /** The node whose disk fills. */
    static final int NODE = 2;

    static final String BALLAST = "ballast.fill";

    private boolean full;

    @Override
    public String name() {
        return "full disk (tmpfs data dir)";
    }

    @Override
    public void prepare(NsCluster cluster, NetworkLab lab) throws Exception {
        Path dir = cluster.node(NODE).dataDir();
        Files.createDirectories(dir);
        Shell.run("mount", "-t", "tmpfs", "-o", "size=" + SIZE, "tmpfs", dir.toString());
    }

    @Override
    public String inject(NsCluster cluster, NetworkLab lab, Random random) {
        NsNode node = cluster.node(NODE);
        full = true;
        // The node keeps writing between df and fallocate, and fallocate is all or nothing: a ballast of
        // what df said can fail with ENOSPC (seen in CI). Fill in rounds, each with what is left then.
        long total = 0;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            long bytes = available(node);
            if (bytes <= 0) {
                break;
            }
            Path ballast = node.dataDir().resolve(BALLAST + "." + round);
            if (Shell.tryRun("fallocate", "-l", Long.toString(bytes), ballast.toString())
                            .exit()
                    == 0) {
                total += bytes;
            } else {
                Shell.tryRun("rm", "-f", ballast.toString());
            }
        }
        long left = available(node);
        if (left > SLACK_BYTES) {
            throw new IllegalStateException("could not fill n" + NODE + "'s disk: " + left + " bytes still free after "
                    + MAX_ROUNDS + " rounds of fallocate");
        }
        return "fill n" + NODE + "'s disk (" + total + " bytes of ballast, " + left + " left)";
    }

    /** Rounds of {@code fallocate} before giving up on a full disk. */
    static final int MAX_ROUNDS = 8;
    /** Free bytes that still count as a full disk (a WAL record or two). */
    static final long SLACK_BYTES = 64 * 1024;

    private static long available(NsNode node) {
        String avail = Shell.run("df", "-B1", "--output=avail", node.dataDir().toString())
                .strip();
        return Long.parseLong(avail.substring(avail.lastIndexOf('\n') + 1).strip());
    }

    @Override
    public String heal(NsCluster cluster, NetworkLab lab) throws Exception {
        if (!full) {
            return null;
        }
        full = false;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            Files.deleteIfExists(cluster.node(NODE).dataDir().resolve(BALLAST + "." + round));
        }
        return "delete n" + NODE + "'s ballast";
    }

    @Override
    public void cleanup(NsCluster cluster, NetworkLab lab) {
        Shell.tryRun("umount", cluster.node(NODE).dataDir().toString());
    }
}
