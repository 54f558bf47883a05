/**
 * What a node says about itself to people and tools: the JSON of {@code GET /v0/status}
 * ({@link io.ringbase.status.NodeStatus}), the HTML status page of the whole cluster at {@code GET /}
 * ({@link io.ringbase.status.StatusPage}, which fetches every other node's status). JSON is written and
 * read with Jackson's tree model ({@code JsonNode}).
 *
 * <p>Everything here runs on worker threads and may block briefly (the page waits up to a second for
 * other nodes). Depends on {@code metrics} for its figures.
 */
package io.ringbase.status;
