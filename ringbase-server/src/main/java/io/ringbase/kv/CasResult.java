package io.ringbase.kv;

/**
 * What a conditional write did.
 *
 * @param applied whether the condition held and the write was made
 * @param version if applied, the version written; if not, the version of the key's live value when the
 *                condition was checked, or {@link #NO_VALUE} if it had none (missing, deleted, expired)
 */
public record CasResult(boolean applied, long version) {

    /** {@link #version} of a refused write whose key had no live value. */
    public static final long NO_VALUE = Long.MIN_VALUE;

    /** The write was made with {@code version}. */
    public static CasResult applied(long version) {
        return new CasResult(true, version);
    }

    /** The condition failed against a live value of {@code version}, or {@link #NO_VALUE}. */
    public static CasResult refused(long version) {
        return new CasResult(false, version);
    }
}
