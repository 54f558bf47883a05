package io.ringbase.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node's JIT deoptimizations, from HotSpot unified logging of the {@code deoptimization} tag at debug
 * level with the {@code uptime} decorator, which {@link GcLog#jvmOption} adds to the GC log. The JIT
 * compiles for the branches and types it has seen; when the code meets another one, it traps back to the
 * interpreter, and for some traps the compiled method is thrown away and compiled again later. On one CPU
 * the event loop then runs slower code while the compiler takes CPU from it: latencies of 146-406 ms
 * were measured after the first request of a new kind into a node near saturation. One line per trap, written when it happens (JDK 25):
 *
 * <pre>
 * [26.867s] cid=4062     level=4 io.netty.channel.epoll.EpollIoHandler.run(Lio/netty/channel/IoHandlerContext;)I trap_bci=232 unstable_if reinterpret pc=0x... relative_pc=0x...
 * [4.370s] cid=3614 osr level=4 java.util.Arrays.fill([Ljava/lang/Object;IILjava/lang/Object;)V trap_bci=10 osr_bci=10 profile_predicate maybe_recompile pc=0x... relative_pc=0x...
 * </pre>
 *
 * <p>The method named is where the trap is, which may be inlined into the compiled method that is thrown
 * away. The action says what happens to the code: {@code reinterpret}, {@code make_not_entrant} and
 * {@code recompile} drop it; {@code maybe_recompile} and {@code none} keep it.
 */
public final class Deoptimizations {

    /** {@code [<uptime>s] cid=<n> [osr] [level=<n>] <method>(<signature>) trap_bci=<n> [osr_bci=<n>] <reason> <action>}. */
    private static final Pattern TRAP = Pattern.compile(
            "^\\[(\\d+[.,]\\d+)s\\]\\s+cid=\\s*\\d+\\s+(?:osr\\s+)?(?:level=\\d+\\s+)?([^\\s(]+)\\(\\S*\\s+trap_bci=\\d+"
                    + "(?:\\s+osr_bci=\\d+)?\\s+(\\w+)\\s+(\\w+)\\b.*$");
    /** Actions after which the compiled method no longer runs (HotSpot's {@code Deoptimization::DeoptAction}). */
    private static final Set<String> DROPPING = Set.of("reinterpret", "make_not_entrant", "recompile");
    /** Methods a {@link Summary} names, most traps first. */
    static final int TOP = 5;

    private Deoptimizations() {}

    /**
     * One trap.
     *
     * @param uptimeS the JVM's uptime when it happened, in seconds
     * @param method  the method the trap is in, {@code package.Class.method} without the signature
     * @param reason  HotSpot's reason, e.g. {@code unstable_if} (a branch the compiled code had left out),
     *                {@code class_check} (a type it had not seen)
     * @param action  what became of the compiled code, e.g. {@code reinterpret} (thrown away)
     */
    public record Trap(double uptimeS, String method, String reason, String action) {

        /** Whether the compiled method was thrown away (it runs slower until compiled again). */
        public boolean dropsCode() {
            return DROPPING.contains(action);
        }
    }

    /**
     * The traps of a window.
     *
     * @param count        traps
     * @param dropping     of those, traps that threw the compiled code away
     * @param topDropping  up to {@value #TOP} methods of the dropping traps with their counts, most first
     *                     (ties in the order they first appear)
     */
    public record Summary(int count, int dropping, Map<String, Integer> topDropping) {}

    /** Every trap in the log's lines, in order; other lines (GC lines share the file) are skipped. */
    public static List<Trap> traps(List<String> lines) {
        List<Trap> out = new ArrayList<>();
        for (String line : lines) {
            Matcher m = TRAP.matcher(line);
            if (m.matches()) {
                out.add(new Trap(Double.parseDouble(m.group(1).replace(',', '.')), m.group(2), m.group(3), m.group(4)));
            }
        }
        return out;
    }

    /** The traps within {@code [fromUptimeS, toUptimeS]} (the JVM's uptime, seconds). */
    public static Summary within(List<Trap> traps, double fromUptimeS, double toUptimeS) {
        int count = 0;
        Map<String, Integer> dropping = new LinkedHashMap<>();
        for (Trap t : traps) {
            if (t.uptimeS() >= fromUptimeS && t.uptimeS() <= toUptimeS) {
                count++;
                if (t.dropsCode()) {
                    dropping.merge(t.method(), 1, Integer::sum);
                }
            }
        }
        Map<String, Integer> top = new LinkedHashMap<>();
        dropping.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()))
                .limit(TOP)
                .forEach(e -> top.put(e.getKey(), e.getValue()));
        return new Summary(
                count,
                dropping.values().stream().mapToInt(Integer::intValue).sum(),
                java.util.Collections.unmodifiableMap(top));
    }
}
