package io.ringbase.os;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * <p><b>{@link #IDLE}</b>, one level below nice 19, is Linux's {@code SCHED_IDLE} policy
 * (sched(7)): the thread runs only on CPU time no normal thread wants, and a normal thread that wakes
 * takes the CPU from it at once. A thread at nice 19 keeps the CPU it was given until the next
 * scheduler tick (4 ms at {@code HZ=250}), so the event loop woke behind the compaction thread and
 * waited for it: with the compaction thread at {@code SCHED_IDLE}, PUT p99 at 40,000/s on one CPU was
 * 4.2-5.0 ms in three runs, against 7.7-50 ms at nice 19. Setting it needs no privilege.
 *
 * <p>Where the calls are unavailable (not Linux, no native access) nothing changes and one DEBUG line
 * says so. Thread-safe.
 */
public final class ThreadPriority {

    private static final Logger log = LoggerFactory.getLogger(ThreadPriority.class);
    /** The level below nice 19: the {@code SCHED_IDLE} policy (class comment). */
    public static final int IDLE = 20;

    private static final int PRIO_PROCESS = 0;
    private static final int SCHED_OTHER = 0;
    private static final int SCHED_IDLE = 5;
    private static final MethodHandle SETPRIORITY;
    private static final MethodHandle GETTID;
    private static final MethodHandle SETSCHEDULER;

    static {
        MethodHandle set = null;
        MethodHandle tid = null;
        MethodHandle scheduler = null;
        try {
            set = Libc.function(
                    "setpriority",
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
            tid = Libc.function("gettid", FunctionDescriptor.of(ValueLayout.JAVA_INT));
            scheduler = Libc.function(
                    "sched_setscheduler",
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        } catch (RuntimeException | LinkageError e) {
            log.debug("thread priorities unavailable ({}); background threads run at normal priority", e.toString());
            set = null;
            tid = null;
            scheduler = null;
        }
        SETPRIORITY = set;
        GETTID = tid;
        SETSCHEDULER = scheduler;
    }

    /**
     * The lowest level a thread is set to (system property {@code ringbase.background.lowest}, 0..20; default
     * {@link #IDLE}): lower requests are raised to it. A thread at {@code SCHED_IDLE} or a high nice value that
     * is running Java code holds up every safepoint of its JVM until it gets the CPU to reach one; on a host
     * whose CPUs other processes keep busy (several nodes on one machine, other services) that took 0.2-0.7 s
     * per safepoint, and the whole node stood still meanwhile. A node alone on its host stops its own threads
     * at a safepoint, which frees the CPU for the late one (under 1 ms measured).
     */
    private static final int LOWEST = Math.clamp(Integer.getInteger("ringbase.background.lowest", IDLE), 0, IDLE);

    private ThreadPriority() {}

    /**
     * Sets the calling thread's priority: a nice value {@code level} (0 normal .. 19 lowest) under the
     * normal policy, or {@link #IDLE} for {@code SCHED_IDLE}. Lowering the priority needs no privilege.
     * Raising it again (a lower nice value, or leaving {@link #IDLE}) needs {@code CAP_SYS_NICE} or an
     * {@code RLIMIT_NICE} of at least {@code 20 - nice} (systemd's {@code LimitNICE=}). Without either
     * the call fails and the thread keeps its priority. If {@code SCHED_IDLE} is refused, the thread gets
     * nice 19 and the call answers false.
     *
     * @param level 0..19, or {@link #IDLE}
     * @return whether it took effect
     */
    public static boolean setCurrentThread(int level) {
        if (SETPRIORITY == null || level < 0 || level > IDLE) {
            return false;
        }
        level = Math.min(level, LOWEST);
        try {
            int tid = (int) GETTID.invokeExact();
            if (level == IDLE) {
                if (setPolicy(tid, SCHED_IDLE)) {
                    return true;
                }
                int rc = (int) SETPRIORITY.invokeExact(PRIO_PROCESS, tid, 19);
                log.debug("SCHED_IDLE refused; the thread runs at nice 19{}", rc == 0 ? "" : " (refused too)");
                return false;
            }
            // a thread under SCHED_IDLE first goes back to the normal policy (a no-op for the others)
            return setPolicy(tid, SCHED_OTHER) && (int) SETPRIORITY.invokeExact(PRIO_PROCESS, tid, level) == 0;
        } catch (Throwable e) {
            log.debug("setting the thread's priority failed: {}", e.toString());
            return false;
        }
    }

    /**
     * The nice value of the JVM's JIT compiler threads in a node serving on one CPU ({@link #setCompilerThreads}). On one
     * CPU, a fresh node's first flush and first compaction make C2 compile storage code for a few hundred ms
     * of CPU, and at nice 0 the compiler kept the CPU for 1-6 ms at a time while the event loop was runnable
     * (perf sched over 3 s at 20,000 PUT/s: 69 of the event loop's 119 waits over 0.5 ms were behind C2).
     * At nice 10 the event loop takes the CPU first and the compiler still gets about a tenth of it when
     * both want it. At nice 19 it got too little: the hot path stayed in slower code waiting for its
     * compilation, and one run of two had a p99 of 221 ms.
     */
    public static final int COMPILER_NICE = 10;

    /**
     * Sets the JVM's JIT compiler threads to nice {@code nice} (0..19, lowered to the floor {@code
     * ringbase.background.lowest} sets, as {@link #setCurrentThread} does). They are found by their names
     * under {@code /proc/self/task}: HotSpot's {@code C1 CompilerThread<n>} and {@code C2 CompilerThread<n>},
     * which the kernel keeps to 15 characters. A compiler thread that HotSpot adds later is started by a
     * compiler thread, so it inherits the value. Lowering needs no privilege.
     *
     * @return how many compiler threads took the value (0 where {@code /proc} or the calls are unavailable)
     */
    public static int setCompilerThreads(int nice) {
        if (SETPRIORITY == null || nice < 0 || nice > 19) {
            return 0;
        }
        int level = Math.min(nice, LOWEST);
        int set = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String name;
                try {
                    name = Files.readString(task.resolve("comm"));
                } catch (IOException e) {
                    continue; // the thread ended meanwhile
                }
                if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
                    int tid = Integer.parseInt(task.getFileName().toString());
                    if ((int) SETPRIORITY.invokeExact(PRIO_PROCESS, tid, level) == 0) {
                        set++;
                    }
                }
            }
        } catch (Throwable e) {
            log.debug("setting the JIT compiler threads' priority failed: {}", e.toString());
        }
        return set;
    }

    private static boolean setPolicy(int tid, int policy) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment param = arena.allocate(ValueLayout.JAVA_INT); // struct sched_param, priority 0
            return (int) SETSCHEDULER.invokeExact(tid, policy, param) == 0;
        }
    }

    /** A factory of daemon threads named {@code name} that run at {@code level} ({@link #setCurrentThread}). */
    public static ThreadFactory background(String name, int level) {
        ThreadFactory platform = Thread.ofPlatform().name(name).daemon().factory();
        return r -> platform.newThread(() -> {
            setCurrentThread(level);
            r.run();
        });
    }
}
