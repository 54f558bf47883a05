/**
 * Files a node reloads while it runs, without a restart: {@link io.ringbase.reload.FileWatch} notices
 * that one changed and calls its owner's reload (the client token file, the TLS certificate and key).
 * Depends on nothing else of Ringbase.
 */
package io.ringbase.reload;
