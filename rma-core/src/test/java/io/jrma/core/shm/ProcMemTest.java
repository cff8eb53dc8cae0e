package io.jrma.core.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Small copies through /proc/PID/mem ({@link ProcMem}), called directly: on this process for the data, on a child
 * process for a process that goes away (its file must read nothing, be closed, and leave the errno to
 * process_vm_readv).
 */
class ProcMemTest {
    private static long address(ByteBuffer b) {
        return com.sun.jna.Pointer.nativeValue(com.sun.jna.Native.getDirectBufferPointer(b));
    }

    private static void assumeUsable() {
        Assumptions.assumeTrue(ProcMem.usable(), "the JDK's pread0/pwrite0 are not reachable (sun.nio.ch not open, "
                + "not Linux, or -Djrma.cma.procMem=false)");
        int self = (int) ProcessHandle.current().pid();
        ByteBuffer b = ByteBuffer.allocateDirect(16);
        Assumptions.assumeTrue(ProcMem.transfer(false, self, address(b), address(b) + 8, 8) == 8,
                "the kernel refuses /proc/self/mem here (a security policy)");
    }

    @Test
    @Timeout(30)
    void copiesEitherWayAtAnyOffsetAndSize() {
        assumeUsable();
        int self = (int) ProcessHandle.current().pid();
        ByteBuffer src = ByteBuffer.allocateDirect(3 * 4096).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < src.capacity(); i++) {
            src.put(i, (byte) (i * 31 + 7));
        }
        for (int bytes : new int[] {1, 8, 13, 64, 4095, ProcMem.MAX_BYTES}) {
            for (boolean write : new boolean[] {false, true}) {
                ByteBuffer dst = ByteBuffer.allocateDirect(3 * 4096);
                int from = 4096 - 5; // across a page boundary on both sides
                int to = 4096 - 3;
                long done = write ? ProcMem.transfer(true, self, address(src) + from, address(dst) + to, bytes)
                        : ProcMem.transfer(false, self, address(dst) + to, address(src) + from, bytes);
                assertEquals(bytes, done, (write ? "write " : "read ") + bytes);
                byte[] want = new byte[bytes];
                byte[] got = new byte[bytes];
                src.get(from, want);
                dst.get(to, got);
                assertArrayEquals(want, got, (write ? "write " : "read ") + bytes);
                assertEquals(0, dst.get(to - 1), "the byte before is untouched");
                assertEquals(0, dst.get(to + bytes), "the byte after is untouched");
            }
        }
    }

    @Test
    @Timeout(30)
    void anAddressNotMappedCopiesNothingAndCrossMemoryTellsEfault() {
        assumeUsable();
        int self = (int) ProcessHandle.current().pid();
        ByteBuffer b = ByteBuffer.allocateDirect(64);
        assertEquals(0, ProcMem.transfer(false, self, address(b), 8, 8), "address 8 is not mapped");
        assertEquals(0, ProcMem.transfer(true, self, address(b), 8, 8), "address 8 is not mapped");
        assertEquals(14, CrossMemory.transfer(false, self, address(b), 8, 8), "EFAULT, told by process_vm_readv");
        assertEquals(14, CrossMemory.transfer(true, self, address(b), 8, 8), "EFAULT, told by process_vm_writev");
    }

    @Test
    @Timeout(60)
    void aProcessThatIsGoneReadsNothingItsFileIsClosedAndTheErrnoIsEsrch() throws Exception {
        assumeUsable();
        Process child = new ProcessBuilder("sleep", "60").start();
        try {
            int pid = (int) child.pid();
            // the first mapping of the child's program: its ELF header when the mapping starts at file offset 0
            String first = Files.readAllLines(Path.of("/proc/" + pid + "/maps")).get(0);
            String[] f = first.split("\\s+");
            long at = Long.parseUnsignedLong(f[0].substring(0, f[0].indexOf('-')), 16);
            ByteBuffer b = ByteBuffer.allocateDirect(8).order(ByteOrder.BIG_ENDIAN);
            int before = ProcMem.openFiles();
            assertEquals(8, ProcMem.transfer(false, pid, address(b), at, 8), "read the child's " + first);
            if (Long.parseLong(f[2], 16) == 0) {
                assertEquals(0x7f454c46, b.getInt(0), "the ELF magic of " + first);
            }
            assertEquals(before + 1, ProcMem.openFiles(), "one file opened for the child");
            child.destroyForcibly();
            assertEquals(true, child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, ProcMem.transfer(false, pid, address(b), at, 8), "the child is gone: nothing read");
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
                        assertEquals(8, ProcMem.transfer(false, self, address(dst), address(src) + 8 * e, 8));
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
}
