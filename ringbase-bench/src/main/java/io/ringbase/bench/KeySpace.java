package io.ringbase.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import site.ycsb.generator.NumberGenerator;
import site.ycsb.generator.ScrambledZipfianGenerator;
import site.ycsb.generator.UniformLongGenerator;

/**
 * Key names and the URL lists the load generator draws from. Prefilled keys are {@code k0000000000 .. k<n-1>} (zero-padded,
 * so their byte order is their number order and a range of them is contiguous); keys written by the PUT
 * workload are {@code u} and 12 random digits, so nearly every PUT writes a new key.
 */
public final class KeySpace {

    /** URLs in a generated URL file: the load generator draws from them at random, so this many distinct draws. */
    public static final int URLS_PER_FILE = 1_000_000;
    /** Keys per range request of the {@code range} workload. */
    public static final int RANGE_KEYS = 100;

    private KeySpace() {}

    /** The name of prefilled key number {@code i}. */
    public static String key(long i) {
        return String.format("k%010d", i);
    }

    /**
     * The URL of PUTs of new random keys against {@code base}: key {@code u} and the 12 random digits that
     * the load generator puts in place of {@link LoadSpec#KEY}.
     */
    public static String putUrl(String base, String replicaQuery) {
        return base + "/v0/entity?id=u" + LoadSpec.KEY + replicaQuery;
    }

    /**
     * Writes {@value #URLS_PER_FILE} URLs against {@code base}, one a line, with keys drawn from
     * {@code [0, keys)} by {@code choice}: entity URLs, or range URLs of {@value #RANGE_KEYS} keys when
     * {@code range} is set.
     */
    public static void writeUrlFile(
            Path file, String base, long keys, KeyChoice choice, boolean range, String replicaQuery, long seed)
            throws IOException {
        NumberGenerator gen = choice == KeyChoice.ZIPFIAN
                ? new ScrambledZipfianGenerator(0, keys - 1)
                : new UniformLongGenerator(0, keys - 1);
        SplittableRandom rnd = new SplittableRandom(seed);
        try (BufferedWriter w = Files.newBufferedWriter(file)) {
            for (int i = 0; i < URLS_PER_FILE; i++) {
                long k = choice == KeyChoice.ZIPFIAN ? gen.nextValue().longValue() : rnd.nextLong(keys);
                if (range) {
                    long end = Math.min(keys, k + RANGE_KEYS);
                    w.write(base + "/v0/entities?start=" + key(k) + "&end=" + key(end) + replicaQuery);
                } else {
                    w.write(base + "/v0/entity?id=" + key(k) + replicaQuery);
                }
                w.newLine();
            }
        }
    }
}
