package io.ringbase.faults.nemesis;

import io.ringbase.faults.cluster.NsCluster;
import io.ringbase.faults.net.NetworkLab;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Network partitions, by iptables DROP rules inside the nodes' namespaces. The rules match every
 * packet, so connections already open (the coordinators' and the clients' pooled keep-alive
 * connections) are cut as well as new ones. In the partitions between nodes the clients (the test JVM,
 * {@link NetworkLab#hostIp()}) still reach every node; in {@link Kind#CLIENT} the nodes still reach each
 * other.
 *
 * <ul>
 *   <li>{@link Kind#MAJORITY_MINORITY}: one node cut off from all the others, both ways;</li>
 *   <li>{@link Kind#BRIDGE}: two nodes cut off from each other, a third still talking to both;</li>
 *   <li>{@link Kind#ASYMMETRIC}: one node receives nothing from the others, but its packets reach them
 *       (its requests are applied, their answers lost);</li>
 *   <li>{@link Kind#CLIENT}: the clients cannot reach one node, which still talks to the others: its
 *       rules match only the clients' address, either both ways or, in about half the windows, only its
 *       packets to the clients (a request on an open connection arrives and is carried out, its answer
 *       is lost: the client sees a timeout for an operation that happened).</li>
 * </ul>
 */
public final class PartitionNemesis implements Nemesis {

    /** The shape of the partition. */
    public enum Kind {
        MAJORITY_MINORITY,
        BRIDGE,
        ASYMMETRIC,
        CLIENT
    }

    private final Kind kind;
    private boolean active;

    public PartitionNemesis(Kind kind) {
        this.kind = kind;
    }

    @Override
    public String name() {
        return switch (kind) {
            case MAJORITY_MINORITY -> "partition majority/minority";
            case BRIDGE -> "partition bridge";
            case ASYMMETRIC -> "partition asymmetric (one-way DROP)";
            case CLIENT -> "partition client/node";
        };
    }

    @Override
    public String inject(NsCluster cluster, NetworkLab lab, Random random) {
        int n = cluster.size();
        int a = random.nextInt(n);
        active = true;
        List<Integer> others = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (i != a) {
                others.add(i);
            }
        }
        switch (kind) {
            case MAJORITY_MINORITY -> {
                for (int o : others) {
                    dropBoth(lab, a, o);
                }
                return "isolate n" + a + " from " + others;
            }
            case BRIDGE -> { // a is the bridge: the others cannot talk to each other
                for (int i = 0; i < others.size(); i++) {
                    for (int j = i + 1; j < others.size(); j++) {
                        dropBoth(lab, others.get(i), others.get(j));
                    }
                }
                return "bridge n" + a + " between " + others;
            }
            case ASYMMETRIC -> {
                for (int o : others) {
                    lab.exec(a, "iptables", "-A", "INPUT", "-s", NetworkLab.ip(o), "-j", "DROP");
                }
                return "n" + a + " drops every packet from " + others + " (its own still arrive)";
            }
            case CLIENT -> {
                String clients = NetworkLab.hostIp();
                lab.exec(a, "iptables", "-A", "OUTPUT", "-d", clients, "-j", "DROP");
                if (random.nextBoolean()) {
                    return "n" + a + " drops its packets to the clients (their requests arrive, no answer leaves)";
                }
                lab.exec(a, "iptables", "-A", "INPUT", "-s", clients, "-j", "DROP");
                return "clients cut off from n" + a + " both ways (nodes still reach each other)";
            }
        }
        throw new AssertionError(kind);
    }

    private static void dropBoth(NetworkLab lab, int x, int y) {
        lab.exec(x, "iptables", "-A", "INPUT", "-s", NetworkLab.ip(y), "-j", "DROP");
        lab.exec(x, "iptables", "-A", "OUTPUT", "-d", NetworkLab.ip(y), "-j", "DROP");
    }

    @Override
    public String heal(NsCluster cluster, NetworkLab lab) {
        if (!active) {
            return null;
        }
        active = false;
        for (int i = 0; i < cluster.size(); i++) {
            lab.exec(i, "iptables", "-F");
        }
        return "flush iptables on every node";
    }
}
