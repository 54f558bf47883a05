/**
 * Throttling of background byte streams: a token bucket of bytes
 * ({@link io.ringbase.throttle.ByteRateLimiter}) and the wait it uses ({@link io.ringbase.throttle.Sleeper}),
 * shared by streaming, repair and compaction. Depends on nothing else of Ringbase.
 */
package io.ringbase.throttle;
