package io.ringbase.cluster.metadata;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.ratis.metrics.LongCounter;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.Timekeeper;
import org.apache.ratis.util.TimeDuration;

/**
 * Ratis's metrics, discarded. Ratis finds its metrics implementation with a {@link java.util.ServiceLoader}
 * (this class is named in {@code META-INF/services/org.apache.ratis.metrics.MetricRegistries}) and fails to
 * start without one; its own ({@code ratis-metrics-default}) would bring Dropwizard Metrics and JMX
 * reporters for figures the node does not export yet. The node's metrics are Prometheus's; the metadata
 * service's figures will be exported there when it is wired in.
 */
public final class NoMetricRegistries extends MetricRegistries {

    private static final Timekeeper.Context STOPPED = () -> 0;
    private static final Timekeeper TIMER = () -> STOPPED;
    private static final LongCounter COUNTER = new LongCounter() {
        @Override
        public void inc(long n) {}

        @Override
        public void dec(long n) {}

        @Override
        public long getCount() {
            return 0;
        }
    };

    /** Called by the {@link java.util.ServiceLoader}. */
    public NoMetricRegistries() {}

    @Override
    public void clear() {}

    @Override
    public RatisMetricRegistry create(MetricRegistryInfo info) {
        return new Registry(info);
    }

    @Override
    public boolean remove(MetricRegistryInfo info) {
        return false;
    }

    @Override
    public Optional<RatisMetricRegistry> get(MetricRegistryInfo info) {
        return Optional.empty();
    }

    @Override
    public Set<MetricRegistryInfo> getMetricRegistryInfos() {
        return Set.of();
    }

    @Override
    public Collection<RatisMetricRegistry> getMetricRegistries() {
        return List.of();
    }

    @Override
    public void addReporterRegistration(
            Consumer<RatisMetricRegistry> reporterRegistration, Consumer<RatisMetricRegistry> stopReporter) {}

    @Override
    public void enableJmxReporter() {}

    @Override
    public void enableConsoleReporter(TimeDuration consoleReportRate) {}

    private record Registry(MetricRegistryInfo info) implements RatisMetricRegistry {
        @Override
        public Timekeeper timer(String name) {
            return TIMER;
        }

        @Override
        public LongCounter counter(String name) {
            return COUNTER;
        }

        @Override
        public boolean remove(String name) {
            return false;
        }

        @Override
        public <T> void gauge(String name, Supplier<Supplier<T>> gaugeSupplier) {}

        @Override
        public MetricRegistryInfo getMetricRegistryInfo() {
            return info;
        }
    }
}
