package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.cluster.elastic.ElasticOptions;
import io.ringbase.node.NodeConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code serve --metadata-port-offset, --join, --replace, --stream-rate}: parsed, or refused with a reason. */
class ServeCommandElasticTest {

    static final String THREE = ServeCommandReplicationFactorTest.THREE;

    @Test
    void aStaticListStaysStatic() {
        NodeConfig c = ServeCommandClockTest.parse("--cluster", THREE, "--self", "http://127.0.0.1:7001");
        assertThat(c.elastic().isElastic()).isFalse();
        assertThat(c.elastic().streamBytesPerSecond()).isEqualTo(ElasticOptions.DEFAULT_STREAM_BYTES_PER_SECOND);
    }

    @Test
    void foundingAndJoiningNodes() {
        NodeConfig founder = ServeCommandClockTest.parse(
                "--cluster", THREE, "--self", "http://127.0.0.1:7001", "--metadata-port-offset", "10");
        assertThat(founder.elastic().metadataPortOffset()).isEqualTo(10);
        assertThat(founder.elastic().joins()).isFalse();
        NodeConfig joiner = ServeCommandClockTest.parse(
                "--join", "http://127.0.0.1:7001", "--self", "http://127.0.0.1:7004", "--stream-rate", "0");
        assertThat(joiner.elastic().joins()).isTrue();
        assertThat(joiner.elastic().streamBytesPerSecond()).as("0: no limit").isZero();
        assertThat(joiner.topology().self().port()).isEqualTo(7004);
    }

    @Test
    void badCombinationsAreRefused() {
        assertThatThrownBy(() -> ServeCommandClockTest.parse("--join", "http://127.0.0.1:7001"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--join needs --self");
        assertThatThrownBy(() -> ServeCommandClockTest.parse(
                        "--join", "http://127.0.0.1:7001", "--self", "http://127.0.0.1:7004", "--cluster", THREE))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("exclude each other");
        assertThatThrownBy(() -> ServeCommandClockTest.parse(
                        "--cluster", THREE, "--self", "http://127.0.0.1:7001", "--replace", "2"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--replace needs --join");
        assertThatThrownBy(() -> ServeCommandClockTest.parse("--stream-rate", "fast"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--stream-rate");
    }
}
