package io.ringbase.functions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.dylibso.chicory.runtime.InterpreterMachine;
import io.ringbase.storage.Entry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Every case runs on both engines: the interpreter and the compiler must keep the same limits. */
@Timeout(30)
@ParameterizedClass
@EnumSource(FunctionEngine.class)
class FunctionInstanceTest {

    private static CallWatchdog watchdog;

    @Parameter
    FunctionEngine engine;

    private WasmFunction load(String name, byte[] module, FunctionLimits limits) throws InvalidModuleException {
        return WasmFunction.load(name, module, limits, watchdog, new Machines(engine, 4));
    }

    @BeforeAll
    static void start() {
        watchdog = new CallWatchdog();
    }

    @AfterAll
    static void stop() {
        watchdog.close();
    }

    private FunctionInstance instance(String module, FunctionLimits limits) throws Exception {
        WasmFunction function = load(module, TestModules.wasm(module), limits);
        assertThat(function.engine()).isEqualTo(engine);
        FunctionInstance instance = function.instantiate(limits, watchdog, new LogGate("test"));
        // the compiled module runs as JVM bytecode, not in the interpreter
        assertThat(instance.machine() instanceof InterpreterMachine).isEqualTo(engine == FunctionEngine.INTERPRETER);
        return instance;
    }

    private static Entry entry(String key, String value) {
        return Entry.value(key.getBytes(StandardCharsets.UTF_8), 42, value.getBytes(StandardCharsets.UTF_8));
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void identityEmitsTheRecord() throws Exception {
        List<FunctionInstance.Emitted> out =
                instance("identity", FunctionLimits.DEFAULTS).map(entry("k1", "v1"));
        assertThat(out).hasSize(1);
        assertThat(s(out.getFirst().key())).isEqualTo("k1");
        assertThat(s(out.getFirst().value())).isEqualTo("v1");
    }

    @Test
    void filterKeepsOnlyMatchingValues() throws Exception {
        FunctionInstance f = instance("filter", FunctionLimits.DEFAULTS);
        assertThat(f.map(entry("a", "apple"))).hasSize(1);
        assertThat(f.map(entry("b", "banana"))).isEmpty();
        assertThat(f.map(entry("c", ""))).isEmpty();
    }

    @Test
    void byteCountCombinesPartials() throws Exception {
        FunctionInstance f = instance("bytecount", FunctionLimits.DEFAULTS);
        byte[] a = f.map(entry("k", "12345")).getFirst().value();
        byte[] b = f.map(entry("k2", "123")).getFirst().value();
        byte[] sum = f.combine(a, b);
        assertThat(ByteBuffer.wrap(sum).order(ByteOrder.LITTLE_ENDIAN).getLong())
                .isEqualTo(8);
    }

    @Test
    void updateReplacesKeepsOrDeletes() throws Exception {
        FunctionInstance f = instance("upper", FunctionLimits.DEFAULTS);
        assertThat(f.update(entry("k", "abc1"))).isInstanceOfSatisfying(FunctionInstance.Update.Replace.class, r -> {
            assertThat(s(r.value())).isEqualTo("ABC1");
        });
        assertThat(f.update(entry("k", "ABC"))).isInstanceOf(FunctionInstance.Update.Unchanged.class);
        assertThat(f.update(entry("k", "delete-me"))).isInstanceOf(FunctionInstance.Update.Delete.class);
    }

    @Test
    void infiniteLoopIsStoppedWithinItsLimitAndNamesTheKey() throws Exception {
        FunctionInstance f = instance("spin", new FunctionLimits(200, 256, 1 << 20));
        long start = System.nanoTime();
        assertThatThrownBy(() -> f.map(entry("spin", "v")))
                .isInstanceOf(FunctionFailedException.class)
                .hasMessage("function 'spin' failed on key 'spin': call took over 200 ms");
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertThat(ms).isBetween(190L, 1000L);
        // the interrupt does not leak: the thread and the instance serve the next call
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(f.map(entry("next", "v"))).hasSize(1);
    }

    @Test
    void memoryBombIsCappedAtTheLimit() throws Exception {
        FunctionInstance f = instance("bomb", new FunctionLimits(5000, 4, 1 << 20));
        assertThatThrownBy(() -> f.map(entry("grow", "v")))
                .isInstanceOf(FunctionFailedException.class)
                .hasMessageStartingWith("function 'bomb' failed on key 'grow': trap");
    }

    @Test
    void endlessRecursionTrapsAndTheInstanceServesTheNextCall() throws Exception {
        FunctionInstance f = instance("recurse", FunctionLimits.DEFAULTS);
        assertThatThrownBy(() -> f.map(entry("deep", "v")))
                .isInstanceOf(FunctionFailedException.class)
                .hasMessageStartingWith("function 'recurse' failed on key 'deep': trap");
        assertThat(f.map(entry("next", "v"))).hasSize(1);
    }

    @Test
    void emittingPastTheOutputLimitFails() throws Exception {
        FunctionInstance f = instance("bomb", new FunctionLimits(5000, 4, 200_000));
        assertThatThrownBy(() -> f.map(entry("flood", "v")))
                .isInstanceOf(FunctionFailedException.class)
                .hasMessage("function 'bomb' failed on key 'flood': output limit passed: a call may emit at most"
                        + " 200000 bytes");
    }

    @Test
    void trapAndErrorCodeNameTheKey() throws Exception {
        FunctionInstance f = instance("trap", FunctionLimits.DEFAULTS);
        assertThatThrownBy(() -> f.map(entry("bad", "v")))
                .hasMessageStartingWith("function 'trap' failed on key 'bad': trap");
        assertThatThrownBy(() -> f.map(entry("err", "v")))
                .hasMessage("function 'trap' failed on key 'err': map returned error code 5");
        assertThat(f.map(entry("fine", "v"))).hasSize(1);
    }

    @Test
    void moduleWithoutAllocIsRefused() {
        assertThatThrownBy(() -> load("x", TestModules.wasm("noalloc"), FunctionLimits.DEFAULTS))
                .isInstanceOf(InvalidModuleException.class)
                .hasMessageStartingWith("missing export 'alloc'");
    }

    @Test
    void bytesThatAreNotWasmAreRefused() {
        assertThatThrownBy(() -> load("x", "hello".getBytes(StandardCharsets.UTF_8), FunctionLimits.DEFAULTS))
                .isInstanceOf(InvalidModuleException.class)
                .hasMessageStartingWith("not a valid WebAssembly module");
    }

    @Test
    void modesFollowTheExports() throws Exception {
        assertThat(load("b", TestModules.wasm("bytecount"), FunctionLimits.DEFAULTS)
                        .modes())
                .containsExactly(ProcessMode.MAP, ProcessMode.REDUCE);
        assertThat(load("u", TestModules.wasm("upper"), FunctionLimits.DEFAULTS).modes())
                .containsExactly(ProcessMode.UPDATE);
    }
}
