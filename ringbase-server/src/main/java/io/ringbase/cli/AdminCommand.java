package io.ringbase.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.clock.TimeSource;
import io.ringbase.tls.CaTrust;
import io.ringbase.tls.TlsException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarConsumer;
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
@Command(
        name = "admin",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        sortOptions = false,
        description = "Operate a running node: status, ring, repair, decommission, cleanup, remove, flush, compact,"
                + " snapshot.",
        footerHeading = "%nExit codes:%n",
        footer = {
            "  0  done",
            "  1  the node answered an error, or the job did not end well (a partial repair)",
            "  2  bad usage",
            "  3  the node could not be reached",
            "  4  the node refused the request's signature " + "(403): give --secret-file, the cluster's secret"
        },
        subcommands = {CommandLine.HelpCommand.class, AdminRestore.class})
public final class AdminCommand {

    /** The wall clock of ages shown and of default snapshot names. */
    private final TimeSource time = TimeSource.SYSTEM;

    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(
            names = "--url",
            defaultValue = "http://localhost:8080",
            scope = CommandLine.ScopeType.INHERIT,
            description = "The node to talk to (default: ${DEFAULT-VALUE}).")
    String url;

    @Option(
            names = "--secret-file",
            paramLabel = "FILE",
            scope = CommandLine.ScopeType.INHERIT,
            description = "The cluster's secret file (as serve --cluster-secret-file); admin requests are signed "
                    + "with it. Needed when the cluster has a secret (default: none).")
    Path secretFile;

    @Option(
            names = "--tls-ca",
            paramLabel = "FILE",
            scope = CommandLine.ScopeType.INHERIT,
            description = "For an https:// --url: trust the CA certificates of this PEM file (the nodes' --tls-ca, "
                    + "or the issuer of their --tls-cert) and no other (default: the JDK's certificate "
                    + "authorities).")
    Path tlsCa;

