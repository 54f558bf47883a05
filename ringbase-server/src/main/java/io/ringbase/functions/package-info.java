/**
 * Server-side functions: user code as WebAssembly modules, run in a sandbox inside the node over key
 * ranges (map, reduce, update), as ScyllaDB's Wasm user-defined functions and Redpanda's data transforms
 * do, with Riak's MapReduce as the model for map, combine and reduce. The ABI is in
 * {@code docs/functions.md}.
 *
 * <ul>
 *   <li>{@link io.ringbase.functions.FunctionAbi} checks a module against the ABI and
 *       {@link io.ringbase.functions.WasmFunction} holds a checked, parsed module;</li>
 *   <li>{@link io.ringbase.functions.Machines} makes what runs its code for the node's
 *       {@link io.ringbase.functions.FunctionEngine}: Chicory's interpreter, or its compiler to JVM
 *       bytecode with the compiled modules cached by hash;</li>
 *   <li>{@link io.ringbase.functions.FunctionInstance} is one instance of it, called for one record at a
 *       time under the {@link io.ringbase.functions.FunctionLimits limits} (time through the
 *       {@link io.ringbase.functions.CallWatchdog}, memory pages, output bytes);</li>
 *   <li>{@link io.ringbase.functions.FunctionStore} keeps modules as replicated values in the system
 *       keyspace ({@link io.ringbase.functions.SystemKeys});</li>
 *   <li>{@link io.ringbase.functions.ProcessJob} runs one job over a range and
 *       {@link io.ringbase.functions.Jobs} lists the running ones;</li>
 *   <li>on a cluster, {@link io.ringbase.functions.DistributedJob} coordinates a job whose shares run on
 *       the replicas ({@link io.ringbase.functions.JobCluster} is the cluster as it sees it), page by page
 *       ({@link io.ringbase.functions.SharePage}), each page run by
 *       {@link io.ringbase.functions.ShareRunner} on the node asked.</li>
 * </ul>
 *
 * <p>Threads: a function never runs on an I/O thread; every call runs on the bounded pool of
 * {@link io.ringbase.functions.Jobs}. An instance is used by one thread at a time (a job's batches run one
 * after another).
 */
package io.ringbase.functions;
