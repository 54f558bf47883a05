/**
 * The in-process head-to-head of the storage engines ({@code bench/engine-bench.sh}): our
 * {@link io.ringbase.storage.lsm.LsmEngine} against {@link io.ringbase.storage.rocksdb.RocksDbEngine} on the
 * db_bench workloads fillrandom, readrandom, readmissing, seekrandom and a full scan, in one JVM, the two
 * engines alternating phase by phase so that the noise of a shared machine falls on both.
 *
 * <p>{@link io.ringbase.bench.engines.EngineBench} runs it; {@link io.ringbase.bench.engines.DiskWrites}
 * reads the process's bytes written to disk ({@code /proc/self/io}). Units: ops/s, latencies in
 * microseconds (HdrHistogram), sizes in bytes; amplifications are ratios.
 */
package io.ringbase.bench.engines;
