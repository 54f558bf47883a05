package io.ringbase.aot;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A loopback server for the client side of a training run: it reads each request's head and body, and
 * writes back the raw bytes {@code answer} gives for the request line, then closes the connection if those
 * bytes hold {@code connection: close}. It records the request lines and counts connections.
 */
final class FakeHttpServer implements AutoCloseable {

    private final ServerSocket server;
    private final Function<String, String> answer;
    final List<String> requestLines = new CopyOnWriteArrayList<>();
    final AtomicInteger connections = new AtomicInteger();

    FakeHttpServer(Function<String, String> answer) throws IOException {
        this.answer = answer;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::accept);
    }

    InetSocketAddress address() {
        return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                connections.incrementAndGet();
                Thread.ofVirtual().start(() -> serve(s));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s;
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream()) {
            while (true) {
                String head = head(in);
                if (head == null) {
                    return;
                }
                int bodyLength = 0;
                for (String line : head.split("\r\n")) {
                    if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                        bodyLength = Integer.parseInt(line.substring(15).trim());
                    }
                }
                in.readNBytes(bodyLength);
                String requestLine = head.substring(0, head.indexOf("\r\n"));
                requestLines.add(requestLine);
                String reply = answer.apply(requestLine);
                out.write(reply.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                if (reply.toLowerCase(Locale.ROOT).contains("connection: close")) {
                    return;
                }
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    /** The request head up to its blank line, or null at the end of the stream. */
    private static String head(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.length() < 4 || !head.substring(head.length() - 4).equals("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.append((char) b);
        }
        return head.toString();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
