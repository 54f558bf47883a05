package io.ringbase.faults.checker;

import io.ringbase.faults.history.Op;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Linearizability of a key-value store's per-key registers (Herlihy and Wing 1990), checked key by key
 * (linearizability is compositional: a history is linearizable iff each key's sub-history is) with the
 * Wing-Gong search as improved by Lowe ("Testing for linearizability", 2017: just-in-time linearization
 * with a cache of (linearized set, state) pairs), the algorithm of Knossos and Porcupine.
 *
 * <p>Outcomes: an {@link Op.Outcome#OK} operation happened between its invocation and completion; a
 * {@link Op.Outcome#FAIL}ed one never happened and is left out; an {@link Op.Outcome#UNKNOWN} write or
 * delete may have happened at any time after its invocation (its completion is taken as infinitely late,
 * as Porcupine does), and an unknown read tells nothing and is left out. Written values must be unique
 * per key: then an unknown write whose value no read returned can be left out too (it can only ever be
 * linearized where it changes nothing any read saw), which keeps the search small under faults that
 * leave many writes unknown.
 */
public final class Linearizability {

    /** Default bound on search steps per key; past it the key counts as undecided (a failure). */
    public static final long DEFAULT_MAX_STEPS = 20_000_000;

    private Linearizability() {}

    /** The result for one key. */
    public record KeyResult(
            String key, boolean linearizable, boolean decided, int ops, long steps, List<Op> longestLinearizedPrefix) {}

    /**
     * Checks every key of {@code byKey}; one problem line per key that is not linearizable or undecided. The
     * summary gives the search's cost too: {@code "K keys, N ops (longest key L ops, at most S steps)"}.
     */
    public static Verdict check(Map<String, List<Op>> byKey, long maxStepsPerKey) {
        List<String> problems = new ArrayList<>();
        int keys = 0;
        int ops = 0;
        int longest = 0;
        long mostSteps = 0;
        for (Map.Entry<String, List<Op>> e : byKey.entrySet()) {
            KeyResult r = checkKey(e.getKey(), e.getValue(), maxStepsPerKey);
            keys++;
            ops += r.ops();
            longest = Math.max(longest, r.ops());
            mostSteps = Math.max(mostSteps, r.steps());
            if (!r.decided()) {
                problems.add(
                        "key " + e.getKey() + ": undecided after " + r.steps() + " search steps (" + r.ops() + " ops)");
            } else if (!r.linearizable()) {
                StringBuilder b = new StringBuilder(
                        "key " + e.getKey() + ": not linearizable (" + r.ops() + " ops); longest linearizable prefix ("
                                + r.longestLinearizedPrefix().size() + " ops) ends:");
                List<Op> prefix = r.longestLinearizedPrefix();
                for (Op op : prefix.subList(Math.max(0, prefix.size() - 5), prefix.size())) {
                    b.append("\n    ")
                            .append(op.process())
                            .append(' ')
                            .append(op.f())
                            .append(' ')
                            .append(op.value())
                            .append(' ')
                            .append(op.outcome());
                }
                problems.add(b.toString());
            }
        }
        String summary =
                keys + " keys, " + ops + " ops (longest key " + longest + " ops, at most " + mostSteps + " steps)";
        return problems.isEmpty() ? Verdict.pass(summary) : Verdict.fail(problems.size() + " of " + summary, problems);
    }

    /** Checks one key's operations (any order). */
    public static KeyResult checkKey(String key, List<Op> history, long maxSteps) {
        List<Op> ops = relevant(history);
        int n = ops.size();
        // events: a call and a return per op; an unknown op returns after everything
        List<Entry> events = new ArrayList<>(2 * n);
        for (int i = 0; i < n; i++) {
            Op op = ops.get(i);
            Entry call = new Entry(i, op, true, op.invokeNanos());
            Entry ret =
                    new Entry(i, op, false, op.outcome() == Op.Outcome.UNKNOWN ? Long.MAX_VALUE : op.completeNanos());
            call.match = ret;
            events.add(call);
            events.add(ret);
        }
        // by time; at equal times calls first, so touching operations count as concurrent
        events.sort(Comparator.comparingLong((Entry e) -> e.time).thenComparing(e -> e.isCall ? 0 : 1));
        Entry head = new Entry(-1, null, false, Long.MIN_VALUE);
        Entry prev = head;
        for (Entry e : events) {
            prev.next = e;
            e.prev = prev;
            prev = e;
        }

        BitSet linearized = new BitSet(n);
        Set<CacheKey> cache = new HashSet<>();
        ArrayDeque<Frame> calls = new ArrayDeque<>();
        String state = RegisterModel.INITIAL;
        List<Op> longest = List.of();
        long steps = 0;
        Entry entry = head.next;
        while (head.next != null) {
            if (++steps > maxSteps) {
                return new KeyResult(key, false, false, n, steps, longest);
            }
            if (entry.isCall) {
                if (RegisterModel.allows(state, entry.op)) {
                    String next = RegisterModel.after(state, entry.op);
                    BitSet withIt = (BitSet) linearized.clone();
                    withIt.set(entry.id);
                    if (cache.add(new CacheKey(withIt, next))) {
                        calls.push(new Frame(entry, state));
                        state = next;
                        linearized.set(entry.id);
                        lift(entry);
                        if (calls.size() > longest.size()) {
                            longest = prefix(calls);
                        }
                        entry = head.next;
                        continue;
                    }
                }
                entry = entry.next;
            } else { // an operation returned before it could be linearized: undo the last choice
                if (calls.isEmpty()) {
                    return new KeyResult(key, false, true, n, steps, longest);
                }
                Frame top = calls.pop();
                state = top.stateBefore;
                linearized.clear(top.entry.id);
                unlift(top.entry);
                entry = top.entry.next;
            }
        }
        return new KeyResult(key, true, true, n, steps, prefix(calls));
    }

    /**
     * The operations the search must place: OK ones, unknown writes and deletes, but not failed ones,
     * unknown reads, or unknown writes whose value no OK read returned.
     */
    static List<Op> relevant(List<Op> history) {
        Set<String> read = new HashSet<>();
        for (Op op : history) {
            if (op.f() == Op.Fn.READ && op.outcome() == Op.Outcome.OK && op.value() != null) {
                read.add(op.value());
            }
        }
        List<Op> out = new ArrayList<>();
        for (Op op : history) {
            boolean keep = switch (op.outcome()) {
                case OK -> true;
                case FAIL -> false;
                case UNKNOWN ->
                    switch (op.f()) {
                        case READ, CAS_REFUSED -> false;
                        case WRITE -> read.contains(op.value());
                        case DELETE -> true;
                        case CAS -> read.contains(op.next());
                    };
            };
            if (keep) {
                out.add(op);
            }
        }
        return out;
    }

    private static List<Op> prefix(ArrayDeque<Frame> calls) {
        List<Op> out = new ArrayList<>(calls.size());
        for (var it = calls.descendingIterator(); it.hasNext(); ) {
            out.add(it.next().entry.op);
        }
        return out;
    }

    /** Takes a call and its return out of the list. */
    private static void lift(Entry call) {
        call.prev.next = call.next;
        if (call.next != null) {
            call.next.prev = call.prev;
        }
        Entry ret = call.match;
        ret.prev.next = ret.next;
        if (ret.next != null) {
            ret.next.prev = ret.prev;
        }
    }

    /** Puts a lifted call and its return back where they were (the reverse of {@link #lift}). */
    private static void unlift(Entry call) {
        Entry ret = call.match;
        ret.prev.next = ret;
        if (ret.next != null) {
            ret.next.prev = ret;
        }
        call.prev.next = call;
        if (call.next != null) {
            call.next.prev = call;
        }
    }

    private static final class Entry {
        final int id;
        final Op op;
        final boolean isCall;
        final long time;
        Entry match;
        Entry prev;
        Entry next;

        Entry(int id, Op op, boolean isCall, long time) {
            this.id = id;
            this.op = op;
            this.isCall = isCall;
            this.time = time;
        }
    }

    private record Frame(Entry entry, String stateBefore) {}

    private record CacheKey(BitSet linearized, String state) {
        @Override
        public boolean equals(Object o) {
            return o instanceof CacheKey k && k.linearized.equals(linearized) && Objects.equals(k.state, state);
        }

        @Override
        public int hashCode() {
            return linearized.hashCode() * 31 + Objects.hashCode(state);
        }
    }
}
