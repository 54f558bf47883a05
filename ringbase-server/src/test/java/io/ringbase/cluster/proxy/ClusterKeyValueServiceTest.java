package io.ringbase.cluster.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How many nodes a cluster scan merges and how many must be up for {@code /ready}, by node count and RF. */
class ClusterKeyValueServiceTest {

    @Test
    void aScanMergesEnoughNodesToKeepAReadQuorumOfEveryKeysReplicas() {
        // {nodes, rf, nodes a scan needs}
        int[][] table = {
            {3, 3, 2}, // the course's semantics: any 2 of 3 see every default-quorum write
            {5, 5, 3},
            {6, 3, 5}, // two nodes down can be two of some key's three replicas
            {6, 1, 6}, // every key on one node: all of them
            {6, 2, 5},
            {10, 5, 8},
            {1, 1, 1},
        };
        for (int[] row : table) {
            assertThat(ClusterKeyValueService.scanNodesNeeded(row[0], row[1]))
                    .as("%d nodes, rf %d", row[0], row[1])
                    .isEqualTo(row[2]);
        }
    }

    @Test
    void readinessNeedsEnoughNodesUpForEveryKeysDefaultQuorum() {
        // {nodes, rf, nodes that must be up}
        int[][] table = {
            {3, 3, 2}, // a majority of the cluster, as before replication factors
            {5, 5, 3},
            {6, 3, 5}, // one of six down leaves every key two of its three replicas
            {6, 1, 6},
            {6, 2, 6}, // majority(2) = 2: a key tolerates no down replica
            {10, 5, 8},
        };
        for (int[] row : table) {
            assertThat(ClusterKeyValueService.readyNodesNeeded(row[0], row[1]))
                    .as("%d nodes, rf %d", row[0], row[1])
                    .isEqualTo(row[2]);
        }
    }
}
