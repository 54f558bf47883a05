package io.ringbase.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The stable run and, when profiling, the profiled run after it, at the same rate and for the same time. The
 * stable run never has a profiler attached: its latencies are the node's, and the SLO verdict, the report's
 * latency table, {@code summary.tsv} and the causes (GC pauses, allocation, RSS) all come from it. The profiled
 * run exists only for the flame graphs; its latencies carry async-profiler's overhead (attaching through jcmd,
 * cpu, allocation and lock sampling) and are reported as "with profiler", never judged.
 *
 * <p>The profiled run follows the stable run rather than preceding it, so that the profiler's attachment
 * (its library loaded, code deoptimized where it installs its hooks) cannot leave anything behind in the
 * measured run.
 */
final class StableRun {

    /** How long the load of the profiled run waits for the profiler to attach to every node, in seconds. */
    static final int ATTACH_TIMEOUT_S = 60;

    /** Profiles the nodes while the profiled run's load runs. */
    interface Profiling {
        /**
         * Profiles every local node for {@code durationS} seconds (cpu, alloc and lock, a third each), calling
         * {@code attached} once the first event runs on every node: the profiled load starts then. Runs on a
         * thread of its own.
         *
         * @return the flame graphs and top frames, one per node and event
         * @throws IOException when async-profiler refuses a command (the message holds its output)
         */
        List<Report.ProfileOutput> profile(int durationS, Runnable attached) throws IOException, InterruptedException;
    }

    /** What the stable run's window of measurement does around it (the causes meter). */
    interface Window {
        /** Called right before the stable run's load starts. */
        void open(int durationS);

        /** Called right after the stable run, before the profiled run starts. */
        void close(LoadResult stable) throws InterruptedException;
    }

    /**
     * What the two runs gave.
     *
     * @param stable    the stable run, without a profiler: what the report judges
     * @param sloMissed the verdict when the stable run's p99 missed the SLO (a sentence for the notes), or null
     *                  when it held or there was no saturation rate to judge against
     * @param profiled  the profiled run, or null without profiling (or when the profiler failed)
     * @param profiles  the profiled run's flame graphs and top frames, node 1 first (empty without one)
     */
    record Outcome(
            LoadResult stable, String sloMissed, Report.ProfiledRun profiled, List<Report.ProfileOutput> profiles) {}

    private final BenchConfig config;
    private final LoadGenerator load;
    private final PrintStream log;

    StableRun(BenchConfig config, LoadGenerator load, PrintStream log) {
        this.config = config;
        this.load = load;
        this.log = log;
    }

    /**
     * Runs the stable run at {@code rate} for {@code config.durationS()} inside {@code window}, judges it against
     * the SLO, then runs the profiled run with {@code profiling} unless it is null (nothing to profile: {@code
     * --no-profile}, {@code --url}). Failures of the profiler go
     * to {@code notes} and leave the profiled run out; they never fail the bench.
     *
     * @param specs      the load at the stable rate
     * @param rate       the stable rate, requests per second
     * @param saturation the ladder's saturation rate (0 when no step passed: nothing to judge against)
     * @throws IOException when the load generator fails
     */
    Outcome run(
            List<LoadSpec> specs, double rate, long saturation, Window window, Profiling profiling, List<String> notes)
            throws IOException, InterruptedException {
        int durationS = config.durationS();
        window.open(durationS);
        LoadResult stable = load.run(specs, durationS, new ProgressLine("stable run", durationS, log)::tick);
        window.close(stable);
        String missed = verdict(stable, rate, saturation);
        if (missed != null) {
            log.println("bench: " + missed);
            notes.add(missed);
        }
        Report.ProfiledRun profiled = null;
        List<Report.ProfileOutput> profiles = new ArrayList<>();
        if (profiling != null) {
            log.printf(
                    Locale.ROOT,
                    "bench: profiled run %,.0f req/s for %d s under async-profiler (for the flame graphs; not judged)%n",
                    rate,
                    durationS);
            profiled = profiledRun(specs, rate, profiling, profiles, notes);
        }
        return new Outcome(stable, missed, profiled, List.copyOf(profiles));
    }

    /** The SLO verdict on the stable run: a sentence when its p99 is over the SLO, else null. */
    String verdict(LoadResult stable, double rate, long saturation) {
        if (saturation <= 0 || stable.percentileMs(99) <= config.sloMs()) {
            return null;
        }
        return String.format(
                Locale.ROOT,
                "The stable run did not hold the SLO: p99 %.2f ms > %.1f ms at %,.0f req/s "
                        + "(%.0f%% of the saturation rate) for %d s, although the ladder's %d s steps passed at %,d req/s: work a "
                        + "node defers past a short step (flushes, compactions) comes due in a longer run, and one stall more or "
                        + "less decides a step. A longer --step-duration gives a saturation rate closer to what the node sustains.",
                stable.percentileMs(99),
                config.sloMs(),
                rate,
                100 * config.stableFraction(),
                config.durationS(),
                config.stepS(),
                saturation);
    }

    private Report.ProfiledRun profiledRun(
            List<LoadSpec> specs,
            double rate,
            Profiling profiling,
            List<Report.ProfileOutput> profiles,
            List<String> notes)
            throws IOException, InterruptedException {
        int durationS = config.durationS();
        CountDownLatch attached = new CountDownLatch(1);
        AtomicReference<List<Report.ProfileOutput>> done = new AtomicReference<>();
        AtomicReference<Exception> error = new AtomicReference<>();
        Thread schedule = Thread.ofPlatform().name("profiler-schedule").start(() -> {
            try {
                done.set(profiling.profile(durationS, attached::countDown));
            } catch (Exception e) {
                error.set(e);
            } finally {
                attached.countDown(); // a failure before attaching must not keep the load waiting
            }
        });
        LoadResult withProfiler = null;
        if (!attached.await(ATTACH_TIMEOUT_S, TimeUnit.SECONDS)) {
            error.compareAndSet(
                    null, new IOException("async-profiler had not attached after " + ATTACH_TIMEOUT_S + " s"));
        } else if (error.get() == null) {
            withProfiler = load.run(specs, durationS, new ProgressLine("profiled run", durationS, log)::tick);
        }
        // the schedule stops the last event about 0.7 s before the load ends, then writes its files
        schedule.join(TimeUnit.SECONDS.toMillis(durationS + ATTACH_TIMEOUT_S));
        if (schedule.isAlive()) {
            schedule.interrupt();
            error.compareAndSet(
                    null,
                    new IOException("async-profiler's schedule had not ended " + ATTACH_TIMEOUT_S
                            + " s after the profiled run"));
        }
        if (error.get() != null || withProfiler == null) {
            notes.add("Profiling failed, so there are no flame graphs: " + messageOf(error.get()));
            return null;
        }
        List<Report.ProfileOutput> outputs = new ArrayList<>(done.get());
        outputs.sort(Comparator.comparingInt(Report.ProfileOutput::node));
        profiles.addAll(outputs);
        return new Report.ProfiledRun(rate, withProfiler);
    }

    private static String messageOf(Exception e) {
        return e == null ? "no load ran" : e.getMessage();
    }
}
