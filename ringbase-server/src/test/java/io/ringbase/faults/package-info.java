/**
 * A Jepsen-style fault-injection suite: a cluster of real node processes, each in its
 * own network namespace, under concurrent clients while a nemesis injects faults (process kills and
 * pauses, partitions, a slow lossy network, clock skew, a full disk); then the faults are healed and the
 * history and final state are checked (linearizable quorum registers, no lost acknowledged writes, no
 * resurrected deletes, complete scans). {@link io.ringbase.faults.FaultSuite} runs every fault and writes
 * the fault x checker table to {@code target/faults/report.md}; failing histories are saved beside it.
 * {@code ShortFaultSuiteTest} (tag {@code faults-short}, in every {@code ./mvnw verify}) runs a few
 * seconds per fault, {@code FullFaultSuiteTest} (tag {@code faults}, {@code ./mvnw verify -Pfaults})
 * minutes per fault. Needs root; see docs/faults.md.
 */
package io.ringbase.faults;
