package io.ringbase.kv;

/**
 * How many replicas a request goes to and how many must answer: the course's {@code from} and {@code ack}
 * ({@code 0 < ack <= from <= replication factor}). Dynamo's N and W (or R) per request.
 *
 * @param ack  answers needed before the request succeeds
 * @param from replicas the request is sent to, the key's first {@code from} in placement order
 */
public record Quorum(int ack, int from) {

    /**
     * @throws IllegalArgumentException unless {@code 0 < ack <= from}
     */
    public Quorum {
        if (ack <= 0 || ack > from) {
            throw new IllegalArgumentException("need 0 < ack <= from, got ack=" + ack + " from=" + from);
        }
    }

    /** The default {@code ack} for {@code from} replicas: a majority, {@code from / 2 + 1}. */
    public static int majority(int from) {
        return from / 2 + 1;
    }

    /** Whether this request's reads and writes intersect: {@code ack} is a majority of {@code from}. */
    public boolean isMajority() {
        return ack > from / 2;
    }
}
