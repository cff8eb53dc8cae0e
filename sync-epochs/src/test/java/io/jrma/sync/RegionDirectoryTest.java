package io.jrma.sync;

import static io.jrma.core.mem.UnsafeAccess.UNSAFE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dynamic window's region directory: what the owner publishes is what an origin reads (private memory
 * without a segment name; more regions than it holds flagged), and a reader that finds the table left half
 * rewritten (its owner killed) gives up when the job aborts instead of spinning forever.
 */
class RegionDirectoryTest {
    private final long mem = UNSAFE.allocateMemory(RegionDirectory.BYTES);

    @AfterEach
    void free() {
        UNSAFE.freeMemory(mem);
    }

    private RegionDirectory fresh() {
        UNSAFE.setMemory(mem, RegionDirectory.BYTES, (byte) 0);
        return new RegionDirectory(mem);
    }

    @Test
    void theOwnersRegionsAreReadBackWithTheirVersion() {
        RegionDirectory d = fresh();
        d.publish(new long[] {0x1000, 0x9000}, new long[] {0x2000, 0x9100});
        long[] v = new long[1];
        boolean[] over = new boolean[1];
        RegionDirectory.Region[] rs = d.read(v, over, () -> { });
        assertEquals(2, rs.length);
        assertEquals(0x1000, rs[0].start());
        assertEquals(0x2000, rs[0].end());
        assertEquals(0x9100, rs[1].end());
        assertNull(rs[0].segment(), "plain native memory is private: no segment to map");
        assertFalse(rs[1].shared());
        assertFalse(over[0]);
        assertEquals(2, v[0], "one rewrite: version 2");
        assertEquals(v[0], d.version());
        d.publish(new long[0], new long[0]);
        assertEquals(0, d.read(v, over, () -> { }).length);
        assertEquals(4, v[0]);
    }

    @Test
    void moreRegionsThanTheTableHoldsAreFlagged() {
        RegionDirectory d = fresh();
        int n = RegionDirectory.CAPACITY + 3;
        long[] s = new long[n];
        long[] e = new long[n];
        for (int i = 0; i < n; i++) {
            s[i] = 0x10000L * (i + 1);
            e[i] = s[i] + 64;
        }
        d.publish(s, e);
        boolean[] over = new boolean[1];
        assertEquals(RegionDirectory.CAPACITY, d.read(new long[1], over, () -> { }).length);
        assertTrue(over[0], "origins must not call bytes missing from the table unattached");
    }

    @Test
    @Timeout(20)
    void aTableLeftHalfRewrittenEndsTheWaitWhenTheJobAborts() {
        RegionDirectory d = fresh();
        d.publish(new long[] {0x1000}, new long[] {0x2000});
        UNSAFE.putLongVolatile(null, mem, d.version() + 1); // odd: the owner died in the middle of a rewrite
        int[] looks = new int[1];
        RuntimeException e = assertThrows(RuntimeException.class, () -> d.read(new long[1], new boolean[1], () -> {
            if (++looks[0] == 3) {
                throw new IllegalStateException("job aborted");
            }
        }));
        assertEquals("job aborted", e.getMessage());
    }

    /**
     * An origin copies by cross memory attach only to the process that published the directory: it proves the
     * pid by reading the nonce at the owner's address of it through the kernel. A directory naming another
     * process (another pid namespace, a recycled pid), or not identified yet, is refused.
     */
    @Test
    @Timeout(30)
    void crossMemoryReachesOnlyTheProcessThatPublishedTheDirectory() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.jrma.core.shm.CrossMemory.available(),
                "process_vm_readv is not available here (not Linux, or JNA)");
        RegionDirectory d = fresh();
        RemoteRegions early = new RemoteRegions(null, d, 0);
        assertEquals(-1, early.crossMemoryPid(), "not identified yet");
        d.identify();
        long self = ProcessHandle.current().pid();
        org.junit.jupiter.api.Assumptions.assumeTrue(new RemoteRegions(null, d, 0).crossMemoryPid() == self,
                "the kernel refuses cross memory attach here (Yama ptrace_scope or a container policy)");
        assertEquals(self, early.crossMemoryPid(), "an early refusal is not remembered: identified now");
        long[] owner = d.owner();
        Process other = new ProcessBuilder("sleep", "30").start();
        try {
            UNSAFE.putLong(mem + 16, other.pid()); // the directory now names another live process
            assertEquals(-1, new RemoteRegions(null, d, 0).crossMemoryPid(), "a pid of another process");
            UNSAFE.putLong(mem + 16, owner[0]);
            long decoy = UNSAFE.allocateMemory(64);
            try {
                UNSAFE.putLong(decoy + RegionDirectory.NONCE, ~owner[2]);
                UNSAFE.putLong(mem + 24, decoy); // this process, but the nonce is not where the directory says
                assertEquals(-1, new RemoteRegions(null, d, 0).crossMemoryPid(), "a nonce that does not match");
            } finally {
                UNSAFE.freeMemory(decoy);
            }
            UNSAFE.putLong(mem + 24, owner[1]);
            assertEquals(self, new RemoteRegions(null, d, 0).crossMemoryPid());
        } finally {
            other.destroyForcibly();
        }
    }
}
