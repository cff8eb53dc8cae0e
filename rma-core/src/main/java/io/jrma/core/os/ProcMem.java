package io.jrma.core.os;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Small reads from another process of this host through its {@code /proc/PID/mem} file, at the other process's
 * addresses, with the JDK's own {@code pread} (the static native behind {@code FileChannel}, called without the
 * channel's bookkeeping). {@link CrossMemory} takes this way for reads of up to {@link #MAX_BYTES} when the JDK's
 * linker is not usable (JDK 17 without its incubating module, JDK 18-21): it costs what the JDK's linker costs (8
 * bytes: about 0.6 µs here, where {@code process_vm_readv} through JNA takes 0.8-1.1 and from C 0.5). Larger reads
 * stay on {@code process_vm_readv}: the kernel copies {@code /proc/PID/mem} through a page of its own,
 * {@code process_vm_readv} straight between the processes.
 *
 * <p>Reads only: the kernel serves the file with {@code FOLL_FORCE}, so a write through it would also land on
 * pages the other process mapped read-only (copied on write), where {@code process_vm_writev} refuses with EFAULT;
 * writes keep that refusal. (A forced read of such a page is harmless.) The kernel grants the file under the same
 * ptrace rule as {@code process_vm_readv}. The native is package-private in {@code java.base}: it is reachable when
 * {@code sun.nio.ch} is open to jrma ({@code --add-opens=java.base/sun.nio.ch=ALL-UNNAMED}, among
 * {@code io.jrma.JvmFlags}); otherwise, or with {@code -Djrma.cma.procMem=false}, {@link #usable()} is false and
 * every read goes through {@code process_vm_readv}.
 *
 * <p>One file stays open per process (up to {@value #MAX_FILES}; processes beyond them are read through
 * {@code process_vm_readv}), opened on first use, which for a peer is the proof-of-identity read of its nonce. A
 * file always names the process it was opened for, even once its pid is reused: when that process has exited the
 * file reads nothing, {@link #transfer} says {@link #GONE} and the file is closed, so a reused pid is never read
 * through it. A file is closed only when no thread is using it (a count of users), so a file descriptor number is
 * never reused under a read in flight.
 *
 * <p>Any thread.
 */
final class ProcMem {
    /** The largest read that goes this way (measured faster than JNA's {@code process_vm_readv} up to a page). */
    static final int MAX_BYTES = 4096;
    /** {@link #transfer}: the process the file was opened for has exited. */
    static final long GONE = -1;
    private static final int MAX_FILES = 256;
    /** The JDK's {@code IOStatus}: end of file (nothing read), and interrupted (EINTR). */
    private static final int EOF = -1;
    private static final int INTERRUPTED = -3;

    private static final MethodHandle PREAD;

    static {
        MethodHandle r = null;
        if (!"false".equals(System.getProperty("jrma.cma.procMem"))
                && System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            // JDK 21 and later keep it in UnixFileDispatcherImpl, JDK 17-20 in FileDispatcherImpl
            for (String name : new String[] {"sun.nio.ch.UnixFileDispatcherImpl", "sun.nio.ch.FileDispatcherImpl"}) {
                try {
                    Method m = Class.forName(name).getDeclaredMethod("pread0", FileDescriptor.class, long.class,
                            int.class, long.class);
                    if (m.getReturnType() == int.class && Modifier.isStatic(m.getModifiers())) {
                        m.setAccessible(true);
                        r = MethodHandles.lookup().unreflect(m);
                        break;
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // not this JDK's class, or sun.nio.ch not open to jrma (InaccessibleObjectException)
                }
            }
        }
        PREAD = r;
    }

    /** One open file, with its users: a non-negative count while open, -1 once closed. */
    private static final class File {
        final int pid;
        final RandomAccessFile file; // kept reachable: its cleaner would close the descriptor
        final FileDescriptor fd;
        final AtomicInteger users = new AtomicInteger();
        volatile boolean retired;

        File(int pid, RandomAccessFile file) throws IOException {
            this.pid = pid;
            this.file = file;
            this.fd = file.getFD();
        }

        boolean acquire() {
            for (int u = users.get(); u >= 0; u = users.get()) {
                if (users.compareAndSet(u, u + 1)) {
                    return true;
                }
            }
            return false;
        }

        /** The last user of a retired file closes it (retire stores the flag before its own attempt). */
        void release() {
            if (users.decrementAndGet() == 0 && retired) {
                tryClose();
            }
        }

        void tryClose() {
            if (users.compareAndSet(0, -1)) {
                OPEN.decrementAndGet();
                try {
                    file.close();
                } catch (IOException ignored) {
                    // nothing to do about a failed close of a read-only view
                }
            }
        }
    }

    /** The open files (copy-on-write, read without a lock). */
    private static volatile File[] files = new File[0];
    /** Pids whose file the kernel refused (not permitted, no such process), newest first, at most MAX_FILES. */
    private static volatile int[] refused = new int[0];
    private static final AtomicInteger OPEN = new AtomicInteger();

    private ProcMem() {
    }

    /** Whether reads can go this way here (the JDK's native reachable; a given process may still refuse). */
    static boolean usable() {
        return PREAD != null;
    }

    /**
     * Copies {@code bytes} (at most {@link #MAX_BYTES}) from {@code remote} in process {@code pid} to {@code local} in
     * this process; returns how many were copied from the start, which is less than {@code bytes} when this way
     * failed (no file for the process, an address not mapped there: the caller reads the rest another way, which
     * tells why), or {@link #GONE} when the process the file was opened for has exited.
     */
    static long transfer(int pid, long local, long remote, long bytes) {
        File f = file(pid);
        if (f == null || !f.acquire()) {
            return 0;
        }
        long done = 0;
        boolean gone = false;
        try {
            while (done < bytes) {
                int n = (int) PREAD.invokeExact(f.fd, local + done, (int) (bytes - done), remote + done);
                if (n > 0) {
                    done += n;
                } else if (n != INTERRUPTED) {
                    gone = n == EOF; // the process has exited: its file reads nothing
                    break;
                }
            }
        } catch (IOException e) {
            // EIO: an address not mapped there; the other way tells the errno
        } catch (Throwable e) {
            throw Downcall.unchecked(e);
        } finally {
            f.release();
        }
        if (gone) {
            retire(f);
            return GONE;
        }
        return done;
    }

    private static File file(int pid) {
        File[] now = files;
        for (File f : now) {
            if (f.pid == pid) {
                return f;
            }
        }
        for (int p : refused) {
            if (p == pid) {
                return null;
            }
        }
        return now.length >= MAX_FILES ? null : open(pid);
    }

    private static synchronized File open(int pid) {
        File[] now = files;
        for (File f : now) {
            if (f.pid == pid) {
                return f;
            }
        }
        if (now.length >= MAX_FILES) {
            return null;
        }
        File f;
        try {
            f = new File(pid, new RandomAccessFile("/proc/" + pid + "/mem", "r"));
        } catch (IOException | SecurityException e) {
            String why = String.valueOf(e.getMessage());
            if (!why.contains("Too many open files")) { // a lasting refusal (not permitted, no such process)
                int[] r = Arrays.copyOf(refused, Math.min(refused.length + 1, MAX_FILES));
                System.arraycopy(r, 0, r, 1, r.length - 1); // the newest first; the oldest refusal is forgotten
                r[0] = pid;
                refused = r;
            }
            return null;
        }
        OPEN.incrementAndGet();
        File[] more = Arrays.copyOf(now, now.length + 1);
        more[now.length] = f;
        files = more;
        return f;
    }

    private static synchronized void retire(File f) {
        File[] now = files;
        int at = Arrays.asList(now).indexOf(f);
        if (at >= 0) {
            File[] less = new File[now.length - 1];
            System.arraycopy(now, 0, less, 0, at);
            System.arraycopy(now, at + 1, less, at, now.length - at - 1);
            files = less;
        }
        f.retired = true;
        f.tryClose(); // or its last user does
    }

    /** How many files are open (for tests). */
    static int openFiles() {
        return OPEN.get();
    }
}
