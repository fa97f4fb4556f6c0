package io.conduit.gateway.launcher;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Keeps a second gateway off a home directory while one runs on it: both would share {@code data/felix-cache} (and
 * the configured ports). The lock is an exclusive {@link FileLock} on {@code <home>/data/gateway.lock}, taken before
 * the framework starts and held for the life of the process; the operating system releases it when the process ends
 * in any way (exit, signal, crash, {@code kill -9}), so a lock is never left behind. The file holds the process id of
 * the holder, for the message of the gateway that is refused.
 *
 * <p>Once per process: the launcher's main thread calls {@link #acquire} before anything else touches the home. The
 * holder never opens the file again (on POSIX systems closing any channel to the file would release the lock).
 */
final class HomeLock {

    /** The lock file, under {@code <home>/data/}. */
    static final String FILE_NAME = "gateway.lock";

    /** The lock taken last by this process, kept reachable for the life of the process; guarded by HomeLock.class. */
    private static HomeLock held;

    private final Path file;
    private final FileChannel channel;
    /** {@code null} when the file system could not lock the file (see {@link #warning()}). */
    private final FileLock lock;
    private final String warning;

    private HomeLock(Path file, FileChannel channel, FileLock lock, String warning) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
        this.warning = warning;
    }

    /** Another live process, a gateway, holds the lock of the home. */
    static final class InUse extends Exception {
        private static final long serialVersionUID = 1L;
        private final long pid;

        InUse(String message, long pid) {
            super(message);
            this.pid = pid;
        }

        /** @return the process id of the holder, or {@code -1} when it could not be read */
        long pid() {
            return pid;
        }
    }

    /**
     * Takes the lock of {@code home} for this process and writes this process's id into the lock file.
     *
     * @param home the gateway's home directory
     * @return the lock, held until the process ends; when the file system cannot lock files (e.g. NFS without a lock
     *         service) it is not held and {@link #warning()} says so
     * @throws InUse       when another process holds it (or this one did already); the message is one line saying
     *                     which process and home, and what to do
     * @throws IOException when {@code <home>/data/} or the lock file cannot be created or opened (e.g. a read-only
     *                     home)
     */
    static synchronized HomeLock acquire(Path home) throws InUse, IOException {
        Path data = home.resolve("data");
        Path file = data.resolve(FILE_NAME);
        if (held != null && held.file.equals(file)) {
            throw inUse(home, file, ProcessHandle.current().pid()); // never open the file again: see the class comment
        }
        Files.createDirectories(data);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException sameProcess) {
            // another channel of this process locked it; closing this one could release that lock (POSIX): keep it
            throw inUse(home, file, ProcessHandle.current().pid());
        } catch (IOException unsupported) {
            held = new HomeLock(file, channel, null, "cannot lock " + file + " (" + unsupported.getMessage()
                    + "): a second gateway started on this home is not detected; run one gateway per home");
            return held;
        }
        if (lock == null) {
            long pid = readPid(channel);
            channel.close(); // this process holds no lock on the file: closing releases nothing
            throw inUse(home, file, pid);
        }
        channel.truncate(0);
        channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
        channel.force(false);
        held = new HomeLock(file, channel, lock, null);
        return held;
    }

    /** @return the process id in the lock file, or {@code -1} when it holds none (yet) or cannot be read */
    private static long readPid(FileChannel channel) {
        try {
            ByteBuffer b = ByteBuffer.allocate(32);
            channel.read(b, 0);
            String text = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).strip();
            return text.isEmpty() ? -1 : Long.parseLong(text);
        } catch (IOException | NumberFormatException unreadable) {
            return -1; // e.g. being written by its holder right now
        }
    }

    /** @return the one-line refusal: which process holds {@code file} of {@code home}, and what to do */
    static InUse inUse(Path home, Path file, long pid) {
        String who = pid > 0 ? "process " + pid : "a process whose id it could not read";
        String stop = pid > 0 ? "stop it ('exit 0' in its shell, Ctrl-C, or kill " + pid + ")" : "stop it";
        return new InUse("another gateway (" + who + ") runs on the home " + home + " (it holds " + file + "): "
                + stop + ", or run this one on another home with JAVA_OPTS=-Dconduit.gateway.home=DIR", pid);
    }

    /** @return the lock file */
    Path file() {
        return file;
    }

    /** @return whether the lock is held (false only when the file system could not lock the file) */
    boolean isHeld() {
        return lock != null && lock.isValid();
    }

    /** @return why the lock is not held, one line, or {@code null} when it is */
    String warning() {
        return warning;
    }

    @Override
    public String toString() {
        return "HomeLock " + file + (isHeld() ? " (held)" : " (not held: " + warning + ")") + " " + channel;
    }
}
