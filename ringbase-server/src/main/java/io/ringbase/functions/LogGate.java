package io.ringbase.functions;

import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a function's {@code log} calls go: the node's log at INFO, each line truncated to
 * {@value #MAX_LINE_BYTES} bytes, at most {@value #LINES_PER_SECOND} lines a second per job; lines past
 * that are counted and dropped, and the next line logged says how many. Thread-safe.
 */
public final class LogGate {

    /** The longest line logged, bytes of the function's output. */
    static final int MAX_LINE_BYTES = 256;
    /** Lines logged per second and job. */
    static final int LINES_PER_SECOND = 10;

    /** A gate that drops everything (module checks at upload). */
    static final LogGate NONE = new LogGate("", false);

    private static final Logger log = LoggerFactory.getLogger(LogGate.class);

    private final String source;
    private final boolean enabled;
    private long windowStartNanos; // guarded by this
    private int linesInWindow; // guarded by this
    private long dropped; // guarded by this

    /** @param source names the job in each line, e.g. {@code job 7 (function 'wc')} */
    public LogGate(String source) {
        this(source, true);
    }

    private LogGate(String source, boolean enabled) {
        this.source = source;
        this.enabled = enabled;
        this.windowStartNanos = System.nanoTime();
    }

    /** Logs {@code bytes} (UTF-8 from the module), or counts it as dropped. */
    void line(byte[] bytes) {
        if (!enabled) {
            return;
        }
        long heldBack;
        synchronized (this) {
            long now = System.nanoTime();
            if (now - windowStartNanos >= 1_000_000_000L) {
                windowStartNanos = now;
                linesInWindow = 0;
            }
            if (linesInWindow >= LINES_PER_SECOND) {
                dropped++;
                return;
            }
            linesInWindow++;
            heldBack = dropped;
            dropped = 0;
        }
        int n = Math.min(bytes.length, MAX_LINE_BYTES);
        String text = new String(bytes, 0, n, StandardCharsets.UTF_8).replace('\n', ' ');
        if (heldBack > 0) {
            log.info("{}: {} ({} earlier lines dropped by the rate limit)", source, text, heldBack);
        } else {
            log.info("{}: {}", source, text);
        }
    }

    /** Lines dropped and not yet reported. */
    synchronized long dropped() {
        return dropped;
    }
}
