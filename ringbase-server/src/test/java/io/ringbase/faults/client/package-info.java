/**
 * The fault suite's clients: HTTP calls to one coordinator with each answer classified as an outcome
 * ({@link io.ringbase.faults.client.NodeApi}), and the concurrent workload that records every operation
 * in a {@link io.ringbase.faults.history.History} ({@link io.ringbase.faults.client.Workload}).
 */
package io.ringbase.faults.client;
