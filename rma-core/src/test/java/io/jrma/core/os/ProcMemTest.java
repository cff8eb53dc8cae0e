package io.jrma.core.os;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Small copies through /proc/PID/mem ({@link ProcMem}), called directly: on this process for the data, on a child
 * process for a process that goes away (its file must read nothing, be closed, and leave the errno to
 * process_vm_readv).
 */
class ProcMemTest {
    /** The first line of process {@code pid}'s /proc/PID/maps (its program's first mapping). */
    private static String firstMapping(int pid) throws IOException {
        return Files.readAllLines(Path.of("/proc/" + pid + "/maps")).get(0);
    }

    /** Where a /proc/PID/maps line's mapping starts. */
    private static long start(String mapsLine) {
        return Long.parseUnsignedLong(mapsLine.substring(0, mapsLine.indexOf('-')), 16);
    }

    private static long address(ByteBuffer b) {
        return Pointer.nativeValue(Native.getDirectBufferPointer(b));
    }

    /**
     * Skips only where the kernel itself refuses this process's own /proc/self/mem (a security policy), checked
     * without ProcMem; with the build's JVM flags (sun.nio.ch open) ProcMem must then be usable.
     */
    private static void assumeUsable() throws IOException {
        Assumptions.assumeTrue(System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux"),
                "not Linux");
        Assumptions.assumeFalse("false".equals(System.getProperty("jrma.cma.procMem")), "-Djrma.cma.procMem=false");
        ByteBuffer b = ByteBuffer.allocateDirect(16).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(0, 0x5EED);
        boolean readable;
        try (FileChannel c = FileChannel.open(Path.of("/proc/self/mem"))) {
            ByteBuffer one = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            readable = c.read(one, address(b)) == 8 && one.getLong(0) == 0x5EED;
        } catch (IOException e) {
            readable = false;
        }
        Assumptions.assumeTrue(readable, "the kernel refuses /proc/self/mem here (a security policy)");
        Assertions.assertTrue(ProcMem.usable(),
                "the JDK's pread0 must be reachable with the build's JVM flags (sun.nio.ch open)");
    }

