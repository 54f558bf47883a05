package io.ringbase.client;

import java.nio.charset.StandardCharsets;

/**
 * One entry of a range scan: its key and its value, as stored.
 *
 * @param key   the key's UTF-8 bytes
 * @param value the value's bytes
 */
public record KeyValue(byte[] key, byte[] value) {

    /** The key as text (keys are UTF-8). */
    public String keyString() {
        return new String(key, StandardCharsets.UTF_8);
    }
}
