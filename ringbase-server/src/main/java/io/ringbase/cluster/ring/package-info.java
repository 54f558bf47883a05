/** Placement: which nodes hold a key ({@link io.ringbase.cluster.ring.Ring}, rendezvous hashing). */
package io.ringbase.cluster.ring;
