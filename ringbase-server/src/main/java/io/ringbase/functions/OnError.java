package io.ringbase.functions;

import java.util.Locale;

/** What a job does when a call fails (docs/functions.md, "Errors"). */
public enum OnError {
    /** End the job at the first failure (the default). */
    STOP,
    /** Count the failure, report the first few, and go on with the next key. */
    SKIP;

    /**
     * The choice named {@code s}: {@code stop} or {@code skip}.
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static OnError parse(String s) {
        for (OnError o : values()) {
            if (o.name().toLowerCase(Locale.ROOT).equals(s)) {
                return o;
            }
        }
        throw new IllegalArgumentException("onError must be stop or skip, got '" + s + "'");
    }
}
