/**
 * Authentication of requests between nodes and from operators: HMAC-SHA256 signatures under the shared
 * cluster secret ({@link io.ringbase.auth.RequestSigner}). Used by the node-to-node protocol
 * ({@code cluster.rpc}), by the admin API ({@code api}) and by the admin command line ({@code cli}), so it
 * sits below all three and depends on nothing of Ringbase's. Thread-safe.
 */
package io.ringbase.auth;
