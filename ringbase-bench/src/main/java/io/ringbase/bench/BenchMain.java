package io.ringbase.bench;

import io.ringbase.cli.Main;
import picocli.CommandLine;

/**
 * Entry point of the bench jar ({@code ringbase-bench/target/ringbase-bench.jar}): the server's
 * {@code ringbase} command line ({@link Main#commandLine()}: its converters and error handling) with the
 * {@code bench} subcommand added. {@code bin/ringbase bench ...} runs it; every other command runs the
 * server jar, which holds no bench code.
 */
public final class BenchMain {

    private BenchMain() {}

    public static void main(String[] args) {
        int code = commandLine().execute(args);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** The {@code ringbase} command with {@code bench} among its subcommands. */
    static CommandLine commandLine() {
        return Main.commandLine(new BenchCommand());
    }
}
