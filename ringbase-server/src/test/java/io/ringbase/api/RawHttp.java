package io.ringbase.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A minimal HTTP/1.x client over a raw socket, for tests that must see the bytes on the wire. */
final class RawHttp implements AutoCloseable {

    /** A parsed response; {@code chunks} is non-null for a chunked body, one element per chunk. */
    record Response(String version, int status, Map<String, String> headers, byte[] body, List<byte[]> chunks) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** The trailer fields of the last chunked response {@link #read} (lower-case names), empty if none. */
    final Map<String, String> trailers = new LinkedHashMap<>();

    final Socket socket;
    final InputStream in;
    final OutputStream out;

    RawHttp(int port) throws IOException {
        this(port, 0);
    }

    /** @param receiveBuffer socket receive buffer in bytes, or 0 for the default */
    RawHttp(int port, int receiveBuffer) throws IOException {
        socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.setSoTimeout(20_000);
        socket.connect(new InetSocketAddress("127.0.0.1", port));
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    void send(String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** Reads one response: status line, headers, and a body by Content-Length, chunks, or to EOF. */
    Response read() throws IOException {
        trailers.clear();
        Response head = readHead();
        Map<String, String> headers = head.headers();
        String te = headers.get("transfer-encoding");
        String cl = headers.get("content-length");
        if (te != null && te.equalsIgnoreCase("chunked")) {
            List<byte[]> chunks = new ArrayList<>();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            while (true) {
                int size = Integer.parseInt(line().trim(), 16);
                if (size == 0) {
                    for (String t = line(); t != null && !t.isEmpty(); t = line()) {
                        int colon = t.indexOf(':');
                        trailers.put(
                                t.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                                t.substring(colon + 1).trim());
                    }
                    break;
                }
                byte[] chunk = in.readNBytes(size);
                if (chunk.length != size) {
                    throw new IOException("truncated chunk");
                }
                chunks.add(chunk);
                all.write(chunk);
                if (!line().isEmpty()) {
                    throw new IOException("chunk not followed by CRLF");
                }
            }
            return new Response(head.version(), head.status(), headers, all.toByteArray(), chunks);
        }
        byte[] body = cl != null ? in.readNBytes(Integer.parseInt(cl)) : in.readAllBytes();
        return new Response(head.version(), head.status(), headers, body, null);
    }

    /**
     * Reads the status line and header section of one response and nothing more: the whole of a response
     * to HEAD (RFC 9112 §6.3), whatever its Content-Length says.
     *
     * @throws IOException if the connection ends first or the first line is not an HTTP/1.x status line
     *                     (for instance the body of an earlier response that should have had none)
     */
    Response readHead() throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.") || !parts[1].matches("[0-9]{3}")) {
            throw new IOException("not a status line: '" + statusLine + "'");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String h = line(); h != null && !h.isEmpty(); h = line()) {
            int colon = h.indexOf(':');
            headers.put(
                    h.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    h.substring(colon + 1).trim());
        }
        return new Response(parts[0], Integer.parseInt(parts[1]), headers, new byte[0], null);
    }

    /** One CRLF-terminated line without its terminator, or null at EOF. */
    String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                byte[] bytes = b.toByteArray();
                int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    /** True if the server closed the connection (reads EOF within the socket timeout). */
    boolean closedByServer() throws IOException {
        try {
            return in.read() == -1;
        } catch (java.net.SocketException e) {
            return true; // reset
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
