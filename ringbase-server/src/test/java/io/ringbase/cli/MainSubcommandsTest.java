package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A run builds only the subcommand it names (picocli reads every option of every command it is given, a
 * few hundred ms of a node's start), and that changes nothing a user sees: help lists every command, and
 * a subcommand's usage is the same either way.
 */
class MainSubcommandsTest {

    private static final List<String> ALL = List.of("serve", "cluster", "admin", "aot-train", "help");

    @Test
    void aRunOfServeBuildsOnlyServe() {
        CommandLine cmd = Main.commandLine(List.of("serve", "--port", "0"));
        assertThat(cmd.getSubcommands().keySet()).containsExactly("serve");
        assertThat(Main.commandLine(List.of("admin", "status")).getSubcommands().keySet())
                .containsExactly("admin");
    }

    @Test
    void helpVersionAndUnknownNamesBuildEveryCommand() {
        assertThat(Main.commandLine(List.of()).getSubcommands().keySet()).containsExactlyElementsOf(ALL);
        assertThat(Main.commandLine(List.of("help", "serve")).getSubcommands().keySet())
                .containsExactlyElementsOf(ALL);
        assertThat(Main.commandLine(List.of("--version")).getSubcommands().keySet())
                .containsExactlyElementsOf(ALL);
        assertThat(Main.commandLine(List.of("bench")).getSubcommands().keySet()).containsExactlyElementsOf(ALL);
        assertThat(Main.commandLine().getSubcommands().keySet()).containsExactlyElementsOf(ALL);
    }

    @Test
    void aSubcommandsUsageIsTheSameBuiltAloneOrWithTheOthers() {
        for (String name : List.of("serve", "cluster", "admin", "aot-train")) {
            String alone = Main.commandLine(List.of(name))
                    .getSubcommands()
                    .get(name)
                    .getUsageMessage(CommandLine.Help.Ansi.OFF);
            String withAll = Main.commandLine().getSubcommands().get(name).getUsageMessage(CommandLine.Help.Ansi.OFF);
            assertThat(alone).as(name).isEqualTo(withAll).contains("ringbase " + name);
        }
    }
}
