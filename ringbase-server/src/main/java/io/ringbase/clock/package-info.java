/**
 * Versions: the hybrid logical clock that stamps every write.
 */
package io.ringbase.clock;
