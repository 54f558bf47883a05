package io.ringbase.functions;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** The checked-in test modules of src/test/resources/functions (built from their .wat by build.sh there). */
public final class TestModules {
    private TestModules() {}

    /** The bytes of {@code functions/<name>.wasm}. */
    public static byte[] wasm(String name) {
        try (InputStream in = TestModules.class.getResourceAsStream("/functions/" + name + ".wasm")) {
            if (in == null) {
                throw new IllegalArgumentException("no test module " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
