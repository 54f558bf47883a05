package io.ringbase.faults.nemesis;

import io.ringbase.faults.cluster.NsCluster;
import io.ringbase.faults.net.NetworkLab;
import java.util.List;
import java.util.Random;

/**
 * One kind of fault. A run calls {@link #prepare} before the nodes start, then alternates
 * {@link #inject} and {@link #heal}, calls {@link #heal} once more at the end (it must be harmless when
 * nothing is injected), and {@link #cleanup} after the nodes are gone. Called from one thread.
 */
public interface Nemesis {

    /** The name in the report (a row of the table). */
    String name();

    /**
     * Where the run's cluster takes its membership from: {@link NsCluster.Membership#ELASTIC} for a nemesis
     * that grows and shrinks it.
     */
    default NsCluster.Membership membership() {
        return NsCluster.Membership.STATIC;
    }

    /**
     * What the nemesis found while it injected and healed, besides what it did (a membership change that did
     * not finish in its bound): the run turns each into a note, a failure if {@link Finding#failure()}.
     */
    default List<Finding> findings() {
        return List.of();
    }

    /** The membership changes it made, each a window of the run's time, for the run's request counts. */
    default List<ChangeWindow> changeWindows() {
        return List.of();
    }

    /** Sets up what the fault needs before the nodes start (a small disk). */
    default void prepare(NsCluster cluster, NetworkLab lab) throws Exception {}

    /**
     * Injects the fault.
     *
     * @return what was done, for the run's event log
     */
    String inject(NsCluster cluster, NetworkLab lab, Random random) throws Exception;

    /**
     * Heals every fault this nemesis injected.
     *
     * @return what was done, or {@code null} if nothing was injected
     */
    String heal(NsCluster cluster, NetworkLab lab) throws Exception;

    /** Removes what {@link #prepare} set up; the nodes are stopped. */
    default void cleanup(NsCluster cluster, NetworkLab lab) throws Exception {}

    /** A nemesis that does nothing: the control row. */
    static Nemesis none() {
        return new Nemesis() {
            @Override
            public String name() {
                return "none";
            }

            @Override
            public String inject(NsCluster cluster, NetworkLab lab, Random random) {
                return "nothing";
            }

            @Override
            public String heal(NsCluster cluster, NetworkLab lab) {
                return null;
            }
        };
    }
}
