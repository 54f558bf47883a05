/**
 * Netty's transport choice for the whole node: native epoll when available, else NIO, and the event
 * loop group that the HTTP server and the node-to-node replica client share, so a coordinated request
 * and the replica calls it makes run on one thread ({@link io.ringbase.transport.Transport}).
 */
package io.ringbase.transport;
