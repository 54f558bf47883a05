package io.ringbase.node;

import io.ringbase.functions.Jobs;
import io.ringbase.functions.ProcessJob;
import io.ringbase.observe.FunctionSource;
import java.util.List;

/** The server-side functions' figures for metrics and the status report, read from the node's {@link Jobs}. */
record JobFigures(Jobs jobs) implements FunctionSource {

    @Override
    public List<Job> running() {
        return jobs.running().stream()
                .map((ProcessJob j) -> new Job(
                        j.id(),
                        j.request().function(),
                        j.request().mode().label(),
                        j.keysSeen(),
                        j.recordsOut(),
                        j.errors()))
                .toList();
    }

    @Override
    public long started() {
        return jobs.started();
    }

    @Override
    public long ended() {
        return jobs.ended();
    }

    @Override
    public long failedCalls() {
        return jobs.failedCalls();
    }

    @Override
    public long keysProcessed() {
        return jobs.keysProcessed();
    }
}
