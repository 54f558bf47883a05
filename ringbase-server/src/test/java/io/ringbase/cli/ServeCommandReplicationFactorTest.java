package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.node.NodeConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code serve --replication-factor}: the list's size by default, 1 to the list's size, else refused. */
class ServeCommandReplicationFactorTest {

    static final String THREE = "http://127.0.0.1:7001,http://127.0.0.1:7002,http://127.0.0.1:7003";

    @Test
    void withoutTheFlagEveryNodeOfTheListHoldsEveryKey() {
        NodeConfig c = ServeCommandClockTest.parse("--cluster", THREE, "--self", "http://127.0.0.1:7002");
        assertThat(c.topology().replicationFactor()).isEqualTo(3);
        assertThat(c.topology().defaultFrom()).isEqualTo(3);
        assertThat(ServeCommandClockTest.parse("--port", "0").topology().replicationFactor())
                .as("a node alone")
                .isEqualTo(1);
    }

    @Test
    void theFlagSetsTheReplicationFactorOfTheTopology() {
        NodeConfig c = ServeCommandClockTest.parse(
                "--cluster", THREE, "--self", "http://127.0.0.1:7001", "--replication-factor", "2");
        assertThat(c.topology().size()).isEqualTo(3);
        assertThat(c.topology().replicationFactor()).isEqualTo(2);
        assertThat(ServeCommandClockTest.parse("--port", "0", "--replication-factor", "1")
                        .topology()
                        .replicationFactor())
                .isEqualTo(1);
    }

    @Test
    void aReplicationFactorAboveTheListOrBelowOneIsRefusedInOneLine() {
        for (String rf : new String[] {"4", "0", "-2"}) {
            assertThatThrownBy(() -> ServeCommandClockTest.parse(
                            "--cluster", THREE, "--self", "http://127.0.0.1:7001", "--replication-factor", rf))
                    .isInstanceOf(CommandLine.ParameterException.class)
                    .hasMessage("--replication-factor must be between 1 and 3 (the number of nodes in --cluster), got "
                            + rf);
        }
        assertThatThrownBy(() -> ServeCommandClockTest.parse("--port", "0", "--replication-factor", "2"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage(
                        "--replication-factor 2 needs a --cluster of at least that many nodes; a node alone holds 1 copy");
    }
}
