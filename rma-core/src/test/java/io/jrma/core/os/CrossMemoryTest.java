package io.jrma.core.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * process_vm_readv and process_vm_writev (through the JDK's linker or JNA), on this process (the messenger tests over 2
 * JVMs cross processes): copies and refusals.
 */
class CrossMemoryTest {
    private static long address(ByteBuffer b) {
        return Pointer.nativeValue(Native.getDirectBufferPointer(b));
    }

    @Test
    @Timeout(30)
    void copiesFromAProcessAndRefusesWhatIsNotThere() {
        Assumptions.assumeTrue(CrossMemory.available(), "process_vm_readv is not available here (not Linux, or JNA)");
        int self = (int) ProcessHandle.current().pid();
        ByteBuffer src = ByteBuffer.allocateDirect(3 << 20).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < src.capacity() / 8; i++) {
            src.putLong(8 * i, i * 0x9E3779B97F4A7C15L);
        }
        ByteBuffer dst = ByteBuffer.allocateDirect(3 << 20).order(ByteOrder.LITTLE_ENDIAN);
        Assumptions.assumeTrue(CrossMemory.read(self, address(src), address(dst), 16),
                "the kernel refuses process_vm_readv here, even on this process (a seccomp policy)");
        // an odd length at odd offsets, across pages
        assertTrue(CrossMemory.read(self, address(src) + 5, address(dst) + 3, (3 << 20) - 11));
        for (int i = 0; i < (3 << 20) - 11; i += 4093) {
            assertEquals(src.get(5 + i), dst.get(3 + i), "byte " + i);
        }
        assertEquals(src.get((3 << 20) - 7), dst.get((3 << 20) - 9), "last byte");
        assertEquals(14, CrossMemory.transfer(false, self, address(dst), 8, 8), "address 8 is not mapped: EFAULT");
        assertEquals(CrossMemory.ESRCH, CrossMemory.transfer(false, Integer.MAX_VALUE - 1,
                address(dst), address(src), 8),
                "no such process");
    }

    /** Under {@code -Djrma.test.jdkLinker=true} (the jdk17-linker execution) the calls must use the JDK's linker. */
    @Test
    void usesTheJdkLinkerWhenTheJvmAllowsIt() {
        String binding = CrossMemory.binding();
        if (DowncallTest.expectLinker() && CrossMemory.available()) {
            assertTrue(CrossMemory.viaJdkLinker(), "binding " + binding);
            assertEquals(Downcall.linker(), binding);
        } else if (CrossMemory.available()) {
            // the build's flags open sun.nio.ch, so small copies go through /proc/PID/mem unless told not to
            boolean procMem = !"false".equals(System.getProperty("jrma.cma.procMem"));
            assertEquals(procMem, ProcMem.usable(), "the JDK's pread reachable with the build's JVM flags");
            assertEquals(procMem ? "procmem+jna" : "jna", binding);
        }
        System.out.println("CrossMemory binding: " + binding);
    }

    @Test
    @Timeout(30)
    void writesToAProcessAndRefusesWhatIsNotThere() {
        Assumptions.assumeTrue(CrossMemory.available(), "process_vm_writev is not available here (not Linux, or JNA)");
        int self = (int) ProcessHandle.current().pid();
        ByteBuffer src = ByteBuffer.allocateDirect(3 << 20).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < src.capacity() / 8; i++) {
            src.putLong(8 * i, i * 0xC2B2AE3D27D4EB4FL + 1);
        }
        ByteBuffer dst = ByteBuffer.allocateDirect(3 << 20);
        Assumptions.assumeTrue(CrossMemory.write(self, address(src), address(dst), 8),
                "the kernel refuses process_vm_writev here, even on this process (a seccomp policy)");
        int n = (3 << 20) - 13;
        assertTrue(CrossMemory.write(self, address(src) + 7, address(dst) + 2, n));
        for (int i = 0; i < n; i += 4091) {
            assertEquals(src.get(7 + i), dst.get(2 + i), "byte " + i);
        }
        assertEquals(src.get(7 + n - 1), dst.get(2 + n - 1), "last byte");
        assertEquals(0, dst.get(2 + n), "the byte after the copy is untouched");
        assertEquals(14, CrossMemory.transfer(true, self, address(src), 8, 8), "address 8 is not mapped: EFAULT");
        assertFalse(CrossMemory.write(self, address(src), 8, 8), "address 8 is not mapped");
        assertEquals(CrossMemory.ESRCH, CrossMemory.transfer(true, Integer.MAX_VALUE - 1,
                address(src), address(dst), 8),
                "no such process");
    }
}
