package io.ringbase.functions;

import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasm.WasmModule;
import com.dylibso.chicory.wasm.types.Export;
import com.dylibso.chicory.wasm.types.ExportSection;
import com.dylibso.chicory.wasm.types.ExternalType;
import com.dylibso.chicory.wasm.types.FunctionImport;
import com.dylibso.chicory.wasm.types.FunctionType;
import com.dylibso.chicory.wasm.types.Import;
import com.dylibso.chicory.wasm.types.ValType;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The names and types of ABI version {@value #VERSION} (docs/functions.md), and the checks a module must
 * pass before it is stored. Stateless.
 */
public final class FunctionAbi {

    /** The ABI version this node speaks. */
    public static final int VERSION = 1;

    /** The import module of the host functions. */
    static final String HOST_MODULE = "ringbase";

    static final String MEMORY = "memory";
    static final String ABI_VERSION = "ringbase_abi_version";
    static final String ALLOC = "alloc";
    static final String MAP = "map";
    static final String COMBINE = "combine";
    static final String UPDATE = "update";
    static final String EMIT = "emit";
    static final String LOG = "log";

    /** Bytes of the metadata block after key and value: version u64le, expiresAtMs u64le. */
    static final int META_BYTES = 8 + 8;

    /** {@code update} results. Part of the ABI: do not change. */
    static final int UPDATE_UNCHANGED = 0;

    static final int UPDATE_REPLACE = 1;
    static final int UPDATE_DELETE = 2;

    static final FunctionType EMIT_TYPE = type(4, true);
    static final FunctionType LOG_TYPE = type(2, false);
    static final FunctionType RECORD_TYPE = type(5, true); // map, update
    static final FunctionType COMBINE_TYPE = type(4, true);
    static final FunctionType ALLOC_TYPE = type(1, true);
    static final FunctionType VERSION_TYPE = type(0, true);

    private FunctionAbi() {}

    private static FunctionType type(int i32Params, boolean returnsI32) {
        return FunctionType.of(
                Collections.nCopies(i32Params, ValType.I32), returnsI32 ? List.of(ValType.I32) : List.of());
    }

    /**
     * Checks the imports of {@code module}: only {@code ringbase.emit} and {@code ringbase.log}, with their types.
     *
     * @throws InvalidModuleException naming the first import that is not allowed
     */
    static void checkImports(WasmModule module) throws InvalidModuleException {
        for (int i = 0; i < module.importSection().importCount(); i++) {
            Import imp = module.importSection().getImport(i);
            String what = "import " + imp.module() + "." + imp.name();
            if (!(imp instanceof FunctionImport f) || !imp.module().equals(HOST_MODULE)) {
                throw new InvalidModuleException(what + " is not allowed: only ringbase.emit and ringbase.log are");
            }
            FunctionType expected = switch (imp.name()) {
                case EMIT -> EMIT_TYPE;
                case LOG -> LOG_TYPE;
                default ->
                    throw new InvalidModuleException(what + " is not allowed: only ringbase.emit and ringbase.log are");
            };
            FunctionType actual = module.typeSection().getType(f.typeIndex());
            if (!actual.equals(expected)) {
                throw new InvalidModuleException(what + " has type " + actual + ", the ABI's is " + expected);
            }
        }
    }

    /** The exports of {@code module} by name. */
    static Map<String, Export> exports(WasmModule module) {
        ExportSection section = module.exportSection();
        Map<String, Export> byName = new HashMap<>();
        for (int i = 0; i < section.exportCount(); i++) {
            Export e = section.getExport(i);
            byName.put(e.name(), e);
        }
        return byName;
    }

    /**
     * Checks the exports of an instance of a module: {@code memory}, {@code ringbase_abi_version},
     * {@code alloc} and at least one entry point, each with its type.
     *
     * @return the modes the module can run in, at least one
     * @throws InvalidModuleException naming the first export missing or of the wrong type
     */
    static List<ProcessMode> checkExports(WasmModule module, Instance instance) throws InvalidModuleException {
        Map<String, Export> exports = exports(module);
        Export memory = exports.get(MEMORY);
        if (memory == null || memory.exportType() != ExternalType.MEMORY) {
            throw new InvalidModuleException("missing export 'memory' (a memory)");
        }
        checkFunction(exports, instance, ABI_VERSION, VERSION_TYPE, true);
        checkFunction(exports, instance, ALLOC, ALLOC_TYPE, true);
        boolean map = checkFunction(exports, instance, MAP, RECORD_TYPE, false);
        boolean combine = checkFunction(exports, instance, COMBINE, COMBINE_TYPE, false);
        boolean update = checkFunction(exports, instance, UPDATE, RECORD_TYPE, false);
        if (combine && !map) {
            throw new InvalidModuleException("export 'combine' needs 'map' as well (reduce mode calls both)");
        }
        if (!map && !update) {
            throw new InvalidModuleException("no entry point: export 'map' (map, reduce) or 'update'");
        }
        List<ProcessMode> modes = new java.util.ArrayList<>();
        if (map) {
            modes.add(ProcessMode.MAP);
        }
        if (combine) {
            modes.add(ProcessMode.REDUCE);
        }
        if (update) {
            modes.add(ProcessMode.UPDATE);
        }
        return List.copyOf(modes);
    }

    private static boolean checkFunction(
            Map<String, Export> exports, Instance instance, String name, FunctionType type, boolean required)
            throws InvalidModuleException {
        Export e = exports.get(name);
        if (e == null) {
            if (required) {
                throw new InvalidModuleException("missing export '" + name + "' " + type);
            }
            return false;
        }
        if (e.exportType() != ExternalType.FUNCTION) {
            throw new InvalidModuleException("export '" + name + "' must be a function " + type);
        }
        FunctionType actual = instance.exportType(name);
        if (!actual.equals(type)) {
            throw new InvalidModuleException("export '" + name + "' has type " + actual + ", the ABI's is " + type);
        }
        return true;
    }
}
