package io.jrma.shm;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.mem.Memory;
import io.jrma.core.mem.Pages;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;
import net.openhft.chronicle.bytes.MappedBytes;
import org.agrona.BufferUtil;

/**
 * A file in a shared-memory directory ({@code /dev/shm}) mapped as one contiguous range into this process:
 * up to 2 GiB as a {@link MappedByteBuffer} (so Java code also gets a ByteBuffer view of window memory), beyond
 * that through a Chronicle Bytes single mapping. The creator sizes the file and writes every page (so the memory
 * is really there: a tmpfs that runs out of room fails the write with an error instead of a SIGBUS at the
 * first later store, and the creating process touches the pages first); other processes on the host map the
 * file by name.
 *
 * <p>Names are {@code jrma-<pid of the creating JVM>-<what>}; {@link ShmFiles#reclaimDead} removes the files
 * of JVMs that no longer run. The library unlinks a file as soon as every process that needs it has mapped
 * it (the mapping stays valid), so a crash leaves a file behind only while a window is being created.
 *
 * <p>Thread-safe after construction: the address may be used from any thread; {@link #close} once.
 */
public final class ShmSegment implements AutoCloseable {
    private static final AtomicLong SEQ = new AtomicLong();
    private static final int ZEROS = 1 << 20;

    private final Path path;
    private final long size;
    private final MappedBytes mapping;
    private final MappedByteBuffer buffer;
    private final long address;
    private final boolean creator;
    private volatile boolean closed;

    private ShmSegment(Path path, long size, boolean creator) throws IOException {
        this.path = path;
        this.size = size;
        this.creator = creator;
        // opened without following a symlink, and only if it is this user's private file (ShmFiles)
        try (FileChannel ch = ShmFiles.openPrivate(path)) {
            if (size <= Integer.MAX_VALUE) {
                this.buffer = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
                this.buffer.order(ByteOrder.LITTLE_ENDIAN);
                this.mapping = null;
                this.address = BufferUtil.address(buffer);
            } else { // Chronicle opens the name again: still the file checked above, as nobody else can replace it
                this.buffer = null;
                this.mapping = MappedBytes.singleMappedBytes(path.toFile(), size);
                this.address = mapping.bytesStore().addressForRead(0);
            }
        }
    }

    /** The directory segments live in ({@code jrma.shm.dir}, default /dev/shm). */
    public static Path directory(String dir) {
        return Path.of(dir == null || dir.isEmpty() ? "/dev/shm" : dir);
    }

    /**
     * A fresh name for a segment of this JVM: {@code jrma-<pid>-<what>-<seq>-<random>}. The random part (64 bits)
     * keeps another local user from predicting it: with {@code <seq>} alone, a stranger who saw one name in
     * /dev/shm created the next ones first, and every later window or buffer of the job failed with ERR_FILE_EXISTS
     * ({@link ShmFiles#createPrivate} refuses, rightly, to use a file it did not create).
     */
    public static String newName(String what) {
        return ShmFiles.PREFIX + ProcessHandle.current().pid() + "-" + what + "-" + SEQ.incrementAndGet() + "-"
                + Long.toHexString(NAME_RANDOM.nextLong());
    }

    private static final SecureRandom NAME_RANDOM = new SecureRandom();

    /**
     * Creates, fills with zeros and maps a segment of {@code size} bytes (at least one page).
     *
     * @throws RmaException ERR_NO_MEM when the directory has not enough room (nothing is left behind),
     *     ERR_FILE_EXISTS when something is at the name already (left as it is: {@link ShmFiles#createPrivate}), or
     *     ERR_OTHER when the file cannot be created or mapped
     */
    public static ShmSegment create(Path dir, String name, long size) {
        long bytes = pages(size);
        Path p = dir.resolve(name);
        long usable;
        try {
            usable = Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_OTHER, "cannot use the shared-memory directory " + dir + ": " + e);
        }
        if (bytes > usable) {
            throw new RmaException(ErrorClass.ERR_NO_MEM,
                    "shared memory: a segment of " + bytes + " bytes does not fit in "
                    + dir + " (" + usable + " bytes free); enlarge it (mount -o remount,size=... " + dir
                    + "), use a smaller window, or exclude the shm path (jrma.shm=false)");
        }
        boolean done = false;
        boolean created = false;
        try {
            try (FileChannel ch = ShmFiles.createPrivate(p)) { // mode 0600, and never a file that was there before
                created = true;
                ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(ZEROS, bytes));
                long at = 0;
                while (at < bytes) { // allocates every page now: a full tmpfs fails here, not with SIGBUS later
                    zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - at));
                    at += ch.write(zeros, at);
                }
            }
            ShmSegment s = new ShmSegment(p, bytes, true);
            done = true;
            return s;
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_NO_MEM,
                    "shared memory: cannot create a segment of " + bytes + " bytes in "
                    + dir + ": " + e.getMessage() + " (" + usableOr(dir) + " bytes free)");
        } finally {
            if (!done && created) {
                deleteQuietly(p);
            }
        }
    }

    /**
     * Maps a segment another process created.
     *
     * @throws RmaException ERR_OTHER when the file is missing or smaller than {@code size}, ERR_ACCESS when it is
     *     not a private file of this user (a symlink, another user's file: {@link ShmFiles#openPrivate})
     */
    public static ShmSegment open(Path dir, String name, long size) {
        long bytes = pages(size);
        Path p = dir.resolve(name);
        try {
            long have = Files.size(p);
            if (have < bytes) {
                throw new RmaException(ErrorClass.ERR_OTHER,
                        "shared memory: segment " + p + " has " + have + " bytes, expected "
                        + bytes);
            }
            return new ShmSegment(p, bytes, false);
        } catch (IOException e) {
            throw new RmaException(ErrorClass.ERR_OTHER, "shared memory: cannot map segment " + p + ": " + e);
        }
    }

    private static long pages(long size) {
        return Math.max(Pages.BYTES, Pages.roundUp(size));
    }

    private static long usableOr(Path dir) {
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // reclaimed later by ShmFiles.reclaimDead
        }
    }

    /** Address of the first byte in this process. */
    public long address() {
        return address;
    }

    /** Mapped bytes (a multiple of the page size). */
    public long size() {
        return size;
    }

    /**
     * A little-endian ByteBuffer over {@code len} bytes at {@code offset}, or null when the segment is larger
     * than a ByteBuffer can be.
     */
    public ByteBuffer buffer(long offset, long len) {
        if (buffer == null || offset + len > size) {
            return null;
        }
        return buffer.duplicate().clear().position((int) offset).limit((int) (offset + len)).slice()
                .order(ByteOrder.LITTLE_ENDIAN);
    }

    public String name() {
        return path.getFileName().toString();
    }

    /** Removes the file; the mappings stay valid until closed. Idempotent. */
    public void unlink() {
        deleteQuietly(path);
    }

    /**
     * Unmaps (after which the address must not be used) and, in the process that created it, removes the file
     * if still there.
     */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            if (creator) {
                unlink();
            }
            if (mapping != null) {
                mapping.releaseLast();
            } else {
                Memory.release(buffer);
            }
        }
    }
}
