/**
 * Time: the {@link io.ringbase.clock.TimeSource} every other package reads wall-clock time from (the only
 * place that calls the system clock), and the hybrid logical clock that stamps every write
 * ({@link io.ringbase.clock.HybridLogicalClock}, Kulkarni et al., "Logical Physical Clocks", 2014).
 * Depends on nothing above {@code logging}. Thread-safe.
 */
package io.ringbase.clock;
