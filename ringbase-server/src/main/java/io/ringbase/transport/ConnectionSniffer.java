package io.ringbase.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelPipeline;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * Another protocol served on the HTTP port, told apart by a connection's first byte (the node-to-node
 * binary protocol, docs/internal-protocol-v2.md). The HTTP server asks it about every accepted
 * connection's first byte and, when it {@link #matches}, hands the connection over: its HTTP handlers are
 * removed and {@link #install} adds this protocol's. Implementations are thread-safe.
 */
public interface ConnectionSniffer {

    /** Whether a connection whose first byte is {@code first} speaks this protocol. */
    boolean matches(byte first);

    /**
     * Adds this protocol's handlers to an accepted connection's {@code pipeline}, from which the HTTP
     * handlers were removed; the bytes read so far follow once it returns.
     *
     * @param workers where work that may block runs (the HTTP server's worker pool; it may refuse with
     *                {@link java.util.concurrent.RejectedExecutionException} when full)
     * @param refusal  {@code null} to serve the connection, else why it is refused (one line: a TLS port's
     *                 connection whose peer presented no certificate signed by {@code --tls-ca}): the protocol
     *                 answers its handshake with this refusal and closes it
     */
    void install(ChannelPipeline pipeline, Executor workers, @Nullable String refusal);

    /** As {@link #install(ChannelPipeline, Executor, String)} for a connection to serve. */
    default void install(ChannelPipeline pipeline, Executor workers) {
        install(pipeline, workers, null);
    }

    /** Whether {@code in}'s first readable byte is this protocol's (false if none is readable). */
    default boolean matches(ByteBuf in) {
        return in.isReadable() && matches(in.getByte(in.readerIndex()));
    }
}
