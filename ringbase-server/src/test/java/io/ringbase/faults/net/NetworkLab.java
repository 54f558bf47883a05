package io.ringbase.faults.net;

import java.util.ArrayList;
import java.util.List;

/**
 * A private network of {@code n} node namespaces on one bridge, reachable from the test JVM.
 *
 * <pre>
 *   root ns: rbf-host 10.77.0.1/24  --veth--  hub ns "rbf-hub": bridge br0
 *                                                 |-- veth --  ns "rbf-n0": eth0 10.77.0.11/24
 *                                                 |-- veth --  ns "rbf-n1": eth0 10.77.0.12/24  ...
 * </pre>
 *
 * Node namespaces have no default route, so nodes reach only each other and the host address. In the
 * root namespace an {@code unreachable 10.77.0.0/24} route of the lowest priority guards the rest of the
 * machine: should the veth be gone, traffic to the lab's addresses fails instead of taking the default
 * route. Everything is named with {@link #PREFIX}; {@link #removeLeftovers()} deletes what a crashed run
 * left, {@link #close()} what this one made.
 */
public final class NetworkLab implements AutoCloseable {

    /** Prefix of every namespace and root-namespace link the suite creates. */
    public static final String PREFIX = "rbf-";
    /** The lab's subnet, /24. */
    public static final String SUBNET = "10.77.0.0/24";

    static final String HOST_IP = "10.77.0.1";
    static final String HUB = PREFIX + "hub";
    static final String HOST_LINK = PREFIX + "host";
    static final String GUARD_METRIC = "65000";

    /** Namespaces made so far: the run's founding nodes, then those {@link #addNode()} added. */
    private int nodes;

    private NetworkLab(int nodes) {
        this.nodes = nodes;
    }

    /**
     * Removes leftovers, then builds the lab.
     *
     * @throws IllegalStateException if a command fails (what was made is removed first)
     */
    public static NetworkLab create(int nodes) {
        removeLeftovers();
        NetworkLab lab = new NetworkLab(nodes);
        try {
            lab.build();
        } catch (RuntimeException e) {
            lab.close();
            throw e;
        }
        return lab;
    }

    private void build() {
        Shell.run("ip", "route", "add", "unreachable", SUBNET, "metric", GUARD_METRIC);
        Shell.run("ip", "netns", "add", HUB);
        Shell.run("ip", "-n", HUB, "link", "add", "br0", "type", "bridge");
        Shell.run("ip", "-n", HUB, "link", "set", "br0", "up");
        Shell.run("ip", "link", "add", HOST_LINK, "type", "veth", "peer", "name", "host", "netns", HUB);
        Shell.run("ip", "-n", HUB, "link", "set", "host", "master", "br0");
        Shell.run("ip", "-n", HUB, "link", "set", "host", "up");
        Shell.run("ip", "addr", "add", HOST_IP + "/24", "dev", HOST_LINK);
        Shell.run("ip", "link", "set", HOST_LINK, "up");
        for (int i = 0; i < nodes; i++) {
            addNamespace(i);
        }
        for (int i = 0; i < nodes; i++) {
            checkRoute(i);
        }
    }

    /** Node {@code i}'s namespace, its veth on the bridge and its address. */
    private static void addNamespace(int i) {
        String ns = namespace(i);
        Shell.run("ip", "netns", "add", ns);
        Shell.run("ip", "-n", HUB, "link", "add", "n" + i, "type", "veth", "peer", "name", "eth0", "netns", ns);
        Shell.run("ip", "-n", HUB, "link", "set", "n" + i, "master", "br0");
        Shell.run("ip", "-n", HUB, "link", "set", "n" + i, "up");
        Shell.run("ip", "-n", ns, "addr", "add", ip(i) + "/24", "dev", "eth0");
        Shell.run("ip", "-n", ns, "link", "set", "eth0", "up");
        Shell.run("ip", "-n", ns, "link", "set", "lo", "up");
    }

    /** Checks that traffic to node {@code i} stays in the lab (the host link), before any is sent. */
    private static void checkRoute(int i) {
        String route = Shell.run("ip", "route", "get", ip(i));
        if (!route.contains("dev " + HOST_LINK)) {
            throw new IllegalStateException("traffic to " + ip(i) + " would not stay in the lab: " + route.strip());
        }
    }

    /**
     * Adds one more node namespace, as the founding ones (for a node that joins the cluster), and returns its
     * index; {@link #close()} removes it with the others.
     *
     * @throws IllegalStateException if a command fails, or the lab's /24 has no address left
     */
    public int addNode() {
        int i = nodes;
        if (11 + i > 254) {
            throw new IllegalStateException("the lab's subnet " + SUBNET + " has no address left for node " + i);
        }
        nodes++; // counted before it is made: close() removes a half-made namespace too
        addNamespace(i);
        checkRoute(i);
        return i;
    }

    public int nodes() {
        return nodes;
    }

    /** The namespace of node {@code i}. */
    public static String namespace(int i) {
        return PREFIX + "n" + i;
    }

    /** The clients' address: the test JVM's end of the lab, in the root namespace. */
    public static String hostIp() {
        return HOST_IP;
    }

    /** Node {@code i}'s address. */
    public static String ip(int i) {
        return "10.77.0." + (11 + i);
    }

    /** The command prefix that runs a program in node {@code i}'s network namespace (and nothing else). */
    public static List<String> inNamespace(int i) {
        return List.of("nsenter", "--net=/run/netns/" + namespace(i), "--");
    }

    /** Runs {@code cmd} in node {@code i}'s namespace; a failure is an exception. */
    public String exec(int i, String... cmd) {
        List<String> all = new ArrayList<>(inNamespace(i));
        all.addAll(List.of(cmd));
        return Shell.run(all.toArray(String[]::new));
    }

    /** Deletes every namespace and root link with the {@link #PREFIX} and the guard route. */
    public static void removeLeftovers() {
        Shell.Result list = Shell.tryRun("ip", "netns", "list");
        for (String line : list.output().split("\n")) {
            String name = line.strip().split("\\s+")[0];
            if (name.startsWith(PREFIX)) {
                Shell.tryRun("ip", "netns", "del", name);
            }
        }
        Shell.tryRun("ip", "link", "del", HOST_LINK);
        while (Shell.tryRun("ip", "route", "del", "unreachable", SUBNET, "metric", GUARD_METRIC)
                        .exit()
                == 0) {
            // one per crashed run at most, but be thorough
        }
    }

    /** Removes the namespaces and links; node processes must be gone first. */
    @Override
    public void close() {
        for (int i = 0; i < nodes; i++) {
            Shell.tryRun("ip", "netns", "del", namespace(i));
        }
        Shell.tryRun("ip", "netns", "del", HUB);
        Shell.tryRun("ip", "link", "del", HOST_LINK);
        // the guard route goes last: until here, nothing can leave by the default route
        Shell.tryRun("ip", "route", "del", "unreachable", SUBNET, "metric", GUARD_METRIC);
    }
}
