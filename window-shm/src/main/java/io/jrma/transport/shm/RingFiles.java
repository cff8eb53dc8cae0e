package io.jrma.transport.shm;

import static io.jrma.transport.shm.RingFileDescriptor.ASLEEP_OFFSET;
import static io.jrma.transport.shm.RingFileDescriptor.CAPACITY_OFFSET;
import static io.jrma.transport.shm.RingFileDescriptor.CREATOR_PID_OFFSET;
import static io.jrma.transport.shm.RingFileDescriptor.HEADER_LENGTH;
import static io.jrma.transport.shm.RingFileDescriptor.MAGIC;
import static io.jrma.transport.shm.RingFileDescriptor.MAGIC_OFFSET;
import static io.jrma.transport.shm.RingFileDescriptor.RECEIVER_OFFSET;
import static io.jrma.transport.shm.RingFileDescriptor.SENDER_OFFSET;
import static io.jrma.transport.shm.RingFileDescriptor.VERSION;
import static io.jrma.transport.shm.RingFileDescriptor.VERSION_OFFSET;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.mem.Memory;
import io.jrma.shm.ShmFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * Creating, checking, mapping and removing ring files ({@link RingFileDescriptor}). A file is allocated in full
 * (zeros written through the file, not a sparse {@code setLength}) before it is mapped, so a tmpfs that runs
 * out of space fails here with a message instead of killing the JVM with SIGBUS on a later store.
 *
 * <p>Stateless; any thread.
 */
final class RingFiles {
    private static final int ZEROS = 1 << 20;

    /** A ring file mapped into this JVM: the mapping stays valid after the file is unlinked. */
    static final class Mapped {
        final Path path;
        final UnsafeBuffer header;
        final UnsafeBuffer ring;
        private MappedByteBuffer map;

        Mapped(Path path, MappedByteBuffer map, int capacity) {
            this.path = path;
            this.map = map;
            this.header = new UnsafeBuffer(map, 0, HEADER_LENGTH);
            this.ring = new UnsafeBuffer(map, HEADER_LENGTH, capacity + RingBufferDescriptor.TRAILER_LENGTH);
        }

        /** Unmaps now (only when no thread can touch the ring any more). */
        synchronized void unmap() {
            if (map != null) {
                header.wrap(new byte[8]);
                ring.wrap(new byte[8]);
                Memory.release(map);
                map = null;
            }
        }
    }

    private RingFiles() {
    }

    /** Start of the names of the ring files created by process {@code pid}. */
    static String prefix(long pid) {
        return "jrma-" + pid + "-ring-";
    }

    static Path path(Path dir, long creatorPid, String jobTag, int sender, int receiver) {
        return dir.resolve(prefix(creatorPid) + jobTag + "-" + sender + "to" + receiver);
    }

    /** Tests only: when not negative, what {@link #usableSpace} answers (a tmpfs too small, simulated). */
    static volatile long simulatedAvailable = -1;

    /** Bytes the file system of {@code dir} can still give this user. */
    static long usableSpace(Path dir) {
        long simulated = simulatedAvailable;
        if (simulated >= 0) {
            return simulated;
        }
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_NO_SPACE, "shared-memory rings: cannot use " + dir + " ("
                    + e + "); set " + ShmParams.DIR.name() + " or exclude them with "
                    + ShmParams.TRANSPORTS.name() + "=^shm", e);
        }
    }

    /** Throws a clear error when {@code needed} bytes for {@code files} ring files do not fit in {@code available}. */
    static void checkSpace(Path dir, long needed, int files, long available) {
        if (needed > available) {
            throw noSpace(dir, needed, files, available, null);
        }
    }

    private static RmaException noSpace(Path dir, long needed, int files, long available, IOException cause) {
        return new RmaException(ErrorClass.ERR_NO_SPACE, "shared-memory rings: " + dir + " has " + available
                + " bytes available but the " + files + " ring file(s) of this JVM need " + needed + " bytes"
                + (cause == null ? "" : " (" + cause.getMessage() + ")") + "; enlarge it (docker run --shm-size),"
                + " lower " + ShmParams.RING_BYTES.name() + " or exclude the rings with " + ShmParams.TRANSPORTS.name()
                + "=^shm", cause);
    }

    /**
     * Creates a ring file (readable and writable by this user only), writes every byte of it, maps it and
     * writes its header. Fails with {@code ERR_NO_SPACE} naming the sizes when the file system is full.
     */
    static Mapped create(Path file, int capacity, long creatorPid, int sender, int receiver) {
        long length = RingFileDescriptor.fileLength(capacity);
        FileChannel created;
        try {
            created = ShmFiles.createPrivate(file); // a file already at the name is refused and left alone
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_OTHER, "shared-memory rings: cannot create " + file + ": " + e, e);
        }
        try (FileChannel ch = created) {
            try {
                ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(ZEROS, length));
                long at = 0;
                while (at < length) {
                    zeros.clear().limit((int) Math.min(zeros.capacity(), length - at));
                    at += ch.write(zeros, at);
                }
            } catch (IOException e) {
                long available = usableSpace(file.getParent());
                deleteQuietly(file);
                throw noSpace(file.getParent(), length, 1, available, e);
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, length);
            Mapped m = new Mapped(file, map, capacity);
            m.header.putLong(MAGIC_OFFSET, 0);
            m.header.putInt(VERSION_OFFSET, VERSION);
            m.header.putInt(CAPACITY_OFFSET, capacity);
            m.header.putLong(CREATOR_PID_OFFSET, creatorPid);
            m.header.putInt(SENDER_OFFSET, sender);
            m.header.putInt(RECEIVER_OFFSET, receiver);
            m.header.putIntVolatile(ASLEEP_OFFSET, 0);
            m.header.putLongVolatile(MAGIC_OFFSET, MAGIC); // release: the header is complete once the magic is there
            return m;
        } catch (IOException e) {
            deleteQuietly(file);
            throw new RmaException(ErrorClass.ERR_OTHER, "shared-memory rings: cannot create " + file + ": " + e, e);
        }
    }

    /**
     * Maps a ring file another JVM created (only a private file of this user: {@link ShmFiles#openPrivate}) and checks
     * its header against what this JVM expects.
     */
    static Mapped open(Path file, int capacity, int sender, int receiver) {
        long length = RingFileDescriptor.fileLength(capacity);
        try (FileChannel ch = ShmFiles.openPrivate(file)) { // not a symlink, nor a file of another user
            if (ch.size() != length) {
                throw new RmaException(ErrorClass.ERR_OTHER, "shared-memory rings: " + file + " has " + ch.size()
                        + " bytes, expected " + length);
            }
            Mapped m = new Mapped(file, ch.map(FileChannel.MapMode.READ_WRITE, 0, length), capacity);
            if (m.header.getLongVolatile(MAGIC_OFFSET) != MAGIC || m.header.getInt(VERSION_OFFSET) != VERSION
                    || m.header.getInt(CAPACITY_OFFSET) != capacity || m.header.getInt(SENDER_OFFSET) != sender
                    || m.header.getInt(RECEIVER_OFFSET) != receiver) {
                m.unmap();
                throw new RmaException(ErrorClass.ERR_OTHER,
                        "shared-memory rings: " + file + " is not the ring from JVM "
                        + sender + " to JVM " + receiver + " of capacity " + capacity);
            }
            return m;
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_OTHER, "shared-memory rings: cannot map " + file + ": " + e, e);
        }
    }

    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // nothing more to do
        }
    }

}
