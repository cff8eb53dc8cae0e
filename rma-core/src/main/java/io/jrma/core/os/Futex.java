package io.jrma.core.os;

import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.agrona.BufferUtil;

/**
 * Linux futex wait and wake on a 32-bit word, through the C library's {@code syscall}: lets a thread sleep until
 * a thread of any process mapping the word changes it and wakes it (DESIGN.md: waiting spins, then sleeps on a
 * futex). The call goes through the JDK's linker where it is usable ({@link Downcall}), else through JNA's direct
 * mapping of {@code syscall} with primitive arguments only (JNA's interface dispatch, used before, cost about 3 µs
 * a call here, which every sleep and every wake of a sleeping peer paid on top of the system call, and ran
 * hundreds of interpreted frames a call before the JIT had compiled it). Where neither works (another OS, no linker and
 * JNA cannot load) {@link #available()} is false and callers fall back to timed parking.
 *
 * <p>Stateless; any thread.
 */
public final class Futex {
    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    private static final long SYS_FUTEX;
    private static final boolean DIRECT;
    private static final boolean LINKED;
    /** This thread's {@code struct timespec} (two native longs), off the heap so either binding can pass it. */
    private static final ThreadLocal<ByteBuffer> TIMESPEC = ThreadLocal.withInitial(
            () -> ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder()));

    /** {@code syscall} through the JDK's linker (every argument widened to a register-sized long), or null. */
    private static final MethodHandle SYSCALL = Downcall.bind("syscall", long.class, long.class, long.class, long.class,
            long.class, long.class, long.class, long.class);

    /**
     * {@code syscall} bound straight to the C library (JNA's direct mapping: no proxy, no reflection, no argument
     * conversion). Every argument is register-sized, as the kernel takes them.
     */
    private static final class Calls {
        static native long syscall(long number, long address, long op, long value, long timeout, long address2,
                                   long value3);
    }

    static {
        String arch = System.getProperty("os.arch", "");
        long nr = arch.equals("amd64") || arch.equals("x86_64") ? 202 : arch.equals("aarch64") ? 98 : -1;
        SYS_FUTEX = nr;
        LINKED = nr > 0 && SYSCALL != null && !"false".equals(System.getProperty("jrma.futex"));
        DIRECT = nr > 0 && !LINKED && Libc.register(Calls.class, "jrma.futex");
    }

    private Futex() {
    }

    /** Whether the calls go through the JDK's linker rather than JNA. */
    public static boolean viaJdkLinker() {
        return LINKED;
    }

    /** Whether futex calls work here. */
    public static boolean available() {
        return LINKED || DIRECT;
    }

    /**
     * Sleeps while the int at {@code address} equals {@code expected}, at most {@code timeoutNs}; returns at
     * once if it differs. May return early (spurious wake, signal): callers re-check their condition.
     */
    public static void await(long address, int expected, long timeoutNs) {
        ByteBuffer ts = TIMESPEC.get();
        ts.putLong(0, timeoutNs / 1_000_000_000L);
        ts.putLong(8, timeoutNs % 1_000_000_000L);
        long at = BufferUtil.address(ts);
        if (LINKED) {
            call(FUTEX_WAIT, address, expected, at);
        } else {
            Calls.syscall(SYS_FUTEX, address, FUTEX_WAIT, expected, at, 0L, 0L);
        }
    }

    /** Wakes every thread sleeping on the word at {@code address}. */
    public static void wakeAll(long address) {
        if (LINKED) {
            call(FUTEX_WAKE, address, Integer.MAX_VALUE, 0);
        } else {
            Calls.syscall(SYS_FUTEX, address, FUTEX_WAKE, Integer.MAX_VALUE, 0L, 0L, 0L);
        }
    }

    private static void call(int op, long address, int value, long timespec) {
        try {
            long ignored = (long) SYSCALL.invokeExact(SYS_FUTEX, address, (long) op, (long) value, timespec, 0L, 0L);
        } catch (Throwable e) {
            throw Downcall.unchecked(e);
        }
    }
}
