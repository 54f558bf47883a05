/**
 * Checkers of a fault-injection run's history and final state: linearizability of per-key registers
 * (the Wing-Gong/Lowe search, {@link io.ringbase.faults.checker.Linearizability}), no acknowledged write
 * lost, no deleted key resurrected, complete range scans. Each returns a
 * {@link io.ringbase.faults.checker.Verdict}. Pure functions of their inputs; no I/O.
 */
package io.ringbase.faults.checker;
