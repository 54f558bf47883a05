/**
 * Authentication of requests: between nodes and from operators, HMAC-SHA256 signatures under the shared
 * cluster secret ({@link io.ringbase.auth.RequestSigner}); from clients, bearer tokens with permissions and
 * an optional key prefix, read from the token file and reloaded when it changes
 * ({@link io.ringbase.auth.ClientTokens}, {@link io.ringbase.auth.TokenFile}). Used by the node-to-node
 * protocol ({@code cluster.rpc}), by the API ({@code api}) and by the command line ({@code cli}), so it sits
 * below all three and depends on nothing of Ringbase's. Thread-safe. No class here logs or keeps a token
 * as text: tokens are held as SHA-256 digests, and errors name a token by its name.
 */
package io.ringbase.auth;
