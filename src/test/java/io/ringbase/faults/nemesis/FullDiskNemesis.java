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
        String avail = Shell.run("df", "-B1", "--output=avail", node.dataDir().toString()).strip();
        long bytes = Long.parseLong(avail.substring(avail.lastIndexOf('\n') + 1).strip());
        full = true;
        if (bytes > 0) {
            Shell.run("fallocate", "-l", Long.toString(bytes), node.dataDir().resolve(BALLAST).toString());
        }
        return "fill n" + NODE + "'s disk (" + bytes + " bytes of ballast)";
    }

    @Override
    public String heal(NsCluster cluster, NetworkLab lab) throws Exception {
        if (!full) {
            return null;
        }
        full = false;
        Files.deleteIfExists(cluster.node(NODE).dataDir().resolve(BALLAST));
        return "delete n" + NODE + "'s ballast";
    }

    @Override
    public void cleanup(NsCluster cluster, NetworkLab lab) {
        Shell.tryRun("umount", cluster.node(NODE).dataDir().toString());
    }
}
