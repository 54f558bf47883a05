/**
 * Nemeses: the faults the suite injects into a running cluster and heals again, after Jepsen's
 * nemeses. Each {@link io.ringbase.faults.nemesis.Nemesis} injects one fault at a time and heals it
 * completely; the run alternates the two ({@link io.ringbase.faults.FaultRun}).
 */
package io.ringbase.faults.nemesis;
