/**
 * A Jepsen-style fault-injection suite: a cluster of real node processes, each in its
 * own network namespace, under concurrent clients while a nemesis injects faults (process kills of one
 * node or of a majority, pauses, partitions between nodes and between the clients and a node, a slow lossy
 * network, clock skew, a full disk, and membership changes: the cluster grown from 3 to 5 nodes
 * and shrunk back by joins and decommissions, and a join while a founding node is killed); then the faults
 * are healed and the history and final state are checked (linearizable quorum registers, no lost acknowledged writes, no resurrected deletes, complete
 * scans). One run also purges every tombstone after a first repair and repairs again
 * ({@link io.ringbase.faults.PurgePhase}). A run passes only when every checker passes and none of its
 * notes is a failure ({@link io.ringbase.faults.Note}: a node that exited by itself, a cluster that did not
 * heal, a final read that kept failing, a repair that did not finish). {@link io.ringbase.faults.FaultSuite}
 * runs every fault and writes the fault x checker table to {@code target/faults/report.md}; failing
 * histories are saved beside it. {@code ShortFaultSuiteTest} (tag {@code faults-short}, in every
 * {@code ./mvnw verify}) runs a few seconds per fault, {@code FullFaultSuiteTest} (tag {@code faults},
 * {@code ./mvnw verify -Pfaults}) minutes per fault; {@code MembershipFaultTest} (tag
 * {@code faults-short}) runs the grow-and-shrink row alone, which outlasts the short suite's window. A client
 * request that fails during a membership change with no other fault is a failure note
 * ({@link io.ringbase.faults.ChangeRequests}). Needs root; see docs/faults.md.
 */
package io.ringbase.faults;
