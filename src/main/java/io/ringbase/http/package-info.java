/**
 * The HTTP API (Netty): request parsing and validation, the bounded request executor, streaming range responses, and the one place that maps outcomes and errors to status codes.
 */
package io.ringbase.http;
