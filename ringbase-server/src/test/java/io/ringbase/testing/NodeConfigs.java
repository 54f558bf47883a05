package io.ringbase.testing;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.hint.HintOptions;
import io.ringbase.node.Node;
import io.ringbase.node.NodeConfig;
import io.ringbase.storage.lsm.LsmOptions;

/** Node configs that tests start in-process ({@link Node#start}). */
public final class NodeConfigs {

    private NodeConfigs() {}

    /**
     * A node alone on 127.0.0.1 at an ephemeral port, with {@code storage}, a 1 s replica timeout, no secret
     * and default hints; every other setting the default.
     */
    public static NodeConfig alone(LsmOptions storage) {
        return alone(storage, HttpServerConfig.defaults(0).withHost("127.0.0.1"));
    }

    /** As {@link #alone(LsmOptions)}, with the HTTP settings {@code http} (TLS, limits). */
    public static NodeConfig alone(LsmOptions storage, HttpServerConfig http) {
        return new NodeConfig(
                http,
                storage,
                Topology.single("127.0.0.1", 1), // a node alone never calls itself by its URL
                1000,
                null,
                HintOptions.defaults());
    }
}
