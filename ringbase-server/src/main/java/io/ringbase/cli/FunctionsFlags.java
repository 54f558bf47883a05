package io.ringbase.cli;

import io.ringbase.functions.FunctionEngine;
import picocli.CommandLine.Option;

/** The server-side function flags of {@code serve}: what runs the functions' code (docs/functions.md, "Engines"). */
final class FunctionsFlags {

    @Option(
            names = "--functions-engine",
            defaultValue = "compiler",
            paramLabel = "interpreter|compiler",
            description = "What runs server-side functions (WebAssembly): 'compiler' compiles each module to JVM "
                    + "bytecode once (Chicory's compiler, cached by the module's hash), 'interpreter' runs it in "
                    + "Chicory's interpreter. Both stop a call at its time limit (default: ${DEFAULT-VALUE}).")
    String engine;

    /**
     * The engine asked for.
     *
     * @throws IllegalArgumentException naming the value and the choices
     */
    FunctionEngine engine() {
        return FunctionEngine.parse(engine);
    }
}
