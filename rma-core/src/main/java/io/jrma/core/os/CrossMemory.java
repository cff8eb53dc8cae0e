package io.jrma.core.os;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Single-copy transfers between this process and another process of this host: Linux's
 * {@code process_vm_readv} and {@code process_vm_writev} (cross memory attach, what Open MPI's shared-memory
 * transport uses for large messages and for windows over private memory), through the JDK's linker or JNA's
 * direct mapping (below). The
 * kernel copies straight between the two processes' pages, so a transfer between JVMs of a host costs one copy
 * whatever memory either side used (any direct buffer, not only shared segments), and the other process takes
 * no part in it.
 *
 * <p>The kernel allows it between processes of one user unless a security module forbids it (Yama's
 * {@code ptrace_scope} 1 or more, as on some distributions, or a container without the permission): then the
 * calls return false and the caller takes another path. {@link #available()} is false off Linux, when JNA
 * cannot load (it also tells the errno of a call that failed through the linker), or with
 * {@code -Djrma.cma=false}.
 *
 * <p>A call costs a system call (about half a microsecond here). Where the JDK's own linker is usable
 * ({@link Downcall}: JDK 22+, or JDK 17 started with the incubating module and native access) the calls go
 * through it and cost about what they cost from C; otherwise JNA's dispatch adds about 0.3 µs, and reads of up to
 * 4 KiB go through the other process's {@code /proc/PID/mem} file instead ({@link ProcMem}: the same kernel
 * permission, the JDK's own {@code pread}, about the linker's cost). Small transfers are still
 * better served by shared memory.
 *
 * <p>Any thread; the only state is {@link ProcMem}'s open files.
 */
public final class CrossMemory {
    private static final boolean AVAILABLE;
    /**
     * One iovec pair as the calls take it: the local iovec {base, length} at {@link #IOV_LOCAL}, the remote one at
     * {@link #IOV_REMOTE}; a length lies {@link #IOV_LEN} bytes after its base.
     */
    private static final int IOV_LOCAL = 0;
    private static final int IOV_LEN = Long.BYTES;
    private static final int IOV_REMOTE = 2 * Long.BYTES;
    private static final int IOV_PAIR_BYTES = 4 * Long.BYTES;
    private static final ThreadLocal<Memory> IOVECS = ThreadLocal.withInitial(() -> new Memory(IOV_PAIR_BYTES));
    private static final int EINTR = 4;

    /** The two calls, bound straight to the C library (no proxy: a fraction of the interface mapping's cost). */
    private static final class Calls {
        static native long process_vm_readv(int pid, long localIov, long localCount, long remoteIov, long remoteCount,
                                            long flags);

        static native long process_vm_writev(int pid, long localIov, long localCount, long remoteIov, long remoteCount,
                                             long flags);
    }

    /** The same two calls through the JDK's linker, or null (then JNA's direct mapping above). */
    private static final MethodHandle READV = Downcall.bind("process_vm_readv", long.class, int.class, long.class,
            long.class, long.class, long.class, long.class);
    private static final MethodHandle WRITEV = Downcall.bind("process_vm_writev", long.class, int.class, long.class,
            long.class, long.class, long.class, long.class);
    private static final boolean LINKED = READV != null && WRITEV != null;
    /** Small reads through the other process's /proc/PID/mem file ({@link ProcMem}) where the linker is not used. */
    private static final boolean PROC_MEM = !LINKED && ProcMem.usable();

