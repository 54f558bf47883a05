/**
 * {@code ringbase bench}: load test, profile and report in one command.
 *
 * <p>One class per concern: {@link io.ringbase.bench.NodeLauncher} starts the target nodes,
 * {@link io.ringbase.bench.Prefill} loads keys before read workloads, a {@link io.ringbase.bench.LoadGenerator}
 * sends the constant-rate load ({@link io.ringbase.bench.RategenInstaller} and {@link io.ringbase.bench.RategenDriver}
 * compile and run {@code bench/rategen/rategen.c}, {@link io.ringbase.bench.OhaInstaller} and
 * {@link io.ringbase.bench.OhaDriver} install and run oha, both through the process handling of
 * {@link io.ringbase.bench.GeneratorProcesses}) and reads its per-request records into an HdrHistogram,
 * {@link io.ringbase.bench.SaturationLadder} decides the rates of the saturation search,
 * {@link io.ringbase.bench.StableRun} runs the stable run, never profiled, and the profiled run after it,
 * {@link io.ringbase.bench.Profiler} attaches async-profiler, {@link io.ringbase.bench.CausesMeter} measures each
 * local node's GC pauses ({@link io.ringbase.bench.GcLog}, placed in time by {@link io.ringbase.bench.NodeUptime}),
 * allocated bytes ({@link io.ringbase.bench.AllocationSampler}, JFR) and peak RSS
 * ({@link io.ringbase.bench.RssSampler}), {@link io.ringbase.bench.Jcmd} runs the diagnostic commands in the nodes,
 * {@link io.ringbase.bench.Plots} draws the PNGs and {@link io.ringbase.bench.ReportWriter} writes {@code report.md}. {@link io.ringbase.bench.BenchRun} puts them
 * in order. Everything runs on this machine against loopback addresses; every load run is bounded in time.
 *
 * <p>Units: rates in requests per second, latencies recorded in microseconds and shown in milliseconds,
 * durations in seconds, sizes in bytes.
 */
package io.ringbase.bench;
