/**
 * Nemeses: the faults the suite injects into a running cluster and heals again, after Jepsen's
 * nemeses. Each {@link io.ringbase.faults.nemesis.Nemesis} injects one fault at a time and heals it
 * completely; the run alternates the two ({@link io.ringbase.faults.FaultRun}). A membership change
 * ({@link io.ringbase.faults.nemesis.MembershipNemesis}) is one whole cycle per injection, on an elastic cluster,
 * and reports what it found ({@link io.ringbase.faults.nemesis.Finding}) and when each change ran
 * ({@link io.ringbase.faults.nemesis.ChangeWindow}).
 */
package io.ringbase.faults.nemesis;
