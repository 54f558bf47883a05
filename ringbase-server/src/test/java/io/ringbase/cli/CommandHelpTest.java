package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * Every command and subcommand of {@code ringbase} answers {@code --help}, {@code -h} and {@code --version}
 * (picocli's standard help options): {@code ringbase admin status --help} used to exit 2 with
 * "Unknown option: '--help'".
 */
class CommandHelpTest {

    /** Every command below {@code ringbase}, as its words ({@code [admin, status]}), but picocli's {@code help}. */
    static List<List<String>> allCommands() {
        List<List<String>> out = new ArrayList<>();
        collect(Main.commandLine(), new ArrayList<>(), out);
        return out;
    }

    private static void collect(CommandLine cmd, List<String> words, List<List<String>> out) {
        for (var sub : cmd.getSubcommands().entrySet()) {
            if (sub.getValue().getCommand() instanceof CommandLine.HelpCommand) {
                continue;
            }
            List<String> path = new ArrayList<>(words);
            path.add(sub.getKey());
            out.add(path);
            collect(sub.getValue(), path, out);
        }
    }

    @Test
    @Timeout(30)
    void everySubcommandPrintsItsUsageForHelpAndExitsZero() {
        List<List<String>> commands = allCommands();
        assertThat(commands)
                .contains(
                        List.of("serve"),
                        List.of("admin"),
                        List.of("admin", "status"),
                        List.of("admin", "ring"),
                        List.of("admin", "repair"),
                        List.of("admin", "flush"),
                        List.of("admin", "compact"),
                        List.of("admin", "snapshot"));
        for (List<String> command : commands) {
            for (String flag : List.of("--help", "-h")) {
                List<String> args = new ArrayList<>(command);
                args.add(flag);
                CommandRun run = CommandRun.of(args.toArray(String[]::new));
                assertThat(run.exitCode())
                        .as("ringbase %s: %s", String.join(" ", args), run.err())
                        .isZero();
                assertThat(run.out())
                        .as("ringbase %s", String.join(" ", args))
                        .startsWith("Usage: ringbase " + String.join(" ", command));
            }
        }
    }

    @Test
    @Timeout(30)
    void everySubcommandPrintsTheVersion() {
        String version = CommandRun.of("--version").out().strip();
        assertThat(version).startsWith("ringbase ");
        for (List<String> command : allCommands()) {
            List<String> args = new ArrayList<>(command);
            args.add("--version");
            CommandRun run = CommandRun.of(args.toArray(String[]::new));
            assertThat(run.exitCode())
                    .as("ringbase %s: %s", String.join(" ", args), run.err())
                    .isZero();
            assertThat(run.out().strip())
                    .as("ringbase %s", String.join(" ", args))
                    .isEqualTo(version);
        }
    }
}
