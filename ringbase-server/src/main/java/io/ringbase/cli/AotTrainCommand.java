package io.ringbase.cli;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.ringbase.node.NodeConfig;
import io.ringbase.node.WarmUp;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ringbase aot-train}: the training run of the JVM's ahead-of-time cache (JEP 483, 514 and 515). It
 * runs a {@link WarmUp} of a default node in this JVM, longer than a node's own: a scratch node on a
 * loopback port and an empty temporary data directory (deleted afterwards), with a 4 MiB memtable so that
 * flushes and compactions happen during the run, under {@link io.ringbase.aot.TrainingLoad}. The JVM must record the run ({@code -XX:AOTMode=record}, or
 * {@code -XX:AOTCacheOutput}); {@code bin/ringbase aot-train} starts it so and then has the JVM assemble the
 * cache from the record, which its {@code serve} and {@code cluster} use afterwards (docs/design.md, "The
 * ahead-of-time cache").
 *
 * <p>Exit codes: 0 trained; 1 the node could not start or the load failed; 2 a bad flag, or the JVM does
 * not record.
 */
@Command(
        name = "aot-train",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = {
            "Train the JVM's ahead-of-time cache: run a node on a loopback port under every kind of "
                    + "request, so that the JVM writes the classes and method profiles of real work to the cache "
                    + "as it exits. A node started with the cache reaches full speed sooner.",
            "Run it as bin/ringbase aot-train, which starts the JVM so, writes the cache, and makes "
                    + "bin/ringbase serve use it."
        })
public final class AotTrainCommand implements Callable<Integer> {

    @Option(
            names = "--duration",
            defaultValue = "12s",
            description = "How long the load runs, 1s-10m (default: ${DEFAULT-VALUE}).")
    TimeSpan duration;

    @Option(
            names = "--connections",
            defaultValue = "16",
            description = "Connections, each with one request in flight, 1-256 (default: ${DEFAULT-VALUE}).")
    int connections;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (duration.millis() < 1_000 || duration.millis() > 600_000) {
            throw bad("--duration must be between 1s and 10m, got " + duration);
        }
        if (connections < 1 || connections > 256) {
            throw bad("--connections must be between 1 and 256, got " + connections);
        }
        if (!recording()) {
            throw bad("this JVM was started neither with -XX:AOTMode=record nor with -XX:AOTCacheOutput, so no "
                    + "cache would come of it; run it as bin/ringbase aot-train");
        }
        PrintWriter out = spec.commandLine().getOut();
        CommandLine.ParseResult serve = Main.commandLine().parseArgs("serve");
        NodeConfig config = ((ServeCommand) serve.subcommand().commandSpec().userObject()).validate();
        out.printf("aot-train: a scratch node under load for %s, %d connections%n", duration, connections);
        out.flush();
        WarmUp.Result result;
        try {
            result = WarmUp.run(
                    config, Duration.ofMillis(duration.millis()), connections, WarmUp.TRAINING_MEMTABLE_BYTES);
        } catch (IOException e) {
            spec.commandLine().getErr().println("ringbase aot-train: " + e.getMessage());
            return 1;
        }
        out.printf(
                "aot-train: %,d requests in %.1f s %s%n",
                result.load().total(), result.elapsedMs() / 1e3, result.load().requests());
        return 0;
    }

    /** Whether this JVM records a training run: {@code -XX:AOTMode=record} or {@code -XX:AOTCacheOutput}. */
    static boolean recording() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        return vm.getVMOption("AOTMode").getValue().equals("record")
                || !vm.getVMOption("AOTCacheOutput").getValue().isEmpty();
    }

    private CommandLine.ParameterException bad(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
