package io.ringbase.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The kernel's table of this machine's TCP sockets ({@code /proc/net/tcp} and {@code tcp6}; Linux), for
 * tests that look at a connection's state or send queue. Addresses are left out: tests tell their sockets
 * apart by port.
 */
public final class TcpSockets {

    /** The state of a socket that closed first and waits out 2 MSL ({@code TCP_TIME_WAIT}). */
    public static final int TIME_WAIT = 0x06;

    /**
     * One socket.
     *
     * @param localPort           its local port
     * @param remotePort          its peer's port (0 for a listener)
     * @param state               the kernel's {@code TCP_*} state, e.g. {@link #TIME_WAIT}
     * @param unacknowledgedBytes bytes sent that the peer has not acknowledged (the {@code tx_queue})
     */
    public record Socket(int localPort, int remotePort, int state, long unacknowledgedBytes) {}

    private TcpSockets() {}

    /**
     * Every IPv4 and IPv6 TCP socket now; a table the kernel lacks is left out.
     *
     * @throws UncheckedIOException if a table cannot be read
     */
    public static List<Socket> all() {
        List<Socket> sockets = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path file = Path.of(table);
            if (!Files.exists(file)) {
                continue;
            }
            List<String> lines;
            try {
                lines = Files.readAllLines(file);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (String line : lines.subList(1, lines.size())) { // after the header
                String[] f = line.strip().split("\\s+"); // sl local rem st tx_queue:rx_queue ...
                sockets.add(new Socket(
                        port(f[1]),
                        port(f[2]),
                        Integer.parseInt(f[3], 16),
                        Long.parseLong(f[4].substring(0, f[4].indexOf(':')), 16)));
            }
        }
        return sockets;
    }

    /** The port of an {@code ADDRESS:PORT} field, both in hex. */
    private static int port(String addressAndPort) {
        return Integer.parseInt(addressAndPort.substring(addressAndPort.lastIndexOf(':') + 1), 16);
    }
}
