package io.ringbase.client;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * XXH64 with seed 0 (Yann Collet, <a href="https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md">xxHash
 * specification</a>), little-endian lanes: the key hash a Ringbase node places keys by, computed here the same
 * way so that the client finds a key's replicas ({@code docs/http-api.md}, "Placement for clients").
 * {@code hash(new byte[0]) == 0xEF46DB3751D8E999L}. Stateless.
 */
final class XxHash64 {

    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private XxHash64() {}

    /** XXH64 of {@code key}, seed 0. */
    static long hash(byte[] key) {
        int len = key.length;
        int p = 0;
        long h;
        if (len >= 32) {
            long v1 = Long.sum(P1, P2); // wraps mod 2^64 as the spec intends
            long v2 = P2;
            long v3 = 0;
            long v4 = -P1;
            for (; p <= len - 32; p += 32) {
                v1 = round(v1, (long) LONGS.get(key, p));
                v2 = round(v2, (long) LONGS.get(key, p + 8));
                v3 = round(v3, (long) LONGS.get(key, p + 16));
                v4 = round(v4, (long) LONGS.get(key, p + 24));
            }
            h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
            h = mergeRound(h, v1);
            h = mergeRound(h, v2);
            h = mergeRound(h, v3);
            h = mergeRound(h, v4);
        } else {
            h = P5;
        }
        h += len;
        for (; p + 8 <= len; p += 8) {
            h ^= round(0, (long) LONGS.get(key, p));
            h = Long.rotateLeft(h, 27) * P1 + P4;
        }
        if (p + 4 <= len) {
            h ^= ((int) INTS.get(key, p) & 0xFFFFFFFFL) * P1;
            h = Long.rotateLeft(h, 23) * P2 + P3;
            p += 4;
        }
        for (; p < len; p++) {
            h ^= (key[p] & 0xFFL) * P5;
            h = Long.rotateLeft(h, 11) * P1;
        }
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        h ^= h >>> 32;
        return h;
    }

    private static long round(long acc, long input) {
        return Long.rotateLeft(acc + input * P2, 31) * P1;
    }

    private static long mergeRound(long acc, long v) {
        return (acc ^ round(0, v)) * P1 + P4;
    }
}
