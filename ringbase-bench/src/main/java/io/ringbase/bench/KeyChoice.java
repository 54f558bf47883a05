package io.ringbase.bench;

/** How the load generator picks keys. */
public enum KeyChoice {
    /** Keys in order; the prefill always writes this way. The load generator draws URLs at random, so not for load runs. */
    SEQUENTIAL,
    /** Every key equally likely. */
    UNIFORM,
    /** YCSB's scrambled Zipfian distribution (constant 0.99): a few hot keys, spread over the key space. */
    ZIPFIAN
}
