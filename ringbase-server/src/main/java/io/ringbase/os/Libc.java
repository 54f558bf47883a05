package io.ringbase.os;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.NoSuchElementException;

/**
 * Downcall handles to the C library's functions, for the classes of this package: one place that
 * holds the native linker and the C library's symbols ({@link Linker#defaultLookup()}) instead of a
 * copy of both in each class. Each class still builds its handles in its own static initializer and
 * falls back on its own when the C library is out of reach (not Linux, no native access).
 */
final class Libc {

    private Libc() {}

    /**
     * A handle to the C library's function {@code name}.
     *
     * @throws NoSuchElementException if the C library has no such symbol
     * @throws IllegalCallerException if native access is not enabled for this module
     * @throws IllegalArgumentException or {@link LinkageError} if the linker cannot link it as described
     */
    static MethodHandle function(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        return linker.downcallHandle(libc.find(name).orElseThrow(), descriptor, options);
    }
}
