/**
 * What Ringbase asks of the operating system beyond what the JDK offers: per-thread CPU priority for
 * background work ({@link io.ringbase.os.ThreadPriority}). Depends on nothing else of Ringbase.
 */
package io.ringbase.os;
