package io.ringbase.bench;

import java.io.BufferedReader;
import java.io.IOException;

/**
 * Reads oha's per-request CSV ({@code --output-format csv}) into a {@link LoadResult}.
 *
 * <p>oha 1.16 writes one line per answered request, sorted by start, after the header
 * {@code request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status}: seconds since the run
 * started, seconds, seconds, seconds, seconds, bytes, HTTP status. With {@code -q RATE --latency-correction}
 * the request-duration is measured from the send time the rate schedule intended, not from when a
 * connection became free, so it is corrected for coordinated omission. Requests that got no answer
 * (connection errors, cut off at the deadline) are not in the file.
 */
public final class OhaCsv {

    /** The header line oha 1.16 writes. */
    public static final String HEADER = "request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status";

    private OhaCsv() {}

    /**
     * Parses the whole CSV into {@code into}.
     *
     * @return the number of requests read
     * @throws IOException if reading fails, or the header or a line is not oha's CSV (the message names the line)
     */
    public static long parse(BufferedReader in, LoadResult into) throws IOException {
        String header = in.readLine();
        if (header == null || !header.trim().equals(HEADER)) {
            throw new IOException("not oha's CSV output: header is '" + header + "', expected '" + HEADER + "'");
        }
        long n = 0;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) {
                continue;
            }
            n++;
            String[] f = line.split(",", -1);
            if (f.length != 7) {
                throw new IOException(
                        "line " + (n + 1) + " of oha's CSV has " + f.length + " fields, expected 7: " + line);
            }
            try {
                double start = Double.parseDouble(f[0]);
                long latencyUs = Math.round(Double.parseDouble(f[4]) * 1_000_000);
                into.record(start, latencyUs, Integer.parseInt(f[6]));
            } catch (NumberFormatException e) {
                throw new IOException("line " + (n + 1) + " of oha's CSV is not numeric: " + line, e);
            }
        }
        return n;
    }
}