    static {
        boolean ok = false;
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
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

    /**
     * How the calls are made: {@code "java.lang.foreign"} or {@code "jdk.incubator.foreign"} (the JDK's linker),
     * {@code "procmem+jna"} (reads of up to 4 KiB through {@code /proc/PID/mem} ({@link ProcMem}: JDK 17-21 with
     * {@code sun.nio.ch} open to jrma, as {@code io.jrma.JvmFlags} has it), writes, larger reads and errors
     * through JNA), {@code "jna"}, or {@code "none"} when they are not {@link #available()}.
     */
    public static String binding() {
        return !AVAILABLE ? "none" : viaJdkLinker() ? Downcall.linker() : PROC_MEM ? "procmem+jna" : "jna";
    }

    /**
     * Whether the calls go through the JDK's linker ({@link #binding}), so that one costs about what it costs
     * from C: then even a small put by the kernel is quicker than a packet through the rings.
     */
    public static boolean viaJdkLinker() {
        return AVAILABLE && LINKED;
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
        return transfer(false, pid, local, remote, bytes) == 0;
    }

    /**
     * Copies {@code bytes} bytes from address {@code local} of this process to address {@code remote} of process
     * {@code pid}.
     *
     * @return true when all of them were copied; false when the kernel refused (as for {@link #read}): nothing
     *     may be assumed about how much of the destination was written then
     */
    public static boolean write(int pid, long local, long remote, long bytes) {
        return transfer(true, pid, local, remote, bytes) == 0;
    }

    /** errno: no such process. */
    public static final int ESRCH = 3;
    /** errno: not permitted (Yama, a container policy, another user). */
    public static final int EPERM = 1;

    /**
     * {@link #write} ({@code write} true) or {@link #read}, telling why it failed: 0 when every byte was copied,
     * else the kernel's errno ({@link #ESRCH}: the process is gone; {@link #EPERM}: not allowed; EFAULT: an
     * address not mapped on one side), or -1 when the calls are not available here.
     */
    public static int transfer(boolean write, int pid, long local, long remote, long bytes) {
        if (!AVAILABLE) {
            return -1;
        }
        long done = 0;
        if (PROC_MEM && !write && bytes <= ProcMem.MAX_BYTES) {
            done = ProcMem.transfer(pid, local, remote, bytes);
            if (done == ProcMem.GONE) {
                return ESRCH; // the process the file was opened for is gone: not whoever has its pid now
            }
            if (done == bytes) {
                return 0;
            }
        }
        Memory iov = IOVECS.get();
        long at = Pointer.nativeValue(iov);
        while (done < bytes) {
            iov.setLong(IOV_LOCAL, local + done);
            iov.setLong(IOV_LOCAL + IOV_LEN, bytes - done);
            iov.setLong(IOV_REMOTE, remote + done);
            iov.setLong(IOV_REMOTE + IOV_LEN, bytes - done);
            long n = call(write, pid, at);
            if (n < 0 && LINKED) { // the JDK's linker does not keep errno: ask JNA why
                n = write ? Calls.process_vm_writev(pid, at, 1, at + IOV_REMOTE, 1, 0)
                        : Calls.process_vm_readv(pid, at, 1, at + IOV_REMOTE, 1, 0);
            }
            if (n <= 0) {
                int errno = n < 0 ? Native.getLastError() : EFAULT;
                if (errno == EINTR) {
                    continue;
                }
                return errno == 0 ? EFAULT : errno;
            }
            done += n; // a partial copy stops at a page the kernel could not copy at once: go on from there
        }
        return 0;
    }

    /** One call for the iovec pair at {@code at} (local at +0, remote at +16). */
    private static long call(boolean write, int pid, long at) {
        if (LINKED) {
            try {
                return write ? (long) WRITEV.invokeExact(pid, at, 1L, at + IOV_REMOTE, 1L, 0L)
                        : (long) READV.invokeExact(pid, at, 1L, at + IOV_REMOTE, 1L, 0L);
            } catch (Throwable e) {
                throw Downcall.unchecked(e);
            }
        }
        return write ? Calls.process_vm_writev(pid, at, 1, at + IOV_REMOTE, 1, 0)
                : Calls.process_vm_readv(pid, at, 1, at + IOV_REMOTE, 1, 0);
    }

    /**
     * A random value (never 0) kept for the JVM's lifetime in memory private to this process, at
     * {@link #nonceAddress()}: a process that publishes its pid with both lets another prove, by reading that
     * address of that pid through the kernel, that the pid is this process (not one that merely maps the same
     * shared memory, nor a pid of another namespace or recycled).
     */
    public static long nonce() {
        return ProcessNonce.VALUE;
    }

    /** Where {@link #nonce()} lies in this process. */
    public static long nonceAddress() {
        return ProcessNonce.ADDRESS;
    }

    private static final int EFAULT = 14;
}
