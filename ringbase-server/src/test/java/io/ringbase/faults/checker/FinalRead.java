package io.ringbase.faults.checker;

/**
 * A read of one key after the faults were healed.
 *
 * @param key   the key
 * @param ok    whether the read got an answer (200 or 404)
 * @param value the value read ({@code null}: 404), if {@code ok}
 * @param note  the answer or failure, for people
 */
public record FinalRead(String key, boolean ok, String value, String note) {}
