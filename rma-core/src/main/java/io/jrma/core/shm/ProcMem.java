package io.jrma.core.shm;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Small copies to and from another process of this host through its {@code /proc/PID/mem} file, read and written
 * at the other process's addresses with the JDK's own {@code pread}/{@code pwrite} (the static natives behind
 * {@code FileChannel}, called without the channel's bookkeeping). {@link CrossMemory} takes this way for transfers
 * of up to {@link #MAX_BYTES} when the JDK's linker is not usable (JDK 17 without its incubating module, JDK
 * 18-21): it costs what the JDK's linker costs (8 bytes: about 0.6 µs here, where {@code process_vm_readv}
 * through JNA takes 0.8-1.1 and from C 0.5). Larger transfers stay on {@code process_vm_readv}: the kernel copies
 * {@code /proc/PID/mem} through a page of its own, {@code process_vm_readv} straight between the processes.
 *
 * <p>The kernel grants the file under the same rule as {@code process_vm_readv} (ptrace access to the process).
 * The natives are package-private in {@code java.base}: they are reachable when {@code sun.nio.ch} is open to
 * jrma ({@code --add-opens=java.base/sun.nio.ch=ALL-UNNAMED}, among {@code io.jrma.JvmFlags}); otherwise, or with
 * {@code -Djrma.cma.procMem=false}, {@link #usable()} is false and every copy goes through
 * {@code process_vm_readv}/{@code writev}.
 *
 * <p>One file stays open per process, opened on first use. A file always names the process that was opened, even
 * once its pid is reused: when that process is gone the file reads nothing, and it is closed ({@link #transfer}
 * returns a failure, the caller asks {@code process_vm_readv}, which tells ESRCH or reaches the pid's new owner
 * exactly as before). A file is closed only when no thread is using it (a count of users per file), so a file
 * descriptor number is never reused under a copy in flight. At most {@value #MAX_FILES} stay open; older ones are
 * closed first.
 *
 * <p>Any thread.
 */
final class ProcMem {
    /** The largest transfer that goes this way (measured faster than JNA's {@code process_vm_readv} up to a page). */
    static final int MAX_BYTES = 4096;
    private static final int MAX_FILES = 64;
    /** The JDK's {@code IOStatus}: end of file (nothing read), and interrupted (EINTR). */
    private static final int EOF = -1;
    private static final int INTERRUPTED = -3;

    private static final MethodHandle PREAD;
    private static final MethodHandle PWRITE;

    static {
        MethodHandle r = null;
        MethodHandle w = null;
        if (!"false".equals(System.getProperty("jrma.cma.procMem"))
                && System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            // JDK 21 and later keep them in UnixFileDispatcherImpl, JDK 17-20 in FileDispatcherImpl
            for (String name : new String[] {"sun.nio.ch.UnixFileDispatcherImpl", "sun.nio.ch.FileDispatcherImpl"}) {
                try {
                    Class<?> c = Class.forName(name);
                    r = handle(c, "pread0");
                    w = handle(c, "pwrite0");
                    break;
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // not this JDK's class, or sun.nio.ch not open to jrma (InaccessibleObjectException)
                    r = null;
                    w = null;
                }
            }
        }
        PREAD = r;
        PWRITE = w;
    }

    private static MethodHandle handle(Class<?> c, String name) throws ReflectiveOperationException {
        Method m = c.getDeclaredMethod(name, FileDescriptor.class, long.class, int.class, long.class);
        if (m.getReturnType() != int.class || !java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
            throw new NoSuchMethodException(name + " has another shape in this JDK");
        }
        m.setAccessible(true);
        return MethodHandles.lookup().unreflect(m);
    }

    /** One open file, with its users: a non-negative count while open, -1 once closed. */
    private static final class File {
        final int pid;
        final RandomAccessFile file; // kept reachable: its cleaner would close the descriptor
        final FileDescriptor fd;
        final AtomicInteger users = new AtomicInteger();

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

        void release() {
            users.decrementAndGet();
        }

        /** Closes the file if nobody uses it; false when a copy is still using it. */
        boolean tryClose() {
            if (!users.compareAndSet(0, -1)) {
                return users.get() < 0;
            }
            try {
                file.close();
            } catch (IOException ignored) {
                // nothing to do about a failed close of a read-only view
            }
            return true;
        }
    }

    /** The open files (copy-on-write, read without a lock); pids whose file could not be opened map to null. */
    private static volatile File[] files = new File[0];
    private static volatile int[] refused = new int[0];
    /** Files taken out of {@link #files} while a copy was using them, to close later. */
    private static final List<File> retired = new ArrayList<>();

    private ProcMem() {
    }

    /** Whether copies can go this way here (the JDK's natives reachable; a given process may still refuse). */
    static boolean usable() {
        return PREAD != null && PWRITE != null;
    }

    /**
     * Copies {@code bytes} (at most {@link #MAX_BYTES}) between {@code local} in this process and {@code remote} in
     * process {@code pid}; returns how many were copied from the start, which is less than {@code bytes} when
     * this way failed (no file for the process, the process gone, an address not mapped there): the caller
     * copies the rest another way, which then tells why.
     */
    static long transfer(boolean write, int pid, long local, long remote, long bytes) {
        File f = file(pid);
        if (f == null || !f.acquire()) {
            return 0;
        }
        long done = 0;
        boolean gone = false;
        try {
            while (done < bytes) {
                int n = write ? (int) PWRITE.invokeExact(f.fd, local + done, (int) (bytes - done), remote + done)
                        : (int) PREAD.invokeExact(f.fd, local + done, (int) (bytes - done), remote + done);
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
        }
        return done;
    }

    private static File file(int pid) {
        for (File f : files) {
            if (f.pid == pid) {
                return f;
            }
        }
        for (int p : refused) {
            if (p == pid) {
                return null;
            }
        }
        return open(pid);
    }

    private static synchronized File open(int pid) {
        for (File f : files) {
            if (f.pid == pid) {
                return f;
            }
        }
        File f;
        try {
            f = new File(pid, new RandomAccessFile("/proc/" + pid + "/mem", "rw"));
        } catch (IOException | SecurityException e) { // not permitted, or no such process: process_vm_* decide
            int[] r = java.util.Arrays.copyOf(refused, Math.min(refused.length + 1, MAX_FILES));
            System.arraycopy(r, 0, r, 1, r.length - 1); // the newest first; the oldest refusal is forgotten
            r[0] = pid;
            refused = r;
            return null;
        }
        File[] now = files;
        if (now.length >= MAX_FILES) {
            retireLocked(now[0]);
            now = files;
        }
        File[] more = java.util.Arrays.copyOf(now, now.length + 1);
        more[now.length] = f;
        files = more;
        return f;
    }

    private static synchronized void retire(File f) {
        retireLocked(f);
    }

    private static void retireLocked(File f) {
        File[] now = files;
        int at = -1;
        for (int i = 0; i < now.length; i++) {
            if (now[i] == f) {
                at = i;
            }
        }
        if (at >= 0) {
            File[] less = new File[now.length - 1];
            System.arraycopy(now, 0, less, 0, at);
            System.arraycopy(now, at + 1, less, at, now.length - at - 1);
            files = less;
            retired.add(f);
        }
        retired.removeIf(File::tryClose);
    }

    /** How many files are open (for tests). */
    static synchronized int openFiles() {
        return files.length + retired.size();
    }
}
