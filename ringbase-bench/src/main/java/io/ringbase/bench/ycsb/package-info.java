/**
 * YCSB for Ringbase: {@link io.ringbase.bench.ycsb.RingbaseHttpDb}, a {@code site.ycsb.DB} binding that speaks
 * the public HTTP API, and {@link io.ringbase.bench.ycsb.YcsbRunner}, which runs the standard core workloads
 * A-F against a target in a child JVM and keeps YCSB's own output.
 */
package io.ringbase.bench.ycsb;
