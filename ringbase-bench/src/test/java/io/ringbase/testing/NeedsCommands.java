package io.ringbase.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test that runs these commands: skipped with one line on the console where one is not on the
 * {@code PATH}, failed in CI, whose {@code .ci/run} installs them ({@link MachineRequirements}). Tests
 * install nothing themselves.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(MachineRequirements.class)
public @interface NeedsCommands {

    /** Command names; {@code "a|b"} is satisfied by either. */
    String[] value();
}
