package io.jrma.core.shm;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * Single-copy transfers between this process and another process of this host: Linux's
 * {@code process_vm_readv} and {@code process_vm_writev} (cross memory attach, what Open MPI's shared-memory
 * transport uses for large messages and for windows over private memory), through JNA's direct mapping. The
 * kernel copies straight between the two processes' pages, so a transfer between JVMs of a host costs one copy
 * whatever memory either side used (any direct buffer, not only shared segments), and the other process takes
 * no part in it.
 *
 * <p>The kernel allows it between processes of one user unless a security module forbids it (Yama's
 * {@code ptrace_scope} 1 or more, as on some distributions, or a container without the permission): then the
 * calls return false and the caller takes another path. {@link #available()} is false off Linux, when JNA
 * cannot load, or with {@code -Djrma.cma=false}.
 *
 * <p>A call costs a system call (about half a microsecond here, plus about as much again for JNA's
 * dispatch), so small transfers are better served by shared memory.
 *
 * <p>Stateless; any thread.
 */
public final class CrossMemory {
    private static final boolean AVAILABLE;
    private static final ThreadLocal<Memory> IOVECS = ThreadLocal.withInitial(() -> new Memory(32));
    private static final int EINTR = 4;

    /** The two calls, bound straight to the C library (no proxy: a fraction of the interface mapping's cost). */
    private static final class Calls {
        static native long process_vm_readv(int pid, long localIov, long localCount, long remoteIov, long remoteCount,
                                            long flags);

        static native long process_vm_writev(int pid, long localIov, long localCount, long remoteIov, long remoteCount,
                                             long flags);
    }

    static {
        boolean ok = false;
        if (System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")
                && !"false".equals(System.getProperty("jrma.cma"))) {
            try {
                Native.register(Calls.class, "c");
                ok = true;
            } catch (Throwable e) { // UnsatisfiedLinkError, or JNA refused by the JVM's native-access policy
                ok = false;
            }
        }
        AVAILABLE = ok;
    }

    private CrossMemory() {
    }

    /** Whether the calls can be tried here (they may still be refused for a given process: see {@link #read}). */
    public static boolean available() {
        return AVAILABLE;
    }

    /**
     * Copies {@code bytes} bytes from address {@code remote} of process {@code pid} to address {@code local} of
     * this process.
     *
     * @return true when all of them were copied; false when the kernel refused (no permission, no such process,
     *     an address not mapped there): nothing may be assumed about the destination then
     */
    public static boolean read(int pid, long remote, long local, long bytes) {
        return copy(false, pid, local, remote, bytes);
    }

    /**
     * Copies {@code bytes} bytes from address {@code local} of this process to address {@code remote} of process
     * {@code pid}.
     *
     * @return true when all of them were copied; false when the kernel refused (as for {@link #read}): nothing
     *     may be assumed about how much of the destination was written then
     */
    public static boolean write(int pid, long local, long remote, long bytes) {
        return copy(true, pid, local, remote, bytes);
    }

    private static boolean copy(boolean write, int pid, long local, long remote, long bytes) {
        if (!AVAILABLE) {
            return false;
        }
        Memory iov = IOVECS.get();
        long at = Pointer.nativeValue(iov);
        long done = 0;
        while (done < bytes) {
            iov.setLong(0, local + done);
            iov.setLong(8, bytes - done);
            iov.setLong(16, remote + done);
            iov.setLong(24, bytes - done);
            long n = write ? Calls.process_vm_writev(pid, at, 1, at + 16, 1, 0)
                    : Calls.process_vm_readv(pid, at, 1, at + 16, 1, 0);
            if (n <= 0) {
                if (n < 0 && Native.getLastError() == EINTR) {
                    continue;
                }
                return false;
            }
            done += n; // a partial copy stops at a page the kernel could not copy at once: go on from there
        }
        return true;
    }
}
