package io.ringbase.aot;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One keep-alive HTTP/1.1 connection with one request in flight, over a blocking socket: the client side of
 * a training run, and of {@code ringbase bench}'s prefill. It sends a request and reads the whole answer (a
 * {@code content-length} body, a chunked one, or none), reconnecting when the node said
 * {@code connection: close}. Not thread-safe: one per thread.
 *
 * <p>Why not the JDK's {@code java.net.http.HttpClient}: it runs in the JVM being trained, and at the rate it
 * gave (about 5,000 requests a second from 16 threads on two CPUs) the cache it trained made a fresh node's
 * closed-loop PUTs 6% faster, against 9-16% for one trained by wrk; and in each of five 30 s runs it failed
 * a PUT with "header parser received no bytes" although the node had answered it (a packet capture showed
 * the answer, then the client's FIN).
 */
public final class BlockingHttpConnection implements AutoCloseable {

    /** An answer: its status and body. */
    public record Answer(int status, byte[] body) {}

    /** Connect and read timeout, ms: twice the node's default request timeout (30 s), past which it answers. */
    private static final int TIMEOUT_MS = 60_000;

    private static final int MAX_LINE = 8_192;

    private final InetSocketAddress address;
    private final String host;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    /** @param address the node's address; nothing is connected until the first request */
    public BlockingHttpConnection(InetSocketAddress address) {
        this.address = address;
        this.host = address.getHostString() + ":" + address.getPort();
    }

    /**
     * Sends {@code method target} with {@code body} (or none) and reads the answer.
     *
     * @param target the request target, e.g. {@code /v0/entity?id=k}, already encoded
     * @throws IOException if the connection fails or the answer is not HTTP/1.1 as this reads it
     */
    public Answer send(String method, String target, byte[] body) throws IOException {
        if (socket == null) {
            connect();
        }
        StringBuilder head = new StringBuilder(96)
                .append(method)
                .append(' ')
                .append(target)
                .append(" HTTP/1.1\r\nhost: ")
                .append(host)
                .append("\r\n");
        if (body != null) {
            head.append("content-length: ").append(body.length).append("\r\n");
        }
        out.write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
        if (body != null) {
            out.write(body);
        }
        out.flush();
        return read();
    }

    private void connect() throws IOException {
        socket = new Socket();
        // This side closes first, so its socket stays in TIME_WAIT for a minute, holding its ephemeral port.
        // The launcher's warm-up runs before the node binds its own port, and that port can be one of
        // those: the node's listener (SO_REUSEADDR, as Netty's are) may bind over a TIME_WAIT socket only if
        // that socket had SO_REUSEADDR too. Without it the node failed now and then with "address already
        // in use" right after its warm-up.
        socket.setReuseAddress(true);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(TIMEOUT_MS);
        socket.connect(address, TIMEOUT_MS);
        in = new BufferedInputStream(socket.getInputStream(), 16_384);
        out = new BufferedOutputStream(socket.getOutputStream(), 16_384);
    }

    private Answer read() throws IOException {
        String status = line();
        if (!status.startsWith("HTTP/1.1 ") || status.length() < 12) {
            throw new IOException("not an HTTP/1.1 status line: '" + status + "'");
        }
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        boolean close = false;
        for (String header = line(); !header.isEmpty(); header = line()) {
            int colon = header.indexOf(':');
            if (colon < 0) {
                throw new IOException("not a header line: '" + header + "'");
            }
            String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = header.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
            switch (name) {
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.contains("chunked");
                case "connection" -> close = value.contains("close");
                default -> {}
            }
        }
        byte[] body;
        if (chunked) {
            body = chunks();
        } else if (length >= 0) {
            body = in.readNBytes(Math.toIntExact(length));
            if (body.length != length) {
                throw new EOFException(
                        "the connection closed " + body.length + " bytes into a " + length + "-byte body");
            }
        } else {
            body = new byte[0];
        }
        if (close) {
            close();
        }
        return new Answer(code, body);
    }

    private byte[] chunks() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = line();
            int semicolon = size.indexOf(';');
            int n = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
            if (n == 0) {
                while (!line().isEmpty()) { // trailers
                }
                return body.toByteArray();
            }
            byte[] chunk = in.readNBytes(n);
            if (chunk.length != n) {
                throw new EOFException("the connection closed inside a chunk");
            }
            body.writeBytes(chunk);
            if (!line().isEmpty()) {
                throw new IOException("no CRLF after a chunk");
            }
        }
    }

    /** A line without its CRLF. */
    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new EOFException("the node closed the connection");
            }
            if (line.length() >= MAX_LINE) {
                throw new IOException("a line longer than " + MAX_LINE + " bytes");
            }
            line.append((char) b);
        }
        int end = line.length();
        return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
    }

    @Override
    public void close() throws IOException {
        if (socket != null) {
            Socket s = socket;
            socket = null;
            s.close();
        }
    }
}
