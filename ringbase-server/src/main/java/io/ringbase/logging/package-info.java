/**
 * Keeping the node's log actionable under load: {@link io.ringbase.logging.LogThrottle} lets a line
 * that a storm of events would repeat (refused connections, clock refusals, dropped hints, connections
 * closed for lack of memory, slow WAL fsyncs) be logged at most once per interval, with a count of the ones held back.
 */
package io.ringbase.logging;
