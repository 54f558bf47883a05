package io.ringbase.functions;

import org.jspecify.annotations.Nullable;

/**
 * One {@code POST /v0/process}: run {@code function} over {@code start <= key < end} ({@code end}
 * {@code null}: to the last key) in {@code mode}.
 *
 * @param id the job's id if the client chose one (to cancel it by), else {@code null}: one is made
 */
public record ProcessRequest(
        String function,
        byte[] start,
        byte @Nullable [] end,
        ProcessMode mode,
        OnError onError,
        @Nullable String id) {}
