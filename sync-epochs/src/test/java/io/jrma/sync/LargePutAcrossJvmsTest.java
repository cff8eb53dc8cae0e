package io.jrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.LockType;
import io.jrma.RmaException;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import io.jrma.core.runtime.CommCore;
import io.jrma.spi.transport.Transport;
import io.jrma.transport.shm.ShmRingTransport;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Large contiguous puts between JVMs travel with one copy on each side at most: over TCP the origin's IO agent
 * writes the payload from the user's direct buffer, and the target's agent reads it from the socket straight
 * into window memory; over the shared-memory rings the payload is copied from the user's buffer into the ring,
 * and from the ring into window memory. Every test runs over both ({@code tcp}, {@code shm}).
 * Both shortcuts change when bytes move, so these tests pin what MPI allows to be seen:
 * <ul>
 *   <li>the origin buffer is the user's again at local completion (flush_local, complete, fence, unlock): bytes
 *       written into it afterwards never reach the target;</li>
 *   <li>a payload is placed into the window only when the packet would be applied at once: never ahead of a
 *       lock its origin waits for, so a rank holding an exclusive lock sees its own bytes until it unlocks;</li>
 *   <li>everything arrives whole, through 16 KiB socket buffers or 64 KiB rings (a payload takes many reads and
 *       writes);</li>
 *   <li>on a dynamic window over private memory the same holds, and a put reaching past an attached region is
 *       refused whole.</li>
 * </ul>
 */
class LargePutAcrossJvmsTest {
    private static final int SIZE = 256 << 10;

    /** {@code n} ranks over 2 JVMs, packets over {@code path} (see {@link LargeGetAcrossJvmsTest#between}). */
    private static void between(String path, int n, Jrma.RankMain body) {
        LargeGetAcrossJvmsTest.between(path, n, body);
    }

    private static void fill(ByteBuffer b, int seed) {
        for (int k = 0; k < b.capacity(); k++) {
            b.put(k, (byte) (seed * 31 + k * 7));
        }
    }

