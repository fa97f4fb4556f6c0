package io.conduit.channel;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

import io.conduit.buffer.IllegalReferenceCountException;
import io.conduit.buffer.ReferenceCounted;

/**
 * A range of a file to write to a stream channel without copying it through user space where the
 * transport can ({@code sendfile(2)} on epoll and io_uring, {@link FileChannel#transferTo} on NIO).
 *
 * <p>Write it like a buffer. If the file turns out shorter than {@code position + count}, the write fails
 * with an {@link IOException} naming the file and both sizes instead of waiting for bytes that will never
 * come. Reference counted: the file channel is closed when the count reaches zero (if this region opened it).
 * {@link #transferred()} is advanced by the transport on the event loop only.
 */
public final class FileRegion implements ReferenceCounted {

    private final FileChannel file;
    private final boolean ownsFile;
    private final long position;
    private final long count;
    private final String description;
    private long transferred; // guarded by: the event loop of the channel writing this region
    private final AtomicInteger refCnt = new AtomicInteger(1);

    private FileRegion(FileChannel file, boolean ownsFile, long position, long count, String description) {
        if (position < 0 || count < 0) {
            throw new IllegalArgumentException("file region needs position >= 0 and count >= 0, got position="
                    + position + " count=" + count);
        }
        this.file = Objects.requireNonNull(file, "file");
        this.ownsFile = ownsFile;
        this.position = position;
        this.count = count;
        this.description = description;
    }

    /**
     * A region of an open file; the caller keeps ownership of {@code file} (it is not closed on release).
     *
     * @param position first byte, {@code >= 0}
     * @param count bytes, {@code >= 0}
     */
    public static FileRegion of(FileChannel file, long position, long count) {
        return new FileRegion(file, false, position, count, String.valueOf(file));
    }

    /**
     * Opens {@code path} for reading; the region closes it when released.
     *
     * @throws IOException when the file cannot be opened
     */
    public static FileRegion of(Path path, long position, long count) throws IOException {
        return new FileRegion(FileChannel.open(path, StandardOpenOption.READ), true, position, count, path.toString());
    }

    /** Opens the whole file at {@code path}. */
    public static FileRegion of(Path path) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
        return new FileRegion(ch, true, 0, ch.size(), path.toString());
    }

    public FileChannel file() {
        return file;
    }

    /** @return the file offset of the first byte of the region */
    public long position() {
        return position;
    }

    /** @return the region's length in bytes */
    public long count() {
        return count;
    }

    /** @return bytes already written to the channel */
    public long transferred() {
        return transferred;
    }

    /** Transport use: record {@code bytes} more written. */
    public void addTransferred(long bytes) {
        if (bytes < 0 || transferred + bytes > count) {
            throw new IllegalArgumentException("transferred would become " + (transferred + bytes) + " of " + count);
        }
        transferred += bytes;
    }

    /** @return the description used in error messages (the path when known) */
    public String description() {
        return description;
    }

    @Override
    public int refCnt() {
        return refCnt.get();
    }

    @Override
    public FileRegion retain() {
        return retain(1);
    }

    @Override
    public FileRegion retain(int increment) {
        if (increment <= 0) {
            throw new IllegalArgumentException("increment must be positive, got " + increment);
        }
        for (;;) {
            int c = refCnt.get();
            if (c == 0) {
                throw new IllegalReferenceCountException("retain of a released file region " + description);
            }
            if (refCnt.compareAndSet(c, c + increment)) {
                return this;
            }
        }
    }

    @Override
    public boolean release() {
        return release(1);
    }

    @Override
    public boolean release(int decrement) {
        if (decrement <= 0) {
            throw new IllegalArgumentException("decrement must be positive, got " + decrement);
        }
        for (;;) {
            int c = refCnt.get();
            if (c < decrement) {
                throw new IllegalReferenceCountException("release(" + decrement + ") of file region " + description
                        + " with reference count " + c);
            }
            if (refCnt.compareAndSet(c, c - decrement)) {
                if (c == decrement && ownsFile) {
                    try {
                        file.close();
                    } catch (IOException e) {
                        System.getLogger(FileRegion.class.getName()).log(System.Logger.Level.DEBUG,
                                "closing " + description + " failed", e);
                    }
                }
                return c == decrement;
            }
        }
    }

    @Override
    public FileRegion touch(Object hint) {
        return this;
    }

    @Override
    public String toString() {
        return "FileRegion(" + description + ", position=" + position + ", count=" + count + ", transferred="
                + transferred + ")";
    }
}