    @Option(
            names = "--timeout",
            defaultValue = "60s",
            paramLabel = "DURATION",
            scope = CommandLine.ScopeType.INHERIT,
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
        SSLContext tls;
        try {
            tls = tlsCa == null ? null : CaTrust.clientContext(tlsCa, "--tls-ca " + tlsCa);
        } catch (TlsException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        String token = System.getenv(AdminClient.TOKEN_VARIABLE);
        return new AdminClient(
                url,
                secret,
                token == null || token.isBlank() ? null : token.strip(),
                Duration.ofMillis(timeout.millis()),
                time,
                tls);
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

    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            versionProvider = Main.Version.class,
            description = "Show the node's status and its view of the cluster (GET /v0/status).")
    int status(@Option(names = "--json", description = "Print the JSON as the node sent it.") boolean json) {
        return run((client, out) -> {
            String body = client.send("GET", "/v0/status");
            if (json) {
                out.print(body);
                return 0;
            }
            JsonNode s = parse(client, body);
            out.printf(
                    Locale.ROOT,
                    "node      %s (version %s, up %s)%n",
                    s.path("node").textValue(),
                    s.path("version").textValue(),
                    seconds(s.path("uptimeSeconds").asDouble(Double.NaN)));
            if (s.hasNonNull("requests")) {
                JsonNode r = s.path("requests");
                out.printf(
                        Locale.ROOT,
                        "requests  %.1f/s, p99 %.2f ms (last %.0f s)%n",
                        r.path("perSecond").asDouble(Double.NaN),
                        r.path("p99Ms").asDouble(Double.NaN),
                        r.path("windowSeconds").asDouble(Double.NaN));
            }
            JsonNode e = s.path("engine");
            out.printf(
                    Locale.ROOT,
                    "storage   memtable %,.0f bytes, %.0f SSTables, %,.0f bytes; %.0f flushes, %.0f compactions,"
                            + " %.0f disk errors%n",
                    e.path("memtableBytes").asDouble(Double.NaN),
                    e.path("sstables").asDouble(Double.NaN),
                    e.path("sstableBytes").asDouble(Double.NaN),
                    e.path("flushes").asDouble(Double.NaN),
                    e.path("compactions").asDouble(Double.NaN),
                    e.path("diskErrors").asDouble(Double.NaN));
            if (!s.path("peers").isEmpty()) {
                out.printf(
                        Locale.ROOT,
                        "cluster   %d nodes, replication factor %d%n",
                        s.path("peers").size() + 1,
                        s.path("replicationFactor").asInt(0));
                for (JsonNode p : s.path("peers")) {
                    double last = p.path("lastContactMs").asDouble(Double.NaN);
                    out.printf(
                            Locale.ROOT,
                            "peer      %-28s %-5s last contact %s%n",
                            p.path("url").textValue(),
                            p.path("state").textValue(),
                            last <= 0 ? "never" : seconds((time.currentTimeMillis() - last) / 1000) + " ago");
                }
                JsonNode h = s.path("hints");
                out.printf(
                        Locale.ROOT,
                        "hints     %.0f pending (%,.0f bytes), %.0f delivered, %.0f dropped%n",
                        h.path("pending").asDouble(Double.NaN),
                        h.path("pendingBytes").asDouble(Double.NaN),
                        h.path("delivered").asDouble(Double.NaN),
                        h.path("dropped").asDouble(Double.NaN));
                out.printf(
                        Locale.ROOT,
                        "repair    %s%n",
                        s.path("repair").path("state").textValue());
            }
            return 0;
        });
    }

    @Command(
            name = "repair",
            mixinStandardHelpOptions = true,
            versionProvider = Main.Version.class,
            description = "Start an anti-entropy repair on the node and show its progress until it "
                    + "ends (POST, then GET /v0/admin/repair). Exit 1 if it ends partial or aborted.")
    @SuppressWarnings("try") // the bar is closed early, so that its last line comes before the summary
    int repair(
            @Option(names = "--no-wait", description = "Only start it.") boolean noWait,
            @Option(
                            names = "--poll",
                            defaultValue = "500ms",
                            paramLabel = "DURATION",
                            description = "How often to ask for progress (default: ${DEFAULT-VALUE}).")
                    TimeSpan poll) {
        return run((client, out) -> {
            long started = time.currentTimeMillis();
            JsonNode before = parse(client, client.send("GET", "/v0/admin/repair"));
            if (before.hasNonNull("note")) {
                out.println(client.url() + ": " + before.path("note").textValue());
                return 0;
            }
            client.send("POST", "/v0/admin/repair");
            out.println("repair started on " + client.url());
            if (noWait) {
                return 0;
            }
            try (ProgressBar bar = bar("repair", 1)) {
                while (true) {
                    JsonNode s = parse(client, client.send("GET", "/v0/admin/repair"));
                    double total = s.path("rangesTotal").asDouble(Double.NaN);
                    boolean running = "running".equals(s.path("state").textValue());
                    double lastStart = s.path("lastRun").path("startedAtMs").asDouble(Double.NaN);
                    if (running && total > 0) {
                        bar.maxHint((long) total);
                        bar.stepTo((long) s.path("rangesDone").asDouble(Double.NaN));
                        bar.setExtraMessage(String.format(
                                Locale.ROOT,
                                "%.0f keys in, %.0f out",
                                s.path("keysReceived").asDouble(Double.NaN),
                                s.path("keysSent").asDouble(Double.NaN)));
                    } else if (!running && lastStart >= started - 1000) {
                        JsonNode last = s.path("lastRun");
                        long done = (long) last.path("rangesDone").asDouble(Double.NaN);
                        bar.maxHint(Math.max(1, (long) last.path("rangesTotal").asDouble(Double.NaN)));
                        bar.stepTo(done);
                        bar.close();
                        String outcome = last.path("outcome").textValue();
                        out.printf(
                                Locale.ROOT,
                                "repair %s: %.0f of %.0f ranges, %.0f failed; %.0f keys received, %.0f sent%s%n",
                                outcome,
                                last.path("rangesDone").asDouble(Double.NaN),
                                last.path("rangesTotal").asDouble(Double.NaN),
                                last.path("rangesFailed").asDouble(Double.NaN),
                                last.path("keysReceived").asDouble(Double.NaN),
                                last.path("keysSent").asDouble(Double.NaN),
                                last.path("lastError").textValue() == null
                                        ? ""
                                        : "; last error: "
                                                + last.path("lastError").textValue());
                        return "ok".equals(outcome) ? 0 : AdminClient.EXIT_FAILED;
                    }
                    sleep(poll.millis());
                }
            }
        });
    }

    @Command(
            name = "ring",
            mixinStandardHelpOptions = true,
            versionProvider = Main.Version.class,
            description = "Show every node of the cluster as the node at --url lists them: state, node id,"
                    + " share of the keys it replicates, load (SSTable and memtable bytes) and membership"
                    + " (GET /v0/status of each)."
                    + " Exit 1 if a node is down, refuses reads or disagrees on the membership.")
    int ring() {
        return run((client, out) -> {
            JsonNode first = parse(client, client.send("GET", "/v0/status"));
            List<String> nodes = new ArrayList<>(List.of(client.url()));
            for (JsonNode p : first.path("peers")) {
                nodes.add(p.path("url").textValue());
            }
            JsonNode m = first.path("membership");
            String digest = m.path("digest").asText("-");
            int rf = m.path("replicationFactor").asInt(nodes.size());
            out.printf(
                    Locale.ROOT,
                    "cluster '%s', %d nodes, replication factor %d, membership %s, epoch %d%n",
                    m.path("cluster").asText("-"),
                    nodes.size(),
                    rf,
                    digest,
                    m.path("epoch").asLong(0));
            out.printf(
                    Locale.ROOT, "%-28s %-10s %4s %6s %14s  %s%n", "node", "state", "id", "owns", "load bytes", "note");
            boolean healthy = true;
            for (String node : nodes) {
                String state;
                String id = "-";
                String load = "-";
                String note = "";
                try {
                    JsonNode s = node.equals(client.url())
                            ? first
                            : parse(client, client.at(node).send("GET", "/v0/status"));
                    JsonNode nm = s.path("membership");
                    state = nm.path("state").asText("NORMAL");
                    id = nm.path("nodeId").asText("-");
                    JsonNode engine = s.path("engine");
                    load = String.format(
                            Locale.ROOT,
                            "%,.0f",
                            engine.path("sstableBytes").asDouble(Double.NaN)
                                    + engine.path("memtableBytes").asDouble(Double.NaN));
                    if (!nm.path("digest").asText(digest).equals(digest)) {
                        note = "membership " + nm.path("digest").asText() + " differs";
                        healthy = false;
                    }
                    healthy &= state.equals("NORMAL");
                } catch (AdminClient.Failure f) {
                    state = "down";
                    note = f.getMessage();
                    healthy = false;
                }
                out.printf(
                        Locale.ROOT,
                        "%-28s %-10s %4s %5.1f%% %14s  %s%n",
                        node,
                        state,
                        id,
                        100.0 * rf / nodes.size(),
                        load,
                        note);
            }
            return healthy ? 0 : AdminClient.EXIT_FAILED;
        });
    }

    @Command(
            name = "decommission",
            mixinStandardHelpOptions = true,
            versionProvider = Main.Version.class,
            description = "Decommission the node at --url: it streams its keys to their next owners, with a progress"
                    + " bar, then leaves the cluster (POST, then GET /v0/admin/decommission). Exit 1 if it fails.")
    @SuppressWarnings("try") // the bar is closed early, so that its last line comes before the summary
    int decommission(
            @Option(names = "--no-wait", description = "Only start it.") boolean noWait,
            @Option(
                            names = "--poll",
                            defaultValue = "500ms",
                            paramLabel = "DURATION",
                            description = "How often to ask for progress (default: ${DEFAULT-VALUE}).")
                    TimeSpan poll) {
        return run((client, out) -> {
            parse(client, client.send("POST", "/v0/admin/decommission"));
            out.println("decommission started on " + client.url());
            if (noWait) {
                return 0;
            }
            try (ProgressBar bar = bar("decommission", 1)) {
                while (true) {
                    JsonNode s = parse(client, client.send("GET", "/v0/admin/decommission"));
                    String phase = s.path("phase").asText("");
                    int total = s.path("streamsTotal").asInt(0);
                    if (total > 0) {
                        bar.maxHint(total);
                        bar.stepTo(s.path("streamsDone").asInt(0));
                    }
                    bar.setExtraMessage(String.format(
                            Locale.ROOT,
                            "%s, %,d entries, %.1f MB at %.1f MB/s",
                            phase,
                            s.path("entries").asLong(0),
                            s.path("bytes").asDouble(0) / 1e6,
                            s.path("megabytesPerSecond").asDouble(0)));
                    if (s.path("state").asText("").equals("LEFT") || phase.equals("failed")) {
                        bar.close();
                        if (phase.equals("failed")) {
                            out.println(
                                    "decommission failed: " + s.path("error").asText("")
                                            + "; the node stays LEAVING: run the decommission again");
                            return AdminClient.EXIT_FAILED;
                        }
                        out.printf(
                                Locale.ROOT,
                                "decommissioned: %,d entries streamed to %d nodes; the node left at epoch %d and may"
                                        + " be stopped%n",
                                s.path("entries").asLong(0),
                                total,
                                s.path("epoch").asLong(0));
                        return 0;
                    }
                    sleep(poll.millis());
                }
            }
        });
    }

    @Command(
            name = "cleanup",
            mixinStandardHelpOptions = true,
            versionProvider = Main.Version.class,
            description = "Drop the keys the node at --url no longer replicates, after nodes joined (POST"
                    + " /v0/admin/cleanup). Exit 1 while a membership change is in progress.")
    int cleanup() {
        return run((client, out) -> {
            JsonNode s = parse(client, client.send("POST", "/v0/admin/cleanup"));
            out.printf(
                    Locale.ROOT,
                    "%s: %,d entries dropped at epoch %d%n",
                    client.url(),
                    s.path("dropped").asLong(0),
                    s.path("epoch").asLong(0));
            return 0;
        });
    }

    @Command(
            name = "remove",
            mixinStandardHelpOptions = true,
            versionProvider = Main.Version.class,
            description = "Remove a dead node from the cluster; the nodes that take over its keys stream them from"
                    + " their other replicas (POST /v0/admin/remove?node=ID).")
    int remove(@CommandLine.Parameters(paramLabel = "NODE_ID", description = "The node's id (admin ring).") int id) {
        return run((client, out) -> {
            JsonNode s = parse(client, client.send("POST", "/v0/admin/remove?node=" + id));
            out.printf(
                    Locale.ROOT,
                    "node %d removed at epoch %d%n",
                    id,
                    s.path("epoch").asLong(0));
            return 0;
        });
    }

    @Command(
            name = "flush",
            mixinStandardHelpOptions = true,
            versionProvider = Main.Version.class,
            description = "Flush the node's memtable to an SSTable (POST /v0/admin/flush).")
    int flush() {
        return run((client, out) -> {
            out.print(client.send("POST", "/v0/admin/flush"));
            return 0;
        });
    }

    @Command(
            name = "compact",
            mixinStandardHelpOptions = true,
            versionProvider = Main.Version.class,
            description = "Merge all of the node's SSTables into one (POST /v0/admin/compact).")
    int compact() {
        return run((client, out) -> {
            out.print(client.send("POST", "/v0/admin/compact"));
            return 0;
        });
    }

    @Command(
            name = "snapshot",
            mixinStandardHelpOptions = true,
            versionProvider = Main.Version.class,
            description =
                    "Flush and hard-link the live SSTables with their manifest into "
                            + "<data-dir>/snapshots/<name>/ on the node, or on every node of its cluster (POST /v0/admin/snapshot).")
    int snapshot(
            @Option(
                            names = "--name",
                            paramLabel = "NAME",
                            description =
                                    "Snapshot name: 1-64 of A-Z a-z 0-9 . _ - (default: the time, yyyyMMdd-HHmmss).")
                    String name,
            @Option(
                            names = "--all-nodes",
                            description = "Snapshot every node of the cluster, as the node at --url " + "lists them.")
                    boolean allNodes) {
        String snapshotName = name != null
                ? name
                : LocalDateTime.ofInstant(Instant.ofEpochMilli(time.currentTimeMillis()), ZoneId.systemDefault())
                        .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        return run((client, out) -> {
            List<String> nodes = new ArrayList<>(List.of(client.url()));
            if (allNodes) {
                JsonNode s = parse(client, client.send("GET", "/v0/status"));
                for (JsonNode p : s.path("peers")) {
                    nodes.add(p.path("url").textValue());
                }
            }
            List<String> lines = new ArrayList<>();
            int failed = 0;
            int code = 0;
            try (ProgressBar bar = bar("snapshot " + snapshotName, nodes.size())) {
                for (String node : nodes) {
                    try {
                        JsonNode r =
                                parse(client, client.at(node).send("POST", "/v0/admin/snapshot?name=" + snapshotName));
                        lines.add(String.format(
                                Locale.ROOT,
                                "%s: %.0f SSTables, %,.0f bytes in %s",
                                node,
                                r.path("sstables").asDouble(Double.NaN),
                                r.path("bytes").asDouble(Double.NaN),
                                r.path("dir").textValue()));
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
        return new ProgressBarBuilder()
                .setTaskName(task)
                .setInitialMax(max)
                .setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(200)
                .continuousUpdate()
                .setConsumer(progressConsumer())
                .build();
    }

    /** The terminal's redrawn bar on a terminal; elsewhere (a file, a pipe) {@link ProgressLines}. */
    @SuppressWarnings("SystemConsoleNull") // it is null still, under Surefire and with -Djdk.console=java.base
    private static ProgressBarConsumer progressConsumer() {
        java.io.Console console = System.console();
        if (console != null && console.isTerminal()) {
            return new ConsoleProgressBarConsumer(System.err);
        }
        return new ProgressLines(System.err, TimeSource.SYSTEM);
    }

    /** The node's answer as a JSON tree; a body that is not JSON is a failure (exit 1). */
    private static JsonNode parse(AdminClient client, String body) throws AdminClient.Failure {
        try {
            return JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new AdminClient.Failure(
                    AdminClient.EXIT_FAILED, client.url() + " sent an unreadable answer: " + e.getOriginalMessage());
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
