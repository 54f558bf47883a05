package io.ringbase.api;

import java.util.List;
import java.util.Objects;

/**
 * The placement a client needs to send a key's requests to one of its replicas, as {@code GET /v0/ring}
 * serves it ({@code docs/http-api.md}, "Placement for clients"): the metadata epoch, the replication
 * factor, and the nodes of the current ring (the one reads use) in ring order, each with the name its
 * rendezvous weight is hashed from. A key's replicas are the first {@code replicationFactor} nodes by
 * descending weight {@code fmix64(xxh64(key) ^ xxh64(seed))}, compared unsigned, ties to the earlier node.
 * Made by the node's assembly from its placement; immutable.
 *
 * @param epoch             the metadata epoch of the placement; 0 for a static {@code --cluster} list
 * @param replicationFactor copies of each key, {@code 1..nodes.size()}
 * @param nodes             the current ring's nodes, in ring order (the order ties go by)
 */
public record RingView(long epoch, int replicationFactor, List<Member> nodes) {

    /**
     * One node of the ring.
     *
     * @param url  where it serves the HTTP API ({@code http://host:port}, as in {@code --cluster})
     * @param seed the name its weight is hashed from: its URL, or that of the node it replaced
     */
    public record Member(String url, String seed) {
        /** @throws IllegalArgumentException if either holds a space or a control character */
        public Member {
            requirePrintable(url, "url");
            requirePrintable(seed, "seed");
        }
    }

    /** @throws IllegalArgumentException if the factor is out of {@code 1..nodes.size()} or the epoch negative */
    public RingView {
        nodes = List.copyOf(nodes);
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0, got " + epoch);
        }
        if (replicationFactor < 1 || replicationFactor > nodes.size()) {
            throw new IllegalArgumentException(
                    "replication factor " + replicationFactor + " must be 1.." + nodes.size() + " (the ring's nodes)");
        }
    }

    private static void requirePrintable(String s, String what) {
        Objects.requireNonNull(s, what);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= ' ' || c == 0x7f || c == '"' || c == '\\') {
                throw new IllegalArgumentException(
                        what + " must hold no space, quote, backslash or control" + " character: '" + s + "'");
            }
        }
    }
}
