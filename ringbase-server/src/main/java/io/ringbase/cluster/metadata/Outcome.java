package io.ringbase.cluster.metadata;

import java.util.Objects;

/**
 * What a {@link Transformation} did to the metadata: applied (a new value, one epoch later) or rejected (a
 * one-line reason; the metadata is unchanged). A rejection is an ordinary outcome, not an exception.
 */
public sealed interface Outcome {

    /** The change was valid and is applied: {@code metadata} is the value after it. */
    record Applied(ClusterMetadata metadata) implements Outcome {
        public Applied {
            Objects.requireNonNull(metadata, "metadata");
        }
    }

    /**
     * The change was not valid against the metadata at {@code epoch}, for {@code reason} (one line, naming
     * what was wrong).
     */
    record Rejected(long epoch, String reason) implements Outcome {
        public Rejected {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