    private static void expect(ByteBuffer actual, int from, int length, int seed, String what) {
        for (int k = 0; k < length; k++) {
            byte want = (byte) (seed * 31 + k * 7);
            if (actual.get(from + k) != want) {
                throw new AssertionError(what + ": byte " + k + " is " + actual.get(from + k) + ", expected " + want);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    @Timeout(120)
    void largePutsLandWholeWithoutACopyAndTheBufferIsFreeAtLocalCompletion(String path) {
        between(path, 2, world -> {
            int me = world.rank();
            Win w = Win.allocate(world, me == 1 ? 2 * SIZE : 0, 1, null);
            ByteBuffer out = ByteBuffer.allocateDirect(SIZE + 64);
            int epochs = 12;
            // passive target: lock_all, put, flush_local, then scribble over the buffer before the flush
            if (me == 0) {
                w.lockAll(0);
                for (int i = 0; i < epochs; i++) {
                    fill(out, i);
                    int from = i % 3 == 0 ? 0 : 64;
                    int at = (i * 4096) % SIZE;
                    int len = i % 4 == 3 ? 40 << 10 : SIZE; // also puts whose frame fits in the receive staging
                    w.put(out.duplicate().position(from).slice(), len, Datatype.BYTE, 1, at);
                    w.flushLocal(1);
                    fill(out, 1000 + i); // the user's buffer again: none of this may arrive
                    w.flush(1);
                    ByteBuffer in = ByteBuffer.allocateDirect(len);
                    w.get(in, len, Datatype.BYTE, 1, at);
                    w.flush(1);
                    for (int k = 0; k < len; k++) {
                        byte want = (byte) (i * 31 + (from + k) * 7);
                        if (in.get(k) != want) {
                            throw new AssertionError("epoch " + i + ": window byte " + (at + k) + " is " + in.get(k)
                                    + ", expected " + want
                                    + " (bytes written after flush_local arrived, or a payload was cut)");
                        }
                    }
                }
                w.unlockAll();
            }
            world.barrier();
            // active target: PSCW and fence, the buffer rewritten right after complete / the closing fence
            for (int i = 0; i < epochs; i++) {
                boolean pscw = i % 2 == 0;
                if (me == 0) {
                    fill(out, 2000 + i);
                    if (pscw) {
                        w.start(world.group().incl(1), 0);
                    } else {
                        w.fence(0);
                    }
                    w.put(out, SIZE, Datatype.BYTE, 1, SIZE);
                    if (pscw) {
                        w.complete();
                    } else {
                        w.fence(0);
                    }
                    fill(out, 3000 + i);
                } else {
                    if (pscw) {
                        w.post(world.group().incl(0), 0);
                        w.waitFor();
                    } else {
                        w.fence(0);
                        w.fence(0);
                    }
                    expect(w.buffer(), SIZE, SIZE, 2000 + i, (pscw ? "PSCW" : "fence") + " epoch " + i);
                }
            }
            world.barrier();
            if (me == 0) {
                assertEquals(2L * epochs, w.counters().get(Counter.PAYLOADS_IN_PLACE),
                        "every large put from a direct buffer went from where it was");
            } else {
                long placed = w.counters().get(Counter.PAYLOADS_PLACED);
                assertTrue(placed >= epochs,
                        "at least the passive-target puts were read into the window (" + placed + ")");
            }
            w.free();
        });
    }

    /**
     * Rank 0 holds an exclusive lock on rank 2 and keeps checking its own bytes there; meanwhile rank 1, in the
     * other JVM and issuing eagerly, requests the lock and sends two large puts behind the request. Neither payload
     * may be written into the window before rank 0 unlocks; afterwards rank 1's second put is what the window holds.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    @Timeout(120)
    void noPayloadIsPlacedAheadOfTheLockItsOriginWaitsFor(String path) {
        between(path, 3, world -> {
            int me = world.rank();
            int target = 2; // ranks 0 and 1 share a JVM and its one connection to the target's JVM
            Win w = Win.allocate(world, me == target ? SIZE : 0, 1, Info.of("jrma_issue", "eager"));
            ByteBuffer out = ByteBuffer.allocateDirect(SIZE);
            if (me == 0) {
                fill(out, 7);
                w.lock(LockType.EXCLUSIVE, target, 0);
                w.put(out, SIZE, Datatype.BYTE, target, 0);
                w.flush(target);
            }
            world.barrier();
            if (me == 0) {
                ByteBuffer in = ByteBuffer.allocateDirect(SIZE);
                long end = System.nanoTime() + 1_500_000_000L; // rank 1's puts are waiting at the target meanwhile
                int rounds = 0;
                while (System.nanoTime() < end || rounds < 3) {
                    w.get(in, SIZE, Datatype.BYTE, target, 0);
                    w.flush(target);
                    expect(in, 0, SIZE, 7, "rank 0's exclusive epoch, round " + rounds);
                    rounds++;
                }
                w.unlock(target);
            } else if (me == 1) {
                assertTrue(((CommCore) world).job().transportFor(((WindowImpl) w).worldRanks[target]).carriesExternal(),
                        "rank 1 reaches the target over " + path + ", which sends payloads from where they are");
                fill(out, 8);
                w.lock(LockType.EXCLUSIVE, target, 0);
                w.put(out, SIZE, Datatype.BYTE, target, 0);
                ByteBuffer second = ByteBuffer.allocateDirect(SIZE);
                fill(second, 9);
                w.put(second, SIZE, Datatype.BYTE, target, 0);
                w.unlock(target);
            }
            world.barrier();
            if (me == target) {
                expect(w.buffer(), 0, SIZE, 9, "after both epochs");
            }
            w.free();
        });
    }
    /**
     * A dynamic window over memory private to the target's JVM (a direct ByteBuffer, as MPI programs attach
     * malloc'ed memory): large puts are placed into the attached region and large gets answered from it and read
     * into the origin buffer, every byte whole; a put reaching past the end of its region is refused with
     * {@code ERR_RMA_RANGE} at the flush and writes nothing, not even the part inside the region.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    @Timeout(120)
    void aDynamicWindowOverPrivateMemoryTakesLargePutsAndGetsInPlace(String path) {
        between(path, 2, world -> {
            int me = world.rank();
            Win w = Win.createDynamic(world, null);
            ByteBuffer first = ByteBuffer.allocateDirect(2 * SIZE);
            ByteBuffer second = ByteBuffer.allocateDirect(SIZE);
            long[] bases = new long[2];
            if (me == 1) {
                w.attach(first);
                w.attach(second);
                bases[0] = Win.address(first);
                bases[1] = Win.address(second);
            }
            try (Win x = Win.allocate(world, me == 0 ? 16 : 0, 8, null)) { // the addresses, to rank 0
                x.fence(0);
                if (me == 1) {
                    x.put(bases, 2, Datatype.LONG, 0, 0);
                }
                x.fence(0);
                if (me == 0) {
                    bases[0] = x.buffer().getLong(0);
                    bases[1] = x.buffer().getLong(8);
                }
            }
            int rounds = 6;
            if (me == 0) {
                ByteBuffer out = ByteBuffer.allocateDirect(SIZE);
                ByteBuffer in = ByteBuffer.allocateDirect(SIZE);
                w.lockAll(0);
                for (int i = 0; i < rounds; i++) {
                    fill(out, 40 + i);
                    long to = i % 2 == 0 ? bases[0] + (i * 8192L) % SIZE : bases[1];
                    w.put(out, SIZE, Datatype.BYTE, 1, to);
                    w.flush(1);
                    w.get(in, SIZE, Datatype.BYTE, 1, to);
                    w.flush(1);
                    expect(in, 0, SIZE, 40 + i, "round " + i + " read back");
                }
                fill(out, 99);
                w.put(out, SIZE, Datatype.BYTE, 1, bases[1] + 4096); // the last 4 KiB fall outside the region
                RmaException e = Assertions.assertThrows(RmaException.class, () -> w.flush(1));
                assertEquals(ErrorClass.ERR_RMA_RANGE, e.errorClass(), e.getMessage());
                w.get(in, SIZE, Datatype.BYTE, 1, bases[1]);
                w.flush(1);
                expect(in, 0, SIZE, 40 + rounds - 1, "the region after the refused put");
                w.unlockAll();
                assertEquals(rounds + 1L, w.counters().get(Counter.PAYLOADS_IN_PLACE),
                        "every large put left from the user's buffer");
                assertEquals(rounds + 1L, w.counters().get(Counter.PAYLOADS_PLACED),
                        "every large get's reply was read into the origin buffer");
            }
            world.barrier();
            if (me == 1) {
                long placed = w.counters().get(Counter.PAYLOADS_PLACED);
                // the first put carries lock_all's request (lock and operation coalesced): that one is copied
                assertTrue(placed >= rounds - 1 && placed <= rounds, placed
                        + " of " + rounds
                        + " valid large puts were written into the attached region where they arrived");
                Transport t = ((CommCore) world).job().transportFor(((WindowImpl) w).worldRanks[0]);
                if (path.equals("shm")) { // and the ring's pieces went there, not through an assembly buffer
                    long pieces = ((ShmRingTransport) t).packetsPlaced();
                    assertTrue(pieces >= placed, "packets placed from the ring: " + pieces + ", window says " + placed);
                }
                w.detach(first);
                w.detach(second);
            }
            w.free();
        });
    }
}
