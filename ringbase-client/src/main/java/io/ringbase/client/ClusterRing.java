package io.ringbase.client;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The cluster's placement as {@code GET /v0/ring?format=text} gives it ({@code docs/http-api.md}, "Placement
 * for clients"), and the replicas of a key under it, computed as the nodes compute them: rendezvous
 * (highest-random-weight) hashing, each node weighted per key by
 * {@code fmix64(xxh64(key) ^ xxh64(seed))}, compared unsigned, ties to the earlier node of the ring.
 * Immutable and thread-safe.
 */
final class ClusterRing {

    /** The text format's first line; a client refuses any other version. */
    static final String HEADER = "ringbase-ring 1";

    private final long epoch;
    private final int replicationFactor;
    private final List<URI> urls;
    private final long[] seeds; // XXH64 of each node's seed name, in urls' order

    private ClusterRing(long epoch, int replicationFactor, List<URI> urls, long[] seeds) {
        this.epoch = epoch;
        this.replicationFactor = replicationFactor;
        this.urls = urls;
        this.seeds = seeds;
    }

    /** The placement's metadata epoch (0 for a static cluster). */
    long epoch() {
        return epoch;
    }

    /** Copies of each key. */
    int replicationFactor() {
        return replicationFactor;
    }

    /** The ring's nodes, in ring order. */
    List<URI> urls() {
        return urls;
    }

    /**
     * Parses the text form of {@code GET /v0/ring}. Lines with a name this client does not know are skipped
     * (a later version of the same format may add some).
     *
     * @throws IllegalArgumentException naming what is wrong: another format version, a hash or placement this
     *                                  client does not implement, a missing or malformed field
     */
    static ClusterRing parse(String text) {
        String[] lines = text.split("\n");
        if (lines.length == 0 || !lines[0].strip().equals(HEADER)) {
            throw new IllegalArgumentException("the ring does not start with '" + HEADER + "': '"
                    + (lines.length == 0 ? "" : lines[0].strip()) + "'");
        }
        long epoch = -1;
        int rf = -1;
        String hash = null;
        String placement = null;
        List<URI> urls = new ArrayList<>();
        List<Long> seeds = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split(" ");
            try {
                switch (f[0]) {
                    case "epoch" -> epoch = Long.parseLong(f[1]);
                    case "replication-factor" -> rf = Integer.parseInt(f[1]);
                    case "hash" -> hash = f[1];
                    case "placement" -> placement = f[1];
                    case "node" -> {
                        URI url = URI.create(f[1]);
                        if (url.getHost() == null || url.getPort() <= 0) {
                            throw new IllegalArgumentException("not http://host:port");
                        }
                        urls.add(url);
                        seeds.add(XxHash64.hash(f[2].getBytes(StandardCharsets.UTF_8)));
                    }
                    default -> {} // a field of a later version: not needed to route
                }
            } catch (RuntimeException e) { // too few fields, a bad number or URL
                throw new IllegalArgumentException("ring line " + (i + 1) + " is malformed: '" + line + "'", e);
            }
        }
        if (!"xxh64".equals(hash) || !"rendezvous-fmix64".equals(placement)) {
            throw new IllegalArgumentException("the ring's hash '" + hash + "' and placement '" + placement
                    + "' are not xxh64 and rendezvous-fmix64, the ones this client implements");
        }
        if (epoch < 0 || rf < 1 || rf > urls.size()) {
            throw new IllegalArgumentException("the ring's epoch " + epoch + " or replication factor " + rf
                    + " is missing or out of range for its " + urls.size() + " node(s)");
        }
        long[] s = new long[seeds.size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = seeds.get(i);
        }
        return new ClusterRing(epoch, rf, List.copyOf(urls), s);
    }

    /** Number of nodes. */
    int size() {
        return urls.size();
    }

    /**
     * The first {@code count} replicas of the key whose UTF-8 bytes are {@code key}, most preferred first.
     *
     * @param count {@code 1..size()}
     */
    List<URI> replicas(byte[] key, int count) {
        return replicasOfHash(XxHash64.hash(key), count);
    }

    /** {@link #replicas} of the key with this XXH64 hash. */
    List<URI> replicasOfHash(long keyHash, int count) {
        int n = seeds.length;
        long[] weights = new long[n];
        for (int i = 0; i < n; i++) {
            weights[i] = fmix64(keyHash ^ seeds[i]);
        }
        boolean[] taken = new boolean[n];
        List<URI> out = new ArrayList<>(count);
        for (int k = 0; k < count; k++) { // selection: count is small
            int best = -1;
            for (int i = 0; i < n; i++) {
                if (!taken[i] && (best < 0 || Long.compareUnsigned(weights[i], weights[best]) > 0)) {
                    best = i;
                }
            }
            taken[best] = true;
            out.add(urls.get(best));
        }
        return out;
    }

    /** MurmurHash3's 64-bit finalizer (Austin Appleby). */
    static long fmix64(long z) {
        z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return z ^ (z >>> 33);
    }
}
