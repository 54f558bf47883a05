package io.ringbase.cli;

import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;

/**
 * SIGTERM and SIGINT (Ctrl-C) as a latch, for commands that run until stopped and then shut down
 * gracefully. {@code sun.misc.Signal} rather than a shutdown hook, so the process exits with the
 * command's own code (0) instead of 143 or 130.
 */
final class StopSignal {

    private StopSignal() {
    }

    /** A latch that counts down on the first SIGTERM or SIGINT from now on. */
    static CountDownLatch install() {
        CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("TERM"), s -> stop.countDown());
        Signal.handle(new Signal("INT"), s -> stop.countDown());
        return stop;
    }
}
