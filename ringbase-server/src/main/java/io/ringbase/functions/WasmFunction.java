package io.ringbase.functions;

import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasm.ChicoryException;
import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.WasmModule;
import com.dylibso.chicory.wasm.types.MemoryLimits;
import java.util.List;

/**
 * A module that passed the ABI's checks, parsed once: what {@link FunctionInstance}s are made from. A
 * module is checked by {@link #load}: parsed, its imports and memory checked, instantiated once under the
 * limits, its exports checked and its {@code ringbase_abi_version} called. With the compiler
 * ({@link FunctionEngine#COMPILER}) the module is also compiled then; the compiled form is kept by
 * {@link Machines}, not here, so that its cache stays bounded. Immutable and thread-safe.
 */
public final class WasmFunction {

    private final String name;
    private final WasmModule module;
    private final MemoryLimits memory;
    private final List<ProcessMode> modes;
    private final int sizeBytes;
    private final String hash;
    private final Machines machines;

    private WasmFunction(
            String name,
            WasmModule module,
            MemoryLimits memory,
            List<ProcessMode> modes,
            int size,
            String hash,
            Machines machines) {
        this.name = name;
        this.module = module;
        this.memory = memory;
        this.modes = modes;
        this.sizeBytes = size;
        this.hash = hash;
        this.machines = machines;
    }

    /**
     * Parses and checks {@code bytes} as function {@code name}, to run on {@code machines}.
     *
     * @throws InvalidModuleException with the reason: not WebAssembly, an import or export the ABI does not
     *                                allow, more memory than the limit, or a start or version call that fails
     */
    public static WasmFunction load(
            String name, byte[] bytes, FunctionLimits limits, CallWatchdog watchdog, Machines machines)
            throws InvalidModuleException {
        if (bytes.length > FunctionLimits.MAX_MODULE_BYTES) {
            throw new InvalidModuleException(
                    "module is " + bytes.length + " bytes; the limit is " + FunctionLimits.MAX_MODULE_BYTES);
        }
        WasmModule module;
        try {
            module = Parser.parse(bytes);
        } catch (ChicoryException | IllegalArgumentException e) {
            throw new InvalidModuleException("not a valid WebAssembly module: " + e.getMessage());
        }
        FunctionAbi.checkImports(module);
        if (module.memorySection().isEmpty() || module.memorySection().get().memoryCount() != 1) {
            throw new InvalidModuleException("missing export 'memory' (a module must define one memory)");
        }
        MemoryLimits declared = module.memorySection().get().getMemory(0).limits();
        if (declared.initialPages() > limits.memoryPages()) {
            throw new InvalidModuleException("module's memory starts at " + declared.initialPages()
                    + " pages; the limit is " + limits.memoryPages());
        }
        MemoryLimits capped =
                new MemoryLimits(declared.initialPages(), Math.min(declared.maximumPages(), limits.memoryPages()));
        String hash = Machines.hash(bytes);
        WasmFunction checked;
        FunctionInstance probe;
        try {
            Instance instance = FunctionInstance.instantiate(
                    module,
                    machines.factory(hash, module),
                    capped,
                    FunctionInstance.Output.NONE,
                    watchdog,
                    limits,
                    LogGate.NONE,
                    name);
            List<ProcessMode> modes = FunctionAbi.checkExports(module, instance);
            checked = new WasmFunction(name, module, capped, modes, bytes.length, hash, machines);
            probe = new FunctionInstance(checked, instance, limits, watchdog, FunctionInstance.Output.NONE);
        } catch (FunctionFailedException e) {
            throw new InvalidModuleException("instantiating the module failed: " + e.getMessage());
        } catch (ChicoryException e) {
            throw new InvalidModuleException("not a valid WebAssembly module: " + e.getMessage());
        }
        int version;
        try {
            version = probe.abiVersion();
        } catch (FunctionFailedException e) {
            throw new InvalidModuleException("ringbase_abi_version failed: " + e.getMessage());
        }
        if (version != FunctionAbi.VERSION) {
            throw new InvalidModuleException(
                    "ringbase_abi_version returned " + version + "; this node speaks " + FunctionAbi.VERSION);
        }
        return checked;
    }

    /**
     * A new instance, for one job on one thread at a time (compiling the module again if the compiled
     * form was dropped from the cache since).
     *
     * @param log where the module's {@code log} calls go
     * @throws FunctionFailedException if instantiating (the start function, data segments) fails
     */
    public FunctionInstance instantiate(FunctionLimits limits, CallWatchdog watchdog, LogGate log)
            throws FunctionFailedException {
        FunctionInstance.Output output = new FunctionInstance.Output(limits.outputBytes());
        Instance instance;
        try {
            instance = FunctionInstance.instantiate(
                    module, machines.factory(hash, module), memory, output, watchdog, limits, log, name);
        } catch (ChicoryException e) {
            throw new FunctionFailedException(name, new byte[0], "compiling the module failed: " + e.getMessage());
        }
        return new FunctionInstance(this, instance, limits, watchdog, output);
    }

    /** The function's name. */
    public String name() {
        return name;
    }

    /** The hash of the module's bytes ({@link Machines#hash}): the same module on every node has the same. */
    String hash() {
        return hash;
    }

    /** The modes it can run in. */
    public List<ProcessMode> modes() {
        return modes;
    }

    /** Whether it can run in {@code mode}. */
    public boolean supports(ProcessMode mode) {
        return modes.contains(mode);
    }

    /** The engine it runs on. */
    public FunctionEngine engine() {
        return machines.engine();
    }

    /** The module's size, bytes. */
    public int sizeBytes() {
        return sizeBytes;
    }
}
