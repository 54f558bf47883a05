package io.ringbase.auth;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * What a client token may do, as written in the token file ({@code read}, {@code write}, {@code admin},
 * {@code metrics}). The names are part of the token file's format: do not rename them.
 */
public enum Permission {
    /** GET of {@code /v0/entity} and range scans of {@code /v0/entities}. */
    READ,
    /** PUT and DELETE of {@code /v0/entity}. */
    WRITE,
    /** The admin API under {@code /v0/admin/}. */
    ADMIN,
    /** {@code /metrics}, {@code /v0/status} and the status page {@code /}. */
    METRICS;

    /** The permission written {@code name} in the token file (lower case), or {@code null} if none is. */
    static @Nullable Permission parse(String name) {
        for (Permission p : values()) {
            if (p.fileName().equals(name)) {
                return p;
            }
        }
        return null;
    }

    /** Its name in the token file. */
    public String fileName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
