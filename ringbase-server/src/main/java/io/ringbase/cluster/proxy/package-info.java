/**
 * The cluster's side of the key-value service: {@link io.ringbase.cluster.proxy.ClusterKeyValueService}
 * implements {@code kv.KeyValueService} over the coordinator and cluster range scans, as Cassandra's
 * {@code StorageProxy} stands between its API and its replicas. Depends on {@code kv},
 * {@code cluster.replication} and {@code cluster.scan}; nothing in the cluster depends on it.
 */
package io.ringbase.cluster.proxy;
