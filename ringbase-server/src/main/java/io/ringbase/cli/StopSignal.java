package io.ringbase.cli;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandleProxies;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.CountDownLatch;

/**
 * SIGTERM and SIGINT (Ctrl-C) as a latch, for commands that run until stopped and then shut down
 * gracefully. {@code sun.misc.Signal} rather than a shutdown hook, so the process exits with the
 * command's own code (0) instead of 143 or 130.
 *
 * <p>{@code sun.misc.Signal} is reached by reflection (the jdk.unsupported module exports it for this
 * use): named in the source, it makes javac warn that it is internal proprietary API, a warning that
 * neither {@code -Xlint} nor {@code @SuppressWarnings} turns off, and the build fails on warnings.
 */
final class StopSignal {

    private StopSignal() {}

    /** A latch that counts down on the first SIGTERM or SIGINT from now on. */
    static CountDownLatch install() {
        CountDownLatch stop = new CountDownLatch(1);
        try {
            handle("TERM", stop::countDown);
            handle("INT", stop::countDown);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot handle SIGTERM and SIGINT", e);
        }
        return stop;
    }

    /** {@code Signal.handle(new Signal(name), signal -> action.run())}. */
    private static void handle(String name, Runnable action) throws ReflectiveOperationException {
        Class<?> signal = Class.forName("sun.misc.Signal");
        Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
        MethodHandle run = MethodHandles.publicLookup()
                .findVirtual(Runnable.class, "run", MethodType.methodType(void.class))
                .bindTo(action);
        Object handler =
                MethodHandleProxies.asInterfaceInstance(handlerType, MethodHandles.dropArguments(run, 0, signal));
        signal.getMethod("handle", signal, handlerType)
                .invoke(null, signal.getConstructor(String.class).newInstance(name), handler);
    }
}
