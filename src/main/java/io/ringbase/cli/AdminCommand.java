package io.ringbase.cli;

import io.ringbase.status.Json;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ringbase admin}: operator commands against a running node's HTTP API ({@code --url}), signed
 * with the cluster secret ({@code --secret-file}) when the cluster has one. Exit codes: 0 done; 1 the
 * node answered an error or the job did not end well (a partial repair); 2 bad usage; 3 the node could
 * not be reached; 4 the node refused the signature (missing or wrong secret).
 */
@Command(name = "admin", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Operate a running node: status, repair, flush, compact, snapshot.",
        footerHeading = "%nExit codes:%n",
        footer = {"  0  done", "  1  the node answered an error, or the job did not end well (a partial repair)",
                "  2  bad usage", "  3  the node could not be reached", "  4  the node refused the request's signature "
                + "(403): give --secret-file, the cluster's secret"},
        subcommands = CommandLine.HelpCommand.class)
public final class AdminCommand {

    @Option(names = "--url", defaultValue = "http://localhost:8080", scope = CommandLine.ScopeType.INHERIT,
            description = "The node to talk to (default: ${DEFAULT-VALUE}).")
    String url;

    @Option(names = "--secret-file", paramLabel = "FILE", scope = CommandLine.ScopeType.INHERIT,
            description = "The cluster's secret file (as serve --cluster-secret-file); admin requests are signed "
                    + "with it. Needed when the cluster has a secret (default: none).")
    Path secretFile;

