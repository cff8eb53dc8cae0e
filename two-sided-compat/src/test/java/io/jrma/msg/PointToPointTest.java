package io.jrma.msg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Comm;
import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.RmaException;
import io.jrma.WinCounters;
import io.jrma.core.os.CrossMemory;
import io.jrma.core.os.Futex;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Sends and receives of every protocol (inline, medium, rendezvous), matching and ordering rules. */
class PointToPointTest {
    /** Sizes (in longs) that exercise the three protocols with the default settings (inline <= 192 bytes, medium up
     * to a quarter of the area: 64 KiB with 8 ranks or fewer). */
    static final int[] COUNTS = {0, 1, 24, 25, 1000, 8191, 8193, 70_000};

    private static long value(int rank, int msg, int i) {
        return rank * 1_000_000_007L + msg * 1_000_003L + i;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void pingPongEveryProtocol(String path) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            int me = world.rank();
            int other = 1 - me;
            for (int k = 0; k < COUNTS.length; k++) {
                int n = COUNTS[k];
                long[] out = new long[n];
                for (int i = 0; i < n; i++) {
                    out[i] = value(me, k, i);
                }
                long[] in = new long[n + 2];
                in[n] = -7;
                in[n + 1] = -8;
                if (me == 0) {
                    m.send(out, 0, n, Datatype.LONG, other, k);
                    Status s = m.recv(in, 0, n, Datatype.LONG, other, k);
                    assertEquals(n, s.count(), "count of " + n + " longs");
                    assertEquals(8L * n, s.bytes());
                } else {
                    Status s = m.recv(in, 0, n, Datatype.LONG, other, k);
                    assertEquals(other, s.source());
                    assertEquals(k, s.tag());
                    m.send(out, 0, n, Datatype.LONG, other, k);
                }
                for (int i = 0; i < n; i++) {
                    if (in[i] != value(other, k, i)) {
                        assertEquals(value(other, k, i), in[i], n + " longs: element " + i);
                    }
                }
                assertEquals(-7, in[n], "nothing written past the data");
                assertEquals(-8, in[n + 1]);
            }
            Jobs.assertPathUsed(world, m, other, path);
        });
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.jrma.msg.Jobs#pathsAndSizes")
    @Timeout(60)
    void nonOvertakingPerSenderWithAnySource(String path, int n) {
        int perSender = 60;
        Jobs.withMessenger(path, n, (world, m) -> {
            int me = world.rank();
            if (me != 0) {
                // mixed sizes from one sender: inline, medium and rendezvous (320 KB: above a quarter of the area
                // with any number of ranks) messages must stay in order
                for (int k = 0; k < perSender; k++) {
                    int len = (k % 3 == 0) ? 3 : (k % 3 == 1) ? 300 : 40_000;
                    long[] data = new long[len];
                    Arrays.fill(data, value(me, k, 0));
                    m.send(data, 0, len, Datatype.LONG, 0, 5);
                }
            } else {
                int[] next = new int[n];
                long[] buf = new long[40_000];
                for (int got = 0; got < perSender * (n - 1); got++) {
                    Status s = m.recv(buf, 0, buf.length, Datatype.LONG, Messenger.ANY_SOURCE, 5);
                    int src = s.source();
                    int k = next[src]++;
                    int len = (k % 3 == 0) ? 3 : (k % 3 == 1) ? 300 : 40_000;
                    assertEquals(len, s.count(), "message " + k + " of rank " + src);
                    assertEquals(value(src, k, 0), buf[0], "message " + k + " of rank " + src + " arrived in order");
                    assertEquals(value(src, k, 0), buf[len - 1]);
                }
                for (int r = 1; r < n; r++) {
                    assertEquals(perSender, next[r]);
                }
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void tagsSelectAndWildcardsMatchTheOldest(String path) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            if (world.rank() == 0) {
                for (int tag = 1; tag <= 4; tag++) {
                    m.send(new int[] {tag * 10, tag * 10 + 1}, 0, 2, Datatype.INT, 1, tag);
                }
                m.send(new int[] {99}, 0, 1, Datatype.INT, 1, 4);
            } else {
                int[] b = new int[2];
                Status s = m.recv(b, 0, 2, Datatype.INT, 0, 3); // skips the older tags 1 and 2
                assertEquals(3, s.tag());
                assertArrayEquals(new int[] {30, 31}, b);
                s = m.recv(b, 0, 2, Datatype.INT, Messenger.ANY_SOURCE, Messenger.ANY_TAG); // oldest left: tag 1
                assertEquals(1, s.tag());
                assertEquals(0, s.source());
                assertEquals(10, b[0]);
                s = m.recv(b, 0, 2, Datatype.INT, 0, 4);
                assertArrayEquals(new int[] {40, 41}, b, "the first of the two tag-4 messages");
                s = m.recv(b, 0, 2, Datatype.INT, 0, Messenger.ANY_TAG);
                assertEquals(2, s.tag());
                s = m.recv(b, 0, 2, Datatype.INT, Messenger.ANY_SOURCE, 4);
                assertEquals(1, s.count());
                assertEquals(99, b[0]);
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void probeReportsWithoutReceiving(String path) {
        Jobs.withMessenger(path, 3, (world, m) -> {
            int me = world.rank();
            if (me == 0) {
                assertNull(m.iprobe(Messenger.ANY_SOURCE, Messenger.ANY_TAG), "nothing sent yet");
                m.send(null, 0, 0, Datatype.BYTE, 1, 0); // let ranks 1 and 2 start
                m.send(null, 0, 0, Datatype.BYTE, 2, 0);
                Status s = m.probe(1, 8);
                assertEquals(1, s.source());
                assertEquals(8, s.tag());
                assertEquals(5000, s.count(Datatype.DOUBLE));
                assertEquals(2500, s.count(Datatype.DOUBLE_COMPLEX));
                assertEquals(Status.UNDEFINED, s.count(Datatype.LONG_INT), "40000 bytes are not whole 12-byte pairs");
                Status again = m.iprobe(Messenger.ANY_SOURCE, 8);
                assertNotNull(again, "probe does not consume the message");
                double[] d = new double[(int) s.count(Datatype.DOUBLE)];
                m.recv(d, 0, d.length, Datatype.DOUBLE, s.source(), s.tag());
                assertEquals(4999.5, d[4999]);
                Status small = m.probe(Messenger.ANY_SOURCE, Messenger.ANY_TAG);
                assertEquals(2, small.source());
                assertEquals(12, small.bytes());
                assertEquals(Status.UNDEFINED, small.count(Datatype.LONG));
                byte[] b = new byte[12];
                m.recv(b, 0, 12, Datatype.BYTE, 2, small.tag());
                assertEquals(11, b[11]);
                assertNull(m.iprobe(Messenger.ANY_SOURCE, Messenger.ANY_TAG));
            } else if (me == 1) {
                m.recv(null, 0, 0, Datatype.BYTE, 0, 0);
                double[] d = new double[5000];
                for (int i = 0; i < d.length; i++) {
                    d[i] = i + 0.5;
                }
                m.send(d, 0, d.length, Datatype.DOUBLE, 0, 8);
            } else {
                m.recv(null, 0, 0, Datatype.BYTE, 0, 0);
                byte[] b = new byte[12];
                for (int i = 0; i < 12; i++) {
                    b[i] = (byte) i;
                }
                m.send(b, 0, 12, Datatype.BYTE, 0, 3);
            }
            world.barrier();
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void truncationFillsTheBufferAndNothingBeyond(String path) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            int[] sizes = {10, 500, 20_000}; // inline, medium, rendezvous
            if (world.rank() == 0) {
                for (int n : sizes) {
                    long[] out = new long[n];
                    Arrays.setAll(out, i -> i + 1);
                    m.send(out, 0, n, Datatype.LONG, 1, n);
                }
            } else {
                for (int n : sizes) {
                    long[] in = new long[n];
                    Arrays.fill(in, -1);
                    int room = n / 2;
                    MsgRequest r = m.irecv(in, 3, room, Datatype.LONG, 0, n);
                    RmaException e = Assertions.assertThrows(
                            RmaException.class, r::waitFor);
                    assertEquals(ErrorClass.ERR_TRUNCATE, e.errorClass(), e.getMessage());
                    assertEquals(ErrorClass.ERR_TRUNCATE, r.status().error());
                    assertEquals(8L * room, r.status().bytes());
                    for (int i = 0; i < n; i++) {
                        long want = i >= 3 && i < 3 + room ? i - 2 : -1;
                        if (in[i] != want) {
                            assertEquals(want, in[i], n + " longs into " + room + ": element " + i);
                        }
                    }
                }
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void largeMessagesOfFourMebibytesAndMore(String path) {
        int n = (4 << 20) / 8 + 3;
        Jobs.withMessenger(path, 2, (world, m) -> {
            if (world.rank() == 0) {
                long[] a = new long[n];
                Arrays.setAll(a, i -> i * 31L);
                m.send(a, 0, n, Datatype.LONG, 1, 1);
                ByteBuffer bb = Jobs.direct(8 * n);
                for (int i = 0; i < n; i++) {
                    bb.putLong(8 * i, -i);
                }
                m.send(bb, 0, n, Datatype.LONG, 1, 2); // exposed as is (zero copy)
                m.send(a, 1, n - 1, Datatype.LONG, 1, 3); // array at an offset: staged
            } else {
                ByteBuffer in = Jobs.direct(8 * n);
                m.recv(in, 0, n, Datatype.LONG, 0, 1);
                long[] b = new long[n];
                m.recv(b, 0, n, Datatype.LONG, 0, 2);
                long[] c = new long[n + 1];
                m.recv(c, 2, n - 1, Datatype.LONG, 0, 3);
                for (int i = 0; i < n; i++) {
                    if (in.getLong(8 * i) != i * 31L || b[i] != -i) {
                        assertEquals(i * 31L, in.getLong(8 * i), "element " + i);
                        assertEquals(-i, b[i], "element " + i);
                    }
                }
                for (int i = 0; i < n - 1; i++) {
                    if (c[i + 2] != (i + 1) * 31L) {
                        assertEquals((i + 1) * 31L, c[i + 2], "element " + i);
                    }
                }
                assertEquals(0, c[0]);
                assertEquals(0, c[1]);
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void thousandsOfOutstandingRequests(String path) {
        int k = 2000;
        Jobs.withMessenger(path, 2, (world, m) -> {
            int me = world.rank();
            int other = 1 - me;
            long[][] in = new long[k][];
            MsgRequest[] reqs = new MsgRequest[2 * k];
            for (int i = 0; i < k; i++) { // receives posted in reverse tag order, so matching must search
                int tag = k - 1 - i;
                in[tag] = new long[1 + tag % 40];
                reqs[i] = m.irecv(in[tag], 0, in[tag].length, Datatype.LONG, other, tag);
            }
            for (int tag = 0; tag < k; tag++) {
                long[] out = new long[1 + tag % 40];
                Arrays.fill(out, value(me, tag, 0));
                reqs[k + tag] = m.isend(out, 0, out.length, Datatype.LONG, other, tag);
            }
            Status[] st = MsgRequest.waitAll(reqs);
            for (int tag = 0; tag < k; tag++) {
                assertEquals(value(other, tag, 0), in[tag][in[tag].length - 1], "tag " + tag);
                assertEquals(tag, st[k - 1 - tag].tag());
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void sendsToSelfAndProcNull(String path) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            int me = world.rank();
            long[] big = new long[20_000];
            Arrays.fill(big, me + 5);
            MsgRequest s1 = m.isend(big, 0, big.length, Datatype.LONG, me, 1);
            MsgRequest s2 = m.issend(new int[] {me}, 0, 1, Datatype.INT, me, 2);
            assertFalse(s2.test(), "a synchronous send to self completes only once received");
            int[] one = new int[1];
            Status st = m.recv(one, 0, 1, Datatype.INT, Messenger.ANY_SOURCE, 2);
            assertEquals(me, st.source());
            assertEquals(me, one[0]);
            s2.waitFor();
            long[] got = new long[20_000];
            m.recv(got, 0, got.length, Datatype.LONG, me, 1);
            assertEquals(me + 5, got[19_999]);
            s1.waitFor();
            m.send(big, 0, 3, Datatype.LONG, Messenger.PROC_NULL, 0);
            Status pn = m.recv(got, 0, 3, Datatype.LONG, Messenger.PROC_NULL, 0);
            assertEquals(Messenger.PROC_NULL, pn.source());
            assertEquals(Messenger.ANY_TAG, pn.tag());
            assertEquals(0, pn.count());
            world.barrier();
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void synchronousSendWaitsForTheMatch(String path) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            if (world.rank() == 0) {
                MsgRequest s = m.issend(new long[] {42}, 0, 1, Datatype.LONG, 1, 9);
                long until = System.nanoTime() + 50_000_000L;
                while (System.nanoTime() < until) {
                    assertFalse(s.test(), "ssend completed before the receiver posted its receive");
                }
                m.send(null, 0, 0, Datatype.BYTE, 1, 1); // now rank 1 may receive
                s.waitFor();
            } else {
                m.recv(null, 0, 0, Datatype.BYTE, 0, 1);
                long[] got = new long[1];
                m.recv(got, 0, 1, Datatype.LONG, 0, 9);
                assertEquals(42, got[0]);
            }
        });
    }

    /**
     * Between ranks that map each other's inbox (threads of one JVM, or JVMs of a host over shared segments),
     * envelopes, medium payloads, tails and credits are plain stores: a stream of small and medium messages
     * issues no RMA operation. With {@code jrma.path=packet} or {@code jrma_msg_direct=false} every one of them
     * goes through the window's put/accumulate again; the data must arrive the same on both.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void directPublishIssuesNoRmaOperations(String path) {
        for (String direct : new String[] {"true", "false"}) {
            Jobs.run(path, 2, world -> {
                Info info = new Info();
                info.set("jrma_msg_direct", direct);
                try (Messenger m = Messenger.create(world, info)) {
                    int me = world.rank();
                    m.collectives().barrier();
                    long before = rmaOps(world);
                    long repliesBefore = replies(world);
                    m.collectives().barrier();
                    for (int k = 0; k < 300; k++) {
                        int n = k % 3 == 0 ? 2000 : 3; // medium (16000 bytes) and inline
                        long[] buf = new long[n];
                        if (me == 0) {
                            Arrays.fill(buf, k);
                            m.send(buf, 0, n, Datatype.LONG, 1, k);
                            m.recv(buf, 0, n, Datatype.LONG, 1, k);
                        } else {
                            m.recv(buf, 0, n, Datatype.LONG, 0, k);
                            for (long v : buf) {
                                assertEquals(k, v, "message " + k);
                            }
                            m.send(buf, 0, n, Datatype.LONG, 0, k);
                        }
                    }
                    m.collectives().barrier();
                    long issued = rmaOps(world) - before;
                    boolean expectDirect = direct.equals("true") && path.equals("auto");
                    if (expectDirect && Jobs.JVMS > 1) {
                        // JVMs of a host share inboxes when their windows live in shared segments (the default);
                        // over TCP they do not: either count is right here, the data checks above are the test
                    } else if (expectDirect) {
                        assertEquals(0, issued, "RMA operations issued for 600 messages between thread ranks");
                    } else {
                        assertTrue(issued >= 300, "RMA operations issued for 600 messages on the packet path"
                                + " (path " + path + ", jrma_msg_direct " + direct + "): " + issued);
                        // eager issue and in-order application: publishing waits for no acknowledgement (two
                        // flushes per message, each acknowledged, before); the barriers' own messages add none
                        long acked = replies(world) - repliesBefore;
                        assertTrue(acked < 60, "replies for 600 messages on the packet path (path " + path
                                + ", jrma_msg_direct " + direct + "): " + acked);
                    }
                    m.collectives().barrier();
                }
            });
        }
    }

    private static long replies(Comm world) {
        return Jrma.jvmCounters(world).get(WinCounters.Counter.REPLIES_RECEIVED);
    }

    private static long rmaOps(Comm world) {
        WinCounters c = Jrma.jvmCounters(world);
        return c.get(WinCounters.Counter.PUTS) + c.get(WinCounters.Counter.ACCUMULATES);
    }

    /**
     * A receiver that waits long enough sleeps on its inbox's futex word (when every peer stores directly), and
     * the sender that publishes a message to it sees the sleeper and bumps the word to wake it.
     */
    @Test
    @Timeout(60)
    void aSleepingReceiverIsWokenBySend() {
        Assumptions.assumeTrue(Futex.available(), "no futex here (JNA/Linux)");
        Jobs.run("auto", 2, world -> {
            Info info = new Info();
            info.set("jrma_msg_wait_spins", "0");
            info.set("jrma_msg_wait_yields", "0");
            info.set("jrma_msg_wait_max_park_ns", "1000000000"); // a timed park alone would take up to 1 s
            try (Messenger m = Messenger.create(world, info)) {
                long[] buf = new long[1];
                if (Jobs.JVMS == 1 || m.peers.wakeWord(1 - world.rank()) != null) {
                    if (world.rank() == 1) {
                        m.recv(buf, 0, 1, Datatype.LONG, 0, 5);
                        assertEquals(42, buf[0]);
                        assertTrue(m.peers.wakeWord(1)[0] >= 1,
                                "the sender bumped the futex word: " + Arrays.toString(m.peers.wakeWord(1)));
                    } else {
                        long deadline = System.nanoTime() + 20_000_000_000L;
                        // rank 1 asleep in its receive, and long enough that its parks have grown (1 us, doubling):
                        // a first short park may time out between this look and the send's, and then nobody sleeps
                        // when the send looks (the send need not and does not bump the word)
                        for (int look = 0; look < 2; look++) {
                            while (m.peers.wakeWord(1)[1] == 0) {
                                assertTrue(System.nanoTime() < deadline, "rank 1 never slept on its futex word");
                                Thread.onSpinWait();
                            }
                            if (look == 0) {
                                try {
                                    Thread.sleep(300); // its parks are now 100 ms and more
                                } catch (InterruptedException e) {
                                    throw new AssertionError(e);
                                }
                            }
                        }
                        buf[0] = 42;
                        m.send(buf, 0, 1, Datatype.LONG, 1, 5);
                    }
                }
                m.collectives().barrier();
            }
        });
    }

    /**
     * Between JVMs of a host, rendezvous data is read by one kernel copy from the sender's process (no GET
     * through the exposure window), unless {@code jrma_msg_cross_read=false}; the data is the same either way,
     * into a direct buffer, into an array (staged), and truncated.
     */
    @Test
    @Timeout(90)
    void rendezvousBetweenJvmsIsOneKernelCopy() {
        Assumptions.assumeTrue(Jobs.JVMS > 1, "needs ranks in 2 JVMs (the 2-JVM run of this suite)");
        Assumptions.assumeTrue(CrossMemory.available(), "no process_vm_readv here");
        for (String cross : new String[] {"true", "false"}) {
            Jobs.run("auto", 2, world -> {
                Info info = new Info();
                info.set("jrma_msg_cross_read", cross);
                try (Messenger m = Messenger.create(world, info)) {
                    int n = 300_000; // 2.4 MB: rendezvous
                    boolean mapped = m.peers.mem[1 - world.rank()] != null;
                    m.collectives().barrier();
                    long gets = Jrma.jvmCounters(world).get(WinCounters.Counter.GETS);
                    if (world.rank() == 0) {
                        ByteBuffer out = ByteBuffer.allocateDirect(8 * n).order(ByteOrder.nativeOrder());
                        for (int i = 0; i < n; i++) {
                            out.putLong(8 * i, value(0, 1, i));
                        }
                        m.send(out, 0, n, Datatype.LONG, 1, 1);
                        m.send(out, 0, n, Datatype.LONG, 1, 2);
                        m.send(out, 0, n, Datatype.LONG, 1, 3);
                    } else {
                        ByteBuffer in = ByteBuffer.allocateDirect(8 * n).order(ByteOrder.nativeOrder());
                        m.recv(in, 0, n, Datatype.LONG, 0, 1);
                        long[] arr = new long[n];
                        m.recv(arr, 0, n, Datatype.LONG, 0, 2);
                        long[] small = new long[n / 2];
                        RmaExceptionCheck.truncated(() -> m.recv(small, 0, n / 2, Datatype.LONG, 0, 3));
                        for (int i = 0; i < n; i += 997) {
                            assertEquals(value(0, 1, i), in.getLong(8 * i), "direct buffer, element " + i);
                            assertEquals(value(0, 1, i), arr[i], "array, element " + i);
                        }
                        assertEquals(value(0, 1, n / 2 - 1), small[n / 2 - 1], "truncated: the part that fits");
                        long read = Jrma.jvmCounters(world).get(WinCounters.Counter.GETS) - gets;
                        if (mapped && cross.equals("true")) {
                            assertEquals(0, read, "GETs through the exposure window with single-copy reads on");
                        } else if (mapped) {
                            assertTrue(read >= 3,
                                    "GETs through the exposure window with single-copy reads off: " + read);
                        }
                    }
                    m.collectives().barrier();
                }
            });
        }
    }

    /** Asserts that a receive fails with ERR_TRUNCATE. */
    private static final class RmaExceptionCheck {
        static void truncated(Runnable r) {
            RmaException e = Assertions.assertThrows(RmaException.class, r::run);
            assertEquals(ErrorClass.ERR_TRUNCATE, e.errorClass());
        }
    }
}
