package io.ringbase.cluster.paxos;

import io.ringbase.storage.Entry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * What an acceptor keeps for one key: the highest ballot promised, the highest accepted and its proposal,
 * the highest committed, and the {@link #RECENT} highest versions of the entries committed here. A ballot of
 * 0 is "none" (ballots are clock readings, all above 0). The
 * proposal is dropped once a commit at or above its ballot has applied it: the engine holds it then.
 *
 * <p>Stored as the value of the key in the {@link PaxosStore}; the encoding (docs/format.md, "Paxos
 * state"), little-endian:
 * <pre>
 * state := format u8 (= 1), promised i64, accepted i64, committed i64,
 *          recentCount u8 (at most 16), recent i64 x recentCount (ascending), proposal optEntry, crc u32
 * crc   := CRC32C of every byte before it
 * </pre>
 * with {@code optEntry} as in {@link PaxosMessages}.
 */
record PaxosState(long promised, long accepted, @Nullable Entry proposal, long committed, long[] recent) {

    /** The state of a key no round has touched. */
    static final PaxosState NONE = new PaxosState(0, 0, null, 0, new long[0]);

    /**
     * How many of the highest committed versions a state remembers ({@link #recent}): enough for a proposer
     * whose round had to start over to learn whether its proposal was committed meanwhile, unless more
     * commits than this came after it (then its answer is "may have been applied").
     */
    static final int RECENT = 16;

    /** The format version of the encoding (persisted). */
    static final int FORMAT = 1;

    /** Bytes of the fixed part: format, three ballots, the count of recent versions, the proposal's flag, the CRC. */
    static final int FIXED_SIZE = 1 + 3 * 8 + 1 + 1 + 4;

    PaxosState withPromised(long ballot) {
        return new PaxosState(ballot, accepted, proposal, committed, recent);
    }

    PaxosState withAccepted(long ballot, Entry entry) {
        return new PaxosState(Math.max(promised, ballot), ballot, entry, committed, recent);
    }

    /**
     * After a commit of {@code version} under {@code ballot}: its value is in the engine, so a proposal at
     * or below the ballot goes, and the version joins {@link #recent}, which keeps the {@link #RECENT}
     * highest committed versions in ascending order. A commit below all of a full list is not kept: it is
     * a late or repeated delivery of an old commit (versions grow with the order of commits), and keeping
     * it would make the list's lowest version claim a memory of commits it no longer holds, the bound a
     * proposer relies on to conclude that its own proposal was never committed.
     */
    PaxosState withCommitted(long ballot, long version) {
        long c = Math.max(committed, ballot);
        return new PaxosState(promised, accepted, accepted <= c ? null : proposal, c, remember(recent, version));
    }

    /** {@code versions} (ascending, at most {@link #RECENT}) with {@code v}: the highest {@link #RECENT} of both. */
    static long[] remember(long[] versions, long v) {
        if (contains(versions, v) || (versions.length == RECENT && v < versions[0])) {
            return versions;
        }
        long[] all = java.util.Arrays.copyOf(versions, versions.length + 1);
        all[versions.length] = v;
        java.util.Arrays.sort(all);
        return all.length > RECENT ? java.util.Arrays.copyOfRange(all, all.length - RECENT, all.length) : all;
    }

    /** Whether {@code versions} holds {@code v}. */
    static boolean contains(long[] versions, long v) {
        for (long x : versions) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PaxosState s
                && promised == s.promised
                && accepted == s.accepted
                && committed == s.committed
                && java.util.Objects.equals(proposal, s.proposal)
                && java.util.Arrays.equals(recent, s.recent);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(promised, accepted, committed, proposal, java.util.Arrays.hashCode(recent));
    }

    byte[] encode() {
        Entry p = proposal;
        ByteBuffer b =
                ByteBuffer.allocate(FIXED_SIZE + 8 * recent.length + (p == null ? 0 : PaxosMessages.entrySize(p)));
        b.order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) FORMAT).putLong(promised).putLong(accepted).putLong(committed);
        b.put((byte) recent.length);
        for (long v : recent) {
            b.putLong(v);
        }
        b.put((byte) (p == null ? 0 : 1));
        if (p != null) {
            PaxosMessages.putEntry(b, p);
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.array();
    }

    /**
     * Decodes a stored state.
     *
     * @throws IllegalArgumentException if the checksum fails, the format is unknown or the bytes do not
     *                                  hold exactly one state
     */
    static PaxosState decode(byte[] bytes) {
        if (bytes.length < FIXED_SIZE) {
            throw new IllegalArgumentException("a Paxos state of " + bytes.length + " bytes, under " + FIXED_SIZE);
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if ((int) crc.getValue() != b.getInt(bytes.length - 4)) {
            throw new IllegalArgumentException("Paxos state checksum mismatch");
        }
        int format = b.get() & 0xFF;
        if (format != FORMAT) {
            throw new IllegalArgumentException("Paxos state format " + format + ", this node reads " + FORMAT);
        }
        long promised = b.getLong();
        long accepted = b.getLong();
        long committed = b.getLong();
        int present;
        long[] recent;
        Entry proposal;
        try {
            int n = b.get() & 0xFF;
            if (n > RECENT || 8L * n > b.remaining()) {
                throw new IllegalArgumentException("Paxos state with " + n + " recent versions");
            }
            recent = new long[n];
            for (int i = 0; i < n; i++) {
                recent[i] = b.getLong();
            }
            java.util.Arrays.sort(recent); // a state written in commit order rather than version order
            present = b.get() & 0xFF;
            proposal = present == 1 ? PaxosMessages.entry(b) : null;
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("Paxos state cut short", e);
        }
        if (present > 1 || b.position() != bytes.length - 4) {
            throw new IllegalArgumentException("malformed Paxos state");
        }
        return new PaxosState(promised, accepted, proposal, committed, recent);
    }
}
