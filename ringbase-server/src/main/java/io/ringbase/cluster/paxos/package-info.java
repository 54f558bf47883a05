/**
 * Compare-and-set on a cluster: one round of single-decree Paxos per conditional write of a key, over the
 * key's replicas, as Cassandra's lightweight transactions (Lamport, "Paxos Made Simple", 2001; Cassandra's
 * {@code StorageProxy.cas}). {@link io.ringbase.cluster.paxos.PaxosProposer} runs the rounds on the
 * coordinator over the key's {@link io.ringbase.cluster.paxos.Participants} (its replicas, plus the pending
 * ones of a membership change, Cassandra's {@code Paxos.Participants});
 * {@link io.ringbase.cluster.paxos.PaxosAcceptor} answers them on each replica that
 * {@link io.ringbase.cluster.paxos.PaxosAdmission} lets take part (by epoch, and by what it is pending for), keeping its
 * promised and accepted ballots per key in a {@link io.ringbase.cluster.paxos.PaxosStore} that survives a
 * restart; {@link io.ringbase.cluster.paxos.PaxosMessages} is their wire encoding (docs/internal-protocol-v2.md,
 * "Paxos"). Ballots are hybrid logical clock readings, unique per node by their node bits.
 *
 * <p>Depends on {@code cluster.replication} (replicas, placement), {@code storage}, {@code clock} and
 * {@code kv}'s conditions; nothing in {@code cluster.replication} or {@code cluster.rpc} depends on it but
 * the node-to-node server, which hands it message bytes.
 */
package io.ringbase.cluster.paxos;
