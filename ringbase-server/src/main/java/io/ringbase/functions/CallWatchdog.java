package io.ringbase.functions;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Stops calls that run past their time: every {@value #TICK_MS} ms one daemon thread interrupts the thread
 * of each call whose deadline has passed, and Chicory's interpreter, which checks its thread's interrupt
 * flag as it runs, throws out of the call. A call that is done is never interrupted: {@link Call#finish}
 * and the watchdog decide under the call's lock, and {@code finish} clears a flag set at the last moment,
 * so the interrupt never leaks into the worker's next task.
 *
 * <p>The time limit is thus met within one tick of the deadline. Thread-safe.
 */
public final class CallWatchdog implements AutoCloseable {

    /** How often deadlines are checked, ms. */
    static final long TICK_MS = 10;

    private final Set<Call> running = ConcurrentHashMap.newKeySet();
    private volatile ScheduledExecutorService ticker; // set under this; started by the first call
    private boolean closed; // guarded by this

    /** A watchdog; its thread starts with the first call (a server that never runs a function has none). */
    public CallWatchdog() {}

    private synchronized void ensureTicking() {
        if (ticker == null && !closed) {
            ticker = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "function-watchdog");
                t.setDaemon(true);
                return t;
            });
            var unused = ticker.scheduleAtFixedRate(this::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** Starts timing a call made by the current thread, to end by {@link Call#finish} in a finally. */
    Call start(long timeoutMs) {
        if (ticker == null) { // calls after the first take no lock
            ensureTicking();
        }
        Call call = new Call(Thread.currentThread(), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs));
        running.add(call);
        return call;
    }

    private void tick() {
        long now = System.nanoTime();
        for (Call call : running) {
            if (now - call.deadlineNanos >= 0) {
                call.interrupt();
            }
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (ticker != null) {
            ticker.shutdownNow();
        }
    }

    /** One timed call. */
    final class Call {
        private final Thread thread;
        private final long deadlineNanos;
        private boolean done; // guarded by this
        private boolean fired; // guarded by this

        private Call(Thread thread, long deadlineNanos) {
            this.thread = thread;
            this.deadlineNanos = deadlineNanos;
        }

        private synchronized void interrupt() {
            if (!done && !fired) {
                fired = true;
                thread.interrupt();
            }
        }

        /** Whether the watchdog interrupted this call (its time ran out). */
        synchronized boolean timedOut() {
            return fired;
        }

        /** Ends the call; clears an interrupt the watchdog set. Call on the calling thread. */
        void finish() {
            running.remove(this);
            boolean clear;
            synchronized (this) {
                done = true;
                clear = fired;
            }
            if (clear) {
                Thread.interrupted();
            }
        }
    }
}
