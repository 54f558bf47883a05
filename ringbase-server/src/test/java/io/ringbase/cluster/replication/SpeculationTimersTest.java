package io.ringbase.cluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.ringbase.transport.Transport;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Speculative retry timers queued per event loop: each runs once, on its loop, not before its delay. */
class SpeculationTimersTest {

    final EventLoopGroup group = Transport.newEventLoopGroup(2, "timers-test");
    final SpeculationTimers timers = new SpeculationTimers(group);

    @AfterEach
    void close() throws Exception {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void timersAddedOnALoopRunOnItNotBeforeTheirDelayIncludingOnesTheyAdd() throws Exception {
        EventExecutor loop = group.next();
        int n = 200;
        CountDownLatch done = new CountDownLatch(n + 1);
        List<String> problems = Collections.synchronizedList(new ArrayList<>());
        loop.execute(() -> {
            for (int i = 0; i < n; i++) {
                long delay = TimeUnit.MICROSECONDS.toNanos(100 + 37L * (i % 50));
                long due = System.nanoTime() + delay;
                int id = i;
                timers.schedule(
                        () -> {
                            if (!loop.inEventLoop()) {
                                problems.add(id + " ran off its loop");
                            }
                            if (System.nanoTime() < due) {
                                problems.add(id + " ran early");
                            }
                            if (id == 0) { // a timer that adds another, as a speculative retry re-arms
                                long againDue = System.nanoTime() + 500_000;
                                timers.schedule(
                                        () -> {
                                            if (System.nanoTime() < againDue) {
                                                problems.add("re-armed timer ran early");
                                            }
                                            done.countDown();
                                        },
                                        500_000);
                            }
                            done.countDown();
                        },
                        delay);
            }
        });
        assertThat(done.await(10, TimeUnit.SECONDS)).as("every timer ran").isTrue();
        assertThat(problems).isEmpty();
    }

    @Test
    void aTimerAddedOffTheLoopsRunsToo() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        timers.schedule(ran::countDown, 1_000_000);
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    }
}
