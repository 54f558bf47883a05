package io.ringbase.functions;

import io.ringbase.kv.KeyValueService;
import io.ringbase.kv.QuorumException;
import io.ringbase.kv.SystemKeys;
import io.ringbase.kv.Versioned;
import io.ringbase.storage.Entry;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The functions of the cluster, kept as replicated values in the system keyspace
 * ({@link SystemKeys#function}), written with the default quorum write and read back with the default
 * quorum read, so that any node can run them, also after a restart, and a node that joins gets them as it
 * gets any data. Works alike in a static cluster and an elastic one. Parsed modules are cached by name and
 * checksum; every lookup reads the stored value, so a replaced or deleted function is never run stale.
 *
 * <p>Stored value (docs/functions.md, "Where modules are stored"):
 * {@code magic "RBFN" | version u8 = 1 | crc32c u32le of the module | module}.
 *
 * <p>Calls block until the quorum answers (at most {@value #WAIT_MS} ms): call them from workers.
 * Thread-safe.
 */
public final class FunctionStore {

    /** Longest wait for a quorum, ms. */
    static final long WAIT_MS = 30_000;

    private static final byte[] MAGIC = "RBFN".getBytes(StandardCharsets.US_ASCII);
    /** The stored format's version. Do not change; add one. */
    private static final byte FORMAT_VERSION = 1;

    private static final int HEADER_SIZE = 4 + 1 + 4; // magic, version, crc32c

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private final KeyValueService kv;
    private final FunctionLimits limits;
    private final CallWatchdog watchdog;
    private final Machines machines;
    private final ConcurrentHashMap<String, Cached> cache = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong hits = new java.util.concurrent.atomic.AtomicLong();

    private record Cached(int crc, WasmFunction function) {}

    /**
     * @param kv       where modules are stored
     * @param limits   what uploaded modules are checked against
     * @param watchdog times the calls of the checks
     * @param machines what runs the modules (and compiles them, with the compiler)
     */
    public FunctionStore(KeyValueService kv, FunctionLimits limits, CallWatchdog watchdog, Machines machines) {
        this.kv = kv;
        this.limits = limits;
        this.watchdog = watchdog;
        this.machines = machines;
    }

    /**
     * Checks a function's name: 1 to 64 of {@code A-Z a-z 0-9 _ . -}.
     *
     * @throws IllegalArgumentException saying what is wrong
     */
    public static void checkName(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "a function name is 1 to 64 of A-Z a-z 0-9 _ . -, got '" + abbreviate(name) + "'");
        }
    }

    /**
     * Checks {@code module} against the ABI and stores it as {@code name}, replacing any function of that name.
     *
     * @return the version written
     * @throws InvalidModuleException  if the module is refused (nothing stored)
     * @throws QuorumException         if too few replicas acknowledged
     * @throws IOException             as the write
     */
    public long put(String name, byte[] module) throws InvalidModuleException, QuorumException, IOException {
        checkName(name);
        WasmFunction function = WasmFunction.load(name, module, limits, watchdog, machines);
        byte[] stored = encode(module);
        long version = await(
                kv.put(SystemKeys.function(name), MemorySegment.ofArray(stored), Entry.NO_EXPIRY, kv.defaultQuorum()));
        cache.put(name, new Cached(crc(module), function));
        return version;
    }

    /**
     * The stored module of {@code name}, or {@code null} if there is none.
     *
     * @throws IOException if the stored value is not a module in the stored format
     */
    public byte @Nullable [] get(String name) throws QuorumException, IOException {
        Versioned stored = getVersioned(name);
        return stored == null ? null : stored.value();
    }

    /**
     * The stored module of {@code name} with the version of its value, or {@code null} if there is none.
     *
     * @throws IOException if the stored value is not a module in the stored format
     */
    public @Nullable Versioned getVersioned(String name) throws QuorumException, IOException {
        checkName(name);
        Versioned stored = await(kv.get(SystemKeys.function(name), kv.defaultQuorum()));
        return stored == null ? null : new Versioned(decode(name, stored.value()), stored.version());
    }

    /** Deletes {@code name} (a tombstone, whether or not it existed); the tombstone's version. */
    public long delete(String name) throws QuorumException, IOException {
        checkName(name);
        long version = await(kv.delete(SystemKeys.function(name), kv.defaultQuorum()));
        cache.remove(name);
        return version;
    }

    /**
     * The function {@code name} as stored now, parsed (from the cache if its bytes did not change), or
     * {@code null} if there is none.
     *
     * @throws InvalidModuleException if the stored module no longer passes this node's checks
     */
    public @Nullable WasmFunction load(String name) throws QuorumException, IOException, InvalidModuleException {
        byte[] module = get(name);
        if (module == null) {
            cache.remove(name);
            return null;
        }
        int crc = crc(module);
        Cached cached = cache.get(name);
        if (cached != null && cached.crc() == crc) {
            return cached.function();
        }
        WasmFunction function = WasmFunction.load(name, module, limits, watchdog, machines);
        cache.put(name, new Cached(crc, function));
        return function;
    }

    /**
     * The function {@code name} whose module hashes to {@code hash} ({@link WasmFunction#hash}): the
     * parsed function this node holds if its hash is that one, without reading the store, else
     * {@link #load(String) as stored now} (which may be another module, or none: the caller compares). For
     * the pages of a distributed job, which name the module their coordinator loaded: a job's module does
     * not change under it, so its pages need not read it again.
     *
     * @throws InvalidModuleException if the stored module no longer passes this node's checks
     */
    public @Nullable WasmFunction load(String name, String hash)
            throws QuorumException, IOException, InvalidModuleException {
        Cached cached = cache.get(name);
        if (cached != null && cached.function().hash().equals(hash)) {
            hits.incrementAndGet();
            return cached.function();
        }
        return load(name);
    }

    /** How many {@link #load(String, String)} calls were answered from the cache, without a read. */
    public long cacheHits() {
        return hits.get();
    }

    static byte[] encode(byte[] module) {
        ByteBuffer out = ByteBuffer.allocate(HEADER_SIZE + module.length).order(ByteOrder.LITTLE_ENDIAN);
        out.put(MAGIC).put(FORMAT_VERSION).putInt(crc(module)).put(module);
        return out.array();
    }

    static byte[] decode(String name, byte[] stored) throws IOException {
        ByteBuffer in = ByteBuffer.wrap(stored).order(ByteOrder.LITTLE_ENDIAN);
        if (stored.length < HEADER_SIZE || !Arrays.equals(stored, 0, 4, MAGIC, 0, 4)) {
            throw corrupt(name, "no RBFN magic");
        }
        byte version = stored[4];
        if (version != FORMAT_VERSION) {
            throw corrupt(name, "stored format version " + version + ", this node reads " + FORMAT_VERSION);
        }
        int crc = in.getInt(5);
        byte[] module = Arrays.copyOfRange(stored, HEADER_SIZE, stored.length);
        if (crc(module) != crc) {
            throw corrupt(name, "checksum mismatch");
        }
        return module;
    }

    private static IOException corrupt(String name, String what) {
        return new IOException("stored function '" + name + "' is corrupt: " + what);
    }

    private static int crc(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return (int) crc.getValue();
    }

    /** Waits for {@code stage}, at most {@value #WAIT_MS} ms; rethrows its failure as it was. */
    static <T> T await(CompletionStage<T> stage) throws QuorumException, IOException {
        try {
            return stage.toCompletableFuture().get(WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the replicas");
        } catch (TimeoutException e) {
            throw new IOException("the replicas did not answer in " + WAIT_MS + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof QuorumException q) {
                throw q;
            }
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new IOException(cause);
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
