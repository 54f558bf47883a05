package io.ringbase.transport;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty transport of this machine: the native epoll transport when it loads, NIO otherwise (with
 * one WARN line naming the cause). Stateless.
 */
public final class Transport {

    private static final Logger log = LoggerFactory.getLogger(Transport.class);
    private static final boolean EPOLL = Epoll.isAvailable();

    static {
        if (!EPOLL) {
            log.warn(
                    "native epoll transport unavailable ({}); falling back to NIO",
                    String.valueOf(Epoll.unavailabilityCause()));
        }
    }

    private Transport() {}

    /** Whether the native epoll transport is in use. */
    public static boolean epoll() {
        return EPOLL;
    }

    /**
     * A new group of {@code threads} event loops whose threads are daemons named {@code name-N}. The
     * caller owns it and shuts it down.
     */
    public static EventLoopGroup newEventLoopGroup(int threads, String name) {
        IoHandlerFactory io = EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), io);
    }

    /** The server socket channel class of the transport. */
    public static Class<? extends ServerChannel> serverChannel() {
        return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** The client socket channel class of the transport. */
    public static Class<? extends SocketChannel> socketChannel() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** The event loops of {@code group}, in its iteration order. */
    public static List<EventLoop> loops(EventLoopGroup group) {
        List<EventLoop> loops = new ArrayList<>();
        for (EventExecutor e : group) {
            loops.add((EventLoop) e);
        }
        return List.copyOf(loops);
    }
}
