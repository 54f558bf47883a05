import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads a range in pages for bench/paging-bench.sh: {@code GET /v0/entities?start=S&end=E&limit=L}, each
 * page through the next of the given ports in turn and starting at the previous page's
 * {@code Ringbase-Next-Start} trailer, until a page comes without one. Checks that keys arrive in strictly
 * increasing order (so none twice) and prints one RESULT line: keys, pages, seconds, keys/s, and whether
 * the count matched {@code expected}. Raw sockets, one connection per page, so the trailer is seen.
 * Usage: {@code java bench/paging/Pages.java START END LIMIT EXPECTED PORT[,PORT...]}
 */
public final class Pages {
    public static void main(String[] args) throws Exception {
        String start = args[0];
        String end = args[1];
        int limit = Integer.parseInt(args[2]);
        long expected = Long.parseLong(args[3]);
        int[] ports = Arrays.stream(args[4].split(",")).mapToInt(Integer::parseInt).toArray();
        long keys = 0;
        int pages = 0;
        byte[] previous = null;
        long t0 = System.nanoTime();
        String next = start;
        while (next != null) {
            int port = ports[pages % ports.length];
            try (Socket s = new Socket()) {
                s.setSoTimeout(60_000);
                s.connect(new InetSocketAddress("127.0.0.1", port));
                OutputStream out = s.getOutputStream();
                out.write(("GET /v0/entities?start=" + next + "&end=" + end + "&limit=" + limit
                                + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                InputStream in = new java.io.BufferedInputStream(s.getInputStream(), 1 << 16);
                String status = line(in);
                if (!status.startsWith("HTTP/1.1 200")) {
                    throw new IOException("page " + pages + " via :" + port + ": " + status);
                }
                while (!line(in).isEmpty()) {}
                next = null;
                while (true) {
                    int size = Integer.parseInt(line(in), 16);
                    if (size == 0) {
                        break;
                    }
                    byte[] chunk = in.readNBytes(size);
                    int nl = 0;
                    while (chunk[nl] != '\n') {
                        nl++;
                    }
                    byte[] key = Arrays.copyOf(chunk, nl);
                    if (previous != null && Arrays.compareUnsigned(previous, key) >= 0) {
                        throw new IllegalStateException("key out of order or repeated on page " + pages + ": "
                                + new String(key, StandardCharsets.UTF_8));
                    }
                    previous = key;
                    keys++;
                    line(in);
                }
                for (String t = line(in); !t.isEmpty(); t = line(in)) {
                    int colon = t.indexOf(':');
                    if (t.substring(0, colon).trim().equalsIgnoreCase("Ringbase-Next-Start")) {
                        next = t.substring(colon + 1).trim();
                    }
                }
            }
            pages++;
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf(
                "RESULT keys=%d expected=%d exactly_once=%s pages=%d limit=%d seconds=%.1f keys_per_s=%.0f%n",
                keys, expected, keys == expected, pages, limit, secs, keys / secs);
        if (keys != expected) {
            System.exit(1);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c == -1) {
                throw new IOException("connection closed mid-response");
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }
}
