import io.ringbase.client.RingbaseClient;
import io.ringbase.client.Routing;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Replica calls per request for replica-aware against random routing, for bench/routing-bench.sh: for each
 * round and each mode (RANDOM first in odd rounds, REPLICA first in even ones, so that neither always runs on
 * the warmer JVMs), PUTs N fresh keys of 100 bytes, then GETs them, through
 * {@code RingbaseClient} with T threads, and reads {@code ringbase_coordinator_replica_ops_total} off every
 * node's /metrics before and after each phase. Prints, per phase, the remote and local replica operations
 * per request summed over the nodes, and the requests per second; the means leave out round 1, the JIT's
 * warm-up, when there are more. Run in source-file mode on the client's classes:
 * {@code java -cp ringbase-client/target/classes bench/routing/Hops.java URL,URL,... N T ROUNDS}.
 */
public final class Hops {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    public static void main(String[] args) throws Exception {
        List<String> urls = List.of(args[0].split(","));
        int n = Integer.parseInt(args[1]);
        int threads = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        byte[] value = new byte[100];
        java.util.Arrays.fill(value, (byte) 'v');
        System.out.printf("%-5s %-8s %-5s %9s %10s %10s %9s%n", "round", "routing", "phase", "requests",
                "remote/req", "local/req", "req/s");
        double[][] sums = new double[2][4]; // mode x (put remote, get remote, put req/s, get req/s)
        for (int round = 1; round <= rounds; round++) {
            List<Routing> order = round % 2 == 1
                    ? List.of(Routing.RANDOM, Routing.REPLICA)
                    : List.of(Routing.REPLICA, Routing.RANDOM);
            boolean counted = round > 1 || rounds == 1;
            for (Routing mode : order) {
                try (RingbaseClient client = RingbaseClient.builder(urls.toArray(String[]::new))
                        .routing(mode)
                        .build()) {
                    if (mode == Routing.REPLICA && client.ringEpoch() < 0) {
                        throw new IllegalStateException("the client found no placement (GET /v0/ring)");
                    }
                    String prefix = "hops-" + round + "-" + mode + "-";
                    for (String phase : List.of("put", "get")) {
                        long[] before = ops(urls);
                        long t0 = System.nanoTime();
                        run(n, threads, i -> {
                            String key = prefix + i;
                            if (phase.equals("put")) {
                                client.put(key, value);
                            } else if (client.get(key).isEmpty()) {
                                throw new IllegalStateException("lost " + key);
                            }
                        });
                        double seconds = (System.nanoTime() - t0) / 1e9;
                        long[] after = ops(urls);
                        double remote = (after[1] - before[1]) / (double) n;
                        double local = (after[0] - before[0]) / (double) n;
                        System.out.printf("%-5s %-8s %-5s %9d %10.3f %10.3f %9.0f%n", round + (counted ? "" : "*"),
                                mode, phase, n, remote, local, n / seconds);
                        if (!counted) {
                            continue;
                        }
                        int m = mode == Routing.RANDOM ? 0 : 1;
                        int p = phase.equals("put") ? 0 : 1;
                        sums[m][p] += remote;
                        sums[m][2 + p] += n / seconds;
                    }
                }
            }
        }
        int means = rounds == 1 ? 1 : rounds - 1;
        System.out.println(rounds == 1 ? "" : "(* warm-up round, not in the means)");
        for (int m = 0; m < 2; m++) {
            System.out.printf(
                    "mean of %d round(s), %s: PUT %.3f remote calls/request at %.0f req/s, GET %.3f at %.0f req/s,"
                            + " both %.3f%n",
                    means, m == 0 ? "RANDOM" : "REPLICA", sums[m][0] / means, sums[m][2] / means,
                    sums[m][1] / means, sums[m][3] / means, (sums[m][0] + sums[m][1]) / (2.0 * means));
        }
    }

    interface Op {
        void run(int i) throws Exception;
    }

    /** Runs op(0..n-1) on {@code threads} threads, each taking the next index. */
    private static void run(int n, int threads, Op op) throws Exception {
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Object>> done = pool.invokeAll(java.util.Collections.nCopies(threads, () -> {
                for (int i; (i = next.getAndIncrement()) < n; ) {
                    op.run(i);
                }
                return null;
            }));
            for (Future<Object> f : done) {
                f.get(10, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** {local, remote} replica operations summed over the nodes' metrics. */
    private static long[] ops(List<String> urls) throws Exception {
        long[] sum = new long[2];
        for (String url : urls) {
            String body = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).body();
            for (String line : body.split("\n")) {
                if (line.startsWith("ringbase_coordinator_replica_ops_total{replica=\"local\"}")) {
                    sum[0] += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                } else if (line.startsWith("ringbase_coordinator_replica_ops_total{replica=\"remote\"}")) {
                    sum[1] += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        }
        return sum;
    }
}
