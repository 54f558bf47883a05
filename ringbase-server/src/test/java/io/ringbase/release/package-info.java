/**
 * Tests of the release tarball ({@code target/ringbase-<version>.tar.xz}, built by {@code ./mvnw package}
 * from {@code src/assembly/dist.xml}): run by Failsafe in {@code verify}, after {@code package}, they
 * unpack it outside the source tree and run its {@code bin/ringbase} as an operator would.
 */
package io.ringbase.release;
