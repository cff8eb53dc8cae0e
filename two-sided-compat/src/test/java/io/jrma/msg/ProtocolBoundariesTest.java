package io.jrma.msg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrma.Datatype;
import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.nio.ByteBuffer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Messages just below and just above every threshold of the protocol ladder (inline 192 bytes, 16 KiB, the eager
 * limit 64 KiB, above which a message to a rank of this JVM is handed off), each received as an unexpected
 * message after a wildcard probe, into a buffer one byte too small (ERR_TRUNCATE), many at once, and between a
 * derived datatype and plain bytes: on every path (the packet path has no hand-off: it checks the same sizes through
 * the inbox and rendezvous).
 */
class ProtocolBoundariesTest {
    /** Bytes around each threshold with the default settings on 2 ranks. */
    static final int[] SIZES = {192, 193, 16383, 16384, 65536, 65537};
    /** The eager limit with the default settings on 2 ranks (a quarter of a 256 KiB area). */
    static final int EAGER_LIMIT = 65536;
    /** Messages in flight at once in {@link #manyOutstandingReceivesPostedInReverse}. */
    static final int MANY = 100;

    static Stream<Arguments> pathsAndSizes() {
        return Jobs.MATRIX.pathsAnd(SIZES);
    }

    private static byte value(int msg, int i) {
        return (byte) (msg * 31 + i * 7 + 1);
    }

    private static ByteBuffer filled(int bytes, int msg) {
        ByteBuffer b = Jobs.direct(bytes);
        for (int i = 0; i < bytes; i++) {
            b.put(i, value(msg, i));
        }
        return b;
    }

    private static void check(byte[] in, int n, int msg, String what) {
        for (int i = 0; i < n; i++) {
            if (in[i] != value(msg, i)) {
                assertEquals(value(msg, i), in[i], what + ": byte " + i);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1} bytes")
    @MethodSource("pathsAndSizes")
    @Timeout(90)
    void unexpectedMessageAfterWildcardProbe(String path, int bytes) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            if (world.rank() == 0) {
                MsgRequest s = m.isend(filled(bytes, 1), 0, bytes, Datatype.BYTE, 1, 5);
                if (bytes > EAGER_LIMIT) {
                    assertFalse(s.test(), "a hand-off or rendezvous send completes only once matched");
                }
                world.barrier(); // the receiver posts nothing before this
                s.waitFor();
            } else {
                world.barrier();
                Status p = m.probe(Messenger.ANY_SOURCE, Messenger.ANY_TAG);
                assertEquals(0, p.source());
                assertEquals(5, p.tag());
                assertEquals(bytes, p.bytes(), "probed size");
                byte[] in = new byte[bytes + 1];
                in[bytes] = -3;
                Status s = m.recv(in, 0, bytes + 1, Datatype.BYTE, Messenger.ANY_SOURCE, Messenger.ANY_TAG);
                assertEquals(bytes, s.bytes());
                assertEquals(0, s.source());
                check(in, bytes, 1, "unexpected " + bytes + " bytes");
                assertEquals(-3, in[bytes], "nothing written past the message");
                if (path.equals("auto") && Jobs.JVMS == 1) {
                    assertEquals(bytes > EAGER_LIMIT ? 1 : 0, m.handoffsTaken,
                            "hand-offs between threads above the eager limit (jrma.msg.handoffMin auto)");
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} {1} bytes")
    @MethodSource("pathsAndSizes")
    @Timeout(90)
    void truncatedByOneByte(String path, int bytes) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            if (world.rank() == 0) {
                m.send(filled(bytes, 2), 0, bytes, Datatype.BYTE, 1, 6);
                MsgRequest s = m.isend(filled(bytes, 3), 0, bytes, Datatype.BYTE, 1, 7); // may wait for its receive
                world.barrier();
                s.waitFor();
            } else {
                byte[] in = new byte[bytes];
                in[bytes - 1] = -4;
                RmaException e = assertThrows(RmaException.class,
                        () -> m.recv(in, 0, bytes - 1, Datatype.BYTE, 0, 6));
                assertEquals(ErrorClass.ERR_TRUNCATE, e.errorClass());
                check(in, bytes - 1, 2, "truncated " + bytes + " bytes");
                assertEquals(-4, in[bytes - 1], "nothing written past the buffer");
                world.barrier(); // the second message arrives before its receive is posted
                MsgRequest r = m.irecv(in, 0, bytes - 1, Datatype.BYTE, Messenger.ANY_SOURCE, 7);
                RmaException e2 = assertThrows(RmaException.class, r::waitFor);
                assertEquals(ErrorClass.ERR_TRUNCATE, e2.errorClass());
                assertNotNull(r.status());
                assertEquals(ErrorClass.ERR_TRUNCATE, r.status().error());
                assertEquals(bytes - 1, r.status().bytes());
                check(in, bytes - 1, 3, "truncated unexpected " + bytes + " bytes");
            }
        });
    }

    @ParameterizedTest(name = "{0} {1} bytes")
    @MethodSource("pathsAndSizes")
    @Timeout(120)
    void manyOutstandingReceivesPostedInReverse(String path, int bytes) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            int n = bytes > 20_000 ? MANY / 4 : MANY;
            if (world.rank() == 0) {
                MsgRequest[] s = new MsgRequest[n];
                ByteBuffer[] out = new ByteBuffer[n];
                world.barrier();
                for (int k = 0; k < n; k++) {
                    out[k] = filled(bytes, k);
                    s[k] = m.isend(out[k], 0, bytes, Datatype.BYTE, 1, k);
                }
                MsgRequest.waitAll(s);
            } else {
                MsgRequest[] r = new MsgRequest[n];
                byte[][] in = new byte[n][bytes];
                for (int k = n - 1; k >= 0; k--) {
                    r[k] = m.irecv(in[k], 0, bytes, Datatype.BYTE, 0, k);
                }
                world.barrier();
                Status[] st = MsgRequest.waitAll(r);
                for (int k = 0; k < n; k++) {
                    assertEquals(k, st[k].tag());
                    assertEquals(bytes, st[k].bytes());
                    check(in[k], bytes, k, "message " + k + " of " + bytes + " bytes");
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} {1} bytes")
    @MethodSource("pathsAndSizes")
    @Timeout(90)
    void derivedTypeToPlainBytesAndBack(String path, int bytes) {
        Jobs.withMessenger(path, 2, (world, m) -> {
            // every other byte of a buffer twice as long: the sender's memory is not its packed form
            Datatype every2 = Datatype.vector(bytes, 1, 2, Datatype.BYTE).commit();
            if (world.rank() == 0) {
                byte[] spread = new byte[2 * bytes];
                for (int i = 0; i < bytes; i++) {
                    spread[2 * i] = value(4, i);
                    spread[2 * i + 1] = -1;
                }
                m.send(spread, 0, 1, every2, 1, 8);
                byte[] back = new byte[2 * bytes];
                m.recv(back, 0, 1, every2, 1, 9);
                for (int i = 0; i < bytes; i++) {
                    if (back[2 * i] != value(5, i) || back[2 * i + 1] != 0) {
                        assertEquals(value(5, i), back[2 * i], "derived receive: byte " + i);
                        assertEquals(0, back[2 * i + 1], "derived receive: gap after byte " + i);
                    }
                }
            } else {
                byte[] in = new byte[bytes];
                assertEquals(bytes, m.recv(in, 0, bytes, Datatype.BYTE, 0, 8).bytes());
                check(in, bytes, 4, "derived send");
                m.send(filled(bytes, 5), 0, bytes, Datatype.BYTE, 0, 9);
            }
        });
    }
}
