package io.jrma.transport.ucx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.jrma.transport.ucx.UcxWorker.Atomic;
import io.jrma.transport.ucx.UcxWorker.Registration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The UCP binding between two workers of this JVM, over UCX's shared-memory transports and over its TCP transport
 * (no RDMA device here): put, get, the four atomics on 4 and 8 bytes, flushes and tagged messages.
 */
class UcxWorkerTest {
    static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);

    static void assumeUcx() {
        String why = UcxWorker.unavailableReason();
        if (why != null) {
            System.out.println("UcxWorkerTest skipped: " + why);
        }
        assumeTrue(why == null, why);
    }

    @ParameterizedTest
    @ValueSource(strings = {UcxTls.SM, UcxTls.TCP})
    @Timeout(60)
    void putGetAndAtomicsReachRegisteredMemoryOfAnotherWorker(String tls) {
        assumeUcx();
        try (UcxWorker a = UcxWorker.open(tls); UcxWorker b = UcxWorker.open(tls);
             Memory window = new Memory(4096); Memory local = new Memory(4096); Memory op = new Memory(16)) {
            window.clear();
            long ep = a.connect(b.address());
            Registration reg = b.register(Pointer.nativeValue(window), window.size());
            long rkey = a.unpack(ep, reg.key());
            long base = reg.address();

            byte[] data = new byte[1000];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i * 7 + 1);
            }
            local.write(0, data, 0, data.length);
            both(a, b, a.put(ep, Pointer.nativeValue(local), data.length, base + 100, rkey));
            both(a, b, a.flush(ep));
            assertArrayEquals(data, window.getByteArray(100, data.length), "put landed in the target's memory");

            local.clear();
            both(a, b, a.get(ep, Pointer.nativeValue(local), data.length, base + 100, rkey));
            assertArrayEquals(data, local.getByteArray(0, data.length), "get read the target's memory");

            long opAt = Pointer.nativeValue(op);
            long reply = opAt + 8;
            window.setLong(2048, 40);
            op.setLong(0, 2);
            both(a, b, a.atomic(ep, Atomic.ADD, opAt, 8, base + 2048, rkey, 0));
            both(a, b, a.flush(ep));
            assertEquals(42, window.getLong(2048), "add");
            op.setLong(0, 8);
            both(a, b, a.atomic(ep, Atomic.ADD, opAt, 8, base + 2048, rkey, reply));
            assertEquals(42, op.getLong(8), "fetch-add returns the old value");
            assertEquals(50, window.getLong(2048));
            op.setLong(0, -1);
            op.setLong(8, 0);
            both(a, b, a.atomic(ep, Atomic.SWAP, opAt, 8, base + 2048, rkey, reply));
            assertEquals(50, op.getLong(8), "swap returns the old value");
            assertEquals(-1, window.getLong(2048));
            op.setLong(0, -1);
            op.setLong(8, 7);
            both(a, b, a.atomic(ep, Atomic.CSWAP, opAt, 8, base + 2048, rkey, reply));
            assertEquals(-1, op.getLong(8), "CAS that matched returns the old value");
            assertEquals(7, window.getLong(2048));
            op.setLong(0, 99);
            op.setLong(8, 5);
            both(a, b, a.atomic(ep, Atomic.CSWAP, opAt, 8, base + 2048, rkey, reply));
            assertEquals(7, op.getLong(8), "CAS that failed returns the value found");
            assertEquals(7, window.getLong(2048), "a failed CAS leaves the target");

            window.setInt(3000, 10);
            window.setInt(3004, 0x5a5a5a5a);
            op.setInt(0, 5);
            both(a, b, a.atomic(ep, Atomic.ADD, opAt, 4, base + 3000, rkey, reply));
            assertEquals(10, op.getInt(8), "4-byte fetch-add");
            op.setInt(0, 15);
            op.setInt(8, -3);
            both(a, b, a.atomic(ep, Atomic.CSWAP, opAt, 4, base + 3000, rkey, reply));
            assertEquals(15, op.getInt(8));
            assertEquals(-3, window.getInt(3000), "4-byte CAS");
            assertEquals(0x5a5a5a5a, window.getInt(3004), "a 4-byte atomic leaves the next 4 bytes alone");

            both(a, b, a.flushAll());
            a.destroyKey(rkey);
            b.unregister(reg);
            a.closeEndpoint(ep);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {UcxTls.SM, UcxTls.TCP})
    @Timeout(60)
    void taggedMessagesArriveInOrderWithTheirTag(String tls) {
        assumeUcx();
        try (UcxWorker a = UcxWorker.open(tls); UcxWorker b = UcxWorker.open(tls)) {
            long ep = a.connect(b.address());
            int[] sizes = {1, 100, 8192, 300_000, 17};
            Memory[] out = new Memory[sizes.length];
            long[] reqs = new long[sizes.length];
            for (int i = 0; i < sizes.length; i++) {
                out[i] = new Memory(sizes[i]);
                for (int j = 0; j < sizes[i]; j++) {
                    out[i].setByte(j, (byte) (i + j));
                }
                reqs[i] = a.send(ep, Pointer.nativeValue(out[i]), sizes[i], 0x77_0000_0000L + i);
            }
            for (int i = 0; i < sizes.length; i++) {
                long deadline = System.nanoTime() + TIMEOUT_NS;
                long msg;
                while ((msg = b.probe(0x77_0000_0000L, 0xFF_0000_0000L)) == 0) {
                    a.progress();
                    b.progress();
                    assertNotEquals(true, System.nanoTime() > deadline, "message " + i + " did not arrive");
                }
                assertEquals(sizes[i], b.probedLength(), "length of message " + i);
                assertEquals(0x77_0000_0000L + i, b.probedTag(), "messages keep their order and tags");
                try (Memory in = new Memory(sizes[i])) {
                    both(a, b, b.receive(msg, Pointer.nativeValue(in), sizes[i]));
                    assertArrayEquals(out[i].getByteArray(0, sizes[i]), in.getByteArray(0, sizes[i]));
                }
            }
            for (long r : reqs) {
                both(a, b, r);
            }
            assertEquals(0, b.probe(0, 0), "nothing more");
            a.closeEndpoint(ep);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {UcxTls.SM, UcxTls.TCP})
    @Timeout(60)
    void anArmedWorkersEventDescriptorSignalsAnArrivingMessage(String tls) {
        assumeUcx();
        try (UcxWorker a = UcxWorker.open(tls, true); UcxWorker b = UcxWorker.open(tls, true);
             Memory m = new Memory(8)) {
            long ep = a.connect(b.address());
            m.setLong(0, 42);
            both(a, b, a.send(ep, Pointer.nativeValue(m), 8, 0x11_0000_0000L)); // the endpoints are wired up now
            long msg = 0;
            while (msg == 0) {
                b.progress();
                msg = b.probe(0x11_0000_0000L, 0xFF_0000_0000L);
            }
            both(a, b, b.receive(msg, Pointer.nativeValue(m), 8));
            int fd = b.eventFd();
            while (!b.arm()) {
                b.progress();
            }
            assertEquals(false, Env.readable(fd, 50), "nothing arrived: the descriptor stays quiet");
            long req = a.send(ep, Pointer.nativeValue(m), 8, 0x11_0000_0001L);
            long deadline = System.nanoTime() + TIMEOUT_NS;
            boolean woke = false;
            while (!woke && System.nanoTime() < deadline) {
                a.progress();
                woke = Env.readable(fd, 10);
            }
            assertEquals(true, woke, "the message made the armed descriptor readable (" + tls + ")");
            both(a, b, req);
            a.closeEndpoint(ep);
        }
    }

    /**
     * The bitwise atomics (AND, OR, XOR, fetching) on 8 and 4 bytes to another worker; and ADD, SWAP and CSWAP to the
     * worker itself through an endpoint to its own address (what a window's atomic domain uses for the ranks of its
     * JVM). UCX 1.13's loopback returns the old value of a fetching OR, AND or XOR but leaves the memory unchanged
     * (seen here over sm,self and tcp,self), so the ucx transport does those to its own JVM by compare-and-swap loops.
     */
    @ParameterizedTest
    @ValueSource(strings = {UcxTls.SM, UcxTls.TCP})
    @Timeout(60)
    void bitwiseAtomicsToAnotherWorkerAndFetchingAtomicsToTheWorkerItself(String tls) {
        assumeUcx();
        try (UcxWorker a = UcxWorker.open(tls); UcxWorker b = UcxWorker.open(tls);
             Memory window = new Memory(64); Memory op = new Memory(16)) {
            Registration reg = b.register(Pointer.nativeValue(window), window.size());
            long opAt = Pointer.nativeValue(op);
            long at = reg.address() + 8;
            for (UcxWorker origin : new UcxWorker[] {a, b}) {
                boolean self = origin == b;
                String who = self ? "the worker itself" : "another worker";
                long ep = origin.connect(b.address());
                long rkey = origin.unpack(ep, reg.key());
                Atomic[] ops = self ? new Atomic[] {Atomic.ADD, Atomic.SWAP, Atomic.CSWAP}
                        : new Atomic[] {Atomic.OR, Atomic.AND, Atomic.XOR};
                for (int size : new int[] {8, 4}) {
                    window.clear();
                    long value = 0b1100;
                    window.setLong(8, value);
                    for (Atomic k : ops) {
                        long operand = 0b1010;
                        long next = switch (k) {
                            case OR -> value | operand;
                            case AND -> value & operand;
                            case XOR -> value ^ operand;
                            case ADD -> value + operand;
                            case SWAP -> operand;
                            case CSWAP -> 0b0101; // operand: the value compared; reply on entry: the new one
                        };
                        op.setLong(0, k == Atomic.CSWAP ? value : operand);
                        op.setLong(8, k == Atomic.CSWAP ? next : -1);
                        if (size == 4) {
                            op.setInt(0, (int) (k == Atomic.CSWAP ? value : operand));
                            op.setInt(8, (int) (k == Atomic.CSWAP ? next : -1));
                        }
                        both(a, b, origin.atomic(ep, k, opAt, size, at, rkey, opAt + 8));
                        long old = size == 8 ? op.getLong(8) : op.getInt(8);
                        assertEquals(value, old, k + " on " + size + " bytes to " + who + " returns the old value");
                        both(a, b, origin.flush(ep));
                        long now = size == 8 ? window.getLong(8) : window.getInt(8);
                        assertEquals(next, now, k + " on " + size + " bytes to " + who);
                        value = next;
                    }
                }
                origin.destroyKey(rkey);
                origin.closeEndpoint(ep);
            }
            b.unregister(reg);
        }
    }

    /**
     * Memory UCX allocates: over its shared-memory transports the other worker's endpoint maps it
     * ({@code ucp_rkey_ptr}), and stores and loads there are the memory's (both ways); UCP put and get still reach
     * it. Over TCP nothing maps it, and memory registered where it lay is not mapped over either.
     */
    @ParameterizedTest
    @ValueSource(strings = {UcxTls.SM, UcxTls.TCP})
    @Timeout(60)
    void allocatedMemoryIsMappedIntoPeersOverSharedMemory(String tls) {
        assumeUcx();
        try (UcxWorker a = UcxWorker.open(tls); UcxWorker b = UcxWorker.open(tls); Memory local = new Memory(64);
             Memory plain = new Memory(4096)) {
            long ep = a.connect(b.address());
            Registration reg = b.allocate(1 << 16);
            Pointer mem = new Pointer(reg.address());
            long rkey = a.unpack(ep, reg.key());
            long at = a.pointer(rkey, reg.address() + 64);
            Registration other = b.register(Pointer.nativeValue(plain), plain.size());
            assertEquals(0, a.pointer(a.unpack(ep, other.key()), other.address()), "registered memory: no mapping");
            b.unregister(other);
            if (tls.equals(UcxTls.SM)) {
                assertNotEquals(0, at, "UCX maps the memory it allocated over sm");
                new Pointer(at).setLong(0, 0x1234_5678_9abcL);
                assertEquals(0x1234_5678_9abcL, mem.getLong(64), "a store through the mapping is the memory's");
                mem.setLong(128, 77);
                assertEquals(77, new Pointer(at).getLong(64), "and a load sees the owner's store");
            } else {
                assertEquals(0, at, "no mapping over " + tls);
            }
            local.setLong(0, 5);
            both(a, b, a.put(ep, Pointer.nativeValue(local), 8, reg.address() + 256, rkey));
            both(a, b, a.flush(ep));
            assertEquals(5, mem.getLong(256), "a UCP put reaches it too");
            b.unregister(reg);
        }
    }

    /** Drives both workers until {@code req} (of either) completes. */
    static void both(UcxWorker a, UcxWorker b, long req) {
        long deadline = System.nanoTime() + TIMEOUT_NS;
        UcxWorker owner = a;
        while (true) {
            boolean d;
            try {
                d = owner.done(req);
            } catch (RuntimeException e) {
                throw e;
            }
            if (d) {
                return;
            }
            a.progress();
            b.progress();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("a UCX request did not complete in time");
            }
        }
    }
}
