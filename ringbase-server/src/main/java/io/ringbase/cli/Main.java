package io.ringbase.cli;

import io.ringbase.node.BuildInfo;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of the {@code ringbase} command: dispatches to its subcommands (serve, cluster, admin,
 * aot-train). The {@code bench} subcommand lives in the ringbase-bench module
 * ({@code io.ringbase.bench.BenchMain}, which adds it to {@link #commandLine()}), so the server holds only
 * what a node runs.
 */
@Command(
        name = "ringbase",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Ringbase: a distributed key-value store with an HTTP API.")
public final class Main implements Runnable {

    /** When {@code main} began, {@link System#nanoTime()}: the end of the JVM's own start, for the ready line. */
    private static final long MAIN_NANOS = System.nanoTime();

    /**
     * The subcommands' names, in the order {@code --help} lists them. Each is built on demand
     * ({@link #subcommand}): picocli reads every option of every command it is given (reflection and class
     * loading, a few hundred ms of a node's start on a busy machine), and a run needs only the one it names.
     */
    private static final List<String> SUBCOMMANDS = List.of("serve", "cluster", "admin", "aot-train", "help");

    /**
     * A new subcommand object by its name in {@link #SUBCOMMANDS}. A switch, not a map of constructor
     * references: the JVM (25.0.3) crashed writing the ahead-of-time cache when a static field held a lambda
     * of picocli's HelpCommand, a class the cache leaves out.
     */
    private static Object subcommand(String name) {
        return switch (name) {
            case "serve" -> new ServeCommand();
            case "cluster" -> new ClusterCommand();
            case "admin" -> new AdminCommand();
            case "aot-train" -> new AotTrainCommand();
            case "help" -> new CommandLine.HelpCommand();
            default -> throw new IllegalArgumentException("no subcommand " + name);
        };
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        int code = commandLine(List.of(args)).execute(args);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** The {@code ringbase} command with its converters, ready to {@code execute} (tests run it in-process). */
    public static CommandLine commandLine() {
        return commandLine(List.of());
    }

    /**
     * The {@code ringbase} command for {@code args}: with only the subcommand they name when it is one of
     * this module's (what a run of {@code serve} needs), else with all of them; the same parse and output
     * either way.
     */
    public static CommandLine commandLine(List<String> args) {
        boolean one = !args.isEmpty() && !args.get(0).equals("help") && SUBCOMMANDS.contains(args.get(0));
        return build(one ? List.of(args.get(0)) : SUBCOMMANDS, new Object[0]);
    }

    /**
     * The {@code ringbase} command with all its subcommands and further ones (picocli {@code @Command}
     * objects, e.g. the bench module's), added before the converters and the error handler so that those
     * apply to them too.
     */
    public static CommandLine commandLine(Object... extraSubcommands) {
        return build(SUBCOMMANDS, extraSubcommands);
    }

    /** Nanoseconds ({@link System#nanoTime()}) from when {@code main} began. */
    static long sinceMainNanos() {
        return System.nanoTime() - MAIN_NANOS;
    }

    private static CommandLine build(List<String> subcommands, Object[] extraSubcommands) {
        CommandLine cmd = new CommandLine(new Main());
        for (String name : subcommands) {
            cmd.addSubcommand(subcommand(name));
        }
        for (Object sub : extraSubcommands) {
            cmd.addSubcommand(sub);
        }
        return cmd.registerConverter(ByteSize.class, text -> converted(() -> ByteSize.parse(text)))
                .registerConverter(TimeSpan.class, text -> converted(() -> TimeSpan.parse(text)))
                .setParameterExceptionHandler(Main::usageError);
    }

    /** A converter's value, its {@link IllegalArgumentException} turned into picocli's own (one clean line). */
    private static <T> T converted(java.util.function.Supplier<T> parse) {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }

    /**
     * A bad flag or flag value: one line on stderr naming the command and the problem, then where to
     * find help; exit code 2 (docs/operations.md).
     */
    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        String name = cmd.getCommandSpec().qualifiedName(" ");
        cmd.getErr().println(name + ": " + e.getMessage() + " (see " + name + " --help)");
        cmd.getErr().flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** Reports the version of the build ({@link BuildInfo}). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"ringbase " + BuildInfo.version()};
        }
    }
}
