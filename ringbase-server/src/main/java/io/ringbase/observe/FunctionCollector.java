package io.ringbase.observe;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/** The {@code ringbase_function_*} metrics, read from a {@link FunctionSource} at each scrape. */
record FunctionCollector(FunctionSource source) implements MultiCollector {

    @Override
    public MetricSnapshots collect() {
        return MetricSnapshots.of(
                gauge(
                        "ringbase_function_jobs_running",
                        "Server-side function jobs running",
                        source.running().size()),
                counter("ringbase_function_jobs_started", "Server-side function jobs started", source.started()),
                counter("ringbase_function_jobs_ended", "Server-side function jobs ended (any way)", source.ended()),
                counter(
                        "ringbase_function_call_failures",
                        "Function calls that trapped, passed a limit or returned an error code",
                        source.failedCalls()),
                counter(
                        "ringbase_function_keys_processed",
                        "Keys that ended jobs called their function on",
                        source.keysProcessed()));
    }

    private static GaugeSnapshot gauge(String name, String help, double value) {
        return GaugeSnapshot.builder()
                .name(name)
                .help(help)
                .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .value(value)
                        .build())
                .build();
    }

    private static CounterSnapshot counter(String name, String help, long value) {
        return CounterSnapshot.builder()
                .name(name)
                .help(help)
                .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                        .value((double) value)
                        .build())
                .build();
    }
}
