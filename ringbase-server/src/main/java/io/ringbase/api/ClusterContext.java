package io.ringbase.api;

import io.ringbase.auth.RequestSigner;
import io.ringbase.cluster.repair.RepairSource;
import io.ringbase.cluster.replication.Coordinator;

/**
 * What the HTTP API of a cluster node needs beyond its engine.
 *
 * @param coordinator coordinates public requests over the cluster's replicas
 * @param signer      checks internal requests' HMAC, or {@code null} when no cluster secret is set
 * @param repair      the anti-entropy repair service behind {@code /v0/admin/repair}, or {@code null}
 * @param repairSource answers other nodes' anti-entropy requests (trees, differing entries)
 */
public record ClusterContext(Coordinator coordinator, RequestSigner signer, RepairControl repair,
                             RepairSource repairSource) {
}
