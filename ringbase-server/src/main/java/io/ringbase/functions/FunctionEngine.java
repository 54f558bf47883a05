package io.ringbase.functions;

import java.util.Locale;

/**
 * What runs a function's code ({@code serve --functions-engine}, docs/functions.md, "Engines"). Both stop a
 * call at its time limit the same way: they check their thread's interrupt flag, which the
 * {@link CallWatchdog} sets, on every loop back-edge and call.
 */
public enum FunctionEngine {
    /** Chicory's interpreter: no compile step, slower per instruction. */
    INTERPRETER,
    /**
     * Chicory's compiler to JVM bytecode: a module is compiled once (when it is loaded, cached by its hash)
     * and its functions then run as JVM methods that the JIT compiles further.
     */
    COMPILER;

    /** The engine a node runs when none is given (the faster one measured, bench/RESULTS.md). */
    public static final FunctionEngine DEFAULT = COMPILER;

    /** The name on the command line: {@code interpreter} or {@code compiler}. */
    public String flagName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The engine named {@code name} ({@code interpreter} or {@code compiler}).
     *
     * @throws IllegalArgumentException naming the value and the choices
     */
    public static FunctionEngine parse(String name) {
        for (FunctionEngine engine : values()) {
            if (engine.flagName().equals(name)) {
                return engine;
            }
        }
        throw new IllegalArgumentException("--functions-engine must be interpreter or compiler, got '" + name + "'");
    }
}
