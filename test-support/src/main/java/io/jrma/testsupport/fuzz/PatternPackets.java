package io.jrma.testsupport.fuzz;

import io.jrma.core.wire.Batch;
import io.jrma.core.wire.BatchReceiver;
import io.jrma.core.wire.PacketHeader;
import java.nio.ByteBuffer;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Honest packets of a fuzz campaign: after the header, byte {@code k} of a packet (counted from the packet's start)
 * is {@code (byte) (seq + k)}, so a receiver can tell an intact packet from one a lie of the fuzzer bent. The
 * {@link Receiver} counts what a transport delivers and how much of it came corrupt.
 */
public final class PatternPackets {
    private PatternPackets() {
    }

    /** The pattern byte at {@code k} of packet {@code seq}. */
    public static byte at(int seq, int k) {
        return (byte) (seq + k);
    }

    /** Fills the payload of the packet of {@code len} bytes at {@code at} with the pattern of {@code seq}. */
    public static void fill(MutableDirectBuffer buf, int at, int seq, int len) {
        for (int k = PacketHeader.HEADER_LENGTH; k < len; k++) {
            buf.putByte(at + k, at(seq, k));
        }
    }

    /** Fills the payload of the packet of {@code len} bytes at {@code at} with the pattern of {@code seq}. */
    public static void fill(ByteBuffer buf, int at, int seq, int len) {
        for (int k = PacketHeader.HEADER_LENGTH; k < len; k++) {
            buf.put(at + k, at(seq, k));
        }
    }

    /** Whether the packet at {@code at} carries its sequence number's pattern intact. */
    public static boolean intact(DirectBuffer buf, int at) {
        int seq = PacketHeader.seq(buf, at);
        int len = PacketHeader.length(buf, at);
        for (int k = PacketHeader.HEADER_LENGTH; k < len; k++) {
            if (buf.getByte(at + k) != at(seq, k)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Counts the batches and packets a transport delivers and the packets among them that came corrupt. A packet
     * whose payload was placed elsewhere ({@link Batch#externalAt}) is counted but not checked. Called by the
     * progress agent's duty cycle; the counts are read by the test thread (volatile, one writer).
     */
    public static final class Receiver implements BatchReceiver {
        private volatile long batches;
        private volatile long packets;
        private volatile long corrupt;

        @Override
        public void onBatch(Batch b) {
            batches++;
            for (int i = 0; i < b.count(); i++) {
                if (b.externalAt(i) == null && !intact(b.buffer(), b.offsetAt(i))) {
                    corrupt++;
                }
                packets++;
            }
            b.markConsumed();
        }

        @Override
        public int poll() {
            return 0;
        }

        public long batches() {
            return batches;
        }

        public long packets() {
            return packets;
        }

        public long corrupt() {
            return corrupt;
        }
    }
}
