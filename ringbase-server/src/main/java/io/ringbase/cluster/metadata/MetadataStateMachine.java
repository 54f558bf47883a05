package io.ringbase.cluster.metadata;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine of the metadata log: applies each committed {@link Transformation} to the current
 * {@link ClusterMetadata} (or records its rejection), answers queries with the current metadata, and takes
 * and loads snapshots (docs/metadata-format.md, sections 1 and 4), so a restarted server starts from its
 * latest snapshot and a lagging one can be sent the leader's.
 *
 * <p>Ratis calls {@link #applyTransaction}, {@link #takeSnapshot} and {@link #reinitialize} from its one
 * state machine updater thread; {@link #current()} may be read from any thread at any time and never
 * blocks. {@code onChange} runs on the updater thread after every change of the metadata (an applied
 * transformation or a loaded snapshot) and must return quickly.
 */
final class MetadataStateMachine extends BaseStateMachine {

    private static final Logger log = LoggerFactory.getLogger(MetadataStateMachine.class);

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final Consumer<ClusterMetadata> onChange;
    /** Guards the pair (current, last applied term-index) so that a snapshot sees a consistent pair. */
    private final Object applyLock = new Object();

    private volatile ClusterMetadata current = ClusterMetadata.EMPTY;
    private final Set<Integer> formatOneVoters;

    /**
     * @param formatOneVoters the voters of a group whose snapshot is of format 1, which did not record them:
     *                        the founding members (the only voters a format 1 group ever had)
     */
    MetadataStateMachine(Consumer<ClusterMetadata> onChange, Set<Integer> formatOneVoters) {
        this.onChange = onChange;
        this.formatOneVoters = Set.copyOf(formatOneVoters);
    }

    /** The last applied metadata; {@link ClusterMetadata#EMPTY} before anything is applied. */
    ClusterMetadata current() {
        return current;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        getLifeCycle().startAndTransition(() -> {
            super.initialize(server, groupId, raftStorage);
            storage.init(raftStorage);
            load(storage.loadLatestSnapshot());
        });
    }

    /**
     * Before the leader's snapshot is installed on this server. Ratis checks that the state machine's life
     * cycle is PAUSED before it calls {@link #reinitialize()}, and leaves the transitions to the state machine
     * ({@code BaseStateMachine.pause()} does nothing, and the install then kills the server).
     */
    @Override
    public void pause() {
        getLifeCycle().transition(LifeCycle.State.PAUSING);
        getLifeCycle().transition(LifeCycle.State.PAUSED);
    }

    /** After the leader's snapshot was installed on this server: load it and run again. */
    @Override
    public void reinitialize() throws IOException {
        getLifeCycle().startAndTransition(() -> load(storage.loadLatestSnapshot()));
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    /**
     * On the leader, before an entry is logged: refuses a payload that is not a transformation record, so
     * that no undecodable entry reaches the log from a leader of this version.
     */
    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        MetadataCodec.decodeTransformation(request.getMessage().getContent().toByteArray());
        return super.startTransaction(request);
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        TermIndex termIndex = TermIndex.valueOf(entry);
        byte[] payload = entry.getStateMachineLogEntry().getLogData().toByteArray();
        Outcome outcome;
        ClusterMetadata before;
        synchronized (applyLock) {
            before = current;
            outcome = execute(payload, termIndex);
            if (outcome instanceof Outcome.Applied applied) {
                current = applied.metadata();
            }
            updateLastAppliedTermIndex(termIndex);
        }
        if (outcome instanceof Outcome.Applied applied) {
            log.info(
                    "metadata epoch {} -> {} at log index {}",
                    before.epoch(),
                    applied.metadata().epoch(),
                    termIndex.getIndex());
            publish(applied.metadata());
        } else if (outcome instanceof Outcome.Rejected rejected) {
            log.debug("metadata change at log index {} rejected: {}", termIndex.getIndex(), rejected.reason());
        }
        return CompletableFuture.completedFuture(message(MetadataCodec.encode(outcome)));
    }

    private Outcome execute(byte[] payload, TermIndex termIndex) {
        Transformation transformation;
        try {
            transformation = MetadataCodec.decodeTransformation(payload);
        } catch (MetadataFormatException e) {
            // Only a server older than the entry's writer gets here (the leader decodes every entry in
            // startTransaction). It changes nothing, as a rejection does, so servers of one version stay equal.
            log.error(
                    "metadata log entry {} cannot be decoded and changes nothing on this server: {}",
                    termIndex.getIndex(),
                    e.getMessage());
            return new Outcome.Rejected(current.epoch(), "undecodable log entry: " + e.getMessage());
        }
        return transformation.execute(current);
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        try {
            MetadataCodec.decodeQuery(request.getContent().toByteArray());
        } catch (MetadataFormatException e) {
            return CompletableFuture.failedFuture(e);
        }
        return CompletableFuture.completedFuture(message(MetadataCodec.encode(current)));
    }

    /**
     * Writes the current metadata to {@code sm/snapshot.<term>_<index>}: a temporary file, fsynced, then
     * renamed, and the directory fsynced; then its MD5 beside it for Ratis's snapshot transfer.
     *
     * @return the log index the snapshot covers, or {@link RaftLog#INVALID_LOG_INDEX} before any entry
     */
    @Override
    public long takeSnapshot() throws IOException {
        ClusterMetadata metadata;
        TermIndex last;
        synchronized (applyLock) {
            metadata = current;
            last = getLastAppliedTermIndex();
        }
        if (last == null || last.getIndex() < 0) {
            return RaftLog.INVALID_LOG_INDEX;
        }
        File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        Path target = file.toPath();
        Path tmp = target.resolveSibling(file.getName() + ".tmp");
        try (FileChannel out = FileChannel.open(
                tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = ByteBuffer.wrap(MetadataCodec.encode(metadata));
            while (bytes.hasRemaining()) {
                out.write(bytes);
            }
            out.force(true);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Path directory = target.toAbsolutePath().getParent();
        if (directory != null) {
            fsyncDirectory(directory);
        }
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(target, md5), last));
        log.debug("metadata snapshot at epoch {} written to {}", metadata.epoch(), target);
        return last.getIndex();
    }

    private void load(@Nullable SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) {
            return;
        }
        Path path = snapshot.getFile().getPath();
        MD5Hash md5 = snapshot.getFile().getFileDigest();
        if (md5 != null) {
            MD5FileUtil.verifySavedMD5(path.toFile(), md5);
        }
        ClusterMetadata metadata;
        try {
            metadata = MetadataCodec.decodeMetadata(Files.readAllBytes(path));
        } catch (MetadataFormatException e) {
            throw new MetadataFormatException("metadata snapshot " + path + ": " + e.getMessage(), e);
        }
        if (metadata.isInitialized() && !metadata.votersRecorded()) {
            // format 1: its voters were the founding members; every server of the group fills in the same set
            Set<Integer> voters = new TreeSet<>(formatOneVoters);
            voters.retainAll(metadata.members().keySet());
            metadata = metadata.withVoters(voters);
            log.info("metadata snapshot {} is of format 1: its voters are the founding members {}", path, voters);
        }
        synchronized (applyLock) {
            current = metadata;
            updateLastAppliedTermIndex(snapshot.getTermIndex());
        }
        log.info("metadata loaded from snapshot {} at epoch {}", path.getFileName(), metadata.epoch());
        publish(metadata);
    }

    /**
     * Logs every change of leader as this server sees it: with Ratis's own INFO lines quieted (logback.xml),
     * the line an operator reads to know which node coordinates metadata changes.
     */
    @Override
    public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, @Nullable RaftPeerId newLeaderId) {
        if (newLeaderId == null) {
            log.info("metadata server {} sees no leader", groupMemberId.getPeerId());
        } else {
            log.info("metadata server {} sees leader {}", groupMemberId.getPeerId(), newLeaderId);
        }
    }

    /** The Raft log could not be written (a full or failing disk): this server stops taking part. */
    @Override
    public void notifyLogFailed(Throwable cause, @Nullable LogEntryProto failedEntry) {
        log.error(
                "metadata log write failed at index {}; this metadata server stops until restarted",
                failedEntry == null ? "?" : failedEntry.getIndex(),
                cause);
    }

    private void publish(ClusterMetadata metadata) {
        try {
            onChange.accept(metadata);
        } catch (RuntimeException e) {
            log.warn("a metadata listener failed at epoch {}", metadata.epoch(), e);
        }
    }

    private static Message message(byte[] bytes) {
        return Message.valueOf(ByteString.copyFrom(bytes));
    }

    private static void fsyncDirectory(Path directory) throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }
}
