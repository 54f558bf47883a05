package io.ringbase.bench;

/** What the load generator sends. */
public enum Workload {
    /** {@code PUT /v0/entity} of new keys (expects 201). */
    PUT,
    /** {@code GET /v0/entity} of prefilled keys (expects 200; 404 counts as a miss, not an error). */
    GET,
    /** GETs and PUTs side by side, in the ratio of {@code --read-ratio}. */
    MIXED,
    /** {@code GET /v0/entities} over a range of about 100 prefilled keys (expects 200). */
    RANGE;

    /** True when the workload reads keys that the prefill must have written. */
    public boolean readsPrefilledKeys() {
        return this != PUT;
    }

    /** True when the workload writes new keys, so the nodes flush and compact under it. */
    public boolean writes() {
        return this == PUT || this == MIXED;
    }

    /** Lower-case name as used on the command line and in report directory names. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
