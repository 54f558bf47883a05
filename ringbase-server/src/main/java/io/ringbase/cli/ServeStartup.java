package io.ringbase.cli;

import io.ringbase.node.Node;
import io.ringbase.node.NodeConfig;
import io.ringbase.node.WarmUp;
import io.ringbase.os.ProcessAge;
import io.ringbase.os.ThreadPriority;
import java.io.IOException;
import java.time.Duration;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code ringbase serve} does and says around a node's start, besides starting it: the warm-up before
 * it ({@link WarmUp}), the line that says where the start's time went, the node's URL for log lines and
 * the WARN line of an open API. Stateless.
 */
final class ServeStartup {

    private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);

    private ServeStartup() {}

    /**
     * What {@code serve} does once its node has started: on one CPU, lowers the JIT compiler threads' CPU
     * priority ({@link #lowerCompilerPriority}; only now, so that the warm-up's compilations finish as fast as
     * they can) and logs how long the start took and where the time went: from the process's launch (the
     * launcher script included; {@link ProcessAge}, to 10 ms) to {@code main}, then the command line and
     * logging, then each phase of the node's start.
     */
    static void started(Node node, long warmUpMs) {
        lowerCompilerPriority();
        long nodeMs = node.startupPhases().totalMs();
        long mainMs = Main.sinceMainNanos() / 1_000_000;
        OptionalLong age = ProcessAge.millis();
        String launch = age.isPresent()
                ? "started in " + age.getAsLong() + " ms from launch: launcher and JVM "
                        + Math.max(0, age.getAsLong() - mainMs) + " ms, "
                : "started: ";
        log.info(
                "{}command line and logging {} ms, warm-up {} ms, node {} ms ({})",
                launch,
                Math.max(0, mainMs - nodeMs - warmUpMs),
                warmUpMs,
                nodeMs,
                node.startupPhases());
    }

    /**
     * Sets the JIT compiler threads to {@link ThreadPriority#COMPILER_NICE} when this process may use one CPU
     * only, saying so at DEBUG. There the compiler takes the CPU from the event loop. With more CPUs it mostly
     * runs beside the event loops, and where several busy nodes share the CPUs (the fault suite's 3-5 nodes
     * on two) a lowered compiler got so little of them that nodes kept running slower code for long: the
     * membership fault runs failed 2 of 6 times with it and 0 of 3 without.
     */
    static void lowerCompilerPriority() {
        if (Runtime.getRuntime().availableProcessors() > 1) {
            return;
        }
        int threads = ThreadPriority.setCompilerThreads(ThreadPriority.COMPILER_NICE);
        log.debug("JIT compiler threads at nice {}: {}", ThreadPriority.COMPILER_NICE, threads);
    }

    /**
     * Runs the {@link WarmUp} of {@code --warm-up}, if any, and returns how long it took (ms). A warm-up that
     * fails costs the node only its speed in its first seconds, so it is logged and the node starts anyway.
     */
    static long warmUp(NodeConfig config, TimeSpan warmUp) throws InterruptedException {
        if (warmUp.millis() == 0) {
            return 0;
        }
        long started = System.nanoTime();
        try {
            WarmUp.Result result = WarmUp.run(
                    config, Duration.ofMillis(warmUp.millis()), WarmUp.CONNECTIONS, WarmUp.NODE_MEMTABLE_BYTES);
            log.info(
                    "warm-up: {} requests in {} ms on a scratch node in a temporary directory (--warm-up {})",
                    result.load().total(),
                    result.elapsedMs(),
                    warmUp);
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "warm-up failed, starting without it (the node runs slower in its first seconds under load;"
                            + " --warm-up 0s skips it): {}",
                    e.toString());
        }
        return (System.nanoTime() - started) / 1_000_000;
    }

    /** The node's URL for log lines: {@code --self}, or {@code http(s)://host:port} of a single node. */
    static String nodeUrl(NodeConfig config) {
        if (!config.topology().isAlone()) {
            return config.topology().self().toString();
        }
        return (config.http().tls() != null ? "https://" : "http://")
                + displayHost(config.http().host()) + ":" + config.http().port();
    }

    /**
     * The WARN line of a node that listens beyond loopback with nothing to authenticate its callers, or
     * {@code null} for a loopback bind. The public API has no client authentication, so any such bind is
     * open to whoever reaches it; without a cluster secret the internal and admin requests are unsigned too.
     *
     * @param host the bind address ({@code --host}): a literal address or a name
     */
    static String openApiWarning(String host, int port, boolean signed, boolean tokens) {
        if (tokens) {
            return null; // every client request needs a token; --token-file needs the cluster secret too
        }
        boolean loopback;
        try {
            loopback = "localhost".equalsIgnoreCase(host)
                    || java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            loopback = false;
        }
        if (loopback) {
            return null;
        }
        return "the API is open: anyone who reaches " + host + ":" + port + " can read, write and delete every key"
                + (signed ? "" : ", and send internal and admin requests, unsigned (no --cluster-secret-file)")
                + "; give --token-file, bind --host 127.0.0.1, or put a firewall in front (docs/operations.md)";
    }

    /** The host shown in URLs: {@code localhost} for a wildcard bind. */
    static String displayHost(String host) {
        return host.equals("0.0.0.0") || host.equals("::") ? "localhost" : host;
    }
}
