package io.ringbase.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test that needs root (network namespaces, iptables, mounts): skipped with one line on the console
 * where the build does not run as root, failed in CI, where it must run ({@link MachineRequirements}).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(MachineRequirements.class)
public @interface RootOnly {}
