package io.jrma.core.shm;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * Single-copy reads from another process's memory on this host: Linux's {@code process_vm_readv} (cross memory
 * attach, what Open MPI's shared-memory transport uses for large messages), through JNA. The kernel copies
 * straight from the other process's pages into ours, so a large message between JVMs of a host costs one copy
 * whatever memory the sender used (any direct buffer, not only shared segments).
 *
 * <p>The kernel allows it between processes of one user unless a security module forbids it (Yama's
 * {@code ptrace_scope} 1 or more, as on some distributions, or a container without the permission): then
 * {@link #read} returns false and the caller takes another path. {@link #available()} is false off Linux, when
 * JNA cannot load, or with {@code -Djrma.cma=false}.
 *
 * <p>Stateless; any thread.
 */
public final class CrossMemory {
    private static final LibC LIBC;
    private static final ThreadLocal<Memory> IOVECS = ThreadLocal.withInitial(() -> new Memory(32));
    private static final int EINTR = 4;

    interface LibC extends Library {
        long process_vm_readv(int pid, Pointer localIov, long localCount, Pointer remoteIov, long remoteCount, long flags);
    }

    static {
        LIBC = Libc.load(LibC.class, "jrma.cma");
    }

    private CrossMemory() {
    }

    /** Whether the call can be tried here (it may still be refused for a given process: see {@link #read}). */
    public static boolean available() {
        return LIBC != null;
    }

    /**
     * Copies {@code bytes} bytes from address {@code remote} of process {@code pid} to address {@code local} of
     * this process.
     *
     * @return true when all of them were copied; false when the kernel refused (no permission, no such process,
     *     an address not mapped there): nothing may be assumed about the destination then
     */
    public static boolean read(int pid, long remote, long local, long bytes) {
        if (LIBC == null) {
            return false;
        }
        Memory iov = IOVECS.get();
        long done = 0;
        while (done < bytes) {
            iov.setLong(0, local + done);
            iov.setLong(8, bytes - done);
            iov.setLong(16, remote + done);
            iov.setLong(24, bytes - done);
            long n = LIBC.process_vm_readv(pid, iov, 1, iov.share(16), 1, 0);
            if (n <= 0) {
                if (n < 0 && Native.getLastError() == EINTR) {
                    continue;
                }
                return false;
            }
            done += n; // a partial read stops at a page the kernel could not copy at once: go on from there
        }
        return true;
    }
}
