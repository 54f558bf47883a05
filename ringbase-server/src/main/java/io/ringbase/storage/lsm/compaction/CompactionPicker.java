package io.ringbase.storage.lsm.compaction;

import java.util.List;

/**
 * Decides which live SSTables compaction merges next (pure logic, no I/O), and how many tables it has
 * yet to merge, for the write triggers. The engine merges any set of tables into one (versions decide,
 * so the inputs need not be adjacent in age).
 */
public interface CompactionPicker {

    /**
     * The tables to merge next by the strategy's own rule.
     *
     * @param tables the live tables, in any order
     * @return the file numbers of the tables to merge (at least 2), or an empty list
     */
    List<Long> pick(List<TableInfo> tables);

    /**
     * The tables to merge for a table the tombstone trigger chose ({@link TombstoneTrigger}): by default
     * that table alone (Cassandra's single-SSTable tombstone compaction).
     *
     * @param tables    the live tables, in any order
     * @param candidate one of {@code tables}
     * @return file numbers, {@code candidate}'s among them
     */
    default List<Long> pickForTombstones(List<TableInfo> tables, TableInfo candidate) {
        return List.of(candidate.number());
    }

    /**
     * How many of {@code tables} compaction has yet to merge, for the write slowdown and stop triggers:
     * never the tables of a settled state, which no merge reduces, so that a large store is not slowed
     * for good.
     *
     * @param tables the live tables, in any order
     * @return the count, 0 for no tables
     */
    int backlog(List<TableInfo> tables);
}
