package io.ringbase.functions;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.api.InMemoryEngine;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.kv.LocalKeyValueService;
import io.ringbase.kv.Quorum;
import io.ringbase.kv.SystemKeys;
import io.ringbase.storage.Entry;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Loading a function by the hash of its module, as a distributed job's pages do. */
@Timeout(30)
class FunctionStoreTest {

    private final LocalKeyValueService kv =
            new LocalKeyValueService(new InMemoryEngine(), new HybridLogicalClock(), TimeSource.SYSTEM);

    /** Replaces the stored module behind the store's back, as another node's upload does. */
    private void storeBehindItsBack(String name, byte[] module) throws Exception {
        kv.put(
                        SystemKeys.function(name),
                        MemorySegment.ofArray(FunctionStore.encode(module)),
                        Entry.NO_EXPIRY,
                        new Quorum(1, 1))
                .toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
    }

    @Test
    void aKnownHashIsAnsweredFromTheCacheWithoutReadingTheStore() throws Exception {
        try (Jobs jobs = new Jobs(kv, TimeSource.SYSTEM, FunctionLimits.DEFAULTS, FunctionEngine.DEFAULT, 1)) {
            FunctionStore store = jobs.store();
            store.put("f", TestModules.wasm("identity"));
            String identity = store.load("f").hash();
            storeBehindItsBack("f", TestModules.wasm("bytecount"));

            WasmFunction cached = store.load("f", identity);
            assertThat(cached.hash()).isEqualTo(identity); // the job's module, not the one stored now
            assertThat(store.cacheHits()).isEqualTo(1);

            WasmFunction unknown = store.load("f", "0".repeat(64)); // a hash it does not hold: read
            assertThat(unknown.hash()).isNotEqualTo(identity).isEqualTo(Machines.hash(TestModules.wasm("bytecount")));
            assertThat(store.cacheHits()).isEqualTo(1);
            assertThat(store.load("f", unknown.hash())).isSameAs(unknown);
            assertThat(store.cacheHits()).isEqualTo(2);
        }
    }

    @Test
    void aDeletedFunctionIsNotAnsweredFromTheCache() throws Exception {
        try (Jobs jobs = new Jobs(kv, TimeSource.SYSTEM, FunctionLimits.DEFAULTS, FunctionEngine.DEFAULT, 1)) {
            FunctionStore store = jobs.store();
            store.put("f", TestModules.wasm("identity"));
            String hash = store.load("f").hash();
            store.delete("f");
            assertThat(store.load("f", hash)).isNull();
        }
    }
}
