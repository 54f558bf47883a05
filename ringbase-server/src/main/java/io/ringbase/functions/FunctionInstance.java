package io.ringbase.functions;

import com.dylibso.chicory.runtime.ExportFunction;
import com.dylibso.chicory.runtime.HostFunction;
import com.dylibso.chicory.runtime.ImportValues;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.runtime.Machine;
import com.dylibso.chicory.runtime.Memory;
import com.dylibso.chicory.runtime.TrapException;
import com.dylibso.chicory.wasm.WasmModule;
import com.dylibso.chicory.wasm.types.MemoryLimits;
import io.ringbase.storage.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One instance of a {@link WasmFunction}: its memory and globals, called for one record at a time under
 * the {@link FunctionLimits}. Used by one thread at a time; a job keeps one instance for all its records
 * (instantiating per record would cost more than most functions' work).
 *
 * <p>Every failure of a call (trap, limit, error code, ABI broken) is a {@link FunctionFailedException}
 * naming the key; the instance stays usable after it (the next call starts from fresh input).
 */
public final class FunctionInstance {

    /** An output record of {@code map}. */
    public record Emitted(byte[] key, byte[] value) {}

    /** What an {@code update} call decided. */
    public sealed interface Update {
        /** Nothing to write. */
        record Unchanged() implements Update {}

        /** Write {@code value}. */
        record Replace(byte[] value) implements Update {}

        /** Write a tombstone. */
        record Delete() implements Update {}
    }

    private static final String STACK_EXHAUSTED = "call stack exhausted";

    private static final Update UNCHANGED = new Update.Unchanged();
    private static final Update DELETE = new Update.Delete();

    private final WasmFunction function;
    private final Instance instance;
    private final Memory memory;
    private final FunctionLimits limits;
    private final CallWatchdog watchdog;
    private final Output output;
    private final ExportFunction alloc;
    private final @Nullable ExportFunction map;
    private final @Nullable ExportFunction combine;
    private final @Nullable ExportFunction update;

    FunctionInstance(
            WasmFunction function, Instance instance, FunctionLimits limits, CallWatchdog watchdog, Output output) {
        this.function = function;
        this.instance = instance;
        this.memory = instance.memory();
        this.limits = limits;
        this.watchdog = watchdog;
        this.output = output;
        this.alloc = instance.export(FunctionAbi.ALLOC);
        this.map = function.supports(ProcessMode.MAP) ? instance.export(FunctionAbi.MAP) : null;
        this.combine = function.supports(ProcessMode.REDUCE) ? instance.export(FunctionAbi.COMBINE) : null;
        this.update = function.supports(ProcessMode.UPDATE) ? instance.export(FunctionAbi.UPDATE) : null;
    }

    /**
     * Instantiates {@code module} with the host functions writing to {@code output}, under the time limit,
     * on {@code machine} ({@code null}: Chicory's interpreter).
     */
    static Instance instantiate(
            WasmModule module,
            @Nullable Function<Instance, Machine> machine,
            MemoryLimits memory,
            Output output,
            CallWatchdog watchdog,
            FunctionLimits limits,
            LogGate log,
            String name)
            throws FunctionFailedException {
        HostFunction emit =
                new HostFunction(FunctionAbi.HOST_MODULE, FunctionAbi.EMIT, FunctionAbi.EMIT_TYPE, (inst, args) -> {
                    Memory m = inst.memory();
                    byte[] key = m.readBytes((int) args[0], (int) args[1]);
                    byte[] value = m.readBytes((int) args[2], (int) args[3]);
                    output.add(key, value);
                    return new long[] {0};
                });
        HostFunction logLine =
                new HostFunction(FunctionAbi.HOST_MODULE, FunctionAbi.LOG, FunctionAbi.LOG_TYPE, (inst, args) -> {
                    int len = (int) Math.min(Math.max(args[1], 0), LogGate.MAX_LINE_BYTES);
                    log.line(inst.memory().readBytes((int) args[0], len));
                    return null;
                });
        CallWatchdog.Call call = watchdog.start(limits.callTimeoutMs());
        try {
            Instance.Builder builder = Instance.builder(module)
                    .withImportValues(
                            ImportValues.builder().addFunction(emit, logLine).build())
                    .withMemoryLimits(memory);
            if (machine != null) {
                builder.withMachineFactory(machine);
            }
            return builder.build();
        } catch (RuntimeException e) {
            throw failure(name, new byte[0], e, call, limits);
        } finally {
            call.finish();
        }
    }

    /** The machine that runs the calls: Chicory's interpreter or the module's compiled code. */
    Machine machine() {
        return instance.getMachine();
    }

    /** The module's {@code ringbase_abi_version}. */
    int abiVersion() throws FunctionFailedException {
        return (int) call(instance.export(FunctionAbi.ABI_VERSION), new byte[0])[0];
    }

    /**
     * Calls {@code map} on {@code entry} (a live value).
     *
     * @return what it emitted, in order
     * @throws FunctionFailedException if the call failed or returned an error code
     */
    public List<Emitted> map(Entry entry) throws FunctionFailedException {
        ExportFunction f = entryPoint(map, ProcessMode.MAP, entry.key());
        int code = callOnRecord(f, entry);
        if (code != 0) {
            throw new FunctionFailedException(function.name(), entry.key(), "map returned error code " + code);
        }
        return output.take();
    }

    /**
     * Calls {@code combine} on two partials.
     *
     * @return the one value it emitted
     * @throws FunctionFailedException if the call failed, returned an error code or did not emit exactly once
     */
    public byte[] combine(byte[] a, byte[] b) throws FunctionFailedException {
        byte[] none = new byte[0];
        ExportFunction f = entryPoint(combine, ProcessMode.REDUCE, none);
        int p = place(none, a.length + b.length);
        memory.write(p, a);
        memory.write(p + a.length, b);
        output.take();
        int code = (int) call(f, none, p, a.length, p + a.length, b.length)[0];
        List<Emitted> out = output.take();
        if (code != 0) {
            throw new FunctionFailedException(function.name(), none, "combine returned error code " + code);
        }
        if (out.size() != 1) {
            throw new FunctionFailedException(
                    function.name(), none, "combine must emit exactly one value, emitted " + out.size());
        }
        return out.getFirst().value();
    }

    /**
     * Calls {@code update} on {@code entry} (a live value).
     *
     * @throws FunctionFailedException if the call failed, returned an unknown result, or replaced without
     *                                 exactly one emit
     */
    public Update update(Entry entry) throws FunctionFailedException {
        ExportFunction f = entryPoint(update, ProcessMode.UPDATE, entry.key());
        int code = callOnRecord(f, entry);
        List<Emitted> out = output.take();
        return switch (code) {
            case FunctionAbi.UPDATE_UNCHANGED -> UNCHANGED;
            case FunctionAbi.UPDATE_DELETE -> DELETE;
            case FunctionAbi.UPDATE_REPLACE -> {
                if (out.size() != 1) {
                    throw new FunctionFailedException(
                            function.name(),
                            entry.key(),
                            "update returned 1 (replace) but emitted " + out.size() + " values, not one");
                }
                yield new Update.Replace(out.getFirst().value());
            }
            default ->
                throw new FunctionFailedException(function.name(), entry.key(), "update returned error code " + code);
        };
    }

    private ExportFunction entryPoint(@Nullable ExportFunction f, ProcessMode mode, byte[] key)
            throws FunctionFailedException {
        if (f == null) {
            throw new FunctionFailedException(function.name(), key, "the module cannot run in mode " + mode.label());
        }
        return f;
    }

    private int callOnRecord(ExportFunction f, Entry entry) throws FunctionFailedException {
        byte[] key = entry.key();
        byte[] bare = entry.bareValue(); // a function sees the client's value, never a content type prefix
        byte[] value = bare == null ? new byte[0] : bare;
        int p = place(key, key.length + value.length + FunctionAbi.META_BYTES);
        memory.write(p, key);
        memory.write(p + key.length, value);
        int meta = p + key.length + value.length;
        memory.writeLong(meta, entry.version());
        memory.writeLong(meta + 8, entry.expiresAtMs());
        output.take();
        return (int) call(f, key, p, key.length, p + key.length, value.length, meta)[0];
    }

    /** Calls {@code alloc(size)} and checks the region is inside memory. */
    private int place(byte[] key, int size) throws FunctionFailedException {
        long p = call(alloc, key, size)[0] & 0xFFFF_FFFFL;
        long end = (long) memory.pages() * Memory.PAGE_SIZE;
        if (p == 0 || p + size > end) {
            throw new FunctionFailedException(
                    function.name(),
                    key,
                    "alloc(" + size + ") returned " + p + ", outside the memory of " + end + " bytes (out of memory?)");
        }
        return (int) p;
    }

    private long[] call(ExportFunction f, byte[] key, long... args) throws FunctionFailedException {
        CallWatchdog.Call call = watchdog.start(limits.callTimeoutMs());
        try {
            return f.apply(args);
        } catch (RuntimeException | StackOverflowError e) {
            throw failure(function.name(), key, e, call, limits);
        } finally {
            call.finish();
        }
    }

    private static FunctionFailedException failure(
            String name, byte[] key, Throwable e, CallWatchdog.Call call, FunctionLimits limits) {
        if (call.timedOut()) {
            return new FunctionFailedException(name, key, "call took over " + limits.callTimeoutMs() + " ms");
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OutputLimitException) {
                return new FunctionFailedException(name, key, t.getMessage());
            }
        }
        // Chicory ends deep recursion with a ChicoryException of this message in both engines; a
        // StackOverflowError can still come out of host code
        if (e instanceof StackOverflowError || STACK_EXHAUSTED.equals(e.getMessage())) {
            return new FunctionFailedException(name, key, "trap: " + STACK_EXHAUSTED);
        }
        String kind = e instanceof TrapException ? "trap" : "failed";
        return new FunctionFailedException(name, key, kind + ": " + e.getMessage());
    }

    /** What the calls of one instance emit, up to the output limit per call. Used by one thread at a time. */
    static final class Output {
        /** Refuses every emit: the probe instance made at upload. */
        static final Output NONE = new Output(0);

        private final long limitBytes;
        private List<Emitted> records = new ArrayList<>();
        private long bytes;

        Output(long limitBytes) {
            this.limitBytes = limitBytes;
        }

        void add(byte[] key, byte[] value) {
            bytes += key.length + value.length;
            if (bytes > limitBytes) {
                throw new OutputLimitException(limitBytes);
            }
            records.add(new Emitted(key, value));
        }

        /** The records emitted since the last take; resets the count. */
        List<Emitted> take() {
            List<Emitted> out = records;
            records = new ArrayList<>();
            bytes = 0;
            return out;
        }
    }

    /** An emit past the output limit. */
    static final class OutputLimitException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OutputLimitException(long limitBytes) {
            super("output limit passed: a call may emit at most " + limitBytes + " bytes");
        }
    }
}
