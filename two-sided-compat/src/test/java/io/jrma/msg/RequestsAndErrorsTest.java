package io.jrma.msg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.Info;
import io.jrma.RmaException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Multi-request completion, flow control, datatypes, threads, and argument errors. */
class RequestsAndErrorsTest {

    private static void fails(ErrorClass ec, Executable e) {
        RmaException x = assertThrows(RmaException.class, e);
        assertEquals(ec, x.errorClass(), x.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void aReceiveThatHasNotMatchedCanBeCancelledOthersCannot(String path) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            if (world.rank() == 0) {
                int[] in = {-1};
                MsgRequest never = m.irecv(in, 0, 1, Datatype.INT, 1, 5);
                assertTrue(m.cancel(never));
                Status s = never.waitFor();
                assertTrue(s.cancelled());
                assertEquals(0, s.bytes());
                assertEquals(-1, in[0], "a cancelled receive stores nothing");
                assertFalse(m.cancel(never), "already complete");
                MsgRequest later = m.irecv(in, 0, 1, Datatype.INT, 1, 6);
                m.send(null, 0, 0, Datatype.BYTE, 1, 1); // go
                m.recv(null, 0, 0, Datatype.BYTE, 1, 2); // rank 1 has sent tags 5 and 6
                later.waitFor();
                assertFalse(m.cancel(later), "a completed receive is not cancelled");
                assertFalse(later.status().cancelled());
                assertEquals(66, in[0]);
                Status five = m.recv(in, 0, 1, Datatype.INT, 1, 5); // the message the cancelled receive did not take
                assertEquals(55, in[0]);
                assertFalse(five.cancelled());
                MsgRequest send = m.isend(new int[] {1}, 0, 1, Datatype.INT, 1, 7);
                assertFalse(m.cancel(send), "sends are not cancelled");
                send.waitFor();
            } else {
                m.recv(null, 0, 0, Datatype.BYTE, 0, 1);
                m.send(new int[] {55}, 0, 1, Datatype.INT, 0, 5);
                m.send(new int[] {66}, 0, 1, Datatype.INT, 0, 6);
                m.send(null, 0, 0, Datatype.BYTE, 0, 2);
                m.recv(new int[1], 0, 1, Datatype.INT, 0, 7);
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void waitAnyTestAnyWaitSome(String path) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            if (world.rank() == 0) {
                m.send(new int[] {11}, 0, 1, Datatype.INT, 1, 1);
                m.recv(null, 0, 0, Datatype.BYTE, 1, 100); // rank 1 has seen tag 1 alone
                m.send(new int[] {10}, 0, 1, Datatype.INT, 1, 0);
                m.send(new int[] {12}, 0, 1, Datatype.INT, 1, 2);
            } else {
                int[][] in = new int[3][1];
                MsgRequest[] rs = new MsgRequest[4];
                for (int t = 0; t < 3; t++) {
                    rs[t] = m.irecv(in[t], 0, 1, Datatype.INT, 0, t);
                }
                assertEquals(1, MsgRequest.waitAny(rs), "only tag 1 was sent");
                assertEquals(11, in[1][0]);
                assertEquals(-1, MsgRequest.testAny(rs), "tags 0 and 2 are not sent yet");
                assertFalse(MsgRequest.testAll(rs));
                m.send(null, 0, 0, Datatype.BYTE, 0, 100);
                Set<Integer> seen = new HashSet<>();
                while (seen.size() < 2) {
                    for (int i : MsgRequest.waitSome(rs)) {
                        assertTrue(seen.add(i), "index " + i + " reported twice");
                    }
                }
                assertEquals(Set.of(0, 2), seen);
                assertEquals(Status.UNDEFINED, MsgRequest.waitAny(rs), "no active request left");
                assertEquals(0, MsgRequest.waitSome(rs).length);
                assertTrue(MsgRequest.testAll(rs));
                assertEquals(1, rs[2].status().count());
                assertEquals(12, in[2][0]);
                assertEquals(10, in[0][0]);
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void waitAllReportsTruncationInStatus(String path) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            if (world.rank() == 0) {
                m.send(new long[] {1, 2, 3}, 0, 3, Datatype.LONG, 1, 0);
                m.send(new long[] {4}, 0, 1, Datatype.LONG, 1, 1);
            } else {
                long[] a = new long[2];
                long[] b = new long[2];
                MsgRequest ra = m.irecv(a, 0, 2, Datatype.LONG, 0, 0);
                MsgRequest rb = m.irecv(b, 0, 2, Datatype.LONG, 0, 1);
                fails(ErrorClass.ERR_IN_STATUS, () -> MsgRequest.waitAll(ra, rb));
                assertEquals(ErrorClass.ERR_TRUNCATE, ra.status().error());
                assertEquals(ErrorClass.SUCCESS, rb.status().error());
                assertArrayEquals(new long[] {1, 2}, a);
                assertEquals(4, b[0]);
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void tinyInboxBackPressureKeepsOrder(String path) {
        Info tiny = Info.of(MsgConfig.SLOTS, "2", MsgConfig.SLOT_BYTES, "128", MsgConfig.AREA_BYTES, "4096");
        int k = 300;
        Jobs.run(path, 2, world -> {
            Messenger m = Messenger.create(world, tiny);
            if (world.rank() == 0) {
                MsgRequest[] rs = new MsgRequest[k];
                for (int i = 0; i < k; i++) { // far more than fits: most wait in the sender's queue
                    long[] d = new long[1 + (i * 37) % 200]; // inline (<= 8 longs), medium, rendezvous (> 128 longs)
                    Arrays.fill(d, i);
                    rs[i] = m.isend(d, 0, d.length, Datatype.LONG, 1, 0);
                }
                m.send(null, 0, 0, Datatype.BYTE, 1, 1);
                MsgRequest.waitAll(rs);
            } else {
                m.recv(null, 0, 0, Datatype.BYTE, 0, 1); // received only after all were posted
                long[] d = new long[200];
                for (int i = 0; i < k; i++) {
                    Status s = m.recv(d, 0, d.length, Datatype.LONG, 0, 0);
                    assertEquals(1 + (i * 37) % 200, s.count(), "message " + i);
                    assertEquals(i, d[(int) s.count() - 1], "message " + i + " in order");
                }
            }
            m.free();
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void derivedAndPairDatatypes(String path) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            Datatype everyThird = Datatype.vector(4, 1, 3, Datatype.INT).commit(); // ints 0,3,6,9; extent 10
            Datatype rec = Datatype.struct(new long[] {1, 2}, new long[] {0, 8},
                    new Datatype[] {Datatype.LONG, Datatype.SHORT}).commit();
            if (world.rank() == 0) {
                int[] src = new int[100];
                Arrays.setAll(src, i -> i);
                m.send(src, 2, 3, everyThird, 1, 1); // origin at int 20: 20,23,26,29, 30,33,36,39, 40,...
                ByteBuffer pairs = Jobs.direct(16 * 3);
                for (int i = 0; i < 3; i++) {
                    pairs.putDouble(16 * i, i * 1.5).putInt(16 * i + 8, 100 + i);
                }
                m.send(pairs, 0, 3, Datatype.DOUBLE_INT, 1, 2);
                ByteBuffer recs = Jobs.direct(12 * 2);
                recs.putLong(0, 7).putShort(8, (short) 8).putShort(10, (short) 9);
                recs.putLong(12, 70).putShort(20, (short) 80).putShort(22, (short) 90);
                m.send(recs, 0, 2, rec, 1, 3);
                int[] big = new int[30_000 * 10];
                Arrays.setAll(big, i -> i);
                m.send(big, 0, 30_000, everyThird, 1, 4); // 480 KB through a staged rendezvous
            } else {
                int[] got = new int[12];
                Status s = m.recv(got, 0, 12, Datatype.INT, 0, 1);
                assertEquals(12, s.count());
                assertArrayEquals(new int[] {20, 23, 26, 29, 30, 33, 36, 39, 40, 43, 46, 49}, got);
                ByteBuffer pairs = Jobs.direct(16 * 4);
                pairs.putInt(16 * 3 + 12, 0x5EED);
                s = m.recv(pairs, 1, 3, Datatype.DOUBLE_INT, 0, 2); // at pair 1: pairs 1..3
                assertEquals(3, s.count());
                assertEquals(3.0, pairs.getDouble(16 * 3));
                assertEquals(102, pairs.getInt(16 * 3 + 8));
                assertEquals(0x5EED, pairs.getInt(16 * 3 + 12), "padding of a pair is not data");
                byte[] recs = new byte[40];
                m.recv(recs, 0, 2, rec, 0, 3);
                ByteBuffer v = ByteBuffer.wrap(recs).order(ByteOrder.LITTLE_ENDIAN);
                assertEquals(70, v.getLong(12));
                assertEquals(90, v.getShort(22));
                int[] big = new int[30_000 * 10];
                m.recv(big, 0, 30_000, everyThird, 0, 4);
                for (int i = 0; i < big.length; i++) {
                    int want = i % 10 % 3 == 0 ? i : 0;
                    if (big[i] != want) {
                        assertEquals(want, big[i], "element " + i);
                    }
                }
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void sameDirectBufferInTwoRendezvousSends(String path) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            int n = 100_000;
            if (world.rank() == 0) {
                ByteBuffer b = Jobs.direct(8 * n);
                for (int i = 0; i < n; i++) {
                    b.putLong(8 * i, i);
                }
                MsgRequest a = m.isend(b, 0, n, Datatype.LONG, 1, 1);
                MsgRequest c = m.isend(b, 10, n - 10, Datatype.LONG, 1, 2); // overlaps the first exposure
                MsgRequest.waitAll(a, c);
            } else {
                long[] x = new long[n];
                long[] y = new long[n];
                m.recv(y, 0, n - 10, Datatype.LONG, 0, 2);
                m.recv(x, 0, n, Datatype.LONG, 0, 1);
                assertEquals(n - 1, x[n - 1]);
                assertEquals(10, y[0]);
                assertEquals(n - 1, y[n - 11]);
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void threadsOfOneRankShareAMessenger(String path) {
        int perThread = 400;
        Jobs.withMessenger(path, 2, (world, m) -> {
            if (world.rank() == 0) {
                Thread[] ts = new Thread[3];
                Throwable[] err = new Throwable[1];
                for (int t = 0; t < ts.length; t++) {
                    int tag = t;
                    ts[t] = new Thread(() -> {
                        try {
                            for (int i = 0; i < perThread; i++) {
                                m.send(new long[] {i, tag}, 0, 2, Datatype.LONG, 1, tag);
                            }
                        } catch (Throwable e) {
                            err[0] = e;
                        }
                    });
                    ts[t].start();
                }
                for (Thread t : ts) {
                    t.join();
                }
                assertNull(err[0]);
            } else {
                long[] d = new long[2];
                int[] next = new int[3];
                for (int i = 0; i < 3 * perThread; i++) {
                    Status s = m.recv(d, 0, 2, Datatype.LONG, 0, Messenger.ANY_TAG);
                    assertEquals(s.tag(), d[1]);
                    assertEquals(next[s.tag()]++, d[0], "a thread's messages arrive in its order");
                }
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void twoMessengersDoNotShareMessages(String path) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            Messenger other = Messenger.create(world);
            if (world.rank() == 0) {
                m.send(new int[] {1}, 0, 1, Datatype.INT, 1, 0);
                other.send(new int[] {2}, 0, 1, Datatype.INT, 1, 0);
            } else {
                int[] x = new int[1];
                other.recv(x, 0, 1, Datatype.INT, Messenger.ANY_SOURCE, Messenger.ANY_TAG);
                assertEquals(2, x[0]);
                assertNull(other.iprobe(Messenger.ANY_SOURCE, Messenger.ANY_TAG));
                m.recv(x, 0, 1, Datatype.INT, 0, 0);
                assertEquals(1, x[0]);
            }
            other.free();
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void badArgumentsAreRejectedAndTheMessengerStillWorks(String path) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            long[] b = new long[4];
            fails(ErrorClass.ERR_RANK, () -> m.send(b, 0, 1, Datatype.LONG, 2, 0));
            fails(ErrorClass.ERR_RANK, () -> m.irecv(b, 0, 1, Datatype.LONG, -5, 0));
            fails(ErrorClass.ERR_TAG, () -> m.isend(b, 0, 1, Datatype.LONG, 1, -1));
            fails(ErrorClass.ERR_TAG, () -> m.irecv(b, 0, 1, Datatype.LONG, 1, -7));
            fails(ErrorClass.ERR_COUNT, () -> m.isend(b, 0, -1, Datatype.LONG, 1, 0));
            fails(ErrorClass.ERR_BUFFER, () -> m.isend(b, 1, 4, Datatype.LONG, 1, 0));
            fails(ErrorClass.ERR_BUFFER, () -> m.irecv(new Object(), 0, 1, Datatype.LONG, 1, 0));
            fails(ErrorClass.ERR_TYPE, () -> m.isend(b, 0, 1, Datatype.vector(2, 1, 2, Datatype.LONG), 1, 0));
            fails(ErrorClass.ERR_TYPE, () -> m.isend(b, 0, 1, null, 1, 0));
            if (world.rank() == 0) {
                MsgRequest pending = m.irecv(b, 0, 4, Datatype.LONG, 1, 3);
                fails(ErrorClass.ERR_REQUEST, m::free);
                m.send(null, 0, 0, Datatype.BYTE, 1, 2); // only now may rank 1 satisfy the receive
                assertEquals(2, pending.waitFor().count());
                assertEquals(6, b[1]);
            } else {
                m.recv(null, 0, 0, Datatype.BYTE, 0, 2);
                m.send(new long[] {5, 6}, 0, 2, Datatype.LONG, 0, 3);
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jrma.msg.Jobs#paths")
    @Timeout(60)
    void badSettingsAreRejected(String path) {
        Jobs.run(path, 1, world -> {
            fails(ErrorClass.ERR_INFO_VALUE, () -> Messenger.create(world, Info.of(MsgConfig.SLOTS, "1")));
            fails(ErrorClass.ERR_INFO_VALUE, () -> Messenger.create(world, Info.of(MsgConfig.SLOT_BYTES, "100")));
            fails(ErrorClass.ERR_INFO_VALUE, () -> Messenger.create(world,
                    Info.of(MsgConfig.AREA_BYTES, "8192", MsgConfig.EAGER_LIMIT, "4096")));
            fails(ErrorClass.ERR_INFO_VALUE, () -> Messenger.create(world, Info.of(MsgConfig.ZERO_COPY, "yes")));
            Messenger m = Messenger.create(world, Info.of(MsgConfig.SLOTS, "4"));
            m.free();
            fails(ErrorClass.ERR_COMM, () -> m.isend(null, 0, 0, Datatype.BYTE, 0, 0));
        });
    }
}
