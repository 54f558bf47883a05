package io.ringbase.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One in-process run of the {@code ringbase} command line ({@link Main#commandLine()}): its exit code and what it printed. */
record CommandRun(int exitCode, String out, String err) {

    /** Runs {@code args} (a subcommand and its flags) and keeps its exit code, stdout and stderr. */
    static CommandRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.commandLine()
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(args);
        return new CommandRun(code, out.toString(), err.toString());
    }
}
