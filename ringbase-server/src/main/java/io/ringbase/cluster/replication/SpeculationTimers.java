package io.ringbase.cluster.replication;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timers of speculative retries ({@link io.ringbase.cluster.replication.SpeculativeRetry}), one per
 * read, kept per event loop in a queue that one loop task drains. A read coordinated on a loop adds
 * its timer to that loop's queue: no thread hand-off, no allocation beyond the entry, and no Netty
 * scheduled task of its own. One task per loop at a time means the loop's next deadline (its timerfd)
 * changes once per drain, not once per read; arming a Netty task per read cost a timerfd update per
 * read. Timers are queued in arrival order and all reads use about the same delay, so the queue is
 * about ordered by deadline; a timer behind a later deadline (the delay estimate fell meanwhile) fires
 * late by at most that difference. A caller that is not one of the loops gets a plain Netty task on
 * the next loop. Timers are dropped when the loops shut down. A timer stays queued until its deadline
 * even when its read is decided, so a loop holds about (its reads per second) x (the delay) of them,
 * some 40 bytes each; the delay is a percentile of answered reads, so at most about the replica
 * timeout (e.g. 60,000 reads/s and a 1 s delay: 60,000 timers, 2.4 MB).
 */
public final class SpeculationTimers implements Scheduler {

    private static final Logger log = LoggerFactory.getLogger(SpeculationTimers.class);

    private final EventLoopGroup group;
    private final List<EventExecutor> loops = new ArrayList<>();
    private final List<LoopQueue> queues = new ArrayList<>();

    public SpeculationTimers(EventLoopGroup group) {
        this.group = group;
        for (EventExecutor loop : group) {
            loops.add(loop);
            queues.add(new LoopQueue(loop));
        }
    }

    @Override
    public void schedule(Runnable task, long delayNanos) {
        for (int i = 0; i < loops.size(); i++) {
            if (loops.get(i).inEventLoop()) {
                queues.get(i).add(task, delayNanos);
                return;
            }
        }
        try {
            var _ = group.next()
                    .schedule(
                            () -> { // its future is dropped: log a failure as the loops' timers do
                                try {
                                    task.run();
                                } catch (RuntimeException e) {
                                    log.error("speculative retry timer failed", e);
                                }
                            },
                            delayNanos,
                            TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("speculative retry timer dropped: the event loops are shutting down");
        }
    }

    /** One loop's timers; used only on that loop's thread. */
    private static final class LoopQueue {
        private record Timer(long deadlineNanos, Runnable task) {}

        private final EventExecutor loop;
        private final ArrayDeque<Timer> timers = new ArrayDeque<>();
        private final Runnable drain = this::drain;
        private boolean armed;

        LoopQueue(EventExecutor loop) {
            this.loop = loop;
        }

        void add(Runnable task, long delayNanos) {
            timers.add(new Timer(System.nanoTime() + delayNanos, task));
            if (!armed) {
                arm(delayNanos);
            }
        }

        private void drain() {
            armed = false;
            long now = System.nanoTime();
            Timer t;
            while ((t = timers.peek()) != null && t.deadlineNanos() - now <= 0) {
                timers.poll();
                try {
                    t.task().run();
                } catch (RuntimeException e) {
                    log.error("speculative retry timer failed", e);
                }
            }
            if (t != null && !armed) {
                arm(t.deadlineNanos() - now);
            }
        }

        private void arm(long delayNanos) {
            try {
                var _ = loop.schedule(drain, Math.max(0, delayNanos), TimeUnit.NANOSECONDS); // drain logs its failures
                armed = true;
            } catch (RejectedExecutionException e) {
                timers.clear(); // shutting down
            }
        }
    }
}
