package io.ringbase.functions;

import com.dylibso.chicory.compiler.InterpreterFallback;
import com.dylibso.chicory.compiler.MachineFactoryCompiler;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.runtime.Machine;
import com.dylibso.chicory.wasm.WasmModule;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Makes the machine that runs a module's code for the node's {@link FunctionEngine}: Chicory's interpreter,
 * or its compiler to JVM bytecode. Compiling takes time (tens to hundreds of ms for a small module, more
 * for a large one), so compiled modules are kept by the SHA-256 of their bytes, at most
 * {@code capacity} of them, the least recently used dropped first; a dropped module is compiled again
 * on its next use. A function too large for the compiler (a JVM method is at most 64 KiB of bytecode) runs
 * those functions in the interpreter, which Chicory's compiler arranges itself.
 *
 * <p>Thread-safe. Two jobs that miss the same module at once may both compile it; one result is kept.
 */
public final class Machines {

    /** Compiled modules kept by default. */
    public static final int DEFAULT_CAPACITY = 32;

    private final FunctionEngine engine;
    private final int capacity;
    private final Map<String, Function<Instance, Machine>> compiled; // guarded by this
    private long compiles; // guarded by this

    /**
     * @param engine   what runs the modules
     * @param capacity compiled modules kept, &gt; 0 (unused by the interpreter)
     * @throws IllegalArgumentException if {@code capacity} is not positive
     */
    public Machines(FunctionEngine engine, int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("compiled module cache must hold > 0 modules, got " + capacity);
        }
        this.engine = engine;
        this.capacity = capacity;
        this.compiled = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Function<Instance, Machine>> eldest) {
                return size() > Machines.this.capacity;
            }
        };
    }

    /** The engine these machines are made for. */
    public FunctionEngine engine() {
        return engine;
    }

    /** The key a module is cached under: the hex SHA-256 of its bytes. */
    static String hash(byte[] module) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(module));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /**
     * The machine factory for {@code module} (whose bytes hash to {@code hash}), compiled now if it is not
     * cached; {@code null} for the interpreter (Chicory's default machine).
     *
     * @throws com.dylibso.chicory.wasm.ChicoryException if the compiler refuses the module
     */
    @Nullable
    Function<Instance, Machine> factory(String hash, WasmModule module) {
        if (engine == FunctionEngine.INTERPRETER) {
            return null;
        }
        synchronized (this) {
            Function<Instance, Machine> cached = compiled.get(hash);
            if (cached != null) {
                return cached;
            }
        }
        Function<Instance, Machine> factory = MachineFactoryCompiler.builder(module)
                .withInterpreterFallback(InterpreterFallback.SILENT)
                .compile();
        synchronized (this) {
            compiles++;
            Function<Instance, Machine> raced = compiled.putIfAbsent(hash, factory);
            return raced != null ? raced : factory;
        }
    }

    /** Modules compiled so far (a cache miss each). */
    synchronized long compiles() {
        return compiles;
    }

    /** Compiled modules held now, at most the capacity. */
    synchronized int cached() {
        return compiled.size();
    }
}