    @Option(names = "--timeout", defaultValue = "60s", paramLabel = "DURATION", scope = CommandLine.ScopeType.INHERIT,
            description = "How long to wait for each answer (default: ${DEFAULT-VALUE}).")
    TimeSpan timeout;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private AdminClient client() {
        byte[] secret;
        try {
            secret = secretFile == null ? null : SecretFile.read(secretFile, "--secret-file");
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        return new AdminClient(url, secret, Duration.ofMillis(timeout.millis()));
    }

    /** Runs {@code action}; prints a failure's one line to stderr and returns its exit code. */
    private int run(Action action) {
        try {
            int code = action.run(client(), spec.commandLine().getOut());
            spec.commandLine().getOut().flush();
            return code;
        } catch (AdminClient.Failure f) {
            spec.commandLine().getOut().flush();
            spec.commandLine().getErr().println("ringbase admin: " + f.getMessage());
            spec.commandLine().getErr().flush();
            return f.exitCode;
        }
    }

    private interface Action {
        int run(AdminClient client, PrintWriter out) throws AdminClient.Failure;
    }

    @Command(name = "status", description = "Show the node's status and its view of the cluster (GET /v0/status).")
    int status(@Option(names = "--json", description = "Print the JSON as the node sent it.") boolean json) {
        return run((client, out) -> {
            String body = client.send("GET", "/v0/status");
            if (json) {
                out.print(body);
                return 0;
            }
            Object s = parse(client, body);
            out.printf(Locale.ROOT, "node      %s (version %s, up %s)%n", Json.string(s, "node"), Json.string(s, "version"),
                    seconds(Json.number(s, "uptimeSeconds")));
            if (Json.get(s, "requests") != null) {
                out.printf(Locale.ROOT, "requests  %.1f/s, p99 %.2f ms (last %.0f s)%n", Json.number(s, "requests", "perSecond"),
                        Json.number(s, "requests", "p99Ms"), Json.number(s, "requests", "windowSeconds"));
            }
            out.printf(Locale.ROOT, "storage   memtable %,.0f bytes, %.0f SSTables, %,.0f bytes; %.0f flushes, %.0f compactions,"
                            + " %.0f disk errors%n", Json.number(s, "engine", "memtableBytes"),
                    Json.number(s, "engine", "sstables"), Json.number(s, "engine", "sstableBytes"),
                    Json.number(s, "engine", "flushes"), Json.number(s, "engine", "compactions"),
                    Json.number(s, "engine", "diskErrors"));
            if (Json.get(s, "peers") instanceof List<?> peers && !peers.isEmpty()) {
                for (Object p : peers) {
                    double last = Json.number(p, "lastContactMs");
                    out.printf(Locale.ROOT, "peer      %-28s %-5s last contact %s%n", Json.string(p, "url"),
                            Json.string(p, "state"), last <= 0 ? "never"
                                    : seconds((System.currentTimeMillis() - last) / 1000) + " ago");
                }
                out.printf(Locale.ROOT, "hints     %.0f pending (%,.0f bytes), %.0f delivered, %.0f dropped%n",
                        Json.number(s, "hints", "pending"), Json.number(s, "hints", "pendingBytes"),
                        Json.number(s, "hints", "delivered"), Json.number(s, "hints", "dropped"));
                out.printf(Locale.ROOT, "repair    %s%n", Json.string(s, "repair", "state"));
            }
            return 0;
        });
    }

    @Command(name = "repair", description = "Start an anti-entropy repair on the node and show its progress until it "
            + "ends (POST, then GET /v0/admin/repair). Exit 1 if it ends partial or aborted.")
    int repair(@Option(names = "--no-wait", description = "Only start it.") boolean noWait,
               @Option(names = "--poll", defaultValue = "500ms", paramLabel = "DURATION",
                       description = "How often to ask for progress (default: ${DEFAULT-VALUE}).") TimeSpan poll) {
        return run((client, out) -> {
            long started = System.currentTimeMillis();
            Object before = parse(client, client.send("GET", "/v0/admin/repair"));
            if (Json.get(before, "note") != null) {
                out.println(client.url() + ": " + Json.string(before, "note"));
                return 0;
            }
            client.send("POST", "/v0/admin/repair");
            out.println("repair started on " + client.url());
            if (noWait) {
                return 0;
            }
            try (ProgressBar bar = bar("repair", 1)) {
                while (true) {
                    Object s = parse(client, client.send("GET", "/v0/admin/repair"));
                    double total = Json.number(s, "rangesTotal");
                    boolean running = "running".equals(Json.string(s, "state"));
                    double lastStart = Json.number(s, "lastRun", "startedAtMs");
                    if (running && total > 0) {
                        bar.maxHint((long) total);
                        bar.stepTo((long) Json.number(s, "rangesDone"));
                        bar.setExtraMessage(String.format(Locale.ROOT, "%.0f keys in, %.0f out",
                                Json.number(s, "keysReceived"), Json.number(s, "keysSent")));
                    } else if (!running && lastStart >= started - 1000) {
                        long done = (long) Json.number(s, "lastRun", "rangesDone");
                        bar.maxHint(Math.max(1, (long) Json.number(s, "lastRun", "rangesTotal")));
                        bar.stepTo(done);
                        bar.close();
                        String outcome = Json.string(s, "lastRun", "outcome");
                        out.printf(Locale.ROOT, "repair %s: %.0f of %.0f ranges, %.0f failed; %.0f keys received, %.0f sent%s%n",
                                outcome, Json.number(s, "lastRun", "rangesDone"), Json.number(s, "lastRun", "rangesTotal"),
                                Json.number(s, "lastRun", "rangesFailed"), Json.number(s, "lastRun", "keysReceived"),
                                Json.number(s, "lastRun", "keysSent"), Json.string(s, "lastRun", "lastError") == null ? ""
                                        : "; last error: " + Json.string(s, "lastRun", "lastError"));
                        return "ok".equals(outcome) ? 0 : AdminClient.EXIT_FAILED;
                    }
                    sleep(poll.millis());
                }
            }
        });
    }

    @Command(name = "flush", description = "Flush the node's memtable to an SSTable (POST /v0/admin/flush).")
    int flush() {
        return run((client, out) -> {
            out.print(client.send("POST", "/v0/admin/flush"));
            return 0;
        });
    }

    @Command(name = "compact", description = "Merge all of the node's SSTables into one (POST /v0/admin/compact).")
    int compact() {
        return run((client, out) -> {
            out.print(client.send("POST", "/v0/admin/compact"));
            return 0;
        });
    }

    @Command(name = "snapshot", description = "Flush and hard-link the live SSTables with their manifest into "
            + "<data-dir>/snapshots/<name>/ on the node, or on every node of its cluster (POST /v0/admin/snapshot).")
    int snapshot(@Option(names = "--name", paramLabel = "NAME",
                         description = "Snapshot name: 1-64 of A-Z a-z 0-9 . _ - (default: the time, yyyyMMdd-HHmmss).")
                 String name,
                 @Option(names = "--all-nodes", description = "Snapshot every node of the cluster, as the node at --url "
                         + "lists them.") boolean allNodes) {
        String snapshotName = name != null ? name : LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        return run((client, out) -> {
            List<String> nodes = new ArrayList<>(List.of(client.url()));
            if (allNodes) {
                Object s = parse(client, client.send("GET", "/v0/status"));
                if (Json.get(s, "peers") instanceof List<?> peers) {
                    for (Object p : peers) {
                        nodes.add(Json.string(p, "url"));
                    }
                }
            }
            List<String> lines = new ArrayList<>();
            int failed = 0;
            int code = 0;
            try (ProgressBar bar = bar("snapshot " + snapshotName, nodes.size())) {
                for (String node : nodes) {
                    try {
                        Object r = parse(client, client.at(node).send("POST", "/v0/admin/snapshot?name=" + snapshotName));
                        lines.add(String.format(Locale.ROOT, "%s: %.0f SSTables, %,.0f bytes in %s", node,
                                Json.number(r, "sstables"), Json.number(r, "bytes"), Json.string(r, "dir")));
                    } catch (AdminClient.Failure f) {
                        failed++;
                        code = code == 0 ? f.exitCode : code;
                        lines.add("!" + node + ": FAILED: " + f.getMessage());
                    }
                    bar.step();
                }
            }
            for (String line : lines) {
                if (line.startsWith("!")) {
                    spec.commandLine().getErr().println("ringbase admin: " + line.substring(1));
                } else {
                    out.println(line);
                }
            }
            spec.commandLine().getErr().flush();
            return failed == 0 ? 0 : code;
        });
    }

    private static ProgressBar bar(String task, long max) {
        return new ProgressBarBuilder().setTaskName(task).setInitialMax(max).setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(200).continuousUpdate()
                .setConsumer(new ConsoleProgressBarConsumer(System.err)).build();
    }

    private static Object parse(AdminClient client, String body) throws AdminClient.Failure {
        try {
            return Json.parse(body);
        } catch (IllegalArgumentException e) {
            throw new AdminClient.Failure(AdminClient.EXIT_FAILED, client.url() + " sent an unreadable answer: " + e.getMessage());
        }
    }

    private static String seconds(double s) {
        long v = (long) s;
        return v < 120 ? v + " s" : v < 7200 ? v / 60 + " min" : String.format(Locale.ROOT, "%.1f h", v / 3600.0);
    }

    private static void sleep(long ms) throws AdminClient.Failure {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AdminClient.Failure(AdminClient.EXIT_FAILED, "interrupted");
        }
    }
}
