package io.ringbase.functions;

/**
 * The limits of one call of a function's entry point (docs/functions.md, "Limits").
 *
 * @param callTimeoutMs  wall-clock time a call may take before it is interrupted, ms, &gt; 0 (default 1000)
 * @param memoryPages    the most 64 KiB pages a module's memory may grow to, 1..65536 (default 256, 16 MiB)
 * @param outputBytes    keys and values one call may emit, bytes, &gt; 0 (default 1 MiB)
 */
public record FunctionLimits(long callTimeoutMs, int memoryPages, long outputBytes) {

    /** The largest module an upload may carry, bytes (1 MiB); a larger one is refused with 413. */
    public static final int MAX_MODULE_BYTES = 1 << 20;

    /** The defaults: 1000 ms, 256 pages, 1 MiB. */
    public static final FunctionLimits DEFAULTS = new FunctionLimits(1000, 256, 1 << 20);

    /** @throws IllegalArgumentException naming the value out of range */
    public FunctionLimits {
        if (callTimeoutMs <= 0) {
            throw new IllegalArgumentException("function call timeout must be > 0 ms, got " + callTimeoutMs);
        }
        if (memoryPages < 1 || memoryPages > 65536) {
            throw new IllegalArgumentException("function memory must be 1..65536 pages, got " + memoryPages);
        }
        if (outputBytes <= 0) {
            throw new IllegalArgumentException("function output limit must be > 0 bytes, got " + outputBytes);
        }
    }
}
