package io.ringbase.cluster.ring;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.hash.XxHash64;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Placement by rendezvous (highest-random-weight) hashing (Thaler and Ravishankar, "Using name-based
 * mappings to increase hit rates", IEEE/ACM ToN 1998): every node gets a pseudo-random weight per key,
 * {@code fmix64(xxh64(key) ^ xxh64(nodeUrl))}, and the key's replica list is the nodes by descending
 * weight (ties, which need a 64-bit collision, by list index).
 *
 * <p>Why not a token ring with vnodes: with a static topology rendezvous hashing gives every node its
 * fair share of keys with only sampling noise (about 0.3% for 1,000,000 keys on 10 nodes), where a
 * ring needs thousands of vnodes for the same balance; and the first {@code from} nodes of the list are
 * by construction a subset of the first {@code from + 1}. The cost is one hash mix per node per key, a
 * few nanoseconds for the clusters of up to a few dozen nodes this targets.
 *
 * <p>The weights depend only on the key and on each node's URL as written in {@code --cluster}, so
 * every node computes the same lists. Immutable and thread-safe.
 */
public final class Ring {

    private final List<NodeId> nodes;
    private final long[] seeds;

    public Ring(Topology topology) {
        this.nodes = topology.nodes();
        this.seeds = new long[nodes.size()];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = XxHash64.hash(nodes.get(i).toString().getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The 64-bit hash placement (and anti-entropy ranges) is computed from: XXH64 of the key bytes. */
    public static long keyHash(byte[] key) {
        return XxHash64.hash(key);
    }

    /** Number of nodes. */
    public int size() {
        return nodes.size();
    }

    /**
     * The first {@code from} nodes of the key's replica list: its replicas for a request with that
     * {@code from}, most preferred first.
     *
     * @throws IllegalArgumentException unless {@code 0 < from <= size()}
     */
    public List<NodeId> replicas(byte[] key, int from) {
        return replicasOfHash(keyHash(key), from);
    }

    /** {@link #replicas} for a key whose {@link #keyHash} is already known. */
    public List<NodeId> replicasOfHash(long keyHash, int from) {
        if (from <= 0 || from > nodes.size()) {
            throw new IllegalArgumentException("from must be 1.." + nodes.size() + ", got " + from);
        }
        int n = nodes.size();
        long[] weights = new long[n];
        boolean[] taken = new boolean[n];
        for (int i = 0; i < n; i++) {
            weights[i] = fmix64(keyHash ^ seeds[i]);
        }
        List<NodeId> out = new ArrayList<>(from);
        for (int k = 0; k < from; k++) { // selection: from is small
            int best = -1;
            for (int i = 0; i < n; i++) {
                if (!taken[i] && (best < 0 || Long.compareUnsigned(weights[i], weights[best]) > 0)) {
                    best = i;
                }
            }
            taken[best] = true;
            out.add(nodes.get(best));
        }
        return out;
    }

    /** Whether {@code node} is among the first {@code from} replicas of the key with hash {@code keyHash}. */
    public boolean isReplica(long keyHash, int from, NodeId node) {
        long mine = fmix64(keyHash ^ seeds[node.index()]);
        int ahead = 0;
        for (int i = 0; i < seeds.length; i++) {
            if (i == node.index()) {
                continue;
            }
            int c = Long.compareUnsigned(fmix64(keyHash ^ seeds[i]), mine);
            if (c > 0 || (c == 0 && i < node.index())) {
                ahead++;
            }
        }
        return ahead < from;
    }

    /** MurmurHash3's 64-bit finalizer (Austin Appleby): a bijective avalanche mix. */
    static long fmix64(long z) {
        z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return z ^ (z >>> 33);
    }
}
