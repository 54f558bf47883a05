package io.ringbase.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test of the integration tier: it starts a node ({@code Node}, {@code LocalCluster},
 * {@code ServerFixture}, {@code RingbaseHttpServer}), a process, or opens a real network socket. Surefire
 * (the unit tier of {@code ./mvnw test}) leaves these out; Failsafe runs them in {@code ./mvnw verify}.
 * The tier is chosen by this tag, not by the class name, so a class keeps its name when it changes tier.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(IntegrationTest.TAG)
public @interface IntegrationTest {

    /** The JUnit tag; the poms select the tiers by it. */
    String TAG = "integration";
}
