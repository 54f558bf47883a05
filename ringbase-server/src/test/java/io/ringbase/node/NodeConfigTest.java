package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.replication.WriteProtocol;
import io.ringbase.cluster.wire.PeerProtocol;
import io.ringbase.functions.FunctionEngine;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.NodeConfigs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Each {@code withX} of {@link NodeConfig} changes its own field and leaves every other as it was. */
class NodeConfigTest {

    private final NodeConfig base = NodeConfigs.alone(LsmOptions.defaults(Path.of("unused")));

    @Test
    void eachWithChangesOnlyItsField() {
        NodeConfig noMetrics = base.withMetrics(!base.metrics());
        assertThat(noMetrics.metrics()).isNotEqualTo(base.metrics());
        assertThat(noMetrics.accessLog()).isEqualTo(base.accessLog());

        NodeConfig logged = base.withAccessLog(!base.accessLog());
        assertThat(logged.accessLog()).isNotEqualTo(base.accessLog());
        assertThat(logged.metrics()).isEqualTo(base.metrics());

        NodeConfig named = base.withClusterName("other")
                .withPeerProtocol(PeerProtocol.HTTP)
                .withWriteProtocol(WriteProtocol.ONE_ROUND)
                .withFunctionsEngine(FunctionEngine.INTERPRETER);
        assertThat(named.clusterName()).isEqualTo("other");
        assertThat(named.peerProtocol()).isEqualTo(PeerProtocol.HTTP);
        assertThat(named.writeProtocol()).isEqualTo(WriteProtocol.ONE_ROUND);
        assertThat(named.functionsEngine()).isEqualTo(FunctionEngine.INTERPRETER);
        assertThat(named.http()).isSameAs(base.http());
        assertThat(named.storage()).isSameAs(base.storage());
        assertThat(named.topology()).isSameAs(base.topology());
        assertThat(named.replicaTimeoutMs()).isEqualTo(base.replicaTimeoutMs());
        assertThat(named.clusterSecret()).isSameAs(base.clusterSecret());
        assertThat(named.hints()).isSameAs(base.hints());
        assertThat(named.clock()).isSameAs(base.clock());
        assertThat(named.engine()).isEqualTo(base.engine());
        assertThat(named.speculativeRetry()).isEqualTo(base.speculativeRetry());
        assertThat(named.time()).isSameAs(base.time());
        assertThat(named.elastic()).isEqualTo(base.elastic());
    }
}
