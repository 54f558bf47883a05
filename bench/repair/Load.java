import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.storage.Entry;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;

/**
 * Fills one node's data directory offline for bench/repair-bench.sh: {@code keys} entries "key-%010d"
 * with {@code valueBytes}-byte random values, all at one version, through the engine's own write path
 * (WAL, memtable, flush, compaction), then closes it. Every data directory it fills with the same
 * arguments holds the same entries, so replicas agree. Run in source-file mode on the server jar:
 * {@code java -cp "ringbase-server/target/ringbase.jar:ringbase-server/target/lib/*" bench/repair/Load.java DIR KEYS VALUE_BYTES}.
 */
public final class Load {
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long keys = Long.parseLong(args[1]);
        int valueBytes = Integer.parseInt(args[2]);
        long version = HybridLogicalClock.fromPhysicalMs(1_790_000_000_000L); // fixed: same on every copy
        Random random = new Random(42);
        byte[] value = new byte[valueBytes];
        MemorySegment valueSegment = MemorySegment.ofArray(value);
        long started = System.nanoTime();
        try (LsmEngine engine = LsmEngine.open(LsmOptions.defaults(dir).withWalSync(WalSyncPolicy.PERIODIC)
                .withMemtableBytes(32L << 20))) {
            for (long i = 0; i < keys; i++) {
                random.nextBytes(value);
                engine.apply(String.format("key-%010d", i).getBytes(StandardCharsets.US_ASCII), version,
                        Entry.NO_EXPIRY, valueSegment);
                if ((i + 1) % 1_000_000 == 0) {
                    System.out.printf("loaded %,d keys in %.1f s%n", i + 1, (System.nanoTime() - started) / 1e9);
                }
            }
        }
        System.out.printf("loaded %,d keys of %d-byte values into %s in %.1f s%n", keys, valueBytes, dir,
                (System.nanoTime() - started) / 1e9);
    }
}
