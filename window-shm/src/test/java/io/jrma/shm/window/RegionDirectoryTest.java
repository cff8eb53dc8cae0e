package io.jrma.shm.window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.core.mem.Memory;
import io.jrma.core.os.CrossMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dynamic window's region directory: what the owner publishes is what an origin reads (private memory
 * without a segment name; more regions than it holds flagged), and a reader that finds the table left half
 * rewritten (its owner killed) gives up when the job aborts instead of spinning forever.
 */
class RegionDirectoryTest {
    private final long mem = Memory.allocate(RegionDirectory.BYTES);

    @AfterEach
    void free() {
        Memory.free(mem);
    }

    private RegionDirectory fresh() {
        Memory.fill(mem, RegionDirectory.BYTES, (byte) 0);
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
        Memory.putLongVolatile(null, mem, d.version() + 1); // odd: the owner died in the middle of a rewrite
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
     * pid by reading, through the kernel, the value the directory says that process keeps at an address of its
     * own. Here a separate process ({@code sleep}) plays the owner, with 8 non-zero bytes of its memory as the
     * nonce. Refused: a directory not identified yet (without remembering it), a wrong value, another process's
     * pid, and this process's own pid (the owner is always another JVM, and shared memory maps alike here).
     */
    @Test
    @Timeout(30)
    void crossMemoryReachesOnlyTheProcessThatPublishedTheDirectory() throws Exception {
        Assumptions.assumeTrue(CrossMemory.available(),
                "process_vm_readv is not available here (not Linux, or JNA)");
        Process owner = new ProcessBuilder("sleep", "30").start();
        Process other = new ProcessBuilder("sleep", "30").start();
        long scratch = Memory.allocate(8);
        try {
            int pid = (int) owner.pid();
            long at = 0;
            long value = 0;
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/maps"))) {
                String[] f = line.split("\\s+");
                if (!f[1].startsWith("rw")) {
                    continue;
                }
                long lo = Long.parseUnsignedLong(f[0].split("-")[0], 16);
                long hi = Long.parseUnsignedLong(f[0].split("-")[1], 16);
                for (long a = lo; a < hi && value == 0; a += 8) {
                    if (!CrossMemory.read(pid, a, scratch, 8)) {
                        break;
                    }
                    value = Memory.getLongPlain(scratch);
                    at = a;
                }
                if (value != 0) {
                    break;
                }
            }
            Assumptions.assumeTrue(value != 0,
                    "the kernel refuses cross memory attach to another process here (Yama ptrace_scope or a container "
                    + "policy)");
            RegionDirectory d = fresh();
            RemoteRegions early = new RemoteRegions(null, null, d, 0);
            assertEquals(-1, early.crossMemoryPid(), "not identified yet");
            d.identify(pid, at, value);
            assertEquals(pid, early.crossMemoryPid(), "an early refusal is not remembered: identified now");
            d.identify(pid, at, value + 1);
            assertEquals(-1, new RemoteRegions(null, null, d, 0).crossMemoryPid(), "a value that is not there");
            d.identify(other.pid(), at, value);
            assertEquals(-1, new RemoteRegions(null, null, d, 0).crossMemoryPid(), "a pid of another process");
            d.identify();
            assertEquals(-1, new RemoteRegions(null, null, d, 0).crossMemoryPid(), "this process itself");
            d.identify(pid, at, value);
            RemoteRegions proven = new RemoteRegions(null, null, d, 0);
            assertEquals(pid, proven.crossMemoryPid());
            proven.refused(14); // EFAULT: that copy only
            assertEquals(pid, proven.crossMemoryPid());
            proven.refused(CrossMemory.ESRCH); // gone: never again
            assertEquals(-1, proven.crossMemoryPid());
        } finally {
            Memory.free(scratch);
            owner.destroyForcibly();
            other.destroyForcibly();
        }
    }
}
