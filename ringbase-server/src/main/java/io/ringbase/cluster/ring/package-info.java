/**
 * Placement: which nodes hold a key ({@link io.ringbase.cluster.ring.Ring}, rendezvous hashing), and the
 * placement of one metadata epoch ({@link io.ringbase.cluster.ring.Placement}: the ring reads use and the
 * ring a membership change moves to, whose pending replicas writes also reach), and which replica processes a key in a distributed function job
 * ({@link io.ringbase.cluster.ring.ShareAssignment}).
 */
package io.ringbase.cluster.ring;
