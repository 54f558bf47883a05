package io.ringbase.cli;

import io.ringbase.clock.TimeSource;
import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.DataDirectory;
import io.ringbase.storage.DirectoryLockedException;
import io.ringbase.storage.lsm.SnapshotRestore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ringbase admin restore}: puts a snapshot back as a stopped node's data directory, verified first
 * ({@link SnapshotRestore}). It works on the files, not through a node, so it runs on the node's machine
 * while the node is stopped.
 *
 * <p>Exit codes: 0 restored; 1 the restore failed (a running node, a damaged or incomplete snapshot, an
 * I/O error), with the data directory unchanged; 2 bad usage.
 */
@Command(
        name = "restore",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = {
            "Restore a stopped node's data directory from a snapshot (ringbase admin snapshot): copy its "
                    + "SSTables and manifest beside the data directory, read every entry back (checksums), then "
                    + "swap the copy in. The old data directory is kept as <data-dir>.before-restore-<ms>.",
            "In a cluster the node then starts as a replacement and repairs from its peers before it "
                    + "answers reads (docs/operations.md, \"Backup and restore\")."
        })
final class AdminRestore implements Callable<Integer> {

    @Option(
            names = "--data-dir",
            required = true,
            paramLabel = "DIR",
            description = "The stopped node's data directory (--data-dir of its serve).")
    Path dataDir;

    @Option(
            names = "--snapshot",
            paramLabel = "NAME",
            description = "A snapshot in the data directory: <data-dir>/snapshots/NAME.")
    String snapshot;

    @Option(
            names = "--from",
            paramLabel = "DIR",
            description = "A snapshot directory anywhere, e.g. a copy from a backup (instead of --snapshot).")
    Path from;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final TimeSource time = TimeSource.SYSTEM;

    @Override
    public Integer call() {
        if ((snapshot == null) == (from == null)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "give exactly one of --snapshot NAME and --from DIR");
        }
        Path source;
        try {
            source = from != null ? from : DataDirectory.snapshot(dataDir, snapshot);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!Files.isDirectory(source)) {
            err.println("ringbase admin restore: no snapshot at " + source);
            return 1;
        }
        try {
            SnapshotRestore.Result r = SnapshotRestore.restore(source, dataDir, time.currentTimeMillis());
            out.printf(
                    "restored %d SSTables (%,d bytes, %,d live entries read back) from %s into %s%n",
                    r.sstables(), r.bytes(), r.liveEntries(), source, dataDir);
            r.previous()
                    .ifPresent(p -> out.println(
                            "the data directory it replaced is kept at " + p + ": delete it once the node serves"));
            return 0;
        } catch (DirectoryLockedException e) {
            err.println("ringbase admin restore: a node is running on " + dataDir + ": stop it first (" + e.getMessage()
                    + ")");
        } catch (NoSuchFileException e) {
            err.println("ringbase admin restore: " + source + " is not a complete snapshot: " + e.getFile() + " "
                    + (e.getReason() == null ? "is missing" : e.getReason()));
        } catch (CorruptionException e) {
            err.println("ringbase admin restore: the snapshot at " + source + " is damaged, nothing was changed: "
                    + e.getMessage());
        } catch (IOException e) {
            err.println("ringbase admin restore: " + e);
        }
        err.flush();
        return 1;
    }
}
