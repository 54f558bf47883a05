package io.ringbase.functions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.WasmModule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class MachinesTest {

    private static String hash(String name) {
        return Machines.hash(TestModules.wasm(name));
    }

    private static WasmModule module(String name) {
        return Parser.parse(TestModules.wasm(name));
    }

    @Test
    void theInterpreterCompilesNothing() {
        Machines machines = new Machines(FunctionEngine.INTERPRETER, 4);
        assertThat(machines.factory(hash("identity"), module("identity"))).isNull();
        assertThat(machines.compiles()).isZero();
    }

    @Test
    void aModuleIsCompiledOnceAndKeptByItsHash() {
        Machines machines = new Machines(FunctionEngine.COMPILER, 4);
        var first = machines.factory(hash("identity"), module("identity"));
        var second = machines.factory(hash("identity"), module("identity"));
        assertThat(first).isNotNull().isSameAs(second);
        assertThat(machines.compiles()).isEqualTo(1);
    }

    @Test
    void theCacheDropsTheLeastRecentlyUsedModulePastItsCapacity() {
        Machines machines = new Machines(FunctionEngine.COMPILER, 2);
        machines.factory(hash("identity"), module("identity"));
        machines.factory(hash("filter"), module("filter"));
        machines.factory(hash("identity"), module("identity")); // filter is now the least recently used
        machines.factory(hash("upper"), module("upper"));
        assertThat(machines.cached()).isEqualTo(2);
        assertThat(machines.compiles()).isEqualTo(3);
        machines.factory(hash("identity"), module("identity")); // kept
        assertThat(machines.compiles()).isEqualTo(3);
        machines.factory(hash("filter"), module("filter")); // dropped: compiled again
        assertThat(machines.compiles()).isEqualTo(4);
        assertThat(machines.cached()).isEqualTo(2);
    }

    @Test
    void aCapacityBelowOneIsRefused() {
        assertThatThrownBy(() -> new Machines(FunctionEngine.COMPILER, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("compiled module cache must hold > 0 modules, got 0");
    }

    @Test
    void anUnknownEngineNameIsRefused() {
        assertThat(FunctionEngine.parse("compiler")).isEqualTo(FunctionEngine.COMPILER);
        assertThatThrownBy(() -> FunctionEngine.parse("jit"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--functions-engine must be interpreter or compiler, got 'jit'");
    }
}
