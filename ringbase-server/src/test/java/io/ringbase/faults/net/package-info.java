/**
 * The fault suite's private network: one Linux network namespace per node, joined by veth pairs to a
 * bridge in a hub namespace, with the test JVM reaching it from the root namespace through one more
 * veth ({@link io.ringbase.faults.net.NetworkLab}), and the commands that run inside it
 * ({@link io.ringbase.faults.net.Shell}). Needs root, iproute2 and iptables
 * ({@link io.ringbase.faults.net.Tools} checks them; {@code .ci/run} installs them). Everything it creates is named with the
 *
 * {@value io.ringbase.faults.net.NetworkLab#PREFIX} prefix and removed on close and at the next start.
 */
package io.ringbase.faults.net;
