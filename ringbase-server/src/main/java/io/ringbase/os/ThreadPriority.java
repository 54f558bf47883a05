package io.ringbase.os;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lowers the CPU priority of background threads, so that they use CPU time the request path leaves
 * idle instead of sharing a core with it as equals. On Linux each thread has its own nice value,
 * settable with {@code setpriority(PRIO_PROCESS, tid, nice)} (setpriority(2), called here through the
 * foreign function API); raising one's own nice value needs no privilege. This is what RocksDB does for
 * its background pools ({@code Env::LowerThreadPoolCPUPriority}): a flush or a compaction that shared a
 * pinned core equally with the event loop made request latency at 20k PUT/s jump to 100 ms while it ran.
 *
 * <p>Where the calls are unavailable (not Linux, no native access) nothing changes and one DEBUG line
 * says so. Thread-safe.
 */
public final class ThreadPriority {

    private static final Logger log = LoggerFactory.getLogger(ThreadPriority.class);
    private static final int PRIO_PROCESS = 0;
    private static final MethodHandle SETPRIORITY;
    private static final MethodHandle GETTID;

    static {
        MethodHandle set = null;
        MethodHandle tid = null;
        try {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            set = linker.downcallHandle(libc.find("setpriority").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                            ValueLayout.JAVA_INT));
            tid = linker.downcallHandle(libc.find("gettid").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT));
        } catch (RuntimeException | LinkageError e) {
            log.debug("thread priorities unavailable ({}); background threads run at normal priority", e.toString());
            set = null;
            tid = null;
        }
        SETPRIORITY = set;
        GETTID = tid;
    }

    private ThreadPriority() {
    }

    /**
     * Sets the calling thread's nice value to {@code nice} (0 normal .. 19 lowest). Raising it (a lower
     * priority) needs no privilege. Lowering it again needs {@code CAP_SYS_NICE} or an
     * {@code RLIMIT_NICE} of at least {@code 20 - nice} (systemd's {@code LimitNICE=}). Without either
     * the call fails and the thread keeps its nice value.
     *
     * @return whether it took effect
     */
    public static boolean setCurrentThread(int nice) {
        if (SETPRIORITY == null || nice < 0 || nice > 19) {
            return false;
        }
        try {
            int tid = (int) GETTID.invokeExact();
            return (int) SETPRIORITY.invokeExact(PRIO_PROCESS, tid, nice) == 0;
        } catch (Throwable e) {
            log.debug("setpriority failed: {}", e.toString());
            return false;
        }
    }

    /** A factory of daemon threads named {@code name} that run at nice value {@code nice}. */
    public static ThreadFactory background(String name, int nice) {
        ThreadFactory platform = Thread.ofPlatform().name(name).daemon().factory();
        return r -> platform.newThread(() -> {
            setCurrentThread(nice);
            r.run();
        });
    }
}
