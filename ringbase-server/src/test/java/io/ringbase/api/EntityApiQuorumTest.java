package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.api.wire.Request;
import io.ringbase.clock.TimeSource;
import io.ringbase.kv.CasResult;
import io.ringbase.kv.Condition;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.kv.KeyValueService;
import io.ringbase.kv.Quorum;
import io.ringbase.kv.Versioned;
import io.ringbase.storage.ReadCursor;
import io.ringbase.storage.WriteBatch;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * {@code ack} and {@code from} of {@code /v0/entity} against a service with replication factor 3, in
 * memory: the defaults are from = the replication factor and ack = a majority of from, a smaller
 * {@code from} is passed on, and a {@code from} above the replication factor is a 400 that says so.
 */
class EntityApiQuorumTest {

    /** A cluster's service reduced to what the entity API asks of it: it records each request's quorum. */
    static final class RecordingService implements KeyValueService {
        final int rf;
        final List<Quorum> quorums = new ArrayList<>();

        RecordingService(int rf) {
            this.rf = rf;
        }

        @Override
        public int replicationFactor() {
            return rf;
        }

        @Override
        public boolean servesPointRequestsInline() {
            return false;
        }

        @Override
        public InlineRead tryRead(byte[] key, ReadCursor cursor) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long tryWrite(byte[] key, long expiresAtMs, @Nullable MemorySegment value) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void stage(WriteBatch batch, byte[] key, long expiresAtMs, @Nullable MemorySegment value) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean tryApplyStaged(WriteBatch batch) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean callsMayBlock(boolean write) {
            return false;
        }

        @Override
        public CompletionStage<@Nullable Versioned> get(byte[] key, Quorum quorum) {
            quorums.add(quorum);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Long> put(byte[] key, MemorySegment value, long expiresAtMs, Quorum quorum) {
            quorums.add(quorum);
            return CompletableFuture.completedFuture(1L);
        }

        @Override
        public CompletionStage<Long> delete(byte[] key, Quorum quorum) {
            quorums.add(quorum);
            return CompletableFuture.completedFuture(1L);
        }

        @Override
        public CompletionStage<Long> put(
                byte[] key, MemorySegment value, @Nullable String contentType, long expiresAtMs, Quorum quorum) {
            return put(key, value, expiresAtMs, quorum);
        }

        @Override
        public CompletionStage<CasResult> writeIf(
                byte[] key,
                @Nullable MemorySegment value,
                @Nullable String contentType,
                long expiresAtMs,
                Condition condition,
                Quorum quorum) {
            quorums.add(quorum);
            return CompletableFuture.completedFuture(CasResult.applied(1L));
        }

        @Override
        public CompletionStage<io.ringbase.storage.Entry> readEntry(byte[] key, Quorum quorum) {
            quorums.add(quorum);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> writeVersioned(io.ringbase.storage.Entry entry, Quorum quorum) {
            quorums.add(quorum);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public EntryBatchSource scan(byte[] start, byte @Nullable [] end, boolean localOnly) {
            throw new UnsupportedOperationException();
        }

        @Override
        public @Nullable String notReadyReason() {
            return null;
        }
    }

    final RecordingService kv = new RecordingService(3);
    final EntityApi api = new EntityApi(kv, TimeSource.SYSTEM, 1 << 20);

    private Outcome call(HttpMethod method, String query) throws Exception {
        Request request =
                Request.of(method, EntityApi.ENTITY + "?" + query, null, Unpooled.wrappedBuffer(new byte[] {'v'}));
        try {
            return api.points().handle(request, EntityApi.ENTITY, QueryString.parse(query), true);
        } finally {
            request.release();
        }
    }

    @Test
    void fromDefaultsToTheReplicationFactorAndAckToAMajorityOfFrom() throws Exception {
        call(HttpMethod.PUT, "id=k");
        call(HttpMethod.GET, "id=k");
        call(HttpMethod.DELETE, "id=k");
        call(HttpMethod.GET, "id=k&from=2");
        call(HttpMethod.GET, "id=k&from=1");
        call(HttpMethod.PUT, "id=k&ack=3");
        assertThat(kv.quorums)
                .containsExactly(
                        new Quorum(2, 3),
                        new Quorum(2, 3),
                        new Quorum(2, 3),
                        new Quorum(2, 2),
                        new Quorum(1, 1),
                        new Quorum(3, 3));
    }

    @Test
    void aFromAboveTheReplicationFactorIsRefusedWithTheFigures() {
        for (HttpMethod method : List.of(HttpMethod.GET, HttpMethod.PUT, HttpMethod.DELETE)) {
            assertThatThrownBy(() -> call(method, "id=k&from=4"))
                    .isInstanceOf(BadRequestException.class)
                    .hasMessage("from 4 exceeds the replication factor 3");
        }
        assertThatThrownBy(() -> call(HttpMethod.GET, "id=k&ack=4"))
                .isInstanceOf(BadRequestException.class)
                .hasMessage("need 0 < ack <= from <= 3 (the replication factor), got ack=4 from=3");
        assertThatThrownBy(() -> call(HttpMethod.GET, "id=k&from=0"))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("got ack=1 from=0");
        assertThat(kv.quorums).as("nothing reached the service").isEmpty();
    }
}
