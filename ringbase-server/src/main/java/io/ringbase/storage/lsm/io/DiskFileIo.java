package io.ringbase.storage.lsm.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** {@link FileIo} over the real file system ({@link FileIo#DISK}): calls straight through, wraps nothing. */
final class DiskFileIo implements FileIo {

    DiskFileIo() {}

    @Override
    public FileChannel open(Path file, StandardOpenOption... options) throws IOException {
        return FileChannel.open(file, options);
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public boolean delete(Path file) throws IOException {
        return Files.deleteIfExists(file);
    }

    @Override
    public void createDirectory(Path dir) throws IOException {
        Files.createDirectory(dir);
    }

    @Override
    public void link(Path link, Path existing) throws IOException {
        Files.createLink(link, existing);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
