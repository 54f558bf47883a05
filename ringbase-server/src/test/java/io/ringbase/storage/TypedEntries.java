package io.ringbase.storage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random entries for the round-trip tests of every encoding that carries the typed flag: a mix of typed
 * values (content types of 1 to 127 bytes), untyped values (some of whose first byte would read as a
 * prefix), tombstones and expiries, so that an encoding that drops or moves the flag fails.
 */
public final class TypedEntries {

    private TypedEntries() {}

    /** {@code n} entries from {@code seed}, keys {@code k0, k1, ...}, at least one of each kind. */
    public static List<Entry> random(long seed, int n) {
        Random r = new Random(seed);
        List<Entry> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
            long version = 1 + (r.nextLong() >>> 2);
            long expires = r.nextInt(3) == 0 ? 1 + r.nextInt(1 << 30) : Entry.NO_EXPIRY;
            byte[] value = new byte[r.nextInt(64)];
            r.nextBytes(value);
            switch (i % 4) {
                case 0 -> out.add(new Entry(key, version, expires, ContentType.prefixed(type(r), value), true));
                case 1 -> out.add(new Entry(key, version, expires, value));
                case 2 -> out.add(Entry.tombstone(key, version));
                default -> {
                    // an untyped value that starts like a prefix: only the flag tells them apart
                    byte[] looksTyped = ContentType.prefixed("text/plain", value);
                    out.add(new Entry(key, version, expires, looksTyped));
                }
            }
        }
        return out;
    }

    /** A valid content type of 3 to 127 bytes, sometimes with a parameter. */
    public static String type(Random r) {
        StringBuilder s = new StringBuilder("t/");
        int n = 1 + r.nextInt(ContentType.MAX_BYTES - 2);
        for (int i = 0; i < n; i++) {
            s.append((char) ('a' + r.nextInt(26)));
        }
        if (n > 20 && r.nextBoolean()) {
            s.setCharAt(10, ';');
            s.setCharAt(11, ' ');
            s.setCharAt(14, '=');
        }
        return s.toString();
    }
}
