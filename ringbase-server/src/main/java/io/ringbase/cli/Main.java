package io.ringbase.cli;

import io.ringbase.node.BuildInfo;
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
        description = "Ringbase: a distributed key-value store with an HTTP API.",
        subcommands = {
            ServeCommand.class,
            ClusterCommand.class,
            AdminCommand.class,
            AotTrainCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        int code = commandLine().execute(args);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** The {@code ringbase} command with its converters, ready to {@code execute} (tests run it in-process). */
    public static CommandLine commandLine() {
        return commandLine(new Object[0]);
    }

    /**
     * The {@code ringbase} command with further subcommands (picocli {@code @Command} objects, e.g. the bench
     * module's), added before the converters and the error handler so that those apply to them too.
     */
    public static CommandLine commandLine(Object... extraSubcommands) {
        CommandLine cmd = new CommandLine(new Main());
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
