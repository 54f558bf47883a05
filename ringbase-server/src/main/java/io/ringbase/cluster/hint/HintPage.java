package io.ringbase.cluster.hint;

import java.util.List;

/**
 * One page of a target's hints, from {@link HintStore#page}.
 *
 * @param hints hints in user-key order, at most one per key (the newest)
 * @param next  the user key to start the next page at, or {@code null} if the target has no more
 */
public record HintPage(List<Hint> hints, byte[] next) {

    public HintPage {
        hints = List.copyOf(hints);
    }

    public boolean hasMore() {
        return next != null;
    }
}