    @Test
    @Timeout(30)
    void readsAtAnyOffsetAndSize() throws Exception {
        assumeUsable();
        int self = (int) ProcessHandle.current().pid();
        ByteBuffer src = ByteBuffer.allocateDirect(3 * 4096).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < src.capacity(); i++) {
            src.put(i, (byte) (i * 31 + 7));
        }
        for (int bytes : new int[] {1, 8, 13, 64, 4095, ProcMem.MAX_BYTES}) {
            ByteBuffer dst = ByteBuffer.allocateDirect(3 * 4096);
            int from = 4096 - 5; // across a page boundary on both sides
            int to = 4096 - 3;
            assertEquals(bytes, ProcMem.transfer(self, address(dst) + to, address(src) + from, bytes), "read " + bytes);
            byte[] want = new byte[bytes];
            byte[] got = new byte[bytes];
            src.get(from, want);
            dst.get(to, got);
            assertArrayEquals(want, got, "read " + bytes);
            assertEquals(0, dst.get(to - 1), "the byte before is untouched");
            assertEquals(0, dst.get(to + bytes), "the byte after is untouched");
        }
    }

    @Test
    @Timeout(30)
    void anAddressNotMappedCopiesNothingAndCrossMemoryTellsEfault() throws Exception {
        assumeUsable();
        int self = (int) ProcessHandle.current().pid();
        ByteBuffer b = ByteBuffer.allocateDirect(64);
        assertEquals(0, ProcMem.transfer(self, address(b), 8, 8), "address 8 is not mapped");
        assertEquals(14, CrossMemory.transfer(false, self, address(b), 8, 8), "EFAULT, told by process_vm_readv");
        assertEquals(14, CrossMemory.transfer(true, self, address(b), 8, 8), "EFAULT, told by process_vm_writev");
    }

    @Test
    @Timeout(60)
    void aProcessThatIsGoneReadsNothingItsFileIsClosedAndCrossMemorySaysEsrch() throws Exception {
        assumeUsable();
        Process child = new ProcessBuilder("sleep", "60").start();
        try {
            int pid = (int) child.pid();
            // the first mapping of the child's program: its ELF header when the mapping starts at file offset 0
            String first = firstMapping(pid);
            String[] f = first.split("\\s+");
            long at = start(first);
            ByteBuffer b = ByteBuffer.allocateDirect(8).order(ByteOrder.BIG_ENDIAN);
            int before = ProcMem.openFiles();
            assertEquals(8, ProcMem.transfer(pid, address(b), at, 8), "read the child's " + first);
            if (Long.parseLong(f[2], 16) == 0) {
                assertEquals(0x7f454c46, b.getInt(0), "the ELF magic of " + first);
            }
            assertEquals(before + 1, ProcMem.openFiles(), "one file opened for the child");
            child.destroyForcibly();
            assertEquals(true, child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(ProcMem.GONE, ProcMem.transfer(pid, address(b), at, 8), "the child is gone: nothing read");
            assertEquals(before, ProcMem.openFiles(), "its file is closed");
            assertEquals(CrossMemory.ESRCH, CrossMemory.transfer(false, pid, address(b), at, 8), "no such process");
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    @Timeout(60)
    void threadsCopyAtOnce() throws Exception {
        assumeUsable();
        int self = (int) ProcessHandle.current().pid();
        ByteBuffer src = ByteBuffer.allocateDirect(4096).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 512; i++) {
            src.putLong(8 * i, 1000L + i);
        }
        Thread[] ts = new Thread[4];
        Throwable[] failed = new Throwable[1];
        for (int k = 0; k < ts.length; k++) {
            ts[k] = new Thread(() -> {
                ByteBuffer dst = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN);
                try {
                    for (int i = 0; i < 20_000; i++) {
                        int e = i % 512;
                        assertEquals(8, ProcMem.transfer(self, address(dst), address(src) + 8 * e, 8));
                        assertEquals(1000L + e, dst.getLong(0));
                    }
                } catch (Throwable t) {
                    synchronized (failed) {
                        failed[0] = t;
                    }
                }
            });
            ts[k].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        if (failed[0] != null) {
            throw new AssertionError(failed[0]);
        }
    }

    /** Readers in flight while the process dies: each read is whole or refused, and the file is closed after all. */
    @Test
    @Timeout(60)
    void readersWhileTheProcessDiesEndCleanly() throws Exception {
        assumeUsable();
        Process child = new ProcessBuilder("sleep", "60").start();
        try {
            int pid = (int) child.pid();
            long at = start(firstMapping(pid));
            int before = ProcMem.openFiles();
            AtomicLong whole = new AtomicLong();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(3);
            Thread[] ts = new Thread[3];
            for (int k = 0; k < ts.length; k++) {
                ts[k] = new Thread(() -> {
                    ByteBuffer b = ByteBuffer.allocateDirect(8);
                    started.countDown();
                    try {
                        while (true) {
                            long n = ProcMem.transfer(pid, address(b), at, 8);
                            if (n == 8) {
                                whole.incrementAndGet();
                            } else if (n == ProcMem.GONE || n == 0) {
                                return; // the child is gone (its file retired), or no file for it any more
                            } else {
                                throw new AssertionError("read " + n + " of 8 bytes");
                            }
                        }
                    } catch (Throwable t) {
                        failed.set(t);
                    }
                });
                ts[k].start();
            }
            started.await();
            Thread.sleep(50);
            child.destroyForcibly();
            assertEquals(true, child.waitFor(30, TimeUnit.SECONDS));
            for (Thread t : ts) {
                t.join(30_000);
                assertEquals(false, t.isAlive(), "a reader still reads a dead process");
            }
            if (failed.get() != null) {
                throw new AssertionError(failed.get());
            }
            Assertions.assertTrue(whole.get() > 0, "no read before the child died");
            assertEquals(before, ProcMem.openFiles(), "the dead child's file is closed");
            assertEquals(CrossMemory.ESRCH,
                    CrossMemory.transfer(false, pid, address(ByteBuffer.allocateDirect(8)), at, 8));
        } finally {
            child.destroyForcibly();
        }
    }
}
