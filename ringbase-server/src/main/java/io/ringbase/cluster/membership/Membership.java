package io.ringbase.cluster.membership;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.hash.XxHash64;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * What every node of a cluster must agree on before it replicates to another: the cluster's name, the
 * replication factor and the ordered node list (a node's position in it is its node id, and so the low
 * bits of the versions it issues). Its {@link #digest()} travels on every node-to-node request
 * ({@code x-rb-membership}, {@code docs/http-api.md}); a node refuses a request whose digest differs from
 * its own, so two nodes started with different lists, names or replication factors never form quorums
 * that need not intersect, nor issue the same version for two different writes. Immutable.
 *
 * @param clusterName       the cluster's name ({@code --cluster-name}): 1 to 64 characters of
 *                          {@code [A-Za-z0-9._-]}
 * @param urls              the nodes' URLs ({@code http://host:port}), in {@code --cluster} order
 * @param replicationFactor copies of each key, 1 to {@code urls.size()}
 */
public record Membership(String clusterName, List<String> urls, int replicationFactor) {

    /**
     * The one "URL" of an {@link #elastic} membership: the members come from the metadata log, so the
     * digest covers the name alone.
     */
    public static final String FROM_METADATA_LOG = "metadata-log";

    /** The cluster name of a node started without {@code --cluster-name}. */
    public static final String DEFAULT_NAME = "ringbase";

    /** Longest cluster name, characters. */
    public static final int MAX_NAME_LENGTH = 64;

    public Membership {
        checkName(clusterName);
        urls = List.copyOf(urls);
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("a membership needs at least one node");
        }
        if (replicationFactor < 1 || replicationFactor > urls.size()) {
            throw new IllegalArgumentException(
                    "replication factor must be 1.." + urls.size() + ", got " + replicationFactor);
        }
    }

    /** The membership of {@code topology} (its list and replication factor) under {@code clusterName}. */
    public static Membership of(String clusterName, Topology topology) {
        return new Membership(
                clusterName, topology.nodes().stream().map(NodeId::toString).toList(), topology.replicationFactor());
    }

    /**
     * The membership of a cluster whose members come from its metadata log: every node of it, founding or
     * joined, agrees on the name alone (the log keeps members and the replication factor consistent).
     */
    public static Membership elastic(String clusterName) {
        return new Membership(clusterName, List.of(FROM_METADATA_LOG), 1);
    }

    /** Whether this is an {@link #elastic} membership. */
    public boolean isElastic() {
        return urls.equals(List.of(FROM_METADATA_LOG));
    }

    /**
     * Checks a cluster name.
     *
     * @throws IllegalArgumentException with a message fit for the command line unless it is 1 to
     *                                  {@value #MAX_NAME_LENGTH} characters of {@code [A-Za-z0-9._-]}
     */
    public static String checkName(String name) {
        Objects.requireNonNull(name, "cluster name");
        if (name.isEmpty() || name.length() > MAX_NAME_LENGTH || !name.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("cluster name must be 1.." + MAX_NAME_LENGTH
                    + " characters of letters, digits, '.', '_' and '-', got '" + name + "'");
        }
        return name;
    }

    /**
     * XXH64 of the canonical text {@code "ringbase-membership 1\n" name "\n" rf "\n"} followed by each URL
     * and {@code "\n"}, in list order: equal on two nodes exactly when name, replication factor and list
     * (order included) are equal.
     */
    public long digest() {
        StringBuilder canonical = new StringBuilder("ringbase-membership 1\n")
                .append(clusterName)
                .append('\n')
                .append(replicationFactor)
                .append('\n');
        for (String url : urls) {
            canonical.append(url).append('\n');
        }
        return XxHash64.hash(canonical.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** {@link #digest()} as 16 lowercase hex digits: the value of the {@code x-rb-membership} header. */
    public String digestHex() {
        return HexFormat.of().toHexDigits(digest());
    }

    /**
     * One line naming everything the digest covers, for an operator comparing two nodes:
     * {@code cluster 'name', rf 3, nodes [http://a:1, http://b:2] (membership 0123456789abcdef)}.
     */
    public String describe() {
        if (isElastic()) {
            return "cluster '" + clusterName + "', members from its metadata log (membership " + digestHex() + ")";
        }
        return "cluster '" + clusterName + "', rf " + replicationFactor + ", nodes " + urls + " (membership "
                + digestHex() + ")";
    }
}
