/**
 * The Java client of Ringbase's HTTP API ({@code docs/http-api.md}): {@link io.ringbase.client.RingbaseClient}.
 * It depends on nothing but the JDK: requests go over {@link java.net.http.HttpClient}, which pools and
 * reuses connections per node.
 */
package io.ringbase.client;
