package io.ringbase.functions;

import java.nio.charset.StandardCharsets;

/**
 * One call of a function failed: it trapped, passed a limit, returned an error code or broke the ABI. The
 * message names the function, the key and the cause, as {@code function 'f' failed on key 'k': cause}.
 */
public final class FunctionFailedException extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * @param function the function's name
     * @param key      the key of the record the call was for (empty for a {@code combine})
     * @param cause    what went wrong, one line
     */
    public FunctionFailedException(String function, byte[] key, String cause) {
        super("function '" + function + "' failed on " + describe(key) + ": " + cause);
    }

    private static String describe(byte[] key) {
        if (key.length == 0) {
            return "combine";
        }
        String s = new String(key, StandardCharsets.UTF_8);
        return "key '" + (s.length() <= 64 ? s : s.substring(0, 64) + "...") + "'";
    }
}
