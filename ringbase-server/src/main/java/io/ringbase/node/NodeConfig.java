package io.ringbase.node;

import io.ringbase.api.HttpServerConfig;
import io.ringbase.clock.ClockOptions;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.elastic.ElasticOptions;
import io.ringbase.cluster.hint.HintOptions;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.replication.SpeculativeRetry;
import io.ringbase.cluster.replication.WriteProtocol;
import io.ringbase.cluster.wire.PeerProtocol;
import io.ringbase.functions.FunctionEngine;
import io.ringbase.storage.EngineKind;
import io.ringbase.storage.lsm.LsmOptions;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Everything a node needs, validated by its parts' constructors.
 *
 * @param http             bind address and limits of the HTTP API
 * @param storage          engine options (data directory, WAL policy, memtable size, tombstone grace)
 * @param topology         the cluster (a node alone when it has one member)
 * @param replicaTimeoutMs how long the coordinator waits for a replica's answer (ms)
 * @param clusterSecret    the shared HMAC key of internal and admin requests, or {@code null} for none
 * @param hints            bounds of hinted handoff (stored under {@code <data-dir>/hints})
 * @param clock            the clock bound ({@code --max-clock-offset}) and a test-only skew
 * @param metrics          whether requests are counted and {@code /metrics} served (default true)
 * @param accessLog        whether every request is logged on {@code io.ringbase.access} (default false)
 * @param engine           the storage engine ({@code --engine}; default {@link EngineKind#LSM})
 * @param speculativeRetry how a coordinator spreads reads over replicas ({@code --speculative-retry};
 *                         default {@link SpeculativeRetry#DEFAULT})
 * @param time             the wall clock of TTLs, hints, signatures and status (default
 *                         {@link TimeSource#SYSTEM}; tests move their own)
 * @param clusterName      the cluster's name ({@code --cluster-name}, default
 *                         {@value Membership#DEFAULT_NAME}): a node refuses a data directory of another
 *                         cluster, and nodes of different names refuse each other's requests
 * @param elastic          whether the membership comes from the metadata log, and how
 *                         ({@link ElasticOptions#STATIC}: the static {@code --cluster} list)
 * @param peerProtocol     how this node calls its replicas ({@code --internal-protocol}; default
 *                         {@link PeerProtocol#V2}, HTTP for peers that do not speak it)
 * @param writeProtocol    how a coordinator makes quorum writes ({@code --write-protocol}; default
 *                         {@link WriteProtocol#DEFAULT})
 * @param functionsEngine  what runs server-side functions ({@code --functions-engine}; default
 *                         {@link FunctionEngine#DEFAULT})
 */
public record NodeConfig(
        HttpServerConfig http,
        LsmOptions storage,
        Topology topology,
        long replicaTimeoutMs,
        byte[] clusterSecret,
        HintOptions hints,
        ClockOptions clock,
        boolean metrics,
        boolean accessLog,
        EngineKind engine,
        SpeculativeRetry speculativeRetry,
        TimeSource time,
        String clusterName,
        ElasticOptions elastic,
        PeerProtocol peerProtocol,
        WriteProtocol writeProtocol,
        FunctionEngine functionsEngine) {
    public NodeConfig {
        Objects.requireNonNull(writeProtocol, "writeProtocol");
        Objects.requireNonNull(functionsEngine, "functionsEngine");
        Objects.requireNonNull(elastic, "elastic");
        Objects.requireNonNull(peerProtocol, "peerProtocol");
        Membership.checkName(clusterName);
        if (replicaTimeoutMs <= 0) {
            throw new IllegalArgumentException("replica timeout must be positive, got " + replicaTimeoutMs);
        }
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(speculativeRetry, "speculativeRetry");
        Objects.requireNonNull(time, "time");
    }

    /** This config with its calls to replicas over {@code protocol} ({@code --internal-protocol}). */
    public NodeConfig withPeerProtocol(PeerProtocol protocol) {
        return with(c -> c.peerProtocol = protocol);
    }

    /** A config of a static cluster (no metadata log). */
    public NodeConfig(
            HttpServerConfig http,
            LsmOptions storage,
            Topology topology,
            long replicaTimeoutMs,
            byte[] clusterSecret,
            HintOptions hints,
            ClockOptions clock,
            boolean metrics,
            boolean accessLog,
            EngineKind engine,
            SpeculativeRetry speculativeRetry,
            TimeSource time,
            String clusterName) {
        this(
                http,
                storage,
                topology,
                replicaTimeoutMs,
                clusterSecret,
                hints,
                clock,
                metrics,
                accessLog,
                engine,
                speculativeRetry,
                time,
                clusterName,
                ElasticOptions.STATIC,
                PeerProtocol.DEFAULT,
                WriteProtocol.DEFAULT,
                FunctionEngine.DEFAULT);
    }

    /** This config with another topology (a joining node's, from the cluster metadata). */
    public NodeConfig withTopology(Topology other) {
        return with(c -> c.topology = other);
    }

    /** This config with its membership taken from the metadata log ({@code --metadata-port-offset}, {@code --join}). */
    public NodeConfig withElastic(ElasticOptions options) {
        return with(c -> c.elastic = options);
    }

    /** A config with the default speculative retry and the system clock. */
    public NodeConfig(
            HttpServerConfig http,
            LsmOptions storage,
            Topology topology,
            long replicaTimeoutMs,
            byte[] clusterSecret,
            HintOptions hints,
            ClockOptions clock,
            boolean metrics,
            boolean accessLog,
            EngineKind engine) {
        this(
                http,
                storage,
                topology,
                replicaTimeoutMs,
                clusterSecret,
                hints,
                clock,
                metrics,
                accessLog,
                engine,
                SpeculativeRetry.DEFAULT,
                TimeSource.SYSTEM,
                Membership.DEFAULT_NAME);
    }

    /** A config on our own engine ({@link EngineKind#LSM}). */
    public NodeConfig(
            HttpServerConfig http,
            LsmOptions storage,
            Topology topology,
            long replicaTimeoutMs,
            byte[] clusterSecret,
            HintOptions hints,
            ClockOptions clock,
            boolean metrics,
            boolean accessLog) {
        this(
                http,
                storage,
                topology,
                replicaTimeoutMs,
                clusterSecret,
                hints,
                clock,
                metrics,
                accessLog,
                EngineKind.LSM);
    }

    /** A config with the default clock options ({@link ClockOptions#defaults()}), metrics on and no access log. */
    public NodeConfig(
            HttpServerConfig http,
            LsmOptions storage,
            Topology topology,
            long replicaTimeoutMs,
            byte[] clusterSecret,
            HintOptions hints) {
        this(http, storage, topology, replicaTimeoutMs, clusterSecret, hints, ClockOptions.defaults(), true, false);
    }

    /** This config with another speculative retry policy. */
    public NodeConfig withSpeculativeRetry(SpeculativeRetry retry) {
        return with(c -> c.speculativeRetry = retry);
    }

    /** This config with another storage engine. */
    public NodeConfig withEngine(EngineKind kind) {
        return with(c -> c.engine = kind);
    }

    /** This config with other clock options. */
    public NodeConfig withClock(ClockOptions options) {
        return with(c -> c.clock = options);
    }

    /** This config with metrics on or off. */
    public NodeConfig withMetrics(boolean on) {
        return with(c -> c.metrics = on);
    }

    /** This config with the access log on or off. */
    public NodeConfig withAccessLog(boolean on) {
        return with(c -> c.accessLog = on);
    }

    /** This config with another wall clock (tests). */
    public NodeConfig withTime(TimeSource source) {
        return with(c -> c.time = source);
    }

    /** This config with another quorum write protocol ({@code --write-protocol}). */
    public NodeConfig withWriteProtocol(WriteProtocol protocol) {
        return with(c -> c.writeProtocol = protocol);
    }

    /** This config with its functions run by {@code kind} ({@code --functions-engine}). */
    public NodeConfig withFunctionsEngine(FunctionEngine kind) {
        return with(c -> c.functionsEngine = kind);
    }

    /** This config with another cluster name ({@code --cluster-name}). */
    public NodeConfig withClusterName(String name) {
        return with(c -> c.clusterName = name);
    }

    /**
     * A copy of this config with the fields {@code change} sets: the one place besides the record header
     * that lists every field in order, so that each {@code withX} names only what it changes.
     */
    private NodeConfig with(Consumer<Fields> change) {
        Fields f = new Fields(this);
        change.accept(f);
        return f.config();
    }

    /** The fields of a config, mutable for {@link #with}. */
    private static final class Fields {
        HttpServerConfig http;
        LsmOptions storage;
        Topology topology;
        long replicaTimeoutMs;
        byte[] clusterSecret;
        HintOptions hints;
        ClockOptions clock;
        boolean metrics;
        boolean accessLog;
        EngineKind engine;
        SpeculativeRetry speculativeRetry;
        TimeSource time;
        String clusterName;
        ElasticOptions elastic;
        PeerProtocol peerProtocol;
        WriteProtocol writeProtocol;
        FunctionEngine functionsEngine;

        Fields(NodeConfig c) {
            http = c.http;
            storage = c.storage;
            topology = c.topology;
            replicaTimeoutMs = c.replicaTimeoutMs;
            clusterSecret = c.clusterSecret;
            hints = c.hints;
            clock = c.clock;
            metrics = c.metrics;
            accessLog = c.accessLog;
            engine = c.engine;
            speculativeRetry = c.speculativeRetry;
            time = c.time;
            clusterName = c.clusterName;
            elastic = c.elastic;
            peerProtocol = c.peerProtocol;
            writeProtocol = c.writeProtocol;
            functionsEngine = c.functionsEngine;
        }

        NodeConfig config() {
            return new NodeConfig(
                    http,
                    storage,
                    topology,
                    replicaTimeoutMs,
                    clusterSecret,
                    hints,
                    clock,
                    metrics,
                    accessLog,
                    engine,
                    speculativeRetry,
                    time,
                    clusterName,
                    elastic,
                    peerProtocol,
                    writeProtocol,
                    functionsEngine);
        }
    }
}
