package io.jrma.sync;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.Jrma;
import io.jrma.Win;
import io.jrma.WinCounters.Counter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;

/**
 * What the tests of request slots across JVMs ({@link OpSlotsAcrossJvmsTest}, {@link OpSlotLanesAcrossJvmsTest})
 * share: their job of two JVMs, a dynamic window over a rank's private memory and the addresses to reach it, a rank
 * that stays away from the library for a while, and a window's counter growth between looks.
 */
final class OpSlotsRig {
    private OpSlotsRig() {
    }

    /** A job of {@code ranks} ranks over two JVMs of this host, connected by the shm rings and TCP. */
    static Jrma.Builder job(int ranks) {
        return Jrma.job(ranks).jvms(2).param("jrma.transports", "shm,tcp").timeout(Duration.ofSeconds(90));
    }

    /** Rank {@code owner}'s addresses of its attached buffers, known to every rank (through an allocate window). */
    static long[] exchange(Comm world, int owner, long[] mine) {
        long[] out = new long[mine.length];
        try (Win x = Win.allocate(world, 8L * mine.length, 8, null)) {
            x.fence(0);
            if (world.rank() == owner) {
                for (int r = 0; r < world.size(); r++) {
                    x.put(mine, mine.length, Datatype.LONG, r, 0);
                }
            }
            x.fence(0);
            ByteBuffer b = x.buffer().order(ByteOrder.nativeOrder());
            for (int i = 0; i < mine.length; i++) {
                out[i] = b.getLong(8 * i);
            }
        }
        return out;
    }

    /**
     * A dynamic window where rank 1 attached 64 private bytes holding {@code initial} first; {@code at} is their
     * address.
     */
    record Target(Win w, ByteBuffer mem, long at) {
        void free(int me) {
            if (me == 1) {
                w.detach(mem);
            }
            w.free();
        }
    }

    /** A dynamic window with rank 1's private 64 bytes attached, holding {@code initial} first. */
    static Target privateLong(Comm world, long initial) {
        Win w = Win.createDynamic(world, null);
        ByteBuffer mem = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
        if (world.rank() == 1) {
            w.attach(mem);
            mem.putLong(0, initial);
        }
        return new Target(w, mem, exchange(world, 1, new long[] {Win.address(mem)})[0]);
    }

    /**
     * Rank 1 stores "asleep" into {@code flag} (shared memory: neither side needs the other's progress) and stays
     * outside the library for {@code ms}; rank 0 returns once it saw the flag, so what it does next surely happens
     * while rank 1 is away.
     */
    static void rankOneAway(Comm world, Win flag, long ms) {
        if (world.rank() == 1) {
            flag.buffer().putLong(0, 1);
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return;
        }
        long[] seen = new long[1];
        flag.lockAll(0);
        while (seen[0] == 0) {
            flag.get(seen, 1, Datatype.LONG, 1, 0);
            flag.flush(1);
        }
        flag.unlockAll();
    }

    /** Reads a counter's growth since the last look. */
    static final class Counts {
        private final Win w;
        private final long[] last = new long[Counter.values().length];

        Counts(Win w) {
            this.w = w;
        }

        long delta(Counter c) {
            long now = w.counters().get(c);
            long d = now - last[c.ordinal()];
            last[c.ordinal()] = now;
            return d;
        }
    }
}
