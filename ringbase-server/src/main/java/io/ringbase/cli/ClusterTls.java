package io.ringbase.cli;

import io.ringbase.cluster.Topology;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Whether a node's peers are called over TLS, from the scheme of its cluster URLs and its TLS flags
 * (docs/operations.md, "TLS between nodes"): {@code https://} URLs need {@code --tls-cert}, {@code --tls-key}
 * and {@code --tls-ca}; TLS flags on a member of a larger cluster need {@code https://} URLs, so a node never
 * calls a TLS port in plain HTTP nor serves TLS while its peers cannot reach it. An elastic cluster's
 * metadata group ({@code --join}, {@code --metadata-port-offset}) follows the same scheme: with
 * {@code https://} URLs its Raft port speaks mutual TLS too. Stateless.
 */
final class ClusterTls {

    private ClusterTls() {}

    /**
     * Checks the scheme of {@code serve}'s cluster URLs against its TLS flags.
     *
     * @param cluster {@code --cluster}, or {@code null}/empty for none
     * @param self    {@code --self}, or {@code null}
     * @param elastic {@code --join} and {@code --metadata-port-offset}
     * @param alone   whether the node has no peers (no list, or a list of one, and not elastic)
     * @param tls     {@code --tls-cert}, {@code --tls-ca}, ...
     * @return whether the node calls its peers over TLS ({@code https://} URLs)
     * @throws IllegalArgumentException with a message fit for the command line if the combination is refused
     */
    static boolean nodeToNode(
            @Nullable List<String> cluster, @Nullable String self, ElasticFlags elastic, boolean alone, TlsFlags tls) {
        return nodeToNode(cluster, self, elastic.join, alone, tls.cert != null, tls.ca != null);
    }

    /**
     * As {@link #nodeToNode(List, String, ElasticFlags, boolean, TlsFlags)}, from the values alone.
     *
     * @param join    {@code --join}, or {@code null}
     * @param tlsCert whether {@code --tls-cert} is given
     * @param tlsCa   whether {@code --tls-ca} is given
     */
    static boolean nodeToNode(
            @Nullable List<String> cluster,
            @Nullable String self,
            @Nullable String join,
            boolean alone,
            boolean tlsCert,
            boolean tlsCa) {
        List<String> urls = new ArrayList<>();
        if (cluster != null) {
            urls.addAll(cluster);
        }
        if (self != null) {
            urls.add(self);
        }
        if (join != null) {
            urls.add(join);
        }
        boolean https = !urls.isEmpty() && Topology.scheme(urls).equals(Topology.HTTPS);
        if (https) {
            if (!tlsCert) {
                throw new IllegalArgumentException("https:// cluster URLs need --tls-cert and --tls-key (this node's "
                        + "certificate) and --tls-ca (the CA that signs every node's certificate)");
            }
            if (!tlsCa) {
                throw new IllegalArgumentException("https:// cluster URLs need --tls-ca: the CA that signs every "
                        + "node's certificate, against which nodes check each other");
            }
            return true;
        }
        if (tlsCert && !alone) {
            throw new IllegalArgumentException("--tls-cert on a member of a cluster needs https:// URLs: write "
                    + "--cluster (and --self, --join) as https://host:port, with --tls-ca, so the nodes call "
                    + "each other over TLS; a TLS port refuses plain node-to-node calls");
        }
        return false;
    }
}
