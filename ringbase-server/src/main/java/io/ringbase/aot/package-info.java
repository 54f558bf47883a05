/**
 * Training runs for the JVM's ahead-of-time cache (JEP 483, 514 and 515): the load that makes a node run
 * every kind of request it serves, so that the cache the JVM writes at exit holds the classes and the method
 * profiles of real work. Used by {@code ringbase aot-train}; docs/design.md, "The ahead-of-time cache". Its
 * blocking HTTP connection also writes {@code ringbase bench}'s prefill.
 */
package io.ringbase.aot;
