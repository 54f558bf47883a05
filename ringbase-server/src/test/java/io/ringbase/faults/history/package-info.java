/**
 * Histories of a fault-injection run: every operation a client invoked, with its invocation and
 * completion times and outcome ({@link io.ringbase.faults.history.Op}), recorded concurrently by many
 * clients ({@link io.ringbase.faults.history.History}) and written out for reading.
 */
package io.ringbase.faults.history;
