package io.ringbase.auth;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What one client token of the token file grants: its name (what logs and errors call it; never the
 * token), its permissions, and the key prefix its data requests are limited to ({@code null}: every key).
 *
 * @param name        the token's name in the file, unique there
 * @param permissions what it may do, not empty
 * @param prefix      the bytes every key it reads or writes starts with, or {@code null} for any key
 */
public record TokenGrant(String name, Set<Permission> permissions, byte @Nullable [] prefix) {

    public TokenGrant {
        if (permissions.isEmpty()) {
            throw new IllegalArgumentException("a token grants at least one permission");
        }
        permissions = Set.copyOf(EnumSet.copyOf(permissions));
        prefix = prefix == null ? null : prefix.clone();
    }

    /** Whether the token has {@code permission}. */
    public boolean allows(Permission permission) {
        return permissions.contains(permission);
    }

    /** Whether {@code key} is inside the token's prefix (always, without one). */
    public boolean covers(byte[] key) {
        byte[] p = prefix;
        return p == null || (key.length >= p.length && Arrays.equals(key, 0, p.length, p, 0, p.length));
    }

    /**
     * Whether every key of {@code [start, end)} is inside the token's prefix: {@code start} starts with
     * it and {@code end} is at most the first key past it ({@code end} {@code null}: to the last key, which
     * only a token without a prefix, or with one of only 0xFF bytes, covers).
     */
    public boolean coversRange(byte[] start, byte @Nullable [] end) {
        byte[] p = prefix;
        if (p == null) {
            return true;
        }
        if (!covers(start)) {
            return false;
        }
        byte[] past = pastPrefix(p);
        if (past == null) {
            return true; // the prefix runs to the last key
        }
        return end != null && Arrays.compareUnsigned(end, past) <= 0;
    }

    /** The least key greater than every key starting with {@code p}, or {@code null} if none is (all 0xFF). */
    private static byte @Nullable [] pastPrefix(byte[] p) {
        int n = p.length;
        while (n > 0 && p[n - 1] == (byte) 0xFF) {
            n--;
        }
        if (n == 0) {
            return null;
        }
        byte[] past = Arrays.copyOf(p, n);
        past[n - 1]++;
        return past;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TokenGrant g
                && name.equals(g.name)
                && permissions.equals(g.permissions)
                && Arrays.equals(prefix, g.prefix);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + permissions.hashCode() * 17 + Arrays.hashCode(prefix);
    }

    /** Names the token and what it grants; never the token itself. */
    @Override
    public String toString() {
        return "token '" + name + "' " + permissions + (prefix == null ? "" : " prefix of " + prefix.length + " bytes");
    }
}
