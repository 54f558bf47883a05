package io.ringbase.functions;

import java.util.List;
import java.util.Locale;

/** What a job does with each record (docs/functions.md): the entry points it calls. */
public enum ProcessMode {
    /** Calls {@code map}; the emitted records are the job's output. */
    MAP(FunctionAbi.MAP),
    /** Calls {@code map} for partials and folds them with {@code combine}, per node then at the coordinator. */
    REDUCE(FunctionAbi.MAP, FunctionAbi.COMBINE),
    /** Calls {@code update} and writes back its new value or tombstone, conditional on the version read. */
    UPDATE(FunctionAbi.UPDATE);

    @SuppressWarnings("ImmutableEnumChecker") // an array copied out, never handed out
    private final String[] exports;

    ProcessMode(String... exports) {
        this.exports = exports;
    }

    /** The entry points a module must export to run in this mode. */
    public List<String> exports() {
        return List.of(exports);
    }

    /** The name used in the API and metrics: {@code map}, {@code reduce}, {@code update}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The mode named {@code s}.
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static ProcessMode parse(String s) {
        for (ProcessMode m : values()) {
            if (m.label().equals(s)) {
                return m;
            }
        }
        throw new IllegalArgumentException("mode must be map, reduce or update, got '" + s + "'");
    }
}
