/**
 * What Ringbase asks of the operating system beyond what the JDK offers: per-thread CPU priority for
 * background work ({@link io.ringbase.os.ThreadPriority}), reads with {@code pread} that bypass a file
 * mapping ({@link io.ringbase.os.NativeFile}), and how much of a mapping is in the page cache
 * ({@link io.ringbase.os.PageResidency}), all three through the C library's handles of {@code Libc}; and
 * how long ago the process was launched ({@link io.ringbase.os.ProcessAge}, from {@code /proc}). Depends on
 * nothing else of Ringbase.
 */
package io.ringbase.os;
