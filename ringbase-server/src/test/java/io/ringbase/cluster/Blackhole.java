package io.ringbase.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A "replica" that accepts TCP connections and reads whatever is sent but never answers: what a hung
 * node looks like to its peers. Put it on a cluster member's port in place of the real node.
 */
final class Blackhole implements AutoCloseable {

    private final ServerSocket server;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();

    Blackhole(int port) throws IOException {
        server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        Thread.ofPlatform().daemon().name("blackhole-" + port).start(this::acceptLoop);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                accepted.add(s);
                Thread.ofPlatform().daemon().start(() -> drain(s));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void drain(Socket s) {
        byte[] buf = new byte[8192];
        try (InputStream in = s.getInputStream()) {
            while (in.read(buf) >= 0) {
                // swallow the request, never answer
            }
        } catch (IOException e) {
            // closed by the peer or by close()
        }
    }

    /** Connections accepted so far. */
    int connections() {
        return accepted.size();
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : accepted) {
            s.close();
        }
    }
}
