package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.node.NodeConfig;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code cluster --replication-factor}: every node of the local cluster gets it; --nodes by default. */
class ClusterCommandReplicationFactorTest {

    static List<NodeConfig> parse(String... args) {
        ClusterCommand cluster = new ClusterCommand();
        new CommandLine(cluster).parseArgs(args);
        return cluster.validate();
    }

    @Test
    void everyNodeGetsTheReplicationFactorAndItDefaultsToTheNodeCount() {
        List<NodeConfig> six = parse("--nodes", "6", "--replication-factor", "3");
        assertThat(six).hasSize(6);
        assertThat(six)
                .allSatisfy(c -> assertThat(c.topology().replicationFactor()).isEqualTo(3));
        assertThat(parse("--nodes", "4"))
                .allSatisfy(c -> assertThat(c.topology().replicationFactor()).isEqualTo(4));
    }

    @Test
    void aReplicationFactorAboveTheNodeCountIsAUsageError() {
        assertThatThrownBy(() -> parse("--nodes", "3", "--replication-factor", "4"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--replication-factor must be between 1 and 3 (--nodes), got 4");
    }
}
